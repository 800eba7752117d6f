// SQLite's own CSV records in a threaded export (destinations/sqlite/csv-records.ts): a batch SQLite writes must be
// exactly the bytes formats/csv.ts writes for its rows, or be left to formats/csv.ts. Values that take every branch
// (plain cells, and every kind of cell SQL leaves or the check refuses) are exported on threads and in the calling
// thread alone, for several CSV settings; the files must be the same bytes, Python's csv (strict) must read them,
// and most batches must still be SQLite's own. Also: an export uses at most MAX_EXPORT_THREADS threads.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../../destinations/open.js';
import { exportTables, type ExportOptions } from '../../../export/csv.js';
import type { ColumnHints } from '../../../export/columns.js';
import { describeTable } from '../../../export/columns.js';
import { MAX_EXPORT_THREADS, csvThreadsFor } from '../../../destinations/sqlite/csv-threads.js';
import { plainRecords, sqlCsvRecords } from '../../../destinations/sqlite/csv-records.js';
import { csvPageBatches } from '../../../destinations/sqlite/csv-pages.js';
import { csvEncoder } from '../../../export/formats/csv.js';
import { SQLITE_VALUE_FORMS } from '../../../destinations/sqlite/column-types.js';
import { readCsvWithPython } from '../../support/python-csv.js';
import { expectIncrementalLikeOneThread } from '../../support/incremental-threads.js';
import { readWatermark } from '../../../export/watermarks.js';

const ROWS = 60_000;
// 60,000 rows x 9 columns is under the default threshold for threads; lowered for this file, as the other tests of
// threaded exports do.
process.env['SCRAPE_ETL_EXPORT_THREAD_MIN_CELLS'] = '100000';
const HINTS: ColumnHints = { items: { doc: 'json' } };
const COLUMNS = ['pipeline', 'load_id', 'n', 'label', 'flag', 'doc', 'at', 'day', 'code'];

/** Values SQL must not write as they are, or that the check must refuse, each placed in some rows only. */
const ODD_TEXTS = [
  '',
  'a,b',
  'say "hi"',
  'line\nbreak',
  'crlf\r\n',
  'lone\rcr',
  '=1+1',
  '-x',
  '+',
  '-',
  '@sum',
  '\tlead',
  '\uFF1D1',
  '\uFF0B1',
  'a\u0000b',
  'a;b',
  'a|b',
  'a\tb',
];
const PLAIN_TEXTS = ['plain', 'Zürich', '東京', '😀', '-5', '+7', '12', 'NULL', 'x y', "it's"];

