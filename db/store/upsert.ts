// Multi-row upserts in power-of-two chunks, shared by the model's fixed tables (load.ts) and the inferred ones
// (evolve/content-load.ts). Chunks of 256, then 128, 64, … for the remainder, so each column list needs at most
// nine statement shapes however many rows and batches pass through; statements are prepared once per shape.
import { quoteIdent, type Param, type Tx } from './sql.js';

export type { UpsertTarget } from '../../destinations/contract.js';
import type { UpsertTarget } from '../../destinations/contract.js';

// Bounded: inferred tables add column lists as their schema evolves; the oldest shapes are dropped first.
const sqlCache = new Map<string, string>();
const SQL_CACHE_LIMIT = 2_000;

/** Rows per statement: a power of two, at most 256, within the destination's bound-parameter limit. */
function maxChunk(tx: Tx, columns: number): number {
  const limit = Math.min(256, Math.floor(tx.adapter.capabilities.maxParams / columns));
  let n = 1;
  while (n * 2 <= limit) n *= 2;
  return n;
}

/**
 * A column list as one string, per list: callers that pass the same arrays for every response (load.ts) make the
 * statement's cache key a few concatenations instead of a join of every column name per statement.
 */
const joined = new WeakMap<readonly string[], string>();
function joinOf(list: readonly string[]): string {
  let s = joined.get(list);
  if (s === undefined) joined.set(list, (s = list.join(',')));
  return s;
}

/**
 * Statements by column list, for callers that pass the same array for every response (load.ts upsertColumns): the
 * rest of the cache key is short, where the key of sqlCache holds every column name, built and hashed anew for each
 * statement.
 */
const sqlByColumns = new WeakMap<readonly string[], Map<string, string>>();

function upsertSql(tx: Tx, t: UpsertTarget, rows: number): string {
  let byRest = sqlByColumns.get(t.columns);
  if (!byRest) sqlByColumns.set(t.columns, (byRest = new Map()));
  const restKey = `${tx.dialect}\u0001${t.table}\u0001${joinOf(t.key)}\u0001${t.updateWhere ?? ''}\u0001${t.returning ?? ''}\u0001${rows}`;
  let sql = byRest.get(restKey);
  if (sql === undefined) byRest.set(restKey, (sql = sharedUpsertSql(tx, t, rows)));
  return sql;
}

function sharedUpsertSql(tx: Tx, t: UpsertTarget, rows: number): string {
  const cacheKey = `${tx.dialect}\u0001${t.table}\u0001${joinOf(t.columns)}\u0001${joinOf(t.key)}\u0001${t.updateWhere ?? ''}\u0001${t.returning ?? ''}\u0001${rows}`;
  const cached = sqlCache.get(cacheKey);
  if (cached) return cached;
  const tuples: string[] = [];
  let p = 0;
  for (let r = 0; r < rows; r++) tuples.push(`(${t.columns.map(() => tx.ph(++p)).join(', ')})`);
  const table = quoteIdent(t.table);
  let sql = `INSERT INTO ${table} (${t.columns.map(quoteIdent).join(', ')}) VALUES ${tuples.join(', ')}`;
  if (t.key.length > 0) {
    const updates = t.columns
      .filter((c) => !t.key.includes(c))
      .map((c) => `${quoteIdent(c)} = excluded.${quoteIdent(c)}`);
    sql +=
      ` ON CONFLICT (${t.key.map(quoteIdent).join(', ')}) DO UPDATE SET ${updates.join(', ')}` +
      ` WHERE ${table}.${quoteIdent('row_hash')} <> excluded.${quoteIdent('row_hash')}` +
      (t.updateWhere ? ` AND (${t.updateWhere})` : '');
  }
  if (t.returning) sql += ` RETURNING ${quoteIdent(t.returning)}`;
  if (sqlCache.size >= SQL_CACHE_LIMIT) sqlCache.delete(sqlCache.keys().next().value as string);
  sqlCache.set(cacheKey, sql);
  return sql;
}

/**
 * Writes `rows` (values in `t.columns` order). Resolves to the number of rows inserted or changed and, with
 * `returning`, the returned column of each of them.
 */
export async function upsertRows(
  tx: Tx,
  t: UpsertTarget,
  rows: readonly Param[][],
): Promise<{ changed: number; returned: unknown[] }> {
  // A destination's own path first (DuckDB: only the changed rows need ON CONFLICT, destinations/duckdb/upsert.ts).
  const own = tx.adapter.upsertRows;
  if (own) {
    const done = await own(tx, t, rows, upsertChunks);
    if (done) return done;
  }
  return upsertChunks(tx, t, rows);
}

/** The statements of upsertRows: multi-row INSERT (… ON CONFLICT when `t.key` is set) in chunks. */
async function upsertChunks(
  tx: Tx,
  t: UpsertTarget,
  rows: readonly Param[][],
): Promise<{ changed: number; returned: unknown[] }> {
  const max = maxChunk(tx, t.columns.length);
  const exact = tx.adapter.capabilities.exactChunks;
  let changed = 0;
  const returned: unknown[] = [];
  let i = 0;
  while (i < rows.length) {
    let n = max;
    // A fixed cost per statement (DuckDB's ON CONFLICT: milliseconds) dwarfs preparing one more shape.
    if (exact) n = Math.min(max, rows.length - i);
    else while (n > rows.length - i) n /= 2;
    const params: Param[] = [];
    for (let r = i; r < i + n; r++) for (const v of rows[r]!) params.push(v);
    const sql = upsertSql(tx, t, n);
    if (t.returning) {
      const out = await tx.all(sql, params);
      changed += out.length;
      for (const o of out) returned.push(o[t.returning]);
    } else {
      changed += await tx.run(sql, params);
    }
    i += n;
  }
  return { changed, returned };
}
