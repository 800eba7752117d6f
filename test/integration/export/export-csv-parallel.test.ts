// CSV export of a large SQLite table on several threads (destinations/sqlite/csv-threads.ts): the file must be byte for byte the
// single-threaded export's, whatever the rowids look like, for every CSV setting; incremental exports must move the
// watermark the same way; all threads must read one snapshot, even while another process rewrites the table; and an
// abort or a thread's error must leave no file and no thread behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../../destinations/open.js';
import { destinationNamed } from '../../../destinations/index.js';
import { exportTables, type ExportOptions } from '../../../export/csv.js';
import type { ColumnHints } from '../../../export/columns.js';
import { MAX_EXPORT_THREADS, csvThreadsFor, exportThreadMinCells } from '../../../destinations/sqlite/csv-threads.js';
import { readWatermark } from '../../../export/watermarks.js';
import { readCsvWithPython } from '../../support/python-csv.js';
import { expectIncrementalLikeOneThread } from '../../support/incremental-threads.js';

const TEXTS = [
  'plain',
  '',
  'a,b',
  'say "hi"',
  'line\nbreak',
  'crlf\r\n',
  '=1+1',
  '-x',
  '@sum',
  'Zürich',
  '東京',
  '😀,"',
  'NULL',
];
// 60,000 rows x 11 columns: under the default threshold (4M cells, destinations/sqlite/csv-threads.ts), so this file lowers it to
// 500,000 (SCRAPE_ETL_EXPORT_THREAD_MIN_CELLS, read at each export) and the threads are used; the default is checked
// on its own below.
const ROWS = 60_000;
process.env['SCRAPE_ETL_EXPORT_THREAD_MIN_CELLS'] = '500000';
const HINTS: ColumnHints = { events: { flag: 'boolean', at: 'timestamp_s', doc: 'json' } };

