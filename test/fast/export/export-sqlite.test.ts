// CSV export from real SQLite files: every file is parsed back by papaparse and compared with the rows written.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../../destinations/open.js';
import { exportTables } from '../../../export/csv.js';
import {
  BIG_ID,
  byId,
  expectedById,
  insertScrapers,
  readCsv,
  scraperRows,
  waitForPartialFile,
  TRICKY_TEXT,
  checkIncrementalExports,
  exportWatermarks,
} from '../../support/export-data.js';

let dir: string;
let db: SqliteDatabase;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-sqlite-'));
  db = (await openDatabase(`sqlite:${join(dir, 'db.sqlite')}`)) as SqliteDatabase;
});
afterEach(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

describe('CSV export from SQLite', () => {
  it('writes every value exactly as stored when formulas are not neutralised', async () => {
    const rows = scraperRows('p1', 7n, 100n);
    await insertScrapers(db, rows);
    const [file, ...more] = await exportTables(db, {
      tables: ['scrapers'],
      outDir: join(dir, 'out'),
      nullText: '\\N',
      neutralizeFormulas: false,
    });
    expect(more).toEqual([]);
    expect(file!.rows).toBe(rows.length);
    const csv = await readCsv(file!.file);
    expect(csv.header.slice(0, 3)).toEqual(['id', 'name', 'type']);
    expect(csv.rows).toHaveLength(rows.length);
    expect(byId(csv)).toEqual(expectedById(rows, '\\N'));
    // The id beyond 2^53 went through without a float on the way.
    expect(byId(csv).get((BIG_ID + 100n).toString())?.[0]).toBe('9007199254741093');
  });

  it('by default neutralises formula cells, keeps numbers, and tells NULL from an empty string', async () => {
    const rows = scraperRows('p1', 7n, 0n);
    await insertScrapers(db, rows);
    db.sqlite
      .prepare(
        `insert into job_records (job_key, job_title, job_salary_number, pipeline, load_id, loaded_at, row_hash) values (?, ?, ?, 'p1', 7, '2025-01-01T00:00:00.000Z', 'h')`,
      )
      .run('neg', '-1', -1);
    const files = await exportTables(db, { tables: ['scrapers', 'job_records'], outDir: join(dir, 'out') });
    const scrapers = await readCsv(files[0]!.file);
    const nameIdx = scrapers.header.indexOf('name');
    const names = scrapers.rows.map((r) => r[nameIdx]);
    const expected = TRICKY_TEXT.map((t) => {
      if (t === null) return '';
      return /^[=+\-@\t\r]/.test(t) && t !== '-1' ? `'${t}` : t;
    });
    expect(names).toEqual(expected);
    expect(names).toContain("'=1+2");
    expect(names).toContain("'-cmd|calc");
    expect(names).toContain('-1');
    // NULL is an empty unquoted cell, the empty string is "".
    const lines = scrapers.raw.split('\r\n');
    const emptyLine = lines.find((l) => l.startsWith('16,'));
    const nullLine = lines.find((l) => l.startsWith('17,'));
    expect(emptyLine).toMatch(/^16,"",/);
    expect(nullLine).toMatch(/^17,,/);
    // Booleans are true/false although SQLite stores 1/0.
    const sched = scrapers.header.indexOf('scheduled');
    expect(new Set(scrapers.rows.map((r) => r[sched]))).toEqual(new Set(['', 'true', 'false']));

    const jobs = await readCsv(files[1]!.file);
    const row = jobs.rows[0]!;
    expect(row[jobs.header.indexOf('job_title')]).toBe('-1');
    expect(row[jobs.header.indexOf('job_salary_number')]).toBe('-1');
  });

  it('honours delimiter, BOM, LF, null text, file name template and column choice', async () => {
    const rows = scraperRows('p2', 3n, 0n);
    await insertScrapers(db, rows);
    const [f] = await exportTables(db, {
      pipeline: 'p2',
      tables: ['scrapers'],
      outDir: join(dir, 'out'),
      delimiter: ';',
      bom: true,
      lineEnding: 'lf',
      nullText: 'NULL',
      fileName: 'x-{pipeline}-{table}-{timestamp}.csv',
      columns: { scrapers: ['name', 'id'] },
      neutralizeFormulas: false,
    });
    expect(f!.file).toMatch(/\/x-p2-scrapers-\d{8}T\d{6}\.\d{3}Z\.csv$/);
    const csv = await readCsv(f!.file, { delimiter: ';', newline: '\n', bom: true });
    expect(csv.header).toEqual(['name', 'id']);
    expect(csv.rows).toEqual(rows.map((r) => [r.name ?? 'NULL', r.id.toString()]));
    expect(csv.raw).toContain('";semicolon; inside"');

    const [fixed] = await exportTables(db, {
      tables: ['scrapers'],
      outDir: join(dir, 'out'),
      fileName: 'scrapers.csv',
    });
    expect(fixed!.file).toBe(join(dir, 'out', 'scrapers.csv'));
  });

  it('exports only rows loaded since the last incremental export, per pipeline', async () => {
    await checkIncrementalExports(db, join(dir, 'out'));
  });

  it('picks the data tables holding the pipeline when no table is named', async () => {
    await insertScrapers(db, scraperRows('p1', 1n, 0n));
    db.sqlite
      .prepare(
        `insert into job_records (job_key, pipeline, load_id, loaded_at, row_hash) values ('j', 'p9', 2, 'x', 'h')`,
      )
      .run();
    const files = await exportTables(db, { pipeline: 'p1', outDir: join(dir, 'out') });
    expect(files.map((f) => f.table)).toEqual(['scrapers']);
    expect(await exportTables(db, { pipeline: 'never-ran', outDir: join(dir, 'none') })).toEqual([]);
    const progress: number[] = [];
    const all = await exportTables(db, {
      outDir: join(dir, 'all'),
      onProgress: (p) => p.table === 'scrapers' && progress.push(p.rows),
    });
    expect(progress).toEqual([18]);
    expect(all.map((f) => f.table)).toContain('job_records');
    expect(all.map((f) => f.table)).not.toContain('raw_responses');
    expect(all.map((f) => f.table)).not.toContain('export_watermarks');
  });

  it('exports any table by introspection, including ones it has never seen', async () => {
    db.sqlite.exec(
      `create table custom_things (id integer, flag BOOLEAN, payload JSON, data BLOB, ratio REAL, note TEXT, pipeline text, load_id integer)`,
    );
    db.sqlite
      .prepare('insert into custom_things values (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(-9223372036854775808n, 1, '{"a":[1,2]}', Buffer.from([0, 255, 16]), -0.25, '@x', 'p', 1);
    const [f] = await exportTables(db, { tables: ['custom_things'], outDir: join(dir, 'out') });
    const csv = await readCsv(f!.file);
    expect(csv.header).toEqual(['id', 'flag', 'payload', 'data', 'ratio', 'note', 'pipeline', 'load_id']);
    expect(csv.rows).toEqual([['-9223372036854775808', 'true', '{"a":[1,2]}', '\\x00ff10', '-0.25', "'@x", 'p', '1']]);
  });

  it('reads a table in pages that stay exact across 2^53: ids, rowids and reals, with and without rowids', async () => {
    // 2,500 rows (pages of 1,000 at this width) whose rowids and values cross Number.MAX_SAFE_INTEGER: the keyset of
    // the next page must stay exact; a large real on the way.
    const first = 2n ** 53n - 1200n;
    const ids = Array.from({ length: 2500 }, (_, i) => first + BigInt(i));
    for (const table of ['paged_rowid', 'paged_no_rowid']) {
      db.sqlite.exec(
        `create table ${table} (id integer primary key, n integer, ratio real, pipeline text, load_id integer)${table === 'paged_no_rowid' ? ' without rowid' : ''}`,
      );
      const insert = db.sqlite.prepare(`insert into ${table} values (?, ?, ?, 'p', 1)`);
      db.sqlite.transaction(() => {
        // Inserted backwards: the file is in id (rowid) order all the same.
        for (const id of [...ids].reverse())
          insert.run(id, id === first + 5n ? 2n ** 63n - 1n : id - first, id === first + 7n ? 1e300 : 0.5);
      })();
      const [f] = await exportTables(db, { tables: [table], outDir: join(dir, table) });
      const csv = await readCsv(f!.file);
      expect(f!.rows).toBe(ids.length);
      expect(csv.rows.map((r) => r[0])).toEqual(ids.map(String));
      expect(csv.rows[5]![1]).toBe('9223372036854775807');
      expect(csv.rows[7]![2]).toBe('1e+300');
      expect(csv.rows[2499]![1]).toBe('2499');
    }
  });

  it('writes what each cell holds, not what its column declares: text, blobs and reals in integer, flag and timestamp columns', async () => {
    // SQLite stores any value in any column. The CSV writer writes the numbers of plain number columns without the
    // cell formatter: a cell that is not a number in such a column must still be neutralised and quoted, and a flag
    // or timestamp column must still format its numbers.
    db.sqlite.exec(`create table mixed (n integer, r real, flag BOOLEAN, at_ms integer, note text)`);
    const insert = db.sqlite.prepare('insert into mixed values (?, ?, ?, ?, ?)');
    insert.run('=1+2,"x"', '-x', 1, 0, 'plain');
    insert.run(-1, 1.5, 0, 1700000000123, '');
    insert.run(123456789012, 0.1 + 0.2, 2, '2025-01-01', null);
    insert.run(Buffer.from([1, 255]), 'a\nb', 'yes', 2.5, '@x');
    insert.run(7, -0.25, 1.0, -86400000, 'x;y');
    const columnHints = { mixed: { at_ms: 'timestamp_ms' as const } };
    const [f] = await exportTables(db, { tables: ['mixed'], outDir: join(dir, 'out'), columnHints });
    expect(await readFile(f!.file, 'utf8')).toBe(
      [
        'n,r,flag,at_ms,note',
        `"'=1+2,""x""",'-x,true,1970-01-01T00:00:00.000Z,plain`,
        '-1,1.5,false,2023-11-14T22:13:20.123Z,""',
        '123456789012,0.30000000000000004,2,2025-01-01,',
        '\\x01ff,"a\nb",yes,1970-01-01T00:00:00.002Z,\'@x',
        '7,-0.25,true,1969-12-31T00:00:00.000Z,x;y',
        '',
      ].join('\r\n'),
    );
    // The same cells with ';' between them: only the text cell holding ';' is quoted.
    const [g] = await exportTables(db, {
      tables: ['mixed'],
      outDir: join(dir, 'semi'),
      columnHints,
      delimiter: ';',
      neutralizeFormulas: false,
    });
    expect((await readFile(g!.file, 'utf8')).split('\r\n')[5]).toBe('7;-0.25;true;1969-12-31T00:00:00.000Z;"x;y"');
  });

  it('rejects bad requests with errors that say what to fix', async () => {
    const out = join(dir, 'out');
    await expect(exportTables(db, { tables: ['nope'], outDir: out })).rejects.toThrow(
      /table "nope" does not exist.*scrapers/,
    );
    await expect(
      exportTables(db, { tables: ['scrapers'], outDir: out, columns: { scrapers: ['id', 'nope'] } }),
    ).rejects.toThrow(/table "scrapers" has no column "nope" \(columns: id, name/);
    await expect(
      exportTables(db, { tables: ['scrapers', 'job_records'], outDir: out, fileName: 'same.csv' }),
    ).rejects.toThrow(/add \{table\}/);
    await expect(exportTables(db, { tables: ['scrapers'], outDir: out, fileName: '{tabel}.csv' })).rejects.toThrow(
      /unknown placeholder \{tabel\}/,
    );
    await expect(exportTables(db, { tables: ['raw_responses'], outDir: out, mode: 'incremental' })).rejects.toThrow(
      /no load_id column/,
    );
    await expect(exportTables(db, { tables: ['scrapers'], outDir: out, delimiter: '"' })).rejects.toThrow(/delimiter/);
    expect(await readdir(out).catch(() => [])).toEqual([]);
  });

  it('an export stopped mid-stream leaves no file under the final name and no partial file', async () => {
    // Enough rows that the export is still streaming when the abort lands.
    db.sqlite.exec(`
      with recursive n(i) as (select 1 union all select i + 1 from n where i < 200000)
      insert into scrapers (id, name, urls, scheduled, pipeline, load_id, loaded_at, row_hash)
      select i, 'name ' || i || ', "quoted"', '{"i":' || i || '}', i % 2, 'bulk', 5, '2025-01-01T00:00:00.000Z', 'h' from n`);
    const out = join(dir, 'out');
    const ac = new AbortController();
    const running = exportTables(db, {
      pipeline: 'bulk',
      tables: ['scrapers'],
      outDir: out,
      mode: 'incremental',
      fileName: 'big.csv',
      signal: ac.signal,
    });
    // Abort once the partial file has data in it: the stream is demonstrably mid-way.
    await waitForPartialFile(out);
    ac.abort();
    await expect(running).rejects.toThrow(/abort/i);
    expect(await readdir(out)).toEqual([]);
    expect(await exportWatermarks(db)).toEqual([]);
    // The same export completes afterwards.
    const [f] = await exportTables(db, {
      pipeline: 'bulk',
      tables: ['scrapers'],
      outDir: out,
      mode: 'incremental',
      fileName: 'big.csv',
    });
    expect(f!.rows).toBe(200000);
    expect(await readdir(out)).toEqual(['big.csv']);
  });
});
