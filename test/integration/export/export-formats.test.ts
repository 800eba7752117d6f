// Parquet, JSON Lines and XLSX exports from real SQLite files, read back by independent Python readers (pyarrow,
// json, openpyxl): types, exact values, incremental watermarks, atomic files, sheet splitting, and the errors.
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../../destinations/open.js';
import { exportTables, exportTablesReport } from '../../../export/export.js';
import { EXPORT_FORMATS, loadFormatWriter, type FormatSettings } from '../../../export/formats/index.js';
import { EXCEL_MAX_DATA_ROWS } from '../../../export/formats/xlsx.js';
import type { RawRow } from '../../../export/rows.js';
import { ROW_GROUP_ROWS } from '../../../export/formats/parquet.js';
import { BIG_ID, exportWatermarks, insertScrapers, scraperRows } from '../../support/export-data.js';
import { checkTypedFormats } from '../../support/export-formats.js';
import {
  parquetShape,
  readJsonlWithPython,
  readParquetWithPyarrow,
  readXlsxWithOpenpyxl,
} from '../../support/python-readers.js';
import { SQLITE_COLUMN_TYPES, SQLITE_VALUE_FORMS } from '../../../destinations/sqlite/column-types.js';

let dir: string;
let db: SqliteDatabase;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-formats-'));
  db = (await openDatabase(`sqlite:${join(dir, 'db.sqlite')}`)) as SqliteDatabase;
});
afterEach(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

function bulk(rows: number, pipeline = 'bulk', loadId = 5): void {
  db.sqlite.exec(`
    with recursive n(i) as (select 1 union all select i + 1 from n where i < ${rows})
    insert into scrapers (id, name, urls, scheduled, pipeline, load_id, loaded_at, row_hash)
    select i, 'name ' || i, '{"i":' || i || '}', i % 2, '${pipeline}', ${loadId}, '2025-01-01T00:00:00.000Z', 'h' from n`);
}

describe('typed exports from SQLite', () => {
  it('Parquet, JSON Lines and XLSX hold every value with its type, read by pyarrow, json and openpyxl', async () => {
    await checkTypedFormats(db, join(dir, 'out'));
  });

  it('incremental exports in each format take only new rows and move the same watermark, once per run and file', async () => {
    const out = join(dir, 'inc');
    await insertScrapers(db, scraperRows('p1', 10n, 0n));
    const inc = { pipeline: 'p1', tables: ['scrapers'], outDir: out, mode: 'incremental' as const };
    const [a] = await exportTables(db, { ...inc, format: 'parquet', fileName: 'a.parquet', runId: 'run-1' });
    expect(a!.rows).toBe(18);
    expect(await exportWatermarks(db)).toEqual([{ pipeline: 'p1', table_name: 'scrapers', last_load_id: 10n }]);
    // The same run retrying the same file (its watermark already moved) gets the recorded file back, untouched.
    const [again] = await exportTables(db, { ...inc, format: 'parquet', fileName: 'a.parquet', runId: 'run-1' });
    expect(again).toEqual(a);
    expect(readParquetWithPyarrow(a!.file).rows).toHaveLength(18);

    await insertScrapers(db, scraperRows('p1', BIG_ID, 500n).slice(0, 2));
    const [b] = await exportTables(db, { ...inc, format: 'jsonl', fileName: 'b.jsonl' });
    expect(b!.rows).toBe(2);
    expect(readJsonlWithPython(b!.file).map((r) => r['load_id'])).toEqual([
      { int: BIG_ID.toString() },
      { int: BIG_ID.toString() },
    ]);
    expect(await exportWatermarks(db)).toEqual([{ pipeline: 'p1', table_name: 'scrapers', last_load_id: BIG_ID }]);

    // Nothing new: no file in any format, the table is reported unchanged and the watermark stays.
    for (const format of ['csv', 'parquet', 'jsonl', 'xlsx'] as const) {
      const report = await exportTablesReport(db, { ...inc, format, fileName: `none.${format}` });
      expect({ format, report }).toEqual({ format, report: { files: [], unchanged: ['scrapers'] } });
      expect(existsSync(join(out, `none.${format}`))).toBe(false);
    }
    // With writeEmpty, as before: each format writes a valid file with no rows (the consumer sees that it ran).
    const [c] = await exportTables(db, { ...inc, format: 'xlsx', fileName: 'c.xlsx', writeEmpty: true });
    expect(c!.rows).toBe(0);
    const [sheet] = readXlsxWithOpenpyxl(c!.file);
    expect(sheet!.rows).toEqual([]);
    expect(sheet!.header[0]).toBe('id');
    const [d] = await exportTables(db, { ...inc, format: 'parquet', fileName: 'd.parquet', writeEmpty: true });
    const empty = readParquetWithPyarrow(d!.file);
    expect(empty.rows).toEqual([]);
    expect(Object.fromEntries(empty.schema)['id']).toBe('int64');
    expect(await exportWatermarks(db)).toEqual([{ pipeline: 'p1', table_name: 'scrapers', last_load_id: BIG_ID }]);
  });

  it('a Parquet export of many row groups stopped mid-stream leaves no file and no watermark; the rerun is complete', async () => {
    bulk(250_000);
    const out = join(dir, 'out');
    const ac = new AbortController();
    const opts = {
      pipeline: 'bulk',
      tables: ['scrapers'],
      outDir: out,
      mode: 'incremental' as const,
      format: 'parquet' as const,
      fileName: 'big.parquet',
    };
    // Stopped once rows are flowing (some batches read, many to come).
    const running = exportTables(db, {
      ...opts,
      signal: ac.signal,
      onProgress: ({ rows }) => rows > 50_000 && ac.abort(),
    });
    await expect(running).rejects.toThrow(/abort/i);
    expect(await readdir(out)).toEqual([]);
    expect(await exportWatermarks(db)).toEqual([]);

    const [f] = await exportTables(db, opts);
    expect(f!.rows).toBe(250_000);
    expect(parquetShape(f!.file)).toEqual({
      rows: 250_000,
      rowGroups: Math.ceil(250_000 / ROW_GROUP_ROWS),
      lastId: '250000',
    });
    expect(await readdir(out)).toEqual(['big.parquet']);
  });

  it('an XLSX table longer than Excel allows continues on further sheets, each with the header', async () => {
    db.sqlite.exec(`create table tall (id integer, label text)`);
    const total = EXCEL_MAX_DATA_ROWS + 3;
    db.sqlite.exec(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < ${total}) insert into tall select i, '=x' || i from n`,
    );
    const [f] = await exportTables(db, {
      tables: ['tall'],
      outDir: join(dir, 'out'),
      format: 'xlsx',
      fileName: 'tall.xlsx',
    });
    expect(f!.rows).toBe(total);
    const sheets = readXlsxWithOpenpyxl(f!.file, 1, 1);
    expect(sheets.map((s) => [s.title, s.maxRow, s.header])).toEqual([
      ['tall', EXCEL_MAX_DATA_ROWS + 1, ['id', 'label']],
      ['tall (2)', 4, ['id', 'label']],
    ]);
    expect(sheets[0]!.rows).toEqual([
      [
        { t: 'n', v: { int: '1' } },
        { t: 's', v: "'=x1" },
      ],
      [
        { t: 'n', v: { int: String(EXCEL_MAX_DATA_ROWS) } },
        { t: 's', v: `'=x${EXCEL_MAX_DATA_ROWS}` },
      ],
    ]);
    expect(sheets[1]!.rows.at(-1)).toEqual([
      { t: 'n', v: { int: String(total) } },
      { t: 's', v: `'=x${total}` },
    ]);
  }, 600_000);

  it.each(EXPORT_FORMATS)(
    "a %s writer failing before its first row settles only once its file is closed: the caller's cleanup leaves nothing",
    async (format) => {
      const path = join(dir, `early-failure.${format}`);
      async function* failing(): AsyncGenerator<RawRow[]> {
        throw new Error('reading failed');
      }
      const settings: FormatSettings = {
        format,
        delimiter: ',',
        bom: false,
        nullText: '',
        lineEnding: 'crlf',
        neutralizeFormulas: true,
      };
      const writer = await loadFormatWriter(format);
      await expect(
        writer.write({
          path,
          table: 't',
          columns: [{ name: 'a', kind: 'text', declared: 'TEXT' }],
          typing: { valueForms: SQLITE_VALUE_FORMS, columnTypes: SQLITE_COLUMN_TYPES },
          batches: failing(),
          settings,
        }),
      ).rejects.toThrow('reading failed');
      // What writeAtomically does on failure. A stream that opens its file after this (it opens asynchronously)
      // would leave the file behind.
      await rm(path, { force: true });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(existsSync(path)).toBe(false);
    },
  );

  it('refuses what a format cannot do, with errors that say what to fix, and writes nothing', async () => {
    const out = join(dir, 'out');
    await insertScrapers(db, scraperRows('p1', 1n, 0n));
    await expect(
      exportTables(db, { tables: ['scrapers'], outDir: out, format: 'parquet', delimiter: ';' }),
    ).rejects.toThrow(/delimiter applies to CSV only, not to format parquet/);
    await expect(exportTables(db, { tables: ['scrapers'], outDir: out, format: 'jsonl', bom: true })).rejects.toThrow(
      /bom applies to CSV only/,
    );
    await expect(exportTables(db, { tables: ['scrapers'], outDir: out, format: 'xml' as never })).rejects.toThrow(
      /format "xml" is not one of csv, parquet, jsonl, xlsx/,
    );
    db.sqlite.prepare(`update scrapers set name = ? where id = 1`).run('x'.repeat(40_000));
    await expect(exportTables(db, { tables: ['scrapers'], outDir: out, format: 'xlsx' })).rejects.toThrow(
      /40000 characters; Excel cells hold at most 32767/,
    );
    db.sqlite.exec(`create table odd (n integer)`);
    db.sqlite.prepare(`insert into odd values (?)`).run('not a number');
    await expect(exportTables(db, { tables: ['odd'], outDir: out, format: 'parquet' })).rejects.toThrow(
      /column "n" \(INTEGER\) holds string "not a number", not an integer; export it as CSV/,
    );
    expect(await readdir(out)).toEqual([]);
  });
});
