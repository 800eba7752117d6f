// Logical column types of inferred columns, how a JSON value maps to one, which values a column of a type takes,
// and the SQL each becomes. Finer than SQL: timestamp and json are text in SQLite, so the registry
// (schema_history.data_type) keeps the logical type.
import { isLosslessNumber } from 'lossless-json';
import { stringifyJson } from '../../../lib/json.js';
import type { ColumnType } from '../schema/definition.js';
import type { ColumnTypeNames, Param } from '../../../destinations/contract.js';

export const LOGICAL_TYPES = ['bigint', 'double', 'bool', 'text', 'timestamp', 'json', 'number_text'] as const;
export type LogicalType = (typeof LOGICAL_TYPES)[number];

/** The model's neutral column type of each logical type: the SQL is the model's own (db/model/schema/definition.ts). */
const NEUTRAL_OF: Readonly<Record<LogicalType, ColumnType>> = {
  bigint: 'int64',
  double: 'double',
  bool: 'bool',
  text: 'text',
  // ISO 8601 text in SQLite, timestamptz in Postgres, as the model's own timestamps.
  timestamp: 'timestamp',
  // Bigint-safe JSON text in both, as the model's json columns (cast to jsonb to query in Postgres).
  json: 'json',
  // A number no SQL numeric type of all three databases holds exactly (beyond int64, 1e400, -0): its decimal text.
  number_text: 'text',
};

/** The SQL type of an inferred column in a destination (its adapter's `sql.columnTypes`). */
export function sqlTypeOf(type: LogicalType, columnTypes: ColumnTypeNames): string {
  return columnTypes[NEUTRAL_OF[type]];
}

// ISO 8601 date-time in UTC (`Z`) with seconds: the one form SQLite (text), Postgres and DuckDB (timestamptz)
// all read as the same instant and give back without loss of its meaning. An offset (`+02:00`) would survive in
// SQLite's text but become UTC in the other two, and DuckDB refuses a time without seconds (`03:04Z`): such strings
// stay text, exactly as sent. At most microseconds, which is what timestamptz keeps.
const ISO_TIMESTAMP = /^([1-9]\d{3})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?Z$/;

function isIsoTimestamp(s: string): boolean {
  const m = ISO_TIMESTAMP.exec(s);
  if (!m) return false;
  const [, y, mo, d, h, mi, sec] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth &&
    Number(h) <= 23 &&
    Number(mi) <= 59 &&
    Number(sec) <= 59
  );
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * The type a value would get as a new column; undefined for null (a null creates no column). Chosen by value:
 * an integer is `bigint` only when int64 holds it (a number only when it is a safe integer: 1e19 or 2^60 written
 * as a float literal are doubles); a bigint beyond int64, a literal no double holds (1e400, parsed losslessly by
 * lib/json.ts) and -0 (SQLite's REAL drops the sign) are `number_text`, their exact decimal text.
 */
export function typeOfValue(v: unknown): LogicalType | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'bigint') return v >= INT64_MIN && v <= INT64_MAX ? 'bigint' : 'number_text';
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || Object.is(v, -0)) return 'number_text';
    return Number.isSafeInteger(v) ? 'bigint' : 'double';
  }
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return isIsoTimestamp(v) ? 'timestamp' : 'text';
  if (isLosslessNumber(v)) return 'number_text';
  return 'json';
}

/** Whether a double holds integer `v` exactly (9007199254740993 it does not). */
function exactInDouble(v: unknown): boolean {
  if (typeof v === 'number') return true;
  if (typeof v === 'bigint') return BigInt(Number(v)) === v;
  return false;
}

/**
 * Whether a column of type `column` stores a value of type `value` without loss or reinterpretation; with the value
 * itself, a double column takes only the integers a double holds exactly.
 */
export function accepts(column: LogicalType, value: LogicalType, v?: unknown): boolean {
  if (column === value || column === 'json') return true;
  if (column === 'double' && value === 'bigint') return v === undefined || exactInDouble(v);
  if (column === 'number_text') return value === 'bigint' || value === 'double';
  return column === 'text' && value === 'timestamp';
}

/**
 * The type a column that does not exist yet gets when a batch brings values of two types for it: integers and
 * floats make a double (when every integer so far is exact in one: `exact`), any number with a number_text makes
 * number_text, timestamps and other strings text; anything else keeps the first type (the other values then go to
 * a variant column).
 */
export function widen(planned: LogicalType, value: LogicalType, exact = true): LogicalType {
  if (accepts(planned, value)) return planned;
  if (planned === 'bigint' && value === 'double' && exact) return 'double';
  const numeric = (t: LogicalType) => t === 'bigint' || t === 'double' || t === 'number_text';
  if (numeric(planned) && numeric(value)) return 'number_text';
  if (planned === 'timestamp' && value === 'text') return 'text';
  return planned;
}

/** Exact decimal text of a number-like value (a double's shortest round-trip form; -0 keeps its sign). */
function numberText(v: unknown): string {
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (typeof v === 'bigint') return v.toString();
  if (isLosslessNumber(v)) return v.value;
  return String(v);
}

/** The bound parameter of a value for a column of `type` (accepts(type, typeOfValue(v)) holds). */
export function toParam(type: LogicalType, v: unknown): Param {
  if (v === null || v === undefined) return null;
  switch (type) {
    case 'bigint':
      return v as number | bigint;
    case 'double':
      return Number(v);
    case 'bool':
      return v as boolean;
    case 'json':
      return stringifyJson(v);
    case 'number_text':
      return numberText(v);
    default: {
      const s = v as string;
      // Postgres text cannot hold NUL; the model replaces it in both dialects (db/README.md, Types).
      return s.includes('\u0000') ? s.replace(/\u0000/g, '\uFFFD') : s;
    }
  }
}
