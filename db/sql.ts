// A thin dialect-neutral layer over better-sqlite3 and node-postgres for the loader: parameter binding, a
// statement cache, and transactions. Drizzle's query builder is not used on this path because bulk upserts
// need multi-row VALUES with a fixed shape per chunk and statements prepared once per shape.
import { hexDigest } from './hash.js';
import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import type { Database, Dialect } from './connect.js';
import { duckTransaction } from '../destinations/duckdb/tx.js';

export type Param = string | number | bigint | boolean | null;

export interface Tx {
  readonly dialect: Dialect;
  /** `$1`-style placeholder in Postgres and DuckDB, `?` in SQLite (n is 1-based). */
  ph(n: number): string;
  /** Runs a statement; resolves to the number of rows it inserted, updated or deleted. */
  run(sql: string, params: readonly Param[]): Promise<number>;
  /** Runs a query; integers come back as bigint (SQLite, DuckDB BIGINT) or decimal strings (Postgres int8): all exact. */
  all(sql: string, params: readonly Param[]): Promise<Array<Record<string, unknown>>>;
  /**
   * Runs `fn` inside a savepoint: when it throws, what it wrote is rolled back and the error passed on, while
   * the enclosing transaction (and what earlier savepoints wrote) stays usable. Lets several responses share
   * one transaction, its BEGIN/COMMIT and fsync, while each stays atomic on its own (db/load.ts loadBatches).
   * DuckDB has no savepoints: there it only runs `fn`, and loadBatches gives each response its own transaction.
   */
  savepoint<T>(fn: () => Promise<T>): Promise<T>;
}

async function inSavepoint<T>(exec: (sql: string) => Promise<unknown>, fn: () => Promise<T>): Promise<T> {
  await exec('SAVEPOINT se_item');
  try {
    const out = await fn();
    await exec('RELEASE SAVEPOINT se_item');
    return out;
  } catch (err) {
    await exec('ROLLBACK TO SAVEPOINT se_item');
    await exec('RELEASE SAVEPOINT se_item');
    throw err;
  }
}

// DuckDB has no fixed bound; it keeps the Postgres one (statements of 256 rows stay far below it anyway).
export const MAX_PARAMS = { sqlite: 32_766, postgres: 65_535, duckdb: 65_535 } as const;

// ---- SQLite ----------------------------------------------------------------------------------------------

const sqliteStatements = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();
const sqliteLocks = new WeakMap<BetterSqlite3.Database, Promise<unknown>>();

function sqliteStatement(db: BetterSqlite3.Database, sql: string): BetterSqlite3.Statement {
  let cache = sqliteStatements.get(db);
  if (!cache) sqliteStatements.set(db, (cache = new Map()));
  let stmt = cache.get(sql);
  if (!stmt) {
    stmt = db.prepare(sql);
    if (stmt.reader) stmt.safeIntegers(true);
    cache.set(sql, stmt);
  }
  return stmt;
}

function sqliteParams(params: readonly Param[]): Array<string | number | bigint | null> {
  // better-sqlite3 has no boolean binding; SQLite's own convention is 0/1.
  return params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p));
}

function sqliteTx(db: BetterSqlite3.Database): Tx {
  return {
    dialect: 'sqlite',
    ph: () => '?',
    run: async (sql, params) => sqliteStatement(db, sql).run(...sqliteParams(params)).changes,
    all: async (sql, params) => sqliteStatement(db, sql).all(...sqliteParams(params)) as Array<Record<string, unknown>>,
    savepoint: (fn) => inSavepoint(async (sql) => db.exec(sql), fn),
  };
}

// ---- Postgres --------------------------------------------------------------------------------------------

function pgParams(params: readonly Param[]): Array<string | number | boolean | null> {
  return params.map((p) => (typeof p === 'bigint' ? p.toString() : p));
}

function pgTx(client: pg.PoolClient): Tx {
  // Named statements are parsed and planned once per connection; names derive from the SQL text.
  const named = (sql: string) => `se_${hexDigest('sha1', sql).slice(0, 20)}`;
  // Statements are queued here, one sent when the one before it has answered, so a caller may send several without
  // awaiting each (the group writer builds the next statement while the server runs the last) without calling
  // client.query on a busy client, which node-postgres deprecates.
  let last: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(send: () => Promise<T>): Promise<T> => {
    const next = last.then(send, send);
    last = next.catch(() => {});
    return next;
  };
  const query = (sql: string, params: readonly Param[]) => inTurn(() => client.query({ name: named(sql), text: sql, values: pgParams(params) }));
  return {
    dialect: 'postgres',
    ph: (n) => `$${n}`,
    run: async (sql, params) => (await query(sql, params)).rowCount ?? 0,
    all: async (sql, params) => (await query(sql, params)).rows,
    savepoint: (fn) => inSavepoint((sql) => inTurn(() => client.query(sql)), fn),
  };
}

/** Postgres failures that mean "run the whole transaction again": serialization failure and deadlock. */
const RETRYABLE_PG_CODES = new Set(['40001', '40P01']);
/** Attempts of one Postgres transaction before a retryable failure is passed on (then the activity retries). */
export const MAX_TRANSACTION_ATTEMPTS = 5;

