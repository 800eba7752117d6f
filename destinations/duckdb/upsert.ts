// Upserts into DuckDB without paying for ON CONFLICT where no conflict can happen. DuckDB charges milliseconds per
// `INSERT … ON CONFLICT` statement whatever its row count (several times a plain INSERT or a keyed SELECT of the same
// rows; docs/measurements.md), and a product's load writes ten or so tables. Most rows are
// either new (a first load) or unchanged (a reload): one SELECT of the chunk's keys and row hashes sorts them, new
// rows go in with a plain INSERT, unchanged ones are skipped, and only changed ones take the ON CONFLICT path (which
// also applies `updateWhere`). Safe because nothing else writes the file meanwhile: DuckDB transactions run one at a
// time per file, across processes too (db/duckdb/database.ts).
import { quoteIdent, type Param, type Tx } from '../../db/store/sql.js';
import type { UpsertTarget } from '../../db/store/upsert.js';

type UpsertResult = { changed: number; returned: unknown[] };
type Upsert = (tx: Tx, t: UpsertTarget, rows: readonly Param[][]) => Promise<UpsertResult>;

/** Keys per SELECT: keeps the IN lists (one per key column) and their parameters bounded. */
const LOOKUP_ROWS = 256;

const keyText = (values: readonly unknown[]) =>
  values
    .map((v) => (typeof v === 'bigint' || typeof v === 'number' ? `n${String(v)}` : `s${String(v)}`))
    .join('\u0001');

/**
 * Writes `rows` as upsertRows would, or returns undefined when the generic path should (plain inserts, a target
 * without a row_hash column, a list with a key twice). `upsert` writes statements only (never comes back here).
 */
export async function upsertDuckdb(
  tx: Tx,
  t: UpsertTarget,
  rows: readonly Param[][],
  upsert: Upsert,
): Promise<UpsertResult | undefined> {
  const hashAt = t.columns.indexOf('row_hash');
  if (t.key.length === 0 || hashAt < 0) return undefined;
  const keyAt = t.key.map((k) => t.columns.indexOf(k));
  if (keyAt.some((i) => i < 0)) return undefined;
  const keys = rows.map((r) => keyText(keyAt.map((i) => r[i])));
  // Duplicate keys in one list would make a plain INSERT fail: leave such a list to ON CONFLICT.
  if (new Set(keys).size !== rows.length) return undefined;

  const stored = new Map<string, unknown>();
  for (let i = 0; i < rows.length; i += LOOKUP_ROWS) {
    const chunk = rows.slice(i, i + LOOKUP_ROWS);
    const params: Param[] = [];
    // One IN list per key column: a superset of the chunk's keys, matched exactly below.
    const where = keyAt.map((at, k) => {
      const distinct = [...new Map(chunk.map((r) => [keyText([r[at]]), r[at] ?? null])).values()];
      const phs = distinct.map((v) => {
        params.push(v);
        return tx.ph(params.length);
      });
      return `${quoteIdent(t.key[k]!)} IN (${phs.join(', ')})`;
    });
    const sql = `SELECT ${[...t.key.map(quoteIdent), quoteIdent('row_hash')].join(', ')} FROM ${quoteIdent(t.table)} WHERE ${where.join(' AND ')}`;
    for (const r of await tx.all(sql, params)) stored.set(keyText(t.key.map((k) => r[k])), r['row_hash']);
  }

  const fresh: Param[][] = [];
  const changed: Param[][] = [];
  for (const [i, r] of rows.entries()) {
    const key = keys[i]!;
    if (!stored.has(key)) fresh.push(r);
    else if (stored.get(key) !== r[hashAt]) changed.push(r);
  }
  const out: UpsertResult = { changed: 0, returned: [] };
  if (fresh.length > 0) {
    const inserted = await upsert(tx, { ...t, key: [] }, fresh);
    out.changed += inserted.changed;
    out.returned.push(...inserted.returned);
  }
  if (changed.length > 0) {
    const updated = await upsert(tx, t, changed);
    out.changed += updated.changed;
    out.returned.push(...updated.returned);
  }
  return out;
}
