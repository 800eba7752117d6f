// The exporter needs only the raw drivers of an opened database, so it accepts any object shaped like the one
// `openDatabase()` in db/connect.ts returns; this keeps export/ independent of the table definitions.
import { destinationOf } from '../destinations/index.js';
import type { ExportDatabase } from '../destinations/contract.js';

export type { ExportDatabase } from '../destinations/contract.js';

/**
 * Which value forms the format writers receive: DuckDB rows are converted to Postgres's text forms
 * (destinations/duckdb/export-reader.ts), so they are formatted exactly as Postgres rows are.
 */
export function valueDialect(db: ExportDatabase): 'sqlite' | 'postgres' {
  return destinationOf(db).exportReader.valueForms;
}

/** The raw handles, checked (destinations/<name>/handle.ts). */
export { sqliteOf } from '../destinations/sqlite/handle.js';
export { poolOf } from '../destinations/postgres/handle.js';

export { quoteIdent } from '../lib/quote-ident.js';
