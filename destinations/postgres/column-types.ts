// Postgres's types of the model: the SQL each neutral column type (db/schema/definition.ts) becomes, as drizzle
// reports it (`getSQLType()`), as the migrations declare it and as `information_schema.columns.data_type` shows it;
// the value forms its driver hands the export; and the kind of a column by its catalog type.
import type { ColumnKind, ColumnTypeNames, ValueForms } from '../contract.js';

/**
 * - int64: bigint, for ids beyond 2^31.
 * - json: text written by the bigint-safe serializer, as `json` rather than `jsonb`: `json` validates and keeps the
 *   text as written, so every destination holds and exports the same bytes, while `jsonb` re-orders keys, drops
 *   duplicate keys and whitespace, and refuses the `\u0000` escape that hostile content carries
 *   (test/integration/security/hostile-content.test.ts). What `json` lacks is equality (`=`, DISTINCT, GROUP BY):
 *   cast to jsonb or text to compare (docs/warehouse.md).
 * - timestamp: instants: the times we stamp ourselves and the service's own timestamps (lib/iso-timestamp.ts writes
 *   the latter in the one form every engine holds alike), timestamptz (read as strings).
 */
export const POSTGRES_COLUMN_TYPES = {
  int64: 'bigint',
  int32: 'integer',
  double: 'double precision',
  text: 'text',
  json: 'json',
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
