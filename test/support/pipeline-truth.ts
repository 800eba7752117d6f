// Expected table contents for pipeline tests, computed from the simulator's ground truth through the pure
// flatteners, and compared with what a workflow loaded: same rows, no missing and no duplicate, lineage aside.
import { expect } from 'vitest';
import type { Database } from '../../destinations/contract.js';
import { stringifyJson } from '../../lib/json.js';
import type { ResultRecord } from '../../client/schemas.js';
import { contentTableName } from '../../db/model/evolve/names.js';
import { readRegistry } from '../../db/store/evolve/registry.js';
import { withTransaction } from '../../db/store/sql.js';
import { flattenContentRows, type RowsByTable } from '../../db/model/flatten/index.js';
import { TABLE_META, type DataTableName } from '../../db/model/tables.js';
import type { PipelineSpec } from '../../pipelines/spec.js';
import { duckSelect } from './duckdb.js';
import { instantOf, instantSql, storedInstantOf } from './instants.js';

/** A loaded value in a form the truth's compares with (timestamps as instants, test/support/instants.ts). */
function norm(kind: string | undefined, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (kind === 'int') return BigInt(v as string | number | bigint).toString();
  if (kind === 'bool') return typeof v === 'boolean' ? v : Number(v) === 1;
  if (kind === 'double') return Number(v);
  if (kind === 'timestamp') return instantOf(v);
  return String(v);
}

/** A flattened value as the loader stores it: a timestamp the service sent as the instant it is, or NULL. */
function normExpected(kind: string | undefined, v: unknown): unknown {
  return kind === 'timestamp' ? storedInstantOf(v) : norm(kind, v);
}

function sorted(rows: Array<Record<string, unknown>>): string[] {
  return rows.map((r) => JSON.stringify(r)).sort();
}

async function select(db: Database, sql: string, params: unknown[]): Promise<Array<Record<string, unknown>>> {
  if (db.dialect === 'sqlite')
    return db.sqlite
      .prepare(sql)
      .safeIntegers(true)
      .all(...params) as Array<Record<string, unknown>>;
  if (db.dialect === 'duckdb') return duckSelect(db, sql, params);
  return (await db.pool.query(sql, params)).rows as Array<Record<string, unknown>>;
}

/** Data columns of `table` for one pipeline, normalised and sorted. */
export async function loadedRows(db: Database, table: DataTableName, pipeline: string): Promise<string[]> {
  const meta = TABLE_META[table];
  const cols = meta.dataColumns;
  const rows = await select(
    db,
    `SELECT ${cols.map((c) => (meta.kinds[c] === 'timestamp' ? `${instantSql(c)} AS "${c}"` : `"${c}"`)).join(', ')} FROM "${table}" WHERE pipeline = ${db.dialect === 'sqlite' ? '?' : '$1'}`,
    [pipeline],
  );
  return sorted(rows.map((r) => Object.fromEntries(cols.map((c) => [c, norm(meta.kinds[c], r[c])]))));
}

export function expectedRows(rows: RowsByTable, table: DataTableName): string[] {
  const meta = TABLE_META[table];
  // Flatteners may emit the same natural key twice (the loader keeps the last); so does this.
  const byKey = new Map<string, Record<string, unknown>>();
  for (const r of rows[table] ?? []) {
    const row = Object.fromEntries(meta.dataColumns.map((c) => [c, normExpected(meta.kinds[c], r[c])]));
    byKey.set(
      meta.key.length
        ? JSON.stringify(meta.key.filter((k) => k !== 'pipeline').map((k) => row[k]))
        : JSON.stringify(row),
      row,
    );
  }
  return sorted([...byKey.values()]);
}

export function mergeRows(parts: RowsByTable[]): RowsByTable {
  const out: RowsByTable = {};
  for (const p of parts)
    for (const [t, rows] of Object.entries(p) as Array<[DataTableName, RowsByTable[DataTableName]]>) {
      (out[t] ??= []).push(...(rows ?? []));
    }
  return out;
}

/** Every listed table holds exactly the expected rows for the pipeline. */
export async function expectTablesEqual(
  db: Database,
  spec: PipelineSpec,
  expected: RowsByTable,
  tables: readonly DataTableName[],
): Promise<void> {
  for (const table of tables) {
    const got = await loadedRows(db, table, spec.name);
    const want = expectedRows(expected, table);
    expect(got.length, `${table}: row count`).toBe(want.length);
    expect(got, `${table}: rows`).toEqual(want);
  }
}

