// Value coercions shared by the flatteners. Responses are already validated by the client's zod schemas, but
// many fields are typed only as "null observed" there; these helpers keep such a value when it has the
// column's type and otherwise land NULL in the typed column (the whole value is still in raw_responses).
import { stringifyJson } from '../../client/json.js';
import type { DataTableName } from '../tables.js';

export type Scalar = string | number | bigint | boolean | null;
export type Row = Record<string, Scalar>;
export type RowsByTable = Partial<Record<DataTableName, Row[]>>;

export type Json = unknown;

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
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

/** Appends rows to a table's list, creating it on first use. */
export function push(out: RowsByTable, table: DataTableName, row: Row): void {
  (out[table] ??= []).push(row);
}

/** `$.a.b[0]["odd key"]`: the JSONPath of a child of `parent`. */
export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}
