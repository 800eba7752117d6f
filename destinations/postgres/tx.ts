// Postgres transactions on a pooled client: named statements, pipelined sends, savepoints, the retry of
// deadlock victims and serialization failures, and advisory locks (moved from db/store/sql.ts).
import type pg from 'pg';
import { hexDigest } from '../../db/model/hash.js';
import { inSavepoint, type Param, type Tx } from '../../db/store/sql.js';
// The adapter this engine's handles carry (read at run time only, so the import cycle with index.ts is harmless).
import { postgresDestination } from './index.js';

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
  const query = (sql: string, params: readonly Param[]) =>
    inTurn(() => client.query({ name: named(sql), text: sql, values: pgParams(params) }));
  return {
    dialect: 'postgres',
    adapter: postgresDestination,
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
 * `fn` in one transaction. A transaction that the server aborts as a deadlock victim or for a serialization failure
 * is rolled back and run again (up to MAX_TRANSACTION_ATTEMPTS times, after a short random pause), so `fn` must not
 * have effects outside the transaction that cannot be repeated.
 */
export async function pgTransactionWithRetries<T>(pool: pg.Pool, fn: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await pgTransaction(pool, fn);
    } catch (err) {
      if (!isRetryableTxError(err) || attempt >= MAX_TRANSACTION_ATTEMPTS) throw err;
      // Random, growing pauses so the transactions that collided do not collide again in step.
      await new Promise((r) => setTimeout(r, Math.random() * 25 * 2 ** attempt));
    }
  }
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
