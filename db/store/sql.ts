// The destination-neutral statement interface of the loader (Tx) and its transactions; each destination's
// binding, statement cache and transaction rules are its adapter's (destinations/<name>/tx.ts). Drizzle's query
// builder is not used on this path because bulk upserts need multi-row VALUES with a fixed shape per chunk and
// statements prepared once per shape.
import type { Database, Tx } from '../../destinations/contract.js';

export type { Param, RegistryKeeping, Tx } from '../../destinations/contract.js';

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
  return db.adapter.transaction(db, fn);
}

/**
 * Reads in one consistent snapshot. In SQLite a deferred BEGIN, which takes no write lock, so writers (the
 * other workers' loads) go on meanwhile in WAL mode; `fn` must only read. Elsewhere the same as withTransaction.
 */
export async function withReadTransaction<T>(db: Database, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return db.adapter.readTransaction(db, fn);
}

export { quoteIdent } from '../../lib/quote-ident.js';
