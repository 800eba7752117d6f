// The real `scrape-etl export` command, and a real crash: the command is SIGKILLed in the middle of a big table.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../../destinations/open.js';
import { exportTables } from '../../../export/csv.js';
import { CLI, REPO_ROOT, runCli } from '../../support/cli.js';
import {
  BIG_ID,
  byId,
  expectedById,
  insertScrapers,
  readCsv,
  scraperRows,
  waitForPartialFile,
} from '../../support/export-data.js';
import { readParquetWithPyarrow } from '../../support/python-readers.js';

let dir: string;
let dbUrl: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-cli-'));
  dbUrl = `sqlite:${join(dir, 'db.sqlite')}`;
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function withDb<T>(fn: (db: SqliteDatabase) => T | Promise<T>): Promise<T> {
  const db = (await openDatabase(dbUrl)) as SqliteDatabase;
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

describe('scrape-etl export', () => {
  it('exports with every option from the command line', async () => {
    const rows = scraperRows('p1', 4n, 0n);
    await withDb((db) => insertScrapers(db, rows));
    const out = join(dir, 'out');
    const res = await runCli([
      'export',
      '--db',
      dbUrl,
      '--out',
      out,
      '--tables',
      'scrapers',
      '--since-last',
      '--pipeline',
      'p1',
      '--delimiter',
      'tab',
      '--bom',
      '--null-text',
      'NULL',
      '--no-neutralize-formulas',
      '--file-name',
      '{pipeline}-{table}.tsv',
      '--json',
    ]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const file = join(out, 'p1-scrapers.tsv');
    expect(JSON.parse(res.stdout)).toEqual({ table: 'scrapers', file, rows: rows.length });
    const csv = await readCsv(file, { delimiter: '\t', bom: true });
    expect(byId(csv)).toEqual(expectedById(rows, 'NULL'));
    const wm = await withDb((db) =>
      db.sqlite.prepare('select pipeline, table_name, last_load_id from export_watermarks').all(),
    );
    expect(wm).toEqual([{ pipeline: 'p1', table_name: 'scrapers', last_load_id: 4 }]);

    const bad = await runCli(['export', '--db', dbUrl, '--out', out, '--tables', 'nope']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/table "nope" does not exist/);
  });

  it('--since-last with no new row writes no file and says so; --write-empty writes the header-only file', async () => {
    const rows = scraperRows('p1', 4n, 0n);
    await withDb((db) => insertScrapers(db, rows));
    const out = join(dir, 'inc');
    const args = [
      'export',
      '--database',
      dbUrl,
      '--out',
      out,
      '--tables',
      'scrapers',
      '--pipeline',
      'p1',
      '--since-last',
    ];
    const first = await runCli([...args, '--file-name', 'first.csv']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(`scrapers: ${rows.length} rows -> ${join(out, 'first.csv')}\n`);

    const none = await runCli([...args, '--file-name', 'second.csv']);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toBe('scrapers: no rows new since the last export, no file written\n');
    const noneJson = await runCli([...args, '--file-name', 'second.csv', '--json']);
    expect(JSON.parse(noneJson.stdout)).toEqual({ table: 'scrapers', file: null, rows: 0, noNewRows: true });
    expect((await readdir(out)).sort()).toEqual(['first.csv']);

    const empty = await runCli([...args, '--file-name', 'empty.csv', '--write-empty', '--json']);
    expect(empty.code, empty.stderr).toBe(0);
    expect(JSON.parse(empty.stdout)).toEqual({ table: 'scrapers', file: join(out, 'empty.csv'), rows: 0 });
    const csv = await readCsv(join(out, 'empty.csv'));
    expect(csv.rows).toEqual([]);
    expect(csv.header[0]).toBe('id');

    const notIncremental = await runCli([
      'export',
      '--database',
      dbUrl,
      '--out',
      out,
      '--tables',
      'scrapers',
      '--write-empty',
    ]);
    expect(notIncremental.code).toBe(2);
    expect(notIncremental.stderr).toContain('--write-empty applies to --since-last exports only');
  });

  it('--format parquet writes a typed Parquet file named after the format, and refuses CSV-only options', async () => {
    const rows = scraperRows('p1', 4n, 0n);
    await withDb((db) => insertScrapers(db, rows));
    const out = join(dir, 'pq');
    const res = await runCli([
      'export',
      '--db',
      dbUrl,
      '--out',
      out,
      '--tables',
      'scrapers',
      '--pipeline',
      'p1',
      '--since-last',
      '--format',
      'parquet',
      '--json',
    ]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const written = JSON.parse(res.stdout) as { table: string; file: string; rows: number };
    expect(written).toMatchObject({ table: 'scrapers', rows: rows.length });
    expect(written.file).toMatch(/\/p1_scrapers_\d{8}T\d{6}\.\d{3}Z\.parquet$/);
    const read = readParquetWithPyarrow(written.file);
    expect(Object.fromEntries(read.schema)).toMatchObject({
      id: 'int64',
      scheduled: 'bool',
      loaded_at: 'timestamp[us, tz=UTC]',
    });
    expect(read.rows.map((r) => r['id'])).toContainEqual({ int: BIG_ID.toString() });
    const wm = await withDb((db) =>
      db.sqlite.prepare('select pipeline, table_name, last_load_id from export_watermarks').all(),
    );
    expect(wm).toEqual([{ pipeline: 'p1', table_name: 'scrapers', last_load_id: 4 }]);

    const bad = await runCli([
      'export',
      '--db',
      dbUrl,
      '--out',
      out,
      '--tables',
      'scrapers',
      '--format',
      'parquet',
      '--bom',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/bom applies to CSV only, not to format parquet/);
    const unknown = await runCli(['export', '--db', dbUrl, '--out', out, '--format', 'xml']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/expected one of csv, parquet, jsonl, xlsx/);
  });

  it('a process killed mid-export leaves no file under the final name; the next export cleans up and completes', async () => {
    await withDb((db) =>
      db.sqlite.exec(`
        with recursive n(i) as (select 1 union all select i + 1 from n where i < 400000)
        insert into scrapers (id, name, urls, scheduled, pipeline, load_id, loaded_at, row_hash)
        select i, 'name ' || i || ', "quoted"', '{"i":' || i || '}', i % 2, 'bulk', 9, '2025-01-01T00:00:00.000Z', 'h' from n`),
    );
    const out = join(dir, 'out');
    const final = join(out, 'bulk.csv');
    const child = spawn(
      process.execPath,
      [
        CLI,
        'export',
        '--db',
        dbUrl,
        '--out',
        out,
        '--pipeline',
        'bulk',
        '--tables',
        'scrapers',
        '--since-last',
        '--file-name',
        'bulk.csv',
      ],
      {
        cwd: REPO_ROOT,
        stdio: 'ignore',
      },
    );
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );
    const partial = await waitForPartialFile(out);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    expect(existsSync(final)).toBe(false);
    expect(await readdir(out)).toEqual([partial]);
    expect(partial).toMatch(/^\.bulk\.csv~.+~\d+~[0-9a-f]+\.partial$/);
    expect(await withDb((db) => db.sqlite.prepare('select count(*) as n from export_watermarks').get())).toEqual({
      n: 0,
    });

    const [f] = await withDb((db) =>
      exportTables(db, {
        pipeline: 'bulk',
        tables: ['scrapers'],
        outDir: out,
        mode: 'incremental',
        fileName: 'bulk.csv',
      }),
    );
    // How many threads wrote it depends on the cores and the table's cells (destinations/sqlite/csv-threads.ts), not on this test.
    const { threads: _threads, ...written } = f!;
    expect(written).toEqual({ table: 'scrapers', file: final, rows: 400000 });
    expect(await readdir(out)).toEqual(['bulk.csv']);
    const csv = await readCsv(final);
    expect(csv.rows).toHaveLength(400000);
    expect(csv.rows[399999]![1]).toBe('name 400000, "quoted"');
  });
});
