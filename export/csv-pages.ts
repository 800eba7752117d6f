// One rowid page of a threaded CSV export (export/csv-parallel.ts) as CSV text, batch by batch: the same steps
// in an export thread (csv-thread.ts) and in the calling thread, which encodes its own share of the pages too.
import type BetterSqlite3 from 'better-sqlite3';
import type { CsvEncoder } from './formats/csv.js';
import type { TableQuery } from './rows.js';
import { sqliteRowidPages } from '../destinations/sqlite/pages.js';

/** One batch of a page: its CSV records, how many rows, and their highest load_id (null without load_id). */
export interface CsvBatchText {
  text: string;
  rows: number;
  maxLoadId: bigint | null;
}

export interface CsvPageRead {
  reader: BetterSqlite3.Database;
  query: TableQuery;
  encoder: CsvEncoder;
  batchRows: number;
  /** Where load_id is in each row, or -1. */
  loadIdIndex: number;
}

export interface PagePlan {
  lo: bigint;
  width: bigint;
  pages: number;
}

/** The batches of page `page` of `plan`, read on `read.reader` inside the caller's read transaction. */
export function* csvPageBatches(read: CsvPageRead, plan: PagePlan, page: number): Generator<CsvBatchText> {
  const from = plan.lo + BigInt(page) * plan.width;
  // The last page is open above: it ends at the snapshot's highest rowid, whatever the width's rounding.
  const before = page === plan.pages - 1 ? null : from + plan.width;
  for (const batch of sqliteRowidPages(read.reader, read.query, read.batchRows, from, before)) {
    let maxLoadId: bigint | null = null;
    if (read.loadIdIndex >= 0) {
      for (const row of batch) {
        const id = row[read.loadIdIndex] as bigint;
        if (maxLoadId === null || id > maxLoadId) maxLoadId = id;
      }
    }
    yield { text: read.encoder.rows(batch), rows: batch.length, maxLoadId };
  }
}
