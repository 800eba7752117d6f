// `last_seen_at`: when a run last saw a row, changed or not. A load writes a row only when its hash differs
// (upsert.ts), and a written row gets the load's time in `loaded_at` and `last_seen_at` alike; the rows the load
// saw unchanged get it here, one UPDATE per table and chunk of keys, which writes that column of those rows and
// nothing else (no row is rewritten whole, and none whose `last_seen_at` is already that time or later).
import { TABLES, type ColumnType } from '../model/schema/definition.js';
import type { Scalar } from '../model/flatten/values.js';
import { quoteIdent, type Tx } from './sql.js';
import { TABLE_META, type DataTableName } from '../model/tables.js';

/** The tables with a natural key, which carry `last_seen_at`. */
export function hasLastSeen(table: DataTableName): boolean {
  return 'last_seen_at' in TABLES[table].columns;
}

/** A key the load saw (values of the table's natural key, `pipeline` first) and the load's time. */
export interface SeenKey {
  key: readonly Scalar[];
  at: string;
}

const sqlCache = new Map<string, string>();

/** Keys per statement: a power of two, at most 256, within the destination's bound-parameter limit. */
function maxChunk(tx: Tx, params: number): number {
  const limit = Math.min(256, Math.floor(tx.adapter.capabilities.maxParams / params));
  let n = 1;
  while (n * 2 <= limit) n *= 2;
  return n;
}

/** The statement that marks `rows` keys of `table` seen (exported for the test of its query plan). */
export function markSql(tx: Tx, table: DataTableName, rows: number): string {
  const cacheKey = `${tx.dialect}\u0001${table}\u0001${rows}`;
  const cached = sqlCache.get(cacheKey);
  if (cached) return cached;
  const key = TABLE_META[table].key;
  const columns = TABLES[table].columns as Readonly<Record<string, { type: ColumnType }>>;
  const columnTypes = tx.adapter.sql.columnTypes;
  // Where columns are typed, every value is cast to its column's type: Postgres types a VALUES list from its first
  // row's text otherwise. Where they are affinities (SQLite) the bound values compare as stored, and a cast would
  // cost the statement its primary-key lookups: the planner then scans the whole table for every statement.
  const typed = tx.adapter.capabilities.typedColumns;
  const types = [...key.map((k) => columnTypes[columns[k]!.type]), columnTypes.timestamp];
  const tuples: string[] = [];
  let p = 0;
  for (let r = 0; r < rows; r++)
    tuples.push(`(${types.map((t) => (typed ? `CAST(${tx.ph(++p)} AS ${t})` : tx.ph(++p))).join(', ')})`);
  const names = key.map((_, i) => `k${i}`);
  const t = quoteIdent(table);
  const sql =
    `WITH seen (${[...names, 'seen_at'].join(', ')}) AS (VALUES ${tuples.join(', ')}) ` +
    `UPDATE ${t} SET ${quoteIdent('last_seen_at')} = seen.seen_at FROM seen WHERE ` +
    key.map((k, i) => `${t}.${quoteIdent(k)} = seen.${names[i]}`).join(' AND ') +
    ` AND (${t}.${quoteIdent('last_seen_at')} IS NULL OR ${t}.${quoteIdent('last_seen_at')} < seen.seen_at)`;
  sqlCache.set(cacheKey, sql);
  return sql;
}

/** Moves `last_seen_at` of the stored rows with these keys to their time, where it is earlier. */
export async function markSeen(tx: Tx, table: DataTableName, seen: readonly SeenKey[]): Promise<void> {
  if (seen.length === 0 || !hasLastSeen(table)) return;
  const width = TABLE_META[table].key.length + 1;
  const max = maxChunk(tx, width);
  let i = 0;
  while (i < seen.length) {
    let n = max;
    while (n > seen.length - i) n /= 2;
    const params: Scalar[] = [];
    for (let r = i; r < i + n; r++) params.push(...seen[r]!.key, seen[r]!.at);
    await tx.run(markSql(tx, table, n), params);
    i += n;
  }
}
