// The exporter needs only the raw drivers of an opened database, so it accepts any object shaped like the one
// `openDatabase()` in destinations/open.ts returns; this keeps export/ independent of the table definitions.
import type { ExportDatabase, ExportTyping } from '../destinations/contract.js';

export type { ExportDatabase } from '../destinations/contract.js';

/**
 * What the format writers know of the database they write from: how its export reader hands values, and the SQL its
 * engine declares the model's column types as. Both are its adapter's (destinations/<engine>/column-types.ts).
 */
export function exportTyping(db: ExportDatabase): ExportTyping {
  return { valueForms: db.adapter.exportReader.valueForms, columnTypes: db.adapter.sql.columnTypes };
}

export { quoteIdent } from '../lib/quote-ident.js';
