// Many rows in one Postgres statement: each column bound as one array parameter and zipped back into rows by
// `unnest`, so a statement's shape depends on its columns only (prepared once) and never on how many rows it
// carries, and no bound-parameter limit applies. The arrays are cast to the columns' own SQL types, read from the
// Drizzle Postgres schema (the same one the migrations come from) or given for inferred columns.
import { getTableConfig, type PgTable } from 'drizzle-orm/pg-core';
import type { Scalar } from '../../db/model/flatten/values.js';
import * as pgSchema from './schema.js';
import type { Tx } from '../../db/store/sql.js';

const typesByTable = new Map<string, ReadonlyMap<string, string>>();

/** SQL type of a column of one of the model's tables (`bigint`, `timestamp with time zone`, …), or undefined. */
export function pgColumnType(table: string, column: string): string | undefined {
  let types = typesByTable.get(table);
  if (!types) {
    const t = (pgSchema as Record<string, unknown>)[table];
    types = new Map(t ? getTableConfig(t as PgTable).columns.map((c) => [c.name, c.getSQLType()] as const) : []);
    typesByTable.set(table, types);
  }
  return types.get(column);
}

/**
 * An array literal (`{"a",NULL,"b"}`) of `values`, every element quoted, so Postgres parses each with the
 * element type of the cast; bigints and integers keep every digit.
 */
export function pgArrayLiteral(values: readonly Scalar[]): string {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) parts[i] = 'NULL';
    else if (typeof v === 'string') parts[i] = `"${v.replace(/[\\"]/g, '\\$&')}"`;
    else parts[i] = `"${String(v)}"`;
  }
  return `{${parts.join(',')}}`;
}

/**
 * `SELECT * FROM unnest($first::t1[], …)` over `types` (one placeholder each, numbered from `first`), and the
 * parameters for `rows` (values in the same column order): one array literal per column.
 */
export function unnestRows(
  tx: Tx,
  types: readonly string[],
  rows: ReadonlyArray<readonly Scalar[]>,
  first = 1,
): { sql: string; params: string[] } {
  const sql = `SELECT * FROM unnest(${types.map((t, i) => `${tx.ph(first + i)}::${t}[]`).join(', ')})`;
  return { sql, params: arrayParams(types, rows) };
}

/**
 * The same rows in the order of `rows`, said rather than assumed: `SELECT u.c0, … FROM unnest(…) WITH ORDINALITY
 * AS u(c0, …, ord) ORDER BY u.ord`. A statement that locks the rows it produces (an INSERT … ON CONFLICT, a
 * SELECT … FOR UPDATE) then locks them in this order, which the caller chose to be every load's; the planner knows
 * the function scan is already in ordinality order, so no sort is run. `alias` names the set and prefixes `c0, …`.
 */
export function unnestRowsInOrder(
  tx: Tx,
  types: readonly string[],
  rows: ReadonlyArray<readonly Scalar[]>,
  first = 1,
  alias = 'u',
): { sql: string; from: string; columns: string[]; params: string[] } {
  const columns = types.map((_, i) => `c${i}`);
  const from = `unnest(${types.map((t, i) => `${tx.ph(first + i)}::${t}[]`).join(', ')}) WITH ORDINALITY AS ${alias}(${columns.join(', ')}, ord)`;
  const sql = `SELECT ${columns.map((c) => `${alias}.${c}`).join(', ')} FROM ${from} ORDER BY ${alias}.ord`;
  return { sql, from, columns, params: arrayParams(types, rows) };
}

function arrayParams(types: readonly string[], rows: ReadonlyArray<readonly Scalar[]>): string[] {
  return types.map((_, c) => pgArrayLiteral(rows.map((r) => r[c] ?? null)));
}
