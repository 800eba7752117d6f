// SQLite's types of the model: the SQL each neutral column type (db/schema/definition.ts) becomes, as drizzle
// reports it (`getSQLType()`), as the migrations declare it and as `pragma table_info` shows it; the value forms
// its driver hands the export; and the kind of a column by the type a table declares.
import type { ColumnKind, ColumnTypeNames, ValueForms } from '../contract.js';

/**
 * - int64: INTEGER is already a signed 64-bit value.
 * - bool: SQLite has no boolean type; drizzle's `integer({ mode: 'boolean' })` stores 0/1 and reads booleans.
 * - json: text written by the bigint-safe serializer, byte-identical on every engine (SQLite has no JSON type).
 * - timestamp: instants: the times we stamp ourselves and the service's own timestamps (lib/iso-timestamp.ts), as
 *   ISO 8601 UTC text (text sorts and compares correctly).
 */
export const SQLITE_COLUMN_TYPES = {
  int64: 'integer',
  int32: 'integer',
  double: 'real',
  text: 'text',
  json: 'text',
  bool: 'integer',
  timestamp: 'text',
} as const satisfies ColumnTypeNames;

/**
 * better-sqlite3 hands JavaScript values (integers as bigint with safeIntegers), and a column declared timestamp
 * holds what datetime() writes: UTC.
 */
export const SQLITE_VALUE_FORMS: ValueForms = { values: 'js-values', plainTimestamps: 'utc' };

// SQLite's affinity rules (https://sqlite.org/datatype3.html §3.1), refined by the names people declare.
export function sqliteKind(declared: string): ColumnKind {
  const t = declared.toUpperCase();
  if (t.includes('BOOL')) return 'boolean';
  if (t.includes('JSON')) return 'json';
  if (t.includes('TIMESTAMP') || t.includes('DATETIME')) return 'timestamp';
  if (t === 'DATE') return 'date';
  if (t.includes('INT')) return 'integer';
  if (t.includes('CHAR') || t.includes('CLOB') || t.includes('TEXT')) return 'text';
  if (t.includes('BLOB')) return 'blob';
  if (t.includes('REAL') || t.includes('FLOA') || t.includes('DOUB')) return 'number';
  if (t === '') return 'other';
  return 'number';
}
