// Expected table contents for pipeline tests, computed from the simulator's ground truth through the pure
// flatteners, and compared with what a workflow loaded: same rows, no missing and no duplicate, lineage aside.
import { expect } from 'vitest';
import type { Database } from '../../db/connect.js';
import type { RowsByTable } from '../../db/flatten/index.js';
import { TABLE_META, type DataTableName } from '../../db/tables.js';
import type { PipelineSpec } from '../../pipelines/spec.js';

function norm(kind: string | undefined, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (kind === 'int') return BigInt(v as string | number | bigint).toString();
  if (kind === 'bool') return typeof v === 'boolean' ? v : Number(v) === 1;
  if (kind === 'double') return Number(v);
  return String(v);
}

function sorted(rows: Array<Record<string, unknown>>): string[] {
  return rows.map((r) => JSON.stringify(r)).sort();
}

async function select(db: Database, sql: string, params: unknown[]): Promise<Array<Record<string, unknown>>> {
  if (db.dialect === 'sqlite') return db.sqlite.prepare(sql).safeIntegers(true).all(...params) as Array<Record<string, unknown>>;
  return (await db.pool.query(sql, params)).rows as Array<Record<string, unknown>>;
}

/** Data columns of `table` for one pipeline, normalised and sorted. */
export async function loadedRows(db: Database, table: DataTableName, pipeline: string): Promise<string[]> {
  const meta = TABLE_META[table];
  const cols = meta.dataColumns;
  const rows = await select(db, `SELECT ${cols.map((c) => `"${c}"`).join(', ')} FROM "${table}" WHERE pipeline = ${db.dialect === 'sqlite' ? '?' : '$1'}`, [pipeline]);
  return sorted(rows.map((r) => Object.fromEntries(cols.map((c) => [c, norm(meta.kinds[c], r[c])]))));
}

export function expectedRows(rows: RowsByTable, table: DataTableName): string[] {
  const meta = TABLE_META[table];
  // Flatteners may emit the same natural key twice (the loader keeps the last); so does this.
  const byKey = new Map<string, Record<string, unknown>>();
  for (const r of rows[table] ?? []) {
    const row = Object.fromEntries(meta.dataColumns.map((c) => [c, norm(meta.kinds[c], r[c])]));
    byKey.set(meta.key.length ? JSON.stringify(meta.key.filter((k) => k !== 'pipeline').map((k) => row[k])) : JSON.stringify(row), row);
  }
  return sorted([...byKey.values()]);
}

export function mergeRows(parts: RowsByTable[]): RowsByTable {
  const out: RowsByTable = {};
  for (const p of parts) for (const [t, rows] of Object.entries(p) as Array<[DataTableName, RowsByTable[DataTableName]]>) {
    (out[t] ??= []).push(...(rows ?? []));
  }
  return out;
}

/** Every listed table holds exactly the expected rows for the pipeline. */
export async function expectTablesEqual(db: Database, spec: PipelineSpec, expected: RowsByTable, tables: readonly DataTableName[]): Promise<void> {
  for (const table of tables) {
    const got = await loadedRows(db, table, spec.name);
    const want = expectedRows(expected, table);
    expect(got.length, `${table}: row count`).toBe(want.length);
    expect(got, `${table}: rows`).toEqual(want);
  }
}
