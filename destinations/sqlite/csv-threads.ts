// A CSV export of a large SQLite table on several cores. Reading rows through better-sqlite3 (about half of a
// single-threaded export's CPU) and formatting them cannot be made much cheaper, but they can be shared: n readers
// each read every n-th page of the table's rowids on a connection of their own and encode it (csv-pages.ts), and
// this thread writes the pages in rowid order into the one file, exactly the bytes a single-threaded export writes
// (test/integration/export/export-csv-parallel.test.ts compares them). This thread is reader 0 itself, and export
// threads (csv-thread.ts) are the others: a thread's own isolate costs memory, and this thread only copied bytes
// while a whole core's worth of its time went unused (docs/measurements.md). Memory stays flat: a thread hands over at most CREDITS chunks of about
// 256 KB before this thread has written them.
//
// One snapshot for all threads: each opens its own read transaction while this thread holds the database's
// write lock (BEGIN IMMEDIATE on a connection of its own), so no write can commit between the first thread's
// snapshot and the last one's. The lock is held for the few milliseconds the threads take to start their
// transactions; a writer waiting for it meanwhile waits as it would for any other writer.
import { open } from 'node:fs/promises';
import type { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { beginImmediate } from './tx.js';
import { settingsFor } from '../../settings/process.js';
import type { Env } from '../../settings/settings.js';
import { siblingModule, startModuleWorker } from '../../lib/module-worker.js';
import type { CsvThreadData, FromThread, ToThread } from './csv-thread.js';
import { quoteIdent } from '../../export/database.js';
import type { ColumnInfo, CsvSettings, ExportDatabase, TableQuery, ThreadedCsvJob } from '../contract.js';
import { sqliteOf } from './handle.js';
import { hasRowids, rowidSpanSql } from './rowids.js';
import { DoubleBufferedFile, csvEncoder } from '../../export/formats/csv.js';
import { SQLITE_VALUE_FORMS } from './column-types.js';
import { csvPageBatches } from './csv-pages.js';
import { collectAsWritten, holdYoungGeneration, scavengeAsRead } from '../../export/young-generation.js';
import { sqlCsvRecords } from './csv-records.js';
import { EXPORT_READER_CACHE } from './pages.js';

/**
 * How long the export waits for the write lock it needs to start the threads' snapshot. A writer that holds it
 * longer (or writers that keep taking it) make the export run in the calling thread instead, which needs no lock.
 */
const LOCK_WAIT_MS = 1000;
/** See ThreadedCsvJob.onAlive. */
const ALIVE_MS = 200;
const STALL_MS = 60_000;
/** Chunks a thread may have handed over and not yet seen written. */
const CREDITS = 4;
/**
 * Each thread's young generation: a page's garbage is short-lived, and V8's default young generation for a thread
 * held far more resident memory than it needs; smaller saves memory for some more CPU, and below 4 MB the CPU cost
 * outgrew the saving (docs/measurements.md).
 */
const THREAD_YOUNG_GENERATION_MB = 4;
/**
 * The young generation of a thread whose batches SQLite writes (csv-records.ts): it makes next to no garbage on
 * V8's heap, so a smaller one costs no CPU and saves memory (docs/measurements.md).
 */
const RECORDS_THREAD_YOUNG_GENERATION_MB = 2;
/** A page of rowids holds about this many batches of rows. */
const BATCHES_PER_PAGE = 16;

/**
 * The most threads one export uses, whatever SCRAPE_ETL_EXPORT_THREADS asks. Every export thread is a Node isolate
 * of its own, which holds most of a thread's memory before it reads a row: with SQLite writing the records
 * (csv-records.ts) a thread's work adds little to it, yet 4 threads stayed above the 90 MB an export may take
 * (issue #39) and 3 at about that, while 2 kept well below (docs/measurements.md). The calling thread, which writes
 * the file, is the next limit of a third or fourth reader anyway.
 */
export const MAX_EXPORT_THREADS = 2;

/**
 * Threads for one CSV export of a SQLite table: SCRAPE_ETL_EXPORT_THREADS, by default the machine's cores, at
 * most MAX_EXPORT_THREADS. 1 exports in the calling thread.
 */
export function exportThreads(env?: Env): number {
  return Math.min(MAX_EXPORT_THREADS, settingsFor(env).exportThreads);
}

/** SCRAPE_ETL_EXPORT_THREAD_MIN_CELLS: the fewest cells (rows x columns) a table needs to be exported on threads. */
export function exportThreadMinCells(env?: Env): number {
  return settingsFor(env).exportThreadMinCells;
}

/**
 * How many threads should export this table (at most MAX_EXPORT_THREADS): 0 when it is exported in the calling
 * thread. Threads need a SQLite
 * file (an in-memory database has one connection), one they may lock for writing (the snapshot), a table with
 * rowids, and enough cells to pay for starting them.
 */
export function csvThreadsFor(
  db: ExportDatabase,
  query: TableQuery,
  width: number,
  threads: number,
  minCells = exportThreadMinCells(),
): number {
  threads = Math.min(threads, MAX_EXPORT_THREADS);
  if (threads < 2 || !db.adapter.capabilities.parallelExportReaders) return 0;
  const sqlite = sqliteOf(db);
  if (sqlite.memory || sqlite.readonly || !hasRowids(sqlite, query.table)) return 0;
  // The span in JavaScript: max - min can overflow SQLite's int64 (rowids from -2^63 to 2^63-1).
  const { lo, hi } = sqlite.prepare(rowidSpanSql(query.table)).safeIntegers(true).get() as {
    lo: bigint | null;
    hi: bigint | null;
  };
  return lo !== null && hi !== null && (hi - lo + 1n) * BigInt(width) >= BigInt(minCells) ? threads : 0;
}

/**
 * Writes the file on `job.threads` threads. False, having written nothing, when the write lock for the snapshot
 * was not to be had within LOCK_WAIT_MS: the caller then exports in its own thread.
 */
export async function writeCsvInThreads(job: ThreadedCsvJob): Promise<boolean> {
  const sqlite = sqliteOf(job.db);
  const busyTimeoutMs = Number(sqlite.pragma('busy_timeout', { simple: true }));
  const threadModule = siblingModule(import.meta.url, './csv-thread.js');
  let lastHeard = Date.now();
  const heard = () => (lastHeard = Date.now());
  const alive = setInterval(() => {
    if (Date.now() - lastHeard < STALL_MS) job.onAlive?.();
  }, ALIVE_MS);
  const channels: ThreadChannel[] = [];
  let release = () => {};
  // The calling thread's own share is read on a connection of its own, in the same snapshot as the threads'.
  const reader = new BetterSqlite3(sqlite.name, { readonly: true, fileMustExist: true });
  try {
    reader.pragma(`busy_timeout = ${busyTimeoutMs}`);
    reader.pragma(`cache_size = ${EXPORT_READER_CACHE}`);
    // Whether SQLite writes the records depends on the table, the settings and the file alone: the threads decide
    // as this thread does.
    const records = sqlCsvRecords(reader, job.query, job.columns, job.settings, job.batchRows, job.loadIdIndex);
    const youngGenerationMb = records ? RECORDS_THREAD_YOUNG_GENERATION_MB : THREAD_YOUNG_GENERATION_MB;
    // Thread i reads the pages whose number modulo job.threads is i; the calling thread is reader 0.
    for (let index = 1; index < job.threads; index++) {
      const data: CsvThreadData = {
        file: sqlite.name,
        index,
        query: job.query,
        columns: job.columns,
        settings: job.settings,
        batchRows: job.batchRows,
        loadIdIndex: job.loadIdIndex,
        busyTimeoutMs,
        credits: CREDITS,
      };
      channels.push(
        new ThreadChannel(
          startModuleWorker(threadModule, data, { maxYoungGenerationSizeMb: youngGenerationMb }),
          heard,
        ),
      );
    }
    await Promise.all(channels.map((c) => c.receive('ready')));
    // This thread encodes its share of the pages, as an export in the calling thread does, so it holds the young
    // generation at its size as that one does (young-generation.ts): without, V8 grew it to its maximum
    // (docs/measurements.md). Taken once the threads are up: a thread's start set
    // V8's flags back, and a hold taken before had no effect.
    release = holdYoungGeneration();
    const written = collectAsWritten();
    const span = await snapshotTogether(
      sqlite.name,
      job.query.table,
      Math.min(busyTimeoutMs, LOCK_WAIT_MS),
      channels,
      reader,
    );
    if (span === null) return false;
    const table = quoteIdent(job.query.table);
    const count = reader.prepare(`select count(*) from ${table}`).pluck().safeIntegers(true).get() as bigint;
    const file = await open(job.path, 'wx');
    const out = new DoubleBufferedFile(file);
    const encoder = csvEncoder(job.columns, SQLITE_VALUE_FORMS, job.settings);
    try {
      await out.append(encoder.header);
      const { lo, hi } = span;
      if (lo !== null && hi !== null && count > 0n) {
        // Pages of equal rowid width, sized by the table's density so that a page holds about BATCHES_PER_PAGE
        // batches; a denser stretch only makes a page hand over more chunks.
        const rowsPerPage = BigInt(BATCHES_PER_PAGE * job.batchRows);
        const span = hi - lo + 1n;
        const width = (rowsPerPage * span) / count > 0n ? (rowsPerPage * span) / count : 1n;
        const plan = { lo, width, pages: Number((span + width - 1n) / width) };
        for (const c of channels) c.send({ type: 'pages', ...plan, threads: job.threads });
        const read = {
          reader,
          query: job.query,
          encoder,
          records,
          batchRows: job.batchRows,
          loadIdIndex: job.loadIdIndex,
        };
        const scavenge = scavengeAsRead();
        for (let page = 0; page < plan.pages; page++) {
          if (page % job.threads === 0) {
            // This thread's own page, encoded straight into the file's buffer. The threads' chunks meanwhile wait
            // in their queues, at most CREDITS per thread.
            for (const batch of csvPageBatches(read, plan, page)) {
              const text = batch.records;
              if (typeof text === 'string') await out.append(text);
              else {
                await out.appendBytes(text);
                scavenge(text.length);
              }
              written(text.length);
              heard();
              job.onChunk(batch.rows, batch.maxLoadId);
              job.signal?.throwIfAborted();
            }
            continue;
          }
          const owner = channels[(page % job.threads) - 1]!;
          for (;;) {
            const chunk = await owner.receive('chunk');
            if (chunk.page !== page) throw new Error(`export thread sent page ${chunk.page}, expected ${page}`);
            await out.appendBytes(chunk.bytes);
            written(chunk.bytes.length);
            owner.send({ type: 'credit', buffer: chunk.bytes.buffer as ArrayBuffer }, [
              chunk.bytes.buffer as ArrayBuffer,
            ]);
            job.onChunk(chunk.rows, chunk.maxLoadId);
            job.signal?.throwIfAborted();
            if (chunk.last) break;
          }
        }
      }
      await out.finish();
      job.signal?.throwIfAborted();
      return true;
    } finally {
      await out.settled();
      await file.close();
    }
  } finally {
    clearInterval(alive);
    release();
    // Also ends this thread's read transaction. Threads that finished have exited; the others (an abort, or
    // another thread's failure) are terminated, and their connections closed with them.
    reader.close();
    await Promise.all(channels.map((c) => c.stop()));
  }
}

/**
 * Starts every thread's read transaction, and `reader`'s in this thread, while holding the write lock; returns the
 * snapshot's rowid span of `table`, or null when the lock was busy for `waitMs`.
 */
async function snapshotTogether(
  file: string,
  table: string,
  waitMs: number,
  channels: ThreadChannel[],
  reader: BetterSqlite3.Database,
): Promise<RowidSpan | null> {
  const lock = new BetterSqlite3(file, { fileMustExist: true });
  try {
    lock.pragma(`busy_timeout = ${waitMs}`);
    try {
      await beginImmediate(lock);
    } catch (err) {
      if ((err as { code?: unknown }).code === 'SQLITE_BUSY') return null;
      throw err;
    }
    for (const c of channels) c.send({ type: 'begin' });
    // The first read takes the snapshot; only the rowid span is read under the lock (two index seeks).
    reader.exec('BEGIN');
    const span = reader.prepare(rowidSpanSql(table)).safeIntegers(true).get() as RowidSpan;
    await Promise.all(channels.map((c) => c.receive('begun')));
    return span;
  } finally {
    if (lock.inTransaction) lock.exec('ROLLBACK');
    lock.close();
  }
}

interface RowidSpan {
  lo: bigint | null;
  hi: bigint | null;
}

type Message<T extends FromThread['type']> = Extract<FromThread, { type: T }>;

/** A thread's messages in arrival order; its error or early exit fails whoever waits on it. */
class ThreadChannel {
  private readonly queue: FromThread[] = [];
  private failure: Error | undefined;
  private waiter: (() => void) | undefined;

  constructor(
    private readonly worker: Worker,
    onMessage: () => void,
  ) {
    worker.on('message', (m: FromThread) => {
      onMessage();
      this.queue.push(m);
      this.wake();
    });
    worker.on('error', (err) => {
      this.failure ??= err;
      this.wake();
    });
    worker.on('exit', (code) => {
      this.failure ??= new Error(`export thread exited (code ${code}) before the export was written`);
      this.wake();
    });
  }

  send(m: ToThread, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(m, transfer);
  }

  async receive<T extends FromThread['type']>(type: T): Promise<Message<T>> {
    for (;;) {
      const m = this.queue.shift();
      if (m) {
        if (m.type !== type) throw new Error(`export thread sent "${m.type}", expected "${type}"`);
        return m as Message<T>;
      }
      if (this.failure) throw this.failure;
      await new Promise<void>((r) => (this.waiter = r));
    }
  }

  async stop(): Promise<void> {
    await this.worker.terminate();
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }
}
