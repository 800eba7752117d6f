// Typed values for the formats that carry types (Parquet, JSON Lines, XLSX). CSV formats every cell as text in
// cells.ts; these formats need to know that a column holds 64-bit integers, booleans or instants, which SQLite's
// declared types alone cannot tell (booleans are INTEGER, timestamps and JSON are TEXT there). The project's
// neutral table definition (db/model/schema/definition.ts) says it for the project's tables; any other table is typed
// from what the database declares.
import { TABLES, type ColumnType } from '../db/model/schema/definition.js';
import type { ColumnInfo } from './columns.js';

export type { ListElement, TypedColumn, ValueType } from '../destinations/contract.js';
import type { ExportTyping, ListElement, TypedColumn, ValueForms, ValueType } from '../destinations/contract.js';

const FROM_NEUTRAL: Record<ColumnType, ValueType> = {
  int64: 'int64',
  int32: 'int64',
  double: 'double',
  bool: 'bool',
  timestamp: 'timestamp_utc',
  json: 'json',
  text: 'text',
};

/** A `timestamp` column without a zone, by what the engine's forms say it holds (an instant in UTC, or a wall-clock time). */
const PLAIN_TIMESTAMP = { utc: 'timestamp_utc', 'wall-clock': 'timestamp_local' } as const satisfies Record<
  ValueForms['plainTimestamps'],
  ValueType
>;

/**
 * The neutral type of a project column, when `table`.`column` is one of the project's and the database declares
 * it as the project's migrations do (a user's own table that happens to share a name is typed by its declaration).
 */
function neutralType(table: string, col: ColumnInfo, typing: ExportTyping): ColumnType | undefined {
  const def = modelColumn(table, col.name);
  if (!def) return undefined;
  const expected = typing.columnTypes[def.type];
  return col.declared.toLowerCase() === expected ? def.type : undefined;
}

function modelColumn(table: string, column: string): { type: ColumnType; list?: ListElement } | undefined {
  return (TABLES as Record<string, { columns: Record<string, { type: ColumnType; list?: ListElement }> }>)[table]
    ?.columns[column];
}

export function typeColumns(table: string, columns: ColumnInfo[], typing: ExportTyping): TypedColumn[] {
  return columns.map((c) => {
    const neutral = neutralType(table, c, typing);
    const type = neutral !== undefined ? FROM_NEUTRAL[neutral] : typeOfKind(c, typing.valueForms);
    // Every destination types these columns json (a test holds them to it), so the list is the same from each.
    const list = type === 'json' ? modelColumn(table, c.name)?.list : undefined;
    return { ...c, type, ...(list !== undefined ? { list } : {}) };
  });
}

function typeOfKind(c: ColumnInfo, forms: ValueForms): ValueType {
  switch (c.kind) {
    case 'integer':
      return 'int64';
    case 'number':
      return 'double';
    case 'boolean':
      return 'bool';
    case 'json':
      return 'json';
    case 'timestamptz':
    case 'timestamp_s':
    case 'timestamp_ms':
      return 'timestamp_utc';
    case 'timestamp':
      return PLAIN_TIMESTAMP[forms.plainTimestamps];
    case 'blob':
      return 'blob';
    default:
      // text, date (no date columns in the model; written as their ISO text) and SQLite columns without a type.
      return 'text';
  }
}

function unexpected(col: ColumnInfo, value: unknown, wanted: string): Error {
  const shown =
    typeof value === 'string' ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value) : String(value);
  return new Error(
    `export: column "${col.name}" (${col.declared || 'no declared type'}) holds ${typeof value} ${shown}, not ${wanted}; export it as CSV, which writes any value as text`,
  );
}

const INTEGER_TEXT = /^[+-]?\d+$/;

/** Exact 64-bit integer. SQLite rows arrive with safeIntegers (bigint); Postgres int8 as its text. */
export function int64Of(col: ColumnInfo): (value: unknown) => bigint {
  return (v) => {
    if (typeof v === 'bigint') return v;
    if (typeof v === 'string' && INTEGER_TEXT.test(v)) return BigInt(v);
    if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
    throw unexpected(col, v, 'an integer');
  };
}

export function doubleOf(col: ColumnInfo): (value: unknown) => number {
  return (v) => {
    if (typeof v === 'number') return v;
    if (typeof v === 'bigint') return Number(v);
    if (typeof v === 'string') {
      // Postgres sends float8 as its shortest exact text, and NaN / Infinity / -Infinity by those names.
      const n = Number(v);
      if (!Number.isNaN(n) || v === 'NaN') return n;
    }
    throw unexpected(col, v, 'a number');
  };
}

export function boolOf(col: ColumnInfo): (value: unknown) => boolean {
  return (v) => {
    if (v === 1n || v === 1 || v === 't' || v === true) return true;
    if (v === 0n || v === 0 || v === 'f' || v === false) return false;
    throw unexpected(col, v, 'a boolean (0/1)');
  };
}

// ISO 8601 as the project writes it (2025-01-02T03:04:05.678Z), Postgres's ISO output in a UTC session
// (2025-01-02 03:04:05.678+00) and SQLite's datetime() (2025-01-02 03:04:05).
const ISO = /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d(?::?\d\d)?)?$/;

/** Microseconds since 1970-01-01T00:00:00 (UTC for instants, wall clock for local times); exact, no float. */
export function timestampMicrosOf(col: ColumnInfo): (value: unknown) => bigint {
  const epochScale = col.kind === 'timestamp_s' ? 1_000_000n : col.kind === 'timestamp_ms' ? 1000n : 0n;
  return (v) => {
    if (epochScale !== 0n && (typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))))
      return BigInt(v) * epochScale;
    if (typeof v !== 'string') throw unexpected(col, v, 'a timestamp');
    const m = ISO.exec(v);
    if (!m) throw unexpected(col, v, 'an ISO 8601 timestamp');
    const [, y, mo, d, h, mi, s, frac, zone] = m;
    const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
    if (Number.isNaN(ms)) throw unexpected(col, v, 'a valid timestamp');
    let micros = BigInt(ms) * 1000n + BigInt(((frac ?? '') + '000000').slice(0, 6));
    if (zone !== undefined && zone !== 'Z') {
      const sign = zone[0] === '-' ? -1n : 1n;
      const digits = zone.slice(1).replace(':', '');
      const offsetMinutes = BigInt(Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0'));
      micros -= sign * offsetMinutes * 60_000_000n;
    }
    return micros;
  };
}

/** Text of a text or JSON column. Numbers in an untyped SQLite column are written as their decimal text. */
export function textOf(col: ColumnInfo): (value: unknown) => string {
  return (v) => {
    if (typeof v === 'string') return v;
    if (typeof v === 'bigint' || typeof v === 'number') return String(v);
    if (v instanceof Uint8Array)
      return col.kind === 'json' ? Buffer.from(v).toString('utf8') : `\\x${Buffer.from(v).toString('hex')}`;
    throw unexpected(col, v, 'text');
  };
}

export function bytesOf(col: ColumnInfo): (value: unknown) => Uint8Array {
  return (v) => {
    if (v instanceof Uint8Array) return v;
    // Postgres bytea in its default hex output.
    if (typeof v === 'string' && v.startsWith('\\x')) return Buffer.from(v.slice(2), 'hex');
    if (typeof v === 'string') return Buffer.from(v, 'utf8');
    throw unexpected(col, v, 'bytes');
  };
}
