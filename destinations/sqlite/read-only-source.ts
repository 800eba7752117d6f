// SQLite opened for reading only (the console, the report): better-sqlite3 `readonly: true` (the file is opened
// O_RDONLY) and `PRAGMA query_only = ON`.
import type BetterSqlite3 from 'better-sqlite3';
import type { ReadOnlySource, Reader, Row } from '../contract.js';
import { mustExist, SourceError } from '../read-only-errors.js';
// The adapter this engine's handles carry (read at run time only, so the import cycle with index.ts is harmless).
import { sqliteDestination } from './index.js';

export async function openSqliteReadOnly(file: string, url: string): Promise<ReadOnlySource> {
  const full = mustExist(file, 'sqlite');
  const { default: BetterSqlite3 } = await import('better-sqlite3');
  let db: BetterSqlite3.Database;
  try {
    db = new BetterSqlite3(full, { readonly: true, fileMustExist: true });
    db.pragma('query_only = ON');
    db.pragma('busy_timeout = 5000');
    db.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (err) {
    throw new SourceError(`cannot open SQLite database ${full} read-only: ${(err as Error).message}`, { cause: err });
  }
  const statements = new Map<string, BetterSqlite3.Statement>();
  let queue: Promise<unknown> = Promise.resolve();
  const reader: Reader = {
    dialect: 'sqlite',
    adapter: sqliteDestination,
    ph: () => '?',
    all: async (sql, params = []) => {
      let stmt = statements.get(sql);
      if (!stmt) {
        stmt = db.prepare(sql);
        stmt.safeIntegers(true);
        if (statements.size > 500) statements.clear();
        statements.set(sql, stmt);
      }
      // A statement that returns no rows is still executed (and refused by the read-only connection), never skipped.
      if (!stmt.reader) {
        stmt.run(...(params as unknown[]));
        return [];
      }
      return stmt.all(...(params as unknown[])) as Row[];
    },
  };
  return {
    dialect: 'sqlite',
    adapter: sqliteDestination,
    url: url.trim(),
    // One snapshot for the page's queries: a deferred BEGIN takes no write lock (loads go on in WAL mode).
    // Pages are read one after another: one connection holds one transaction, and two requests interleaving
    // their awaits would otherwise nest BEGINs.
    read: (fn) => {
      const run = queue
        .catch(() => {})
        .then(async () => {
          db.exec('BEGIN');
          try {
            return await fn(reader);
          } finally {
            if (db.inTransaction) db.exec('COMMIT');
          }
        });
      queue = run;
      return run;
    },
    exportDatabase: () => ({ dialect: 'sqlite', adapter: sqliteDestination, sqlite: db }),
    close: async () => {
      if (db.open) db.close();
    },
  };
}
