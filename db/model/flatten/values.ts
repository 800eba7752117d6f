// Value coercions shared by the flatteners. Responses are already validated by the client's zod schemas, but
// many fields are typed only as "null observed" there; these helpers keep such a value when it has the
// column's type and otherwise land NULL in the typed column (the whole value is still in raw_responses).
import { isLosslessNumber } from 'lossless-json';
import { stringifyJson } from '../../../lib/json.js';
import { columnPath } from '../evolve/names.js';
import { columnSource } from '../evolve/naming.js';
import type { DataTableName } from '../tables.js';

/**
 * One value at a column path (see flatten/content.ts): the candidate column name, the value, and the source key
 * (naming.ts columnSource: the original key path) the registry maps to the column actually used. Without a
 * source, the candidate name is the key.
 */
export type Field = readonly [column: string, value: unknown, source?: string];

export type Scalar = string | number | bigint | boolean | null;

/**
 * Fields of a model row that the model has no column for, flattened to column paths (`a__b`; lists as JSON). The
 * loader maps them to inferred columns of the table (db/store/evolve/). A symbol key, so row spreads carry them and
 * column loops over Object.entries never see them.
 */
export const OPEN_FIELDS: unique symbol = Symbol('open fields');
export type Row = Record<string, Scalar> & { [OPEN_FIELDS]?: Field[] };
export type RowsByTable = Partial<Record<DataTableName, Row[]>>;

export type Json = unknown;

/** A JSON object; a number the parser kept as text (lossless-json's LosslessNumber, e.g. 1e400) is a scalar. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !isLosslessNumber(v);
}

/** An integer (number or bigint) or null; a number that is not an integer is not silently truncated. */
export function asInt(v: unknown): number | bigint | null {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  return null;
}

export function asDouble(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'bigint') return Number(v);
  return null;
}

export function asBool(v: unknown): boolean | null {
  return typeof v === 'boolean' ? v : null;
}

/** Strings as they are; any other non-null value as its JSON text so nothing is lost in a text column. */
export function asText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  return stringifyJson(v);
}

/**
 * Epoch seconds (the marketplace's `ctime`, `last_active_time`) as an ISO 8601 UTC timestamp, so analysts can
 * query them as dates; null when not an integer or outside the dates Postgres and JavaScript both hold.
 */
export function epochSecondsToIso(v: unknown): string | null {
  const n = asInt(v);
  if (n === null) return null;
  const ms = Number(n) * 1000;
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > 253_402_300_799_000) return null;
  return new Date(ms).toISOString();
}

/** JSON text of any value (bigints exact), or null when absent. */
export function asJson(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  return stringifyJson(v);
}

/** The fields of `obj` not in `known`, as JSON text (null when there are none). */
export function extraJson(obj: Record<string, unknown>, known: ReadonlySet<string>): string | null {
  let extra: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(obj)) {
    if (known.has(k)) continue;
    (extra ??= {})[k] = v;
  }
  return extra === undefined ? null : stringifyJson(extra);
}

/**
 * The fields of `obj` not in `known` as open fields of a model row: nested objects flattened to `a__b` column
 * paths, lists kept whole (a JSON column; the model's own child tables already hold the lists it knows). A key
 * whose column name is one of the table's fixed columns gets a leading `_`.
 */
export function openFields(
  obj: Record<string, unknown>,
  known: ReadonlySet<string>,
  _fixedColumns?: ReadonlySet<string>,
): Field[] {
  // A key whose name is a fixed column gets another name from the registry (naming.ts nameFor), which knows them.
  const out: Field[] = [];
  const walk = (o: Record<string, unknown>, prefix: string, path: string[]) => {
    for (const [k, v] of Object.entries(o)) {
      if (prefix === '' && known.has(k)) continue;
      const col = columnPath(prefix, k);
      const at = [...path, k];
      if (isRecord(v)) walk(v, col, at);
      else out.push([col, v, columnSource(at)]);
    }
  };
  walk(obj, '', []);
  return out;
}

/** Appends rows to a table's list, creating it on first use. */
export function push(out: RowsByTable, table: DataTableName, row: Row): void {
  (out[table] ??= []).push(row);
}
