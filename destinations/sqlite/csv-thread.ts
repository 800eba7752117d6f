// One export thread of destinations/sqlite/csv-threads.ts: reads its share of a SQLite table's rowid pages on a connection of
// its own, turns them into CSV bytes (SQLite's own records where they are the same bytes, else the same encoder as a
// single-threaded export, formats/csv.ts; through csv-pages.ts as the calling thread does for its own share), and hands them to the calling thread, which writes
// them in rowid order. The protocol, step by step:
//   thread -> ready               connection open, statements can be prepared
//   main   -> begin               (main holds the write lock) start the read transaction: the snapshot
//   thread -> begun {lo, hi}      snapshot taken (lo and hi: the table's lowest and highest rowid in it)
//   main   -> pages {lo, width, pages, threads}
//   thread -> chunk {page, last, bytes, rows, maxLoadId}   for each of its pages (page % threads == index), in order
//   main   -> credit {buffer}      one per chunk written, with its buffer to reuse: a thread never has more than
//                                 `credits` chunks unwritten
// An export that ends early (aborted, or another thread failed) terminates its threads; a terminated thread's
// connection is closed with it, read transaction and all (test/integration/export/export-csv-parallel.test.ts checkpoints after one).
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { csvEncoder } from '../../export/formats/csv.js';
import { SQLITE_VALUE_FORMS } from './column-types.js';
import { rowidSpanSql } from './rowids.js';
import { EXPORT_READER_CACHE } from './pages.js';
import { csvPageBatches } from './csv-pages.js';
import { sqlCsvRecords } from './csv-records.js';
import { scavengeAsRead } from '../../export/young-generation.js';
import type { ColumnInfo, CsvSettings, TableQuery } from '../contract.js';

export interface CsvThreadData {
  file: string;
  /** This thread reads the pages whose number modulo the readers is `index` (never 0: the calling thread's share). */
  index: number;
  query: TableQuery;
  /** The columns written; rows may hold one more value (load_id, read for the watermark only). */
  columns: ColumnInfo[];
  settings: CsvSettings;
  batchRows: number;
  /** Where load_id is in each row, or -1. */
  loadIdIndex: number;
  busyTimeoutMs: number;
  credits: number;
}

export type ToThread =
  | { type: 'begin' }
  | { type: 'pages'; lo: bigint; width: bigint; pages: number; threads: number }
  | { type: 'credit'; buffer: ArrayBuffer };

export type FromThread =
  | { type: 'ready' }
  | { type: 'begun'; lo: bigint | null; hi: bigint | null }
  | { type: 'chunk'; page: number; last: boolean; bytes: Uint8Array; rows: number; maxLoadId: bigint | null };

/**
 * A chunk is handed over when its buffer of this many bytes is full or its page ends. A page of a narrow table is
 * about 500 KB of CSV; 256 KB chunks (with the calling thread's 256 KB flushes) left less peak memory than 1 MB ones
 * at the same speed (docs/measurements.md).
 */
const CHUNK_BYTES = 256 << 10;

const data = workerData as CsvThreadData;
const port = parentPort!;
const send = (m: FromThread, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

// Credits are counted as they arrive; the other messages are the protocol's next steps, taken in order.
const inbox: ToThread[] = [];
let credits = data.credits;
// Buffers of written chunks, returned with their credits.
const spare: Buffer[] = [];
let wake: (() => void) | undefined;
port.on('message', (m: ToThread) => {
  if (m.type === 'credit') {
    credits++;
    if (m.buffer.byteLength === CHUNK_BYTES) spare.push(Buffer.from(m.buffer));
  } else inbox.push(m);
  const w = wake;
  wake = undefined;
  w?.();
});
const nextMessage = () => new Promise<void>((r) => (wake = r));
async function receive<T extends ToThread['type']>(type: T): Promise<Extract<ToThread, { type: T }>> {
  for (;;) {
    const m = inbox.shift();
    if (m) {
      if (m.type !== type) throw new Error(`export thread: expected "${type}", got "${m.type}"`);
      return m as Extract<ToThread, { type: T }>;
    }
    await nextMessage();
  }
}
async function credit(): Promise<void> {
  while (credits === 0) await nextMessage();
  credits--;
}

const reader = new BetterSqlite3(data.file, { readonly: true, fileMustExist: true });
try {
  await exportShare(reader);
} finally {
  // Also ends the read transaction of a thread that failed.
  reader.close();
  port.close();
}

async function exportShare(reader: BetterSqlite3.Database): Promise<void> {
  reader.pragma(`busy_timeout = ${data.busyTimeoutMs}`);
  reader.pragma(`cache_size = ${EXPORT_READER_CACHE}`);
  const encoder = csvEncoder(data.columns, SQLITE_VALUE_FORMS, data.settings);
  send({ type: 'ready' });
  await receive('begin');
  reader.exec('BEGIN');
  // The first read takes the snapshot, while the main thread holds the write lock: every thread sees the same one.
  // Only the rowid span is read then (two index seeks), so other writers wait a few milliseconds at most.
  const span = reader.prepare(rowidSpanSql(data.query.table)).safeIntegers(true).get() as {
    lo: bigint | null;
    hi: bigint | null;
  };
  send({ type: 'begun', lo: span.lo, hi: span.hi });

  const plan = await receive('pages');
  // Each batch's text is encoded into the chunk's buffer as soon as it is made, while it is still small and in
  // cache; a full buffer is handed over (transferred, not copied) and comes back with its credit.
  let buffer = spare.pop() ?? Buffer.allocUnsafeSlow(CHUNK_BYTES);
  let used = 0;
  const records = sqlCsvRecords(reader, data.query, data.columns, data.settings, data.batchRows, data.loadIdIndex);
  const read = {
    reader,
    query: data.query,
    encoder,
    records,
    batchRows: data.batchRows,
    loadIdIndex: data.loadIdIndex,
  };
  const scavenge = scavengeAsRead();
  for (let page = data.index; page < plan.pages; page += plan.threads) {
    let rows = 0;
    let maxLoadId: bigint | null = null;
    const handOver = async (last: boolean) => {
      await credit();
      const bytes = buffer.subarray(0, used);
      send({ type: 'chunk', page, last, bytes, rows, maxLoadId }, [buffer.buffer as ArrayBuffer]);
      buffer = spare.pop() ?? Buffer.allocUnsafeSlow(CHUNK_BYTES);
      used = 0;
      rows = 0;
      maxLoadId = null;
    };
    for (const batch of csvPageBatches(read, plan, page)) {
      const text = batch.records;
      // A UTF-16 code unit never takes more than 3 bytes of UTF-8.
      const room = typeof text === 'string' ? text.length * 3 : text.length;
      if (used + room > buffer.length) {
        if (used > 0) await handOver(false);
        if (room > buffer.length) buffer = Buffer.allocUnsafeSlow(room);
      }
      if (typeof text === 'string') used += buffer.write(text, used);
      else {
        buffer.set(text, used);
        used += text.length;
        scavenge(text.length);
      }
      rows += batch.rows;
      if (batch.maxLoadId !== null && (maxLoadId === null || batch.maxLoadId > maxLoadId)) maxLoadId = batch.maxLoadId;
    }
    await handOver(true);
  }
  reader.exec('COMMIT');
}
