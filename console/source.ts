// A destination database opened for reading only, whatever its dialect. The console and the report never write:
// each dialect is opened so that the database itself refuses a write, not only this code's good behaviour.
//   SQLite:   better-sqlite3 `readonly: true` (the file is opened O_RDONLY) and `PRAGMA query_only = ON`.
//   Postgres: every session starts with `default_transaction_read_only = on` (a startup option of the pool), so
//             even a statement sent by mistake fails with "cannot execute ... in a read-only transaction".
//   DuckDB:   `access_mode: READ_ONLY`. DuckDB lets one process hold a file open for writing, so a read session
//             takes the project's cross-process file lock (destinations/duckdb/file-lock.ts) like a worker's load does,
//             opens, reads and closes: a worker waiting for the file gets it after the page is read.
// Nothing here migrates, creates a folder or a file (unlike db/connect.ts's openDatabase, which prepares a
// destination for loading).
import fs from 'node:fs';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { parseDatabaseUrl, redactDatabaseUrl, type Dialect } from '../db/connect.js';
import type { ExportDatabase } from '../export/database.js';
import { destinationOf } from '../destinations/index.js';

export type Row = Record<string, unknown>;

/** How long a DuckDB file stays open after a read (unless a worker waits for it). */
const DUCK_LINGER_MS = 1000;

/** One consistent read (a page's queries): placeholders and queries in the source's dialect. */
export interface Reader {
  readonly dialect: Dialect;
  /** `?` in SQLite, `$n` elsewhere (n is 1-based). */
  ph(n: number): string;
  all(sql: string, params?: readonly unknown[]): Promise<Row[]>;
}

export interface ReadOnlySource {
  readonly dialect: Dialect;
  /** The URL, password removed. */
  readonly url: string;
  /** Runs `fn` with a reader; DuckDB holds the file (read-only) for exactly this long. */
  read<T>(fn: (r: Reader) => Promise<T>): Promise<T>;
  /** The same connection in the shape export/ reads (for the download through the export writers). */
  exportDatabase(): ExportDatabase;
  close(): Promise<void>;
}

export class SourceError extends Error {
  override readonly name = 'SourceError';
}

export async function openReadOnly(url: string): Promise<ReadOnlySource> {
  const parsed = parseDatabaseUrl(url);
  return destinationOf(parsed).openReadOnly(parsed as never, url);
}

function mustExist(file: string, scheme: string): string {
  const full = path.resolve(file);
  if (!fs.existsSync(full)) {
    throw new SourceError(`${scheme} database ${full} does not exist; the console reads an existing destination (run a pipeline first, or pass --database ${scheme}:<path of your database file>)`);
  }
  return full;
}

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
    url: url.trim(),
    // One snapshot for the page's queries: a deferred BEGIN takes no write lock (loads go on in WAL mode).
    // Pages are read one after another: one connection holds one transaction, and two requests interleaving
    // their awaits would otherwise nest BEGINs.
    read: (fn) => {
      const run = queue.catch(() => {}).then(async () => {
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
    exportDatabase: () => ({ dialect: 'sqlite', sqlite: db }),
    close: async () => {
      if (db.open) db.close();
    },
  };
}

export async function openPostgresReadOnly(url: string): Promise<ReadOnlySource> {
  const { default: pgModule } = await import('pg');
  const safe = redactDatabaseUrl(url);
  // Every value as the server's text (int8 exact, timestamps as written); pages format what they show.
  const types = { getTypeParser: () => (v: string) => v };
  const pool = new pgModule.Pool({
    connectionString: url,
    max: 4,
    application_name: 'scrape-etl-console',
    options: '-c default_transaction_read_only=on -c statement_timeout=30000',
    types,
  } as pg.PoolConfig);
  pool.on('error', () => {});
  pool.on('connect', (c) => c.on('error', () => {}));
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    await pool.end().catch(() => {});
    throw new SourceError(`cannot connect to Postgres ${safe}: ${(err as Error).message}`, { cause: err });
  }
  return {
    dialect: 'postgres',
    url: safe,
    read: async (fn) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN READ ONLY');
        try {
          return await fn({ dialect: 'postgres', ph: (n) => `$${n}`, all: async (sql, params = []) => (await client.query(sql, params as unknown[])).rows as Row[] });
        } finally {
          await client.query('ROLLBACK').catch(() => {});
        }
      } finally {
        client.release();
      }
    },
    exportDatabase: () => ({ dialect: 'postgres', pool }),
    close: async () => {
      await pool.end();
    },
  };
}

export async function openDuckReadOnly(file: string, url: string): Promise<ReadOnlySource> {
  const full = mustExist(file, 'duckdb');
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const { acquireFileLock } = await import('../destinations/duckdb/file-lock.js');
  const { otherProcessesWaiting } = await import('../destinations/duckdb/file-lock.js');
  let queue: Promise<unknown> = Promise.resolve();
  let open: { instance: DuckDBInstance; conn: DuckDBConnection; release: () => void } | undefined;
  let linger: NodeJS.Timeout | undefined;
  const closeNow = () => {
    clearTimeout(linger);
    linger = undefined;
    const o = open;
    open = undefined;
    if (!o) return;
    try {
      o.conn.closeSync();
      o.instance.closeSync();
    } finally {
      o.release();
    }
  };
  // Opening costs tens of milliseconds, and a page's requests (and the next click) come in bursts: the file stays
  // open for LINGER_MS after a read, unless a worker is waiting for it (it leaves a marker): then it is closed at
  // once, and the worker's load goes first.
  const session = <T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> => {
    const run = queue.catch(() => {}).then(async () => {
      clearTimeout(linger);
      if (!open) {
        const release = await acquireFileLock(full);
        try {
          const instance = await DuckDBInstance.create(full, { access_mode: 'READ_ONLY', threads: '2' });
          open = { instance, conn: await instance.connect(), release };
        } catch (err) {
          release();
          throw err;
        }
      }
      try {
        return await fn(open.conn);
      } finally {
        if (otherProcessesWaiting(full)) closeNow();
        else linger = setTimeout(closeNow, DUCK_LINGER_MS).unref();
      }
    });
    queue = run;
    return run;
  };
  // A first session proves the file is a DuckDB database now rather than on the first page.
  try {
    await session(async (c) => c.run('SELECT 1'));
  } catch (err) {
    throw new SourceError(`cannot open DuckDB database ${full} read-only: ${(err as Error).message}`, { cause: err });
  }
  return {
    dialect: 'duckdb',
    url: url.trim(),
    read: (fn) =>
      session((conn) =>
        fn({
          dialect: 'duckdb',
          ph: (n) => `$${n}`,
          all: async (sql, params = []) => (await conn.runAndReadAll(sql, params as never)).getRowObjectsJS() as Row[],
        }),
      ),
    exportDatabase: () => ({ dialect: 'duckdb', session }),
    close: async () => {
      await queue.catch(() => {});
      closeNow();
    },
  };
}
