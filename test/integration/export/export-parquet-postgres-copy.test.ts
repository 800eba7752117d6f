// Parquet from Postgres goes through `COPY … TO STDOUT (csv)` into DuckDB's CSV reader (export/formats/
// destinations/postgres/parquet.ts). What that path must carry exactly, read back by pyarrow: bytea (empty too), text with quotes,
// commas and line breaks, the empty string apart from NULL, a pipeline name with a quote inlined into COPY's query
// (COPY takes no bind parameters), the watermark of an incremental export; a row longer than DuckDB reads as one CSV
// record (the cursor path takes the table); and a connection the pool can still use afterwards.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type PostgresDatabase } from '../../../destinations/open.js';
import { exportTables } from '../../../export/export.js';
import { readParquetWithPyarrow } from '../../support/python-readers.js';
import { testPostgresUrl } from '../../support/postgres.js';

let dir: string;
let db: PostgresDatabase;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-parquet-pg-copy-'));
  db = (await openDatabase(await testPostgresUrl())) as PostgresDatabase;
  await db.pool.query(`create table copied (id bigint, bin bytea, t text, pipeline text, load_id bigint)`);
});
afterAll(async () => {
  await db?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('Parquet from Postgres through COPY', () => {
  it('carries bytea, awkward text and NULLs exactly, filters by a quoted pipeline name, and moves the watermark', async () => {
    const pipeline = `it's "odd", isn't it`;
    await db.pool.query(
      `insert into copied values (1, '\\x00ff'::bytea, 'a "quoted", text' || chr(10) || 'with a line, żółć', $1, 1), (2, ''::bytea, '', $1, 1), (3, null, null, $1, 2), (4, '\\x01'::bytea, 'other', 'other', 3)`,
      [pipeline],
    );
    const [f] = await exportTables(db, {
      tables: ['copied'],
      outDir: join(dir, 'a'),
      format: 'parquet',
      pipeline,
      mode: 'incremental',
    });
    expect(f!.rows).toBe(3);
    const read = readParquetWithPyarrow(f!.file);
    expect(read.schema).toEqual([
      ['id', 'int64'],
      ['bin', 'binary'],
      ['t', 'string'],
      ['pipeline', 'string'],
      ['load_id', 'int64'],
    ]);
    expect(read.rows).toEqual([
      {
        id: { int: '1' },
        bin: { bytes: '00ff' },
        t: 'a "quoted", text\nwith a line, żółć',
        pipeline,
        load_id: { int: '1' },
      },
      { id: { int: '2' }, bin: { bytes: '' }, t: '', pipeline, load_id: { int: '1' } },
      { id: { int: '3' }, bin: null, t: null, pipeline, load_id: { int: '2' } },
    ]);
    const mark = await db.pool.query<{ last_load_id: string; last_rows: string }>(
      `select last_load_id::text, last_rows::text from export_watermarks where pipeline = $1 and table_name = 'copied'`,
      [pipeline],
    );
    expect(mark.rows).toEqual([{ last_load_id: '2', last_rows: null }]);
    // Nothing new for that pipeline: no file, the watermark stays.
    const again = await exportTables(db, {
      tables: ['copied'],
      outDir: join(dir, 'b'),
      format: 'parquet',
      pipeline,
      mode: 'incremental',
    });
    expect(again).toEqual([]);
  });

  it('writes a row longer than DuckDB reads as one CSV record, and leaves the pool usable', async () => {
    await db.pool.query(`create table long_rows (id bigint, t text)`);
    await db.pool.query(`insert into long_rows values (1, repeat('é', 9 * 1024 * 1024)), (2, 'short')`);
    const [f] = await exportTables(db, { tables: ['long_rows'], outDir: join(dir, 'c'), format: 'parquet' });
    const rows = readParquetWithPyarrow(f!.file).rows;
    expect(rows.map((r) => (r['t'] as string).length)).toEqual([9 * 1024 * 1024, 5]);
    expect(rows[0]!['t'] === 'é'.repeat(9 * 1024 * 1024)).toBe(true);
    // The abandoned COPY's connection was dropped, not handed back mid-output: every pooled connection answers.
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => db.pool.query<{ one: number }>('select 1 as one')),
    );
    expect(answers.map((a) => a.rows[0]!.one)).toEqual([1, 1, 1, 1]);
  });

  it('stops mid-stream when aborted: no file, and the pool is usable', async () => {
    await db.pool.query(`create table many_rows (id bigint, t text)`);
    await db.pool.query(`insert into many_rows select i, 'row ' || i from generate_series(1, 300000) i`);
    const out = join(dir, 'd');
    const ac = new AbortController();
    let seen = 0;
    const running = exportTables(db, {
      tables: ['many_rows'],
      outDir: out,
      format: 'parquet',
      signal: ac.signal,
      onProgress: ({ rows }) => ((seen = rows), rows > 10_000 && ac.abort()),
    });
    await expect(running).rejects.toThrow(/abort/i);
    expect(seen).toBeGreaterThan(10_000);
    expect(seen).toBeLessThan(300_000);
    expect(await readdir(out)).toEqual([]);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => db.pool.query<{ one: number }>('select 1 as one')),
    );
    expect(answers.map((a) => a.rows[0]!.one)).toEqual([1, 1, 1, 1]);
    const [f] = await exportTables(db, { tables: ['many_rows'], outDir: out, format: 'parquet' });
    expect(f!.rows).toBe(300_000);
  });
});
