// Opens the destination database named by a URL and brings its schema up to date. Both dialects apply the
// committed drizzle-kit migrations (db/migrations/<dialect>) and record them in drizzle's own
// `__drizzle_migrations` table, so `drizzle-kit migrate` and this module agree on what has been applied.
import { redactDatabaseUrl } from './url.js';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { drizzle as drizzleSqlite, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { drizzle as drizzlePg, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import * as sqliteSchema from './schema/sqlite.js';
import * as pgSchema from './schema/pg.js';

export type Dialect = 'sqlite' | 'postgres';

interface DatabaseBase {
  /** The URL it was opened with, password removed (safe to log). */
  url: string;
  close(): Promise<void>;
}
export interface SqliteDatabase extends DatabaseBase {
  dialect: 'sqlite';
  drizzle: BetterSQLite3Database<typeof sqliteSchema>;
  /** The raw driver, for streaming reads (use `stmt.safeIntegers(true)` to read ids beyond 2^53 exactly). */
  sqlite: BetterSqlite3.Database;
  pool?: undefined;
}
export interface PostgresDatabase extends DatabaseBase {
  dialect: 'postgres';
  drizzle: NodePgDatabase<typeof pgSchema>;
  sqlite?: undefined;
  /** The raw pool (int8 columns come back as decimal strings: exact). */
  pool: pg.Pool;
}
export type Database = SqliteDatabase | PostgresDatabase;

export const DEFAULT_DATABASE_URL = 'sqlite:./data/scrape-etl.sqlite';

export function defaultDatabaseUrl(): string {
  const fromEnv = process.env['DATABASE_URL'];
  return fromEnv && fromEnv.trim() !== '' ? fromEnv.trim() : DEFAULT_DATABASE_URL;
}

/** The URL with any password replaced, for messages and logs. */
export { redactDatabaseUrl } from './url.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const MIGRATIONS = { sqlite: path.join(here, 'migrations', 'sqlite'), postgres: path.join(here, 'migrations', 'pg') };

// Any constant works; it only has to be the same in every process that migrates this schema.
const PG_MIGRATION_LOCK_KEY = 7_238_451_907;

export function parseDatabaseUrl(url: string): { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; url: string } {
  const trimmed = url.trim();
  if (/^postgres(ql)?:\/\//i.test(trimmed)) return { dialect: 'postgres', url: trimmed };
  if (/^sqlite:/i.test(trimmed)) {
    let file = trimmed.slice('sqlite:'.length);
    // Accept sqlite:///abs/path and sqlite://rel/path as well as the plain sqlite:<path> form.
    if (file.startsWith('//')) file = file.slice(2);
    if (file === '') throw new Error(`database URL '${trimmed}' has no file path (expected sqlite:<path>)`);
    return { dialect: 'sqlite', file };
  }
  throw new Error(
    `unsupported database URL '${redactDatabaseUrl(trimmed)}': expected 'sqlite:<path>' or 'postgres://user@host:port/db'`,
  );
}

export interface OpenDatabaseOptions {
  /** Postgres: most connections this Database holds at once. Default SCRAPE_ETL_PG_POOL_SIZE or 10. */
  poolSize?: number;
}

/**
 * Connections per Postgres pool. A worker opens one pool per destination URL and shares it between all its
 * activities (activities/resources.ts); loads queue for a connection rather than open more, so several workers
 * stay within the server's max_connections (workers x pool size). Ten matches node-postgres's default and keeps
 * a worker's 20 concurrent activities busy, since each transaction holds its connection only while it writes.
 */
export const DEFAULT_PG_POOL_SIZE = 10;

export function pgPoolSize(env: NodeJS.ProcessEnv = process.env): number {
  const v = env['SCRAPE_ETL_PG_POOL_SIZE']?.trim();
  if (!v) return DEFAULT_PG_POOL_SIZE;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 1000) {
    throw new Error(`SCRAPE_ETL_PG_POOL_SIZE='${v}' must be an integer from 1 to 1000 (connections per Postgres pool)`);
  }
  return n;
}

/**
 * A destination that no retry can open: not a database, no permission, a wrong password, a database that does not
 * exist. Its message names the destination (password redacted) and the fix; callers fail at once instead of
 * retrying (a network error or a busy server is not one of these).
 */
export class DatabaseConfigError extends Error {
  override readonly name = 'DatabaseConfigError';
}

const PERMANENT_SQLITE_CODES = new Set(['SQLITE_NOTADB', 'SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_CORRUPT', 'SQLITE_PERM', 'SQLITE_AUTH']);
const PERMANENT_FS_CODES = new Set(['EACCES', 'EPERM', 'ENOTDIR', 'EROFS', 'EISDIR', 'ENAMETOOLONG']);
// 28000/28P01: authentication; 3D000: no such database; 42501: insufficient privilege; 3F000: no such schema.
const PERMANENT_PG_CODES = new Set(['28000', '28P01', '3D000', '42501', '3F000']);

function isPermanentOpenError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return PERMANENT_SQLITE_CODES.has(code) || PERMANENT_FS_CODES.has(code) || PERMANENT_PG_CODES.has(code);
}

export async function openDatabase(url: string, opts: OpenDatabaseOptions = {}): Promise<Database> {
  const parsed = parseDatabaseUrl(url);
  try {
    return parsed.dialect === 'sqlite' ? openSqlite(parsed.file, url) : await openPostgres(parsed.url, opts.poolSize ?? pgPoolSize());
  } catch (err) {
    if (err instanceof Error && isPermanentOpenError(err.cause ?? err)) throw new DatabaseConfigError(err.message, { cause: err.cause ?? err });
    throw err;
  }
}

function openSqlite(file: string, url: string): SqliteDatabase {
  if (file !== ':memory:') {
    try {
      fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    } catch (err) {
      throw new Error(`cannot create the folder of SQLite database '${file}': ${(err as Error).message}`, { cause: err });
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
    sqlite.pragma('busy_timeout = 15000');
    if (file !== ':memory:') sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    migrateSqlite(sqlite);
  } catch (err) {
    sqlite.close();
    throw new Error(`cannot prepare SQLite database '${file}': ${(err as Error).message}`, { cause: err });
  }
  const db = drizzleSqlite({ client: sqlite, schema: sqliteSchema });
  return {
    dialect: 'sqlite',
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
  const migrations = readMigrationFiles({ migrationsFolder: MIGRATIONS.sqlite });
  sqlite.exec('BEGIN IMMEDIATE');
  try {
    sqlite.exec(
      'CREATE TABLE IF NOT EXISTS "__drizzle_migrations" (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)',
    );
    const last = sqlite.prepare('SELECT created_at FROM "__drizzle_migrations" ORDER BY created_at DESC LIMIT 1').get() as
      | { created_at: number | string }
      | undefined;
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

async function openPostgres(url: string, poolSize: number): Promise<PostgresDatabase> {
  const safeUrl = redactDatabaseUrl(url);
  if (!Number.isInteger(poolSize) || poolSize < 1) throw new Error(`Postgres pool size must be a positive integer, got ${poolSize}`);
  // application_name makes a worker's connections recognisable in pg_stat_activity.
  const pool = new pg.Pool({ connectionString: url, max: poolSize, application_name: 'scrape-etl' });
  // An idle client losing its connection must not crash the process; the next query reports the failure.
  pool.on('error', () => {});
  try {
    const client = await pool.connect();
    try {
      // Serialise concurrent migrators (several workers starting at once) on a session-level advisory lock.
      await client.query('SELECT pg_advisory_lock($1)', [PG_MIGRATION_LOCK_KEY]);
      try {
        await migratePg(drizzlePg({ client }), { migrationsFolder: MIGRATIONS.postgres });
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [PG_MIGRATION_LOCK_KEY]);
      }
    } finally {
      client.release();
    }
  } catch (err) {
    await pool.end().catch(() => {});
    throw new Error(`cannot prepare Postgres database ${safeUrl}: ${(err as Error).message}`, { cause: err });
  }
  let closed = false;
  return {
    dialect: 'postgres',
    url: safeUrl,
    drizzle: drizzlePg({ client: pool, schema: pgSchema }),
    pool,
    close: async () => {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