// ---- inferred content tables (<pipeline>_items and children) ------------------------------------------------

/** Whole numbers as exact decimal text, others as numbers: an integer in a double column compares equal. */
function canonicalNumber(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  const n = Number(v);
  return Number.isInteger(n)
    ? typeof v === 'string' && /^-?\d+$/.test(v)
      ? BigInt(v).toString()
      : BigInt(n).toString()
    : n;
}

function normContent(type: string | undefined, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (type) {
    case 'bigint':
    case 'double':
      return canonicalNumber(v);
    case 'bool':
      return typeof v === 'boolean' ? v : Number(v) === 1;
    case 'timestamp':
      return new Date(v as string | Date).toISOString();
    case 'json':
      return typeof v === 'string' ? v : stringifyJson(v);
    default:
      return String(v);
  }
}

/** Non-null values only, so a column a row lacks and a NULL compare alike. */
function compact(entries: Array<[string, unknown]>): string {
  return JSON.stringify(Object.fromEntries(entries.filter(([, v]) => v !== null).sort(([a], [b]) => (a < b ? -1 : 1))));
}

const CONTENT_LINEAGE = new Set([
  'pipeline',
  'load_id',
  'loaded_at',
  'row_hash',
  'result_created_at',
  'scraped_url',
  'scraping_run_id',
  'result_id',
]);

/** Rows of every inferred table of the pipeline, lineage aside, normalised by each column's logical type. */
export async function loadedContentRows(db: Database, spec: PipelineSpec): Promise<Map<string, string[]>> {
  const root = contentTableName(spec.name);
  const reg = await withTransaction(db, (tx) => readRegistry(tx, { tables: [root], prefixes: [`${root}__`] }));
  const out = new Map<string, string[]>();
  for (const [table, cols] of reg) {
    const names = [...cols.keys()].filter((c) => !CONTENT_LINEAGE.has(c));
    const rows = await select(
      db,
      `SELECT ${names.map((c) => `"${c}"`).join(', ')} FROM "${table}" WHERE pipeline = ${db.dialect === 'sqlite' ? '?' : '$1'}`,
      [spec.name],
    );
    out.set(table, rows.map((r) => compact(names.map((c) => [c, normContent(cols.get(c), r[c])]))).sort());
  }
  return out;
}

/** The same from the ground truth through the pure content flattener (the last result of a key wins). */
export function expectedContentRows(records: readonly ResultRecord[], spec: PipelineSpec): Map<string, string[]> {
  const root = contentTableName(spec.name);
  const out = new Map<string, string[]>();
  const add = (table: string, row: string) => {
    if (!out.has(table)) out.set(table, []);
    out.get(table)!.push(row);
  };
  const valueType = (v: unknown) =>
    typeof v === 'number' && !Number.isInteger(v)
      ? 'double'
      : typeof v === 'number' || typeof v === 'bigint'
        ? 'bigint'
        : typeof v === 'boolean'
          ? 'bool'
          : typeof v === 'object'
            ? 'json'
            : 'text';
  for (const r of flattenContentRows(records, { table: root, mergeKey: spec.merge_key })) {
    add(
      root,
      compact([
        ['row_key', r.rowKey],
        ...r.fields.map(([c, v]) => [c, normContent(valueType(v), v)] as [string, unknown]),
      ]),
    );
    for (const c of r.children) {
      add(
        c.table,
        compact([
          ['row_key', c.rowKey],
          ['root_key', c.rootKey],
          ['parent_key', c.parentKey],
          ['list_index', String(c.listIndex)],
          ...c.fields.map(([k, v]) => [k, normContent(valueType(v), v)] as [string, unknown]),
        ]),
      );
    }
  }
  for (const rows of out.values()) rows.sort();
  return out;
}

/** Every inferred table of the pipeline holds exactly the rows its content flattens to. */
export async function expectContentEqual(
  db: Database,
  spec: PipelineSpec,
  records: readonly ResultRecord[],
): Promise<void> {
  const got = await loadedContentRows(db, spec);
  const want = expectedContentRows(records, spec);
  expect([...got.keys()].sort(), 'inferred tables').toEqual([...want.keys()].sort());
  for (const [table, rows] of want) {
    expect(got.get(table)?.length, `${table}: row count`).toBe(rows.length);
    expect(got.get(table), `${table}: rows`).toEqual(rows);
  }
}
