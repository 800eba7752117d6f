// Streams the rows of one query, in batches, straight from the raw driver: memory holds one batch, whatever
// the table size, and the next batch is read only when the CSV writer asks for it. How a destination streams is its
// export reader's (destinations/<name>/export-reader.ts).
import { destinationOf } from '../destinations/index.js';
import type { ExportDatabase } from './database.js';
import { quoteIdent } from './database.js';

export type RawRow = unknown[];

/**
 * The rows of one table (or of a query over one table): `select <columns> from <table> [where <where>]`. From a
 * SQLite file whose table has rowids, the rows are read in pages (keyset on rowid, see sqliteTableBatches); otherwise in
 * one streamed statement.
 */
export interface TableQuery {
  table: string;
  /** Select expressions, already quoted. */
  columns: string[];
  /** Conditions joined with `and`; the placeholders match `params`. */
  where: string[];
  params: unknown[];
}
export function rowBatches(db: ExportDatabase, query: TableQuery | string, params: unknown[], batchSize: number): AsyncGenerator<RawRow[]> {
  return destinationOf(db).exportReader.rowBatches(db, query, params, batchSize);
}

export function selectSql(q: TableQuery, extraWhere?: string): string {
  const where = extraWhere ? [...q.where, extraWhere] : q.where;
  return `select ${q.columns.join(', ')} from ${quoteIdent(q.table)}${where.length > 0 ? ` where ${where.join(' and ')}` : ''}`;
}

/** Whether an SQLite table has rowids (the CSV export's threads and pages need them). */
export { hasRowids } from '../destinations/sqlite/rowids.js';
