// The destination-neutral statement interface of the loader (Tx) and its transactions; each destination's
// binding, statement cache and transaction rules are its adapter's (destinations/<name>/tx.ts). Drizzle's query
// builder is not used on this path because bulk upserts need multi-row VALUES with a fixed shape per chunk and
// statements prepared once per shape.
import type { Database, Dialect } from './connect.js';
import { destinationOf } from '../destinations/index.js';

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
  /**
   * Destinations whose schema registry reads may be kept per connection between transactions (SQLite: other
   * processes write the same file, so a kept read is used only while `registryVersion` is unchanged; DuckDB: one
   * process holds the file, and the version counts this connection's changes). Absent (Postgres): every read goes
   * to the database (evolve/registry.ts readRegistryStateKept).
   */
  readonly registryKeeping?: RegistryKeeping;
}

export interface RegistryKeeping {
  /** What a kept read belongs to: the connection (one per process and file). */
  readonly connection: object;
  /**
   * A version of the schema_history rows matching `where` (its parameters `params`), read in this transaction:
   * equal versions mean equal rows, given that those rows change only with DDL in the same transaction or by a
   * NULL source_key / root_table being set (evolve/registry.ts applyChanges). Undefined when this transaction has
   * itself changed the schema (DDL since its BEGIN): a read then may hold uncommitted changes, and is not kept.
   */
  registryVersion(where: string, params: readonly Param[]): Promise<string | undefined>;
}

export async function inSavepoint<T>(exec: (sql: string) => Promise<unknown>, fn: () => Promise<T>): Promise<T> {
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

/** Postgres's retry of deadlock victims and its advisory locks (destinations/postgres/tx.ts), for callers and tests. */
export { isRetryableTxError, lockAdvisory, MAX_TRANSACTION_ATTEMPTS } from '../destinations/postgres/tx.js';
/** BEGIN IMMEDIATE waiting on the event loop (destinations/sqlite/tx.ts); export/csv-parallel.ts takes its snapshot lock with it. */
export { beginImmediate } from '../destinations/sqlite/tx.js';

/**
 * Runs `fn` in one transaction: all of it commits or none of it does. SQLite takes the write lock up front
 * (BEGIN IMMEDIATE, waiting up to busy_timeout for other connections without blocking the thread), and calls on the same connection are
 * queued because one better-sqlite3 connection can hold only one transaction. In Postgres a transaction that
 * the server aborts as a deadlock victim or for a serialization failure is rolled back and run again (up to
 * MAX_TRANSACTION_ATTEMPTS times, after a short random pause), so `fn` must not have effects outside the
 * transaction that cannot be repeated. DuckDB transactions run one at a time per file, across processes too
 * (destinations/duckdb/database.ts).
 */
export async function withTransaction<T>(db: Database, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return destinationOf(db).transaction(db, fn);
}

/**
 * Reads in one consistent snapshot. In SQLite a deferred BEGIN, which takes no write lock, so writers (the
 * other workers' loads) go on meanwhile in WAL mode; `fn` must only read. Elsewhere the same as withTransaction.
 */
export async function withReadTransaction<T>(db: Database, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return destinationOf(db).readTransaction(db, fn);
}

export { quoteIdent } from '../lib/quote-ident.js';