let dir: string;
let db: SqliteDatabase;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-csv-parallel-'));
  db = (await openDatabase(`sqlite:${join(dir, 'db.sqlite')}`)) as SqliteDatabase;
  db.sqlite.exec(`create table events (
    pipeline text not null, load_id integer not null, label text, price real, flag integer, big integer, at integer,
    doc text, bytes blob, empty text, v integer not null default 0)`);
});
afterEach(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

/** Rows with awkward values; `rowid(i)` places them (dense by default). */
function fill(
  rows: number,
  opts: { loadId?: (i: number) => number; rowid?: (i: number) => bigint; pipeline?: (i: number) => string } = {},
): void {
  const insert = db.sqlite.prepare(
    `insert into events (rowid, pipeline, load_id, label, price, flag, big, at, doc, bytes, empty) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  db.sqlite.transaction(() => {
    for (let i = 0; i < rows; i++) {
      const t = TEXTS[i % TEXTS.length]!;
      insert.run(
        opts.rowid ? opts.rowid(i) : BigInt(i + 1),
        opts.pipeline ? opts.pipeline(i) : 'p1',
        opts.loadId ? opts.loadId(i) : 1 + (i % 7),
        i % 17 === 0 ? null : t,
        i % 5 === 0 ? null : i * 0.25 - 100,
        i % 3 === 2 ? null : i % 2,
        9007199254740993n + BigInt(i),
        1_700_000_000 + i,
        JSON.stringify({ t, i }),
        i % 11 === 0 ? Buffer.from([i % 256, 0, 255]) : null,
        null,
      );
    }
  })();
}

/** Exports `events`; `threads` is how many threads the export says wrote it (1: the calling thread alone). */
async function exportFile(
  name: string,
  options: Partial<ExportOptions> & { threads: number },
): Promise<{ bytes: Buffer; rows: number; file: string; threads: number }> {
  const [f] = await exportTables(db, {
    tables: ['events'],
    outDir: join(dir, 'out'),
    fileName: name,
    columnHints: HINTS,
    ...options,
  });
  return { bytes: await readFile(f!.file), rows: f!.rows, file: f!.file, threads: f!.threads ?? 1 };
}

const QUERY = { table: 'events', columns: ['"label"'], where: [], params: [] };

describe('CSV export on threads (SQLite)', () => {
  it('uses threads only where they pay: a large table in a SQLite file, with rowids', async () => {
    fill(ROWS);
    expect(csvThreadsFor(db, QUERY, 11, 2)).toBe(2);
    expect(csvThreadsFor(db, QUERY, 11, 1)).toBe(0);
    // The default: 660,000 cells is too few; 400 columns' worth (24M cells) is enough.
    expect(csvThreadsFor(db, QUERY, 11, 2, exportThreadMinCells({}))).toBe(0);
    expect(csvThreadsFor(db, QUERY, 400, 2, exportThreadMinCells({}))).toBe(2);
    expect(() => exportThreadMinCells({ SCRAPE_ETL_EXPORT_THREAD_MIN_CELLS: 'many' })).toThrow(
      /SCRAPE_ETL_EXPORT_THREAD_MIN_CELLS/,
    );
    // Too few cells: 60,000 rows of one column.
    expect(csvThreadsFor(db, QUERY, 1, 2)).toBe(0);
    db.sqlite.exec('create table keyed (k text primary key, v text) without rowid');
    expect(csvThreadsFor(db, { ...QUERY, table: 'keyed' }, 1000, 2)).toBe(0);
    const memory = new BetterSqlite3(':memory:');
    memory.exec('create table events (label text)');
    memory.exec(
      `insert into events with recursive n(i) as (select 1 union all select i + 1 from n where i < 60000) select 'x' from n`,
    );
    expect(
      csvThreadsFor({ dialect: 'sqlite', adapter: destinationNamed('sqlite'), sqlite: memory }, QUERY, 11, 2),
    ).toBe(0);
    memory.close();
  });

  it('writes the same bytes as one thread, for every CSV setting, and Python reads every row', async () => {
    fill(ROWS);
    const settings: Array<Partial<ExportOptions>> = [
      {},
      { delimiter: ';', lineEnding: 'lf', nullText: 'NULL', bom: true },
      { neutralizeFormulas: false, delimiter: '::' },
    ];
    for (const [n, s] of settings.entries()) {
      const single = await exportFile(`single-${n}.csv`, { ...s, threads: 1 });
      for (const threads of n === 0 ? [2, 3] : [2]) {
        const parallel = await exportFile(`threads-${threads}-${n}.csv`, { ...s, threads });
        // At most MAX_EXPORT_THREADS, however many are asked for.
        expect(parallel.threads).toBe(Math.min(threads, MAX_EXPORT_THREADS));
        expect(parallel.rows).toBe(ROWS);
        expect(parallel.bytes.equals(single.bytes)).toBe(true);
      }
      if (s.delimiter !== '::') {
        const records = readCsvWithPython(join(dir, 'out', `threads-2-${n}.csv`), s.delimiter ?? ',');
        expect(records).toHaveLength(ROWS + 1);
        expect(records[0]).toEqual([
          'pipeline',
          'load_id',
          'label',
          'price',
          'flag',
          'big',
          'at',
          'doc',
          'bytes',
          'empty',
          'v',
        ]);
        expect(records[ROWS]![5]).toBe((9007199254740993n + BigInt(ROWS - 1)).toString());
      }
    }
  });

  it('reads sparse, clustered and negative rowids, down to the lowest and up to the highest int64', async () => {
    const at = (i: number): bigint => {
      if (i === 0) return -(2n ** 63n);
      if (i === 1) return 2n ** 63n - 1n;
      if (i < 20_000) return -1_000_000n + BigInt(i); // dense, negative
      if (i < 40_000) return 2n ** 40n + BigInt(i) * 1_000n; // sparse
      return 2n ** 62n + BigInt(i); // dense again, far away
    };
    fill(ROWS, { rowid: at });
    const single = await exportFile('single.csv', { threads: 1 });
    const parallel = await exportFile('parallel.csv', { threads: 2 });
    expect(parallel.threads).toBe(2);
    expect(parallel.rows).toBe(ROWS);
    expect(parallel.bytes.equals(single.bytes)).toBe(true);
  });

  it('exports a pipeline incrementally as one thread does: same rows, same watermark', async () => {
    fill(ROWS, { pipeline: (i) => (i % 3 === 0 ? 'other' : 'p1') });
    await expectIncrementalLikeOneThread({
      db,
      dir,
      table: 'events',
      columnHints: HINTS,
      firstRows: ROWS - ROWS / 3,
      firstWatermark: 7n,
      addRows: (d, load) =>
        d.sqlite
          .prepare(
            `insert into events (pipeline, load_id, label) select 'p1', ?, label from events where rowid <= 50000`,
          )
          .run(load),
    });
  });

  it('takes its snapshot under the write lock: it waits for a writer that holds it and sees what that writer committed', async () => {
    fill(ROWS);
    const file = join(dir, 'db.sqlite');
    const writer = new BetterSqlite3(file);
    try {
      writer.exec('BEGIN IMMEDIATE');
      writer.prepare(`insert into events (pipeline, load_id, label) values ('p1', 99, 'late')`).run();
      const opened = openCount(file);
      let progressCalls = 0;
      const exported = exportFile('parallel.csv', { threads: 2, onProgress: () => progressCalls++ });
      // The writer commits once both threads and the export's lock connection have opened the file, and 500 ms
      // later: threads that did not wait for the write lock would have taken their snapshot by then, without this row.
      while (openCount(file) < opened + 3) await new Promise((r) => setTimeout(r, 2));
      const waitingSince = progressCalls;
      await new Promise((r) => setTimeout(r, 500));
      // While it waits, the export says it is alive (a pipeline run's export heartbeats from onProgress).
      expect(progressCalls).toBeGreaterThan(waitingSince);
      writer.exec('COMMIT');
      const parallel = await exported;
      expect(parallel.threads).toBe(2);
      expect(parallel.rows).toBe(ROWS + 1);
    } finally {
      writer.close();
    }
  });

  it('falls back to one thread when a writer keeps the lock, and still reads only committed rows', async () => {
    fill(ROWS);
    const writer = new BetterSqlite3(join(dir, 'db.sqlite'));
    try {
      writer.exec('BEGIN IMMEDIATE');
      writer.prepare(`insert into events (pipeline, load_id, label) values ('p1', 99, 'uncommitted')`).run();
      const single = await exportFile('single.csv', { threads: 1 });
      const parallel = await exportFile('parallel.csv', { threads: 2 });
      expect(parallel.threads).toBe(1);
      expect(parallel.rows).toBe(ROWS);
      expect(parallel.bytes.equals(single.bytes)).toBe(true);
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
    }
  });

  it('reads one snapshot while another process rewrites the whole table again and again', async () => {
    fill(ROWS);
    const rewriter = startRewriter(join(dir, 'db.sqlite'));
    try {
      await rewriter.started;
      for (let round = 0; round < 3; round++) {
        const f = await exportFile(`round-${round}.csv`, { threads: 3 });
        expect(f.threads).toBe(MAX_EXPORT_THREADS);
        expect(f.rows).toBe(ROWS);
        // Every row of one snapshot holds the same v; rows from two snapshots would hold two values.
        const records = readCsvWithPython(f.file).slice(1);
        expect(new Set(records.map((r) => r[10])).size).toBe(1);
      }
    } finally {
      rewriter.child.kill('SIGKILL');
    }
    expect(rewriter.updates()).toBeGreaterThan(3);
  });

  it('leaves no file, no thread and no open snapshot behind when aborted or when a thread fails', async () => {
    fill(ROWS);
    // After an export in the calling thread (which starts libuv's thread pool): the process's threads, to compare
    // with after the failed exports.
    await exportFile('warm-up.csv', { threads: 1 });
    await rm(join(dir, 'out', 'warm-up.csv'));
    const threadsBefore = osThreads();
    const controller = new AbortController();
    const aborted = exportFile('aborted.csv', {
      threads: 2,
      signal: controller.signal,
      onProgress: () => controller.abort(),
    });
    await expect(aborted).rejects.toThrow(/abort/i);
    expect(fullCheckpoint()).toBe(true);

    // A timestamp no Date can hold, in a row near the end: the thread that formats it fails the export.
    db.sqlite.prepare('update events set at = 9e15 where rowid = ?').run(ROWS - 10);
    await expect(exportFile('failed.csv', { threads: 2 })).rejects.toThrow(
      /column "at" holds 9000000000000000000 ms, not a valid timestamp/,
    );
    expect(fullCheckpoint()).toBe(true);
    expect(await readdir(join(dir, 'out'))).toEqual([]);
    expect(osThreads()).toBe(threadsBefore);
  });
});

/**
 * Writes a little and checkpoints the whole WAL into the database: false when a connection still holds a read
 * transaction on an older snapshot (a thread that was not closed), which SQLite must not overwrite.
 */
function fullCheckpoint(): boolean {
  db.sqlite.prepare(`insert into events (pipeline, load_id) values ('p1', 1)`).run();
  const [result] = db.sqlite.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
  return result!.busy === 0;
}

/** How many open file descriptors of this process are `file` (Linux): each SQLite connection holds one. */
function openCount(file: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false; // closed meanwhile
    }
  }).length;
}

/** The threads of this process (Linux): each worker thread is one. */
function osThreads(): number {
  return Number(/^Threads:\s+(\d+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))![1]);
}

/** A process that adds 1 to every row's v, one transaction per pass, 20 ms apart, until killed. */
function startRewriter(file: string): { child: ChildProcess; started: Promise<void>; updates: () => number } {
  const script = `
    const Database = require('better-sqlite3');
    const db = new Database(process.argv[1]);
    db.pragma('busy_timeout = 15000');
    const pass = db.prepare('update events set v = v + 1');
    const pause = new Int32Array(new SharedArrayBuffer(4));
    // A short pause between passes, as a loading worker has between its transactions.
    for (;;) { pass.run(); process.stdout.write('.'); Atomics.wait(pause, 0, 0, 20); }
  `;
  const child = spawn(process.execPath, ['-e', script, file], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let passes = 0;
  const started = new Promise<void>((resolve) =>
    child.stdout!.on('data', (d: Buffer) => ((passes += d.length), resolve())),
  );
  return { child, started, updates: () => passes };
}
