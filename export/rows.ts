// Streams the rows of one query, in batches, straight from the raw driver: memory holds one batch, whatever
// the table size, and the next batch is read only when the CSV writer asks for it. How a destination streams is its
// export reader's (destinations/<name>/export-reader.ts).
import type { ExportDatabase } from './database.js';
import { quoteIdent } from './database.js';

export type { RawRow, TableQuery } from '../destinations/contract.js';
import type { RawRow, TableQuery } from '../destinations/contract.js';

export function rowBatches(
  db: ExportDatabase,
  query: TableQuery | string,
  params: unknown[],
  batchSize: number,
): AsyncGenerator<RawRow[]> {
  return db.adapter.exportReader.rowBatches(db, query, params, batchSize);
}

export function selectSql(q: TableQuery, extraWhere?: string): string {
  const where = extraWhere ? [...q.where, extraWhere] : q.where;
  return `select ${q.columns.join(', ')} from ${quoteIdent(q.table)}${where.length > 0 ? ` where ${where.join(' and ')}` : ''}`;
}
