// Postgres's types of the model: the SQL each neutral column type (db/schema/definition.ts) becomes, as drizzle
// reports it (`getSQLType()`), as the migrations declare it and as `information_schema.columns.data_type` shows it;
// the value forms its driver hands the export; and the kind of a column by its catalog type.
import type { ColumnKind, ColumnTypeNames, ValueForms } from '../contract.js';

/**
 * - int64: bigint, for ids beyond 2^31.
 * - json: text written by the bigint-safe serializer, byte-identical on every engine (cast to jsonb to query).
 * - timestamp: times we stamp ourselves, timestamptz (read as strings). The service's own timestamps are not this
 *   type: they stay `text` exactly as received.
 */
export const POSTGRES_COLUMN_TYPES = {
  int64: 'bigint',
  int32: 'integer',
  double: 'double precision',
  text: 'text',
  json: 'text',
  bool: 'boolean',
  timestamp: 'timestamp with time zone',
} as const satisfies ColumnTypeNames;

/**
 * The export's pool parses no type (export-reader.ts): every value is the server's text, exact for int8 and numeric;
 * a `timestamp without time zone` is a wall-clock time.
 */
export const POSTGRES_VALUE_FORMS: ValueForms = { values: 'sql-text', plainTimestamps: 'wall-clock' };

export function postgresKind(dataType: string): ColumnKind {
  switch (dataType) {
    case 'bigint':
    case 'integer':
    case 'smallint':
      return 'integer';
    case 'numeric':
    case 'real':
    case 'double precision':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'json':
    case 'jsonb':
      return 'json';
    case 'timestamp with time zone':
      return 'timestamptz';
    case 'timestamp without time zone':
      return 'timestamp';
    case 'date':
      return 'date';
    case 'bytea':
      return 'blob';
    case 'text':
    case 'character varying':
    case 'character':
      return 'text';
    default:
      return 'other';
  }
}
