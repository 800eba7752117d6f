// One rowid page of a threaded CSV export (destinations/sqlite/csv-threads.ts) as CSV, batch by batch: the same steps
// in an export thread (csv-thread.ts) and in the calling thread, which encodes its own share of the pages too. A
// batch is SQLite's own records (csv-records.ts) where they are the bytes formats/csv.ts would write, else its rows
// encoded by formats/csv.ts.
import type BetterSqlite3 from 'better-sqlite3';
import type { CsvEncoder } from '../../export/formats/csv.js';
import type { TableQuery } from '../contract.js';
import type { SqlCsvRecords } from './csv-records.js';
import { sqliteRowidPages } from './pages.js';

/** One batch of a page: its CSV records (text, or SQLite's UTF-8 bytes), how many rows, their highest load_id. */
export interface CsvBatch {
  records: string | Uint8Array;
  rows: number;
  maxLoadId: bigint | null;
}

export interface CsvPageRead {
  reader: BetterSqlite3.Database;
  query: TableQuery;
  encoder: CsvEncoder;
  /** SQLite's records for this export (csv-records.ts), or null: every batch is encoded by `encoder`. */
  records: SqlCsvRecords | null;
  batchRows: number;
  /** Where load_id is in each row, or -1. */
  loadIdIndex: number;
}

export interface PagePlan {
  lo: bigint;
  width: bigint;
  pages: number;
}

const MAX_ROWID = 2n ** 63n - 1n;

/**
 * A reader stops asking SQLite for records once this many batches, and a quarter of those it asked for, failed the
 * check: a table whose values fail it in most batches (formula-like text in every row, say) would be read twice.
 */
const LEFT_BATCHES = 16;

/** The batches of page `page` of `plan`, read on `read.reader` inside the caller's read transaction. */
export function* csvPageBatches(read: CsvPageRead, plan: PagePlan, page: number): Generator<CsvBatch> {
  const from = plan.lo + BigInt(page) * plan.width;
  // The last page is open above: it ends at the snapshot's highest rowid, whatever the width's rounding.
  const before = page === plan.pages - 1 ? null : from + plan.width;
  if (read.records !== null && !tooManyLeft(read.reader)) yield* sqlBatches(read, read.records, from, before);
  else yield* encodedBatches(read, from, before);
}

function* sqlBatches(
  read: CsvPageRead,
  records: SqlCsvRecords,
  first: bigint,
  before: bigint | null,
): Generator<CsvBatch> {
  for (let from: bigint | null = first; from !== null;) {
    const batch = records.batch(read.reader, from, before);
    tally(read.reader).asked++;
    if (batch.rows === 0 || batch.last === null) return;
    const next = batch.last < MAX_ROWID ? batch.last + 1n : null;
    if (records.plain(batch)) yield { records: batch.bytes!, rows: batch.rows, maxLoadId: batch.maxLoadId };
    else {
      // The same rows again (rowids from `from` to the batch's last), encoded as a single-threaded export does.
      tally(read.reader).left++;
      yield* encodedBatches(read, from, next ?? before);
      if (tooManyLeft(read.reader) && next !== null) {
        yield* encodedBatches(read, next, before);
        return;
      }
    }
    if (batch.rows < read.batchRows) return;
    from = next;
  }
}

/** Per reader: batches of SQLite records asked for, and those that failed the check. */
const tallies = new WeakMap<BetterSqlite3.Database, { asked: number; left: number }>();
function tally(reader: BetterSqlite3.Database): { asked: number; left: number } {
  let t = tallies.get(reader);
  if (!t) tallies.set(reader, (t = { asked: 0, left: 0 }));
  return t;
}
function tooManyLeft(reader: BetterSqlite3.Database): boolean {
  const t = tally(reader);
  return t.left >= LEFT_BATCHES && t.left * 4 >= t.asked;
}

function* encodedBatches(read: CsvPageRead, from: bigint, before: bigint | null): Generator<CsvBatch> {
  for (const batch of sqliteRowidPages(read.reader, read.query, read.batchRows, from, before)) {
    let maxLoadId: bigint | null = null;
    if (read.loadIdIndex >= 0) {
      for (const row of batch) {
        const id = row[read.loadIdIndex] as bigint;
        if (maxLoadId === null || id > maxLoadId) maxLoadId = id;
      }
    }
    yield { records: read.encoder.rows(batch), rows: batch.length, maxLoadId };
  }
}