let dir: string;
let db: SqliteDatabase;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-csv-records-'));
  db = (await openDatabase(`sqlite:${join(dir, 'db.sqlite')}`)) as SqliteDatabase;
  db.sqlite.exec(`create table items (
    pipeline text not null, load_id integer not null, n integer, label text, flag boolean, doc text, at timestamp,
    day date, code integer)`);
});
afterEach(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

/**
 * Plain rows, with an odd value every `oddEvery` rows (0: none), in a column that turns with it: text in text
 * columns, and in an integer column a real, a blob, text and an empty string; invalid UTF-8 too.
 */
function fill(rows: number, oddEvery: number): void {
  const insert = db.sqlite.prepare(
    `insert into items (pipeline, load_id, n, label, flag, doc, at, day, code) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const invalid = db.sqlite.prepare(`update items set label = cast(x'61ff62' as text) where rowid = ?`);
  db.sqlite.transaction(() => {
    for (let i = 0; i < rows; i++) {
      const plain = PLAIN_TEXTS[i % PLAIN_TEXTS.length]!;
      const odd = oddEvery > 0 && i % oddEvery === oddEvery - 1;
      const k = Math.floor(i / Math.max(1, oddEvery));
      const text = odd && k % 3 === 0 ? ODD_TEXTS[k % ODD_TEXTS.length]! : plain;
      const code: unknown[] = [3.5, Buffer.from([1, 2]), '=2', '', 1e21, -7n];
      insert.run(
        'p1',
        1 + (i % 5),
        i % 13 === 0 ? null : BigInt(i) * (i % 2 ? -1n : 1n) * 1_000_000_007n,
        i % 17 === 0 ? null : text,
        i % 3 === 2 ? null : i % 3,
        odd && k % 3 === 1 ? JSON.stringify({ t: ODD_TEXTS[k % ODD_TEXTS.length] }) : JSON.stringify({ i }),
        '2026-01-02T03:04:05.678Z',
        i % 7 === 0 ? null : '2026-01-02',
        odd && k % 3 === 2 ? code[k % code.length] : i,
      );
      if (odd && k % 7 === 3) invalid.run(i + 1);
    }
  })();
}

async function exportFile(
  name: string,
  options: Partial<ExportOptions> & { threads: number },
): Promise<{ bytes: Buffer; rows: number; file: string; threads: number }> {
  const [f] = await exportTables(db, {
    tables: ['items'],
    outDir: join(dir, 'out'),
    fileName: name,
    columnHints: HINTS,
    ...options,
  });
  return { bytes: await readFile(f!.file), rows: f!.rows, file: f!.file, threads: f!.threads ?? 1 };
}

/** The page's batches as csv-pages.ts reads them with SQLite's records: how many were SQLite's, how many encoded. */
async function batchKinds(settings: Partial<ExportOptions> = {}): Promise<{ sql: number; encoded: number }> {
  const columns = await describeTable(db, 'items', HINTS);
  const csv = {
    delimiter: settings.delimiter ?? ',',
    bom: false,
    nullText: settings.nullText ?? '',
    lineEnding: settings.lineEnding ?? 'crlf',
    neutralizeFormulas: settings.neutralizeFormulas ?? true,
  } as const;
  const query = { table: 'items', columns: COLUMNS.map((c) => `"${c}"`), where: [], params: [] };
  const records = sqlCsvRecords(db.sqlite, query, columns, csv, 256, -1);
  expect(records).not.toBeNull();
  const read = {
    reader: db.sqlite,
    query,
    encoder: csvEncoder(columns, SQLITE_VALUE_FORMS, csv),
    records,
    batchRows: 256,
    loadIdIndex: -1,
  };
  const kinds = { sql: 0, encoded: 0 };
  db.sqlite.exec('BEGIN');
  try {
    for (const b of csvPageBatches(read, { lo: 1n, width: BigInt(ROWS), pages: 1 }, 0)) {
      if (typeof b.records === 'string') kinds.encoded++;
      else kinds.sql++;
    }
  } finally {
    db.sqlite.exec('COMMIT');
  }
  return kinds;
}

describe("SQLite's own CSV records in a threaded export", () => {
  it('writes the bytes the calling thread alone writes, for every setting, and Python reads every row', async () => {
    fill(ROWS, 1999);
    const settings: Array<Partial<ExportOptions>> = [
      {},
      { delimiter: ';', lineEnding: 'lf' },
      { delimiter: '\t', bom: true },
      { delimiter: '|', neutralizeFormulas: false },
      { nullText: 'NULL' },
    ];
    for (const [n, s] of settings.entries()) {
      const single = await exportFile(`single-${n}.csv`, { ...s, threads: 1 });
      const threaded = await exportFile(`threads-${n}.csv`, { ...s, threads: 2 });
      expect(threaded.threads).toBe(2);
      expect(threaded.rows).toBe(ROWS);
      expect(threaded.bytes.equals(single.bytes)).toBe(true);
      const records = readCsvWithPython(threaded.file, s.delimiter ?? ',');
      expect(records).toHaveLength(ROWS + 1);
      expect(records[0]).toEqual(COLUMNS);
      expect(records.slice(1).every((r) => r.length === COLUMNS.length)).toBe(true);
    }
    // Most batches are SQLite's own; those holding an odd value are encoded by formats/csv.ts.
    const kinds = await batchKinds();
    expect(kinds.sql).toBeGreaterThan(kinds.encoded);
    expect(kinds.encoded).toBeGreaterThan(0);
  });

  it('exports a pipeline incrementally as one thread does: same bytes, same rows, same watermark', async () => {
    fill(ROWS, 1999);
    db.sqlite.exec(`update items set pipeline = 'other' where rowid % 3 = 0`);
    await expectIncrementalLikeOneThread({
      db,
      dir,
      table: 'items',
      columnHints: HINTS,
      firstRows: ROWS - ROWS / 3,
      firstWatermark: 5n,
      addRows: (d, load) =>
        d.sqlite
          .prepare(
            `insert into items (pipeline, load_id, n, label) select 'p1', ?, n, label from items where rowid <= 50000`,
          )
          .run(load),
    });
  });

  it('leaves a table to formats/csv.ts once most of its batches fail the check, with the same bytes', async () => {
    fill(ROWS, 1);
    const single = await exportFile('single.csv', { threads: 1 });
    const threaded = await exportFile('threads.csv', { threads: 2 });
    expect(threaded.threads).toBe(2);
    expect(threaded.bytes.equals(single.bytes)).toBe(true);
    const kinds = await batchKinds();
    expect(kinds.sql).toBeLessThanOrEqual(64);
  });

  it('builds records only where SQL writes what formats/csv.ts writes', async () => {
    fill(100, 0);
    const columns = await describeTable(db, 'items', HINTS);
    const query = { table: 'items', columns: COLUMNS.map((c) => `"${c}"`), where: [], params: [] };
    const base = { delimiter: ',', bom: false, nullText: '', lineEnding: 'crlf', neutralizeFormulas: true } as const;
    expect(sqlCsvRecords(db.sqlite, query, columns, base, 100, -1)).not.toBeNull();
    expect(sqlCsvRecords(db.sqlite, query, columns, { ...base, nullText: 'NULL' }, 100, -1)).toBeNull();
    expect(sqlCsvRecords(db.sqlite, query, columns, { ...base, delimiter: '::' }, 100, -1)).toBeNull();
    expect(sqlCsvRecords(db.sqlite, query, columns, { ...base, delimiter: 'x' }, 100, -1)).toBeNull();
    // A real column, an epoch timestamp, a computed column.
    expect(
      sqlCsvRecords(db.sqlite, query, [...columns.slice(0, 8), { ...columns[8]!, kind: 'number' }], base, 100, -1),
    ).toBeNull();
    expect(
      sqlCsvRecords(db.sqlite, query, [...columns.slice(0, 8), { ...columns[8]!, kind: 'timestamp_s' }], base, 100, -1),
    ).toBeNull();
    expect(
      sqlCsvRecords(
        db.sqlite,
        { ...query, columns: [...query.columns.slice(0, 8), 'code + 1 as "code"'] },
        columns,
        base,
        100,
        -1,
      ),
    ).toBeNull();
  });

  it('checks a batch byte by byte', () => {
    const ok = (text: string, rows: number, width = 3, delimiter = ',', crlf = true) =>
      plainRecords(Buffer.from(text), rows, width, delimiter.charCodeAt(0), crlf);
    expect(ok('1,a,\r\n-5,+7,x\r\n', 2)).toBe(true);
    expect(ok(',,\r\n', 1)).toBe(true);
    expect(ok('1,a,b\n', 1, 3, ',', false)).toBe(true);
    expect(ok('1\t\t-3\r\n', 1, 3, '\t')).toBe(true);
    expect(ok('1,a,\r\n', 2)).toBe(false); // a row short
    expect(ok('1,a,b,c\r\n', 1)).toBe(false); // a delimiter in a cell
    expect(ok('1,a\r\nb,c\r\n', 1)).toBe(false); // a line break in a cell
    expect(ok('1,a\rb,c\r\n', 1)).toBe(false);
    expect(ok('1,a\nb,c\r\n', 1, 3)).toBe(false);
    expect(ok('1,a,b\r\n', 1, 3, ',', false)).toBe(false);
    // Quotes only as SQL quotes a whole cell.
    expect(ok('1,"a",b\r\n', 1)).toBe(true);
    expect(ok('1,"a"",""b",c\r\n', 1)).toBe(true);
    expect(ok('"x\r\ny",a,b\r\n', 1)).toBe(true);
    expect(ok('1,a"b,c\r\n', 1)).toBe(false);
    expect(ok('1,"a"x,b\r\n', 1)).toBe(false);
    expect(ok('1,"a,b\r\n', 1)).toBe(false);
    expect(ok('1,"=a",b\r\n', 1)).toBe(false);
    expect(ok('1,"-a",b\r\n', 1)).toBe(false);
    expect(ok('1,a\u0000,b\r\n', 1)).toBe(false);
    for (const formula of ['=1', '@a', '\tx', '-x', '+', '-', '-5x', '\uFF1D1'])
      expect(ok(`1,${formula},b\r\n`, 1), formula).toBe(false);
    expect(ok('1,-,b\r\n', 1, 3, '-')).toBe(false);
  });

  it(`uses at most ${MAX_EXPORT_THREADS} threads, however many are asked for`, async () => {
    fill(ROWS, 0);
    const query = { table: 'items', columns: ['"label"'], where: [], params: [] };
    expect(csvThreadsFor(db, query, COLUMNS.length, 4)).toBe(MAX_EXPORT_THREADS);
    const four = await exportFile('four.csv', { threads: 4 });
    expect(four.threads).toBe(MAX_EXPORT_THREADS);
    expect(four.bytes.equals((await exportFile('one.csv', { threads: 1 })).bytes)).toBe(true);
  });
});