export function isRetryableTxError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE_PG_CODES.has(code);
}

/**
 * BEGIN IMMEDIATE, waiting for another connection's write lock on the event loop instead of in SQLite's busy
 * handler, which sleeps inside the call: a worker waiting there froze its whole process (its fetches, the
 * parsing and flattening of the next responses, its heartbeats) while the other worker wrote, and in one
 * process two connections deadlocked, the waiting one blocking the thread that would release the lock until
 * SQLITE_BUSY. Each try runs with busy_timeout 0; between tries the event loop runs for a few milliseconds. Gives
 * up with SQLITE_BUSY after the connection's busy_timeout, as the blocking wait did.
 */
export async function beginImmediate(sqlite: BetterSqlite3.Database): Promise<void> {
  const timeoutMs = Number(sqlite.pragma('busy_timeout', { simple: true }));
  const deadline = Date.now() + timeoutMs;
  for (let pauseMs = 1; ; pauseMs = Math.min(pauseMs * 2, 4)) {
    if (timeoutMs > 0) sqlite.pragma('busy_timeout = 0');
    try {
      sqlite.exec('BEGIN IMMEDIATE');
      return;
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw err;
    } finally {
      if (timeoutMs > 0) sqlite.pragma(`busy_timeout = ${timeoutMs}`);
    }
    await new Promise((r) => setTimeout(r, pauseMs));
  }
}

/**
 * Runs `fn` in one transaction: all of it commits or none of it does. SQLite takes the write lock up front
 * (BEGIN IMMEDIATE, waiting up to busy_timeout for other connections without blocking the thread), and calls on the same connection are
 * queued because one better-sqlite3 connection can hold only one transaction. In Postgres a transaction that
 * the server aborts as a deadlock victim or for a serialization failure is rolled back and run again (up to
 * MAX_TRANSACTION_ATTEMPTS times, after a short random pause), so `fn` must not have effects outside the
 * transaction that cannot be repeated. DuckDB transactions run one at a time per file, across processes too
 * (db/duckdb/database.ts).
 */
export async function withTransaction<T>(db: Database, fn: (tx: Tx) => Promise<T>): Promise<T> {
  // DuckDB: the session holds the file's lock (one process at a time) and queues this process's transactions.
  if (db.dialect === 'duckdb') return db.session((conn) => duckTransaction(conn, fn));
  if (db.dialect === 'sqlite') return sqliteTransaction(db.sqlite, () => beginImmediate(db.sqlite), fn);
  for (let attempt = 1; ; attempt++) {
    try {
      return await pgTransaction(db.pool, fn);
    } catch (err) {
      if (!isRetryableTxError(err) || attempt >= MAX_TRANSACTION_ATTEMPTS) throw err;
      // Random, growing pauses so the transactions that collided do not collide again in step.
      await new Promise((r) => setTimeout(r, Math.random() * 25 * 2 ** attempt));
    }
  }
}

/** `fn` in a transaction begun by `begin`, queued behind this connection's other transactions. */
function sqliteTransaction<T>(sqlite: BetterSqlite3.Database, begin: () => Promise<void> | void, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const previous = sqliteLocks.get(sqlite) ?? Promise.resolve();
  const current = previous.catch(() => {}).then(async () => {
    await begin();
    try {
      const result = await fn(sqliteTx(sqlite));
      sqlite.exec('COMMIT');
      return result;
    } catch (err) {
      if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
      throw err;
    }
  });
  sqliteLocks.set(sqlite, current);
  return current;
}

/**
 * Reads in one consistent snapshot. In SQLite a deferred BEGIN, which takes no write lock, so writers (the
 * other workers' loads) go on meanwhile in WAL mode; `fn` must only read. Elsewhere the same as withTransaction.
 */
export async function withReadTransaction<T>(db: Database, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if (db.dialect !== 'sqlite') return withTransaction(db, fn);
  return sqliteTransaction(db.sqlite, () => void db.sqlite.exec('BEGIN'), fn);
}

async function pgTransaction<T>(pool: pg.Pool, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    try {
      const result = await fn(pgTx(client));
      await client.query('COMMIT');
      return result;
    } catch (err) {
      // A connection whose ROLLBACK fails is not handed back to the pool for reuse.
      await client.query('ROLLBACK').catch((rollbackErr: Error) => {
        broken = rollbackErr;
      });
      throw err;
    }
  } finally {
    client.release(broken);
  }
}

/**
 * Takes Postgres transaction-level advisory locks on `keys` in ascending order, in one statement (unnest yields the
 * array in order and each row's lock is taken as the row is produced): loads that lock overlapping sets in the same
 * order wait for each other instead of deadlocking.
 */
export async function lockAdvisory(tx: Tx, keys: Iterable<bigint>): Promise<void> {
  const sorted = [...new Set(keys)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (sorted.length === 0) return;
  await tx.all(`SELECT pg_advisory_xact_lock(k) FROM unnest(${tx.ph(1)}::bigint[]) AS k`, [`{${sorted.join(',')}}`]);
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
