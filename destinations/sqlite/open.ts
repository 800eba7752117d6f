// Opening, migrating and probing an SQLite destination file.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { drizzle as drizzleSqlite } from 'drizzle-orm/better-sqlite3';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import * as sqliteSchema from './schema.js';
import type { SqliteDatabase } from '../contract.js';
import { existingDatabaseFile } from '../file-probe.js';
// The adapter this engine's handles carry (read at run time only, so the import cycle with index.ts is harmless).
import { sqliteDestination } from './index.js';
import { waitForLocks, writeDurability } from './connection-settings.js';

const MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export function openSqlite(file: string, url: string): SqliteDatabase {
  if (file !== ':memory:') {
    try {
      fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    } catch (err) {
      throw new Error(`cannot create the folder of SQLite database '${file}': ${(err as Error).message}`, {
        cause: err,
      });
    }
  }
  let sqlite: BetterSqlite3.Database;
  try {
    sqlite = new BetterSqlite3(file);
  } catch (err) {
    throw new Error(`cannot open SQLite database '${file}': ${(err as Error).message}`, { cause: err });
  }
  try {
    // busy_timeout first: switching to WAL and migrating both take locks another process may hold.
    waitForLocks(sqlite);
    if (file !== ':memory:') sqlite.pragma('journal_mode = WAL');
    writeDurability(sqlite);
    migrateSqlite(sqlite);
  } catch (err) {
    sqlite.close();
    throw new Error(`cannot prepare SQLite database '${file}': ${(err as Error).message}`, { cause: err });
  }
  const db = drizzleSqlite({ client: sqlite, schema: sqliteSchema });
  return {
    dialect: 'sqlite',
    adapter: sqliteDestination,
    url: url.trim(),
    drizzle: db,
    sqlite,
    close: async () => {
      if (sqlite.open) sqlite.close();
    },
  };
}

/**
 * drizzle's own SQLite migrator reads the applied list before it opens its (deferred) transaction, so two
 * processes starting together could both apply the same migration. Here the check and the apply happen inside
 * one BEGIN IMMEDIATE, which holds the write lock; the second process waits (busy_timeout) and then sees the
 * migrations already recorded.
 */
function migrateSqlite(sqlite: BetterSqlite3.Database): void {
  const migrations = readMigrationFiles({ migrationsFolder: MIGRATIONS });
  sqlite.exec('BEGIN IMMEDIATE');
  try {
    sqlite.exec(
      'CREATE TABLE IF NOT EXISTS "__drizzle_migrations" (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)',
    );
    const last = sqlite
      .prepare('SELECT created_at FROM "__drizzle_migrations" ORDER BY created_at DESC LIMIT 1')
      .get() as { created_at: number | string } | undefined;
    const lastMillis = last ? Number(last.created_at) : -Infinity;
    const record = sqlite.prepare('INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES (?, ?)');
    for (const m of migrations) {
      if (m.folderMillis <= lastMillis) continue;
      for (const stmt of m.sql) if (stmt.trim() !== '') sqlite.exec(stmt);
      record.run(m.hash, m.folderMillis);
    }
    sqlite.exec('COMMIT');
  } catch (err) {
    if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
    throw err;
  }
}

export function probeSqlite(file: string): void {
  if (file === ':memory:') return;
  const full = path.resolve(file);
  if (!existingDatabaseFile(full, 'sqlite')) return;
  let sqlite: BetterSqlite3.Database | undefined;
  try {
    sqlite = new BetterSqlite3(full, { readonly: true, fileMustExist: true });
    // Opening reads nothing; the first query reads the header, which is where "file is not a database" shows.
    sqlite.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
      throw new Error(
        `${full} is not an SQLite database (${(err as Error).message}); point destination.database at an SQLite database file, or at a path that does not exist yet`,
        { cause: err },
      );
    }
    throw new Error(`cannot open SQLite database ${full}: ${(err as Error).message}`, { cause: err });
  } finally {
    sqlite?.close();
  }
  // A load writes the file and creates its -wal and -shm files beside it.
  for (const [target, what] of [
    [full, 'the database file'],
    [path.dirname(full), 'its folder (SQLite writes a -wal file there)'],
  ] as const) {
    try {
      fs.accessSync(target, fs.constants.W_OK);
    } catch {
      throw new Error(`${what} ${target} is not writable by this user`);
    }
  }
}
