// The exporter needs only the raw drivers of an opened database, so it accepts any object shaped like the one
// `openDatabase()` in destinations/open.ts returns; this keeps export/ independent of the table definitions.
import type { ExportDatabase } from '../destinations/contract.js';

export type { ExportDatabase } from '../destinations/contract.js';

/**
 * Which value forms the format writers receive: DuckDB rows are converted to Postgres's text forms
 * (destinations/duckdb/export-reader.ts), so they are formatted exactly as Postgres rows are.
 */
export function valueDialect(db: ExportDatabase): 'sqlite' | 'postgres' {
  return db.adapter.exportReader.valueForms;
}

export { quoteIdent } from '../lib/quote-ident.js';
