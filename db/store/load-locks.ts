// Locks a load takes before it reads what it will overwrite (Postgres; SQLite writers are serialised by BEGIN
// IMMEDIATE).
import { hexDigest } from '../model/hash.js';
import type { RowsByTable } from '../model/flatten/values.js';
import { keyString } from './load-rows.js';
import type { Tx } from './sql.js';
import { TABLE_META, type DataTableName } from '../model/tables.js';

/** A 64-bit advisory lock key for one parent row; a collision only makes two unrelated loads wait. */
function parentLockKey(table: DataTableName, key: readonly unknown[]): bigint {
  const digest = hexDigest('sha1', `${table}\u0002${keyString(key)}`);
  return BigInt.asIntN(64, BigInt(`0x${digest.slice(0, 16)}`));
}

/**
 * Products whose rows a load reads before it writes. The price history compares a product's new prices with
 * the stored ones, so two loads of the same product must not interleave (both would see "no earlier price"
 * and append the first price twice), and child replacement must see the other load's models.
 * Results are left out: their content is fixed once their run finished, and one batch carries up to a thousand
 * of them, each lock a slot in Postgres's shared lock table. A marketplace response carries one product.
 */
const LOCKED_PARENTS: readonly DataTableName[] = ['marketplace_products'];

/**
 * Postgres only (SQLite writers are serialised by BEGIN IMMEDIATE). Each load takes a transaction-scoped
 * advisory lock per product it writes, all of them first and in one sorted order, so loads of the same product
 * queue and loads of different ones run in parallel.
 */
export async function lockParents(
  tx: Tx,
  pipeline: string,
  rows: RowsByTable,
  others: readonly bigint[] = [],
): Promise<void> {
  // Writers serialised by the destination (BEGIN IMMEDIATE, one writer per file) need no lock order.
  const dest = tx.adapter;
  if (!dest.capabilities.concurrentWriters) return;
  // Other keys of the load (its landings, land-once.ts) join the one sorted round: a second round would break the order.
  const keys = new Set<bigint>(others);
  for (const table of LOCKED_PARENTS) {
    const meta = TABLE_META[table];
    for (const r of rows[table] ?? [])
      keys.add(
        parentLockKey(
          table,
          meta.key.map((k) => (k === 'pipeline' ? pipeline : r[k])),
        ),
      );
  }
  await dest.lockKeys(tx, keys);
}
