// Logical column types of inferred columns, how a JSON value maps to one, which values a column of a type takes,
// and the SQL each becomes. Finer than SQL: timestamp and json are text in SQLite, so the registry
// (schema_history.data_type) keeps the logical type.
import { stringifyJson } from '../../client/json.js';
import { SQL_TYPES, type ColumnType } from '../schema/definition.js';
import type { Param } from '../sql.js';

export const LOGICAL_TYPES = ['bigint', 'double', 'bool', 'text', 'timestamp', 'json'] as const;
export type LogicalType = (typeof LOGICAL_TYPES)[number];

/** The model's neutral column type of each logical type: the SQL is the model's own (db/schema/definition.ts). */
const NEUTRAL_OF: Readonly<Record<LogicalType, ColumnType>> = {
  bigint: 'int64',
  double: 'double',
  bool: 'bool',
  text: 'text',
  // ISO 8601 text in SQLite, timestamptz in Postgres, as the model's own timestamps.
  timestamp: 'timestamp',
  // Bigint-safe JSON text in both, as the model's json columns (cast to jsonb to query in Postgres).
  json: 'json',
};

/** The SQL type of an inferred column in a dialect. */
export function sqlTypeOf(type: LogicalType, dialect: 'sqlite' | 'postgres' | 'duckdb'): string {
  // DuckDB takes the Postgres type names (db/duckdb/ddl.ts).
  return SQL_TYPES[NEUTRAL_OF[type]][dialect === 'sqlite' ? 'sqlite' : 'pg'];
}

// ISO 8601 date-time with an explicit offset: without one, Postgres would read it in the server's time zone and
// the two dialects would disagree. At most microseconds, which is what timestamptz keeps.
const ISO_TIMESTAMP = /^([1-9]\d{3})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(?:Z|[+-](\d{2}):?(\d{2}))$/;

function isIsoTimestamp(s: string): boolean {
  const m = ISO_TIMESTAMP.exec(s);
  if (!m) return false;
  const [, y, mo, d, h, mi, sec, oh, om] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return (
    month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && Number(h) <= 23 && Number(mi) <= 59 &&
    (sec === undefined || Number(sec) <= 59) && (oh === undefined || Number(oh) <= 15) && (om === undefined || Number(om) <= 59)
  );
}

/** The type a value would get as a new column; undefined for null (a null creates no column). */
export function typeOfValue(v: unknown): LogicalType | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'bigint') return 'bigint';
  if (typeof v === 'number') return Number.isInteger(v) ? 'bigint' : 'double';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return isIsoTimestamp(v) ? 'timestamp' : 'text';
  return 'json';
}

/** Whether a column of type `column` stores a value of type `value` without loss or reinterpretation. */
export function accepts(column: LogicalType, value: LogicalType): boolean {
  return column === value || column === 'json' || (column === 'double' && value === 'bigint') || (column === 'text' && value === 'timestamp');
}

/**
 * The type a column that does not exist yet gets when a batch brings values of two types for it: integers and
 * floats make a double, timestamps and other strings text; anything else keeps the first type (the other values
 * then go to a variant column).
 */
export function widen(planned: LogicalType, value: LogicalType): LogicalType {
  if (accepts(planned, value)) return planned;
  if (planned === 'bigint' && value === 'double') return 'double';
  if (planned === 'timestamp' && value === 'text') return 'text';
  return planned;
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
    default: {
      const s = v as string;
      // Postgres text cannot hold NUL; the model replaces it in both dialects (db/README.md, Types).
      return s.includes('\u0000') ? s.replace(/\u0000/g, '\uFFFD') : s;
    }
  }
}
