// Exports from a real DuckDB file: the same incremental CSV checks and the same typed-format checks (Parquet,
// JSON Lines, XLSX read back by pyarrow, json and openpyxl) as SQLite and Postgres, value for value.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { openDatabase, type DuckDatabase } from '../../../destinations/open.js';
import { withTransaction } from '../../../db/store/sql.js';
import { checkIncrementalExports } from '../../support/export-data.js';
import { checkDeclaredTypesParquet, checkTypedFormats } from '../../support/export-formats.js';

let dir: string;
let n = 0;
/** A fresh file per test: the shared checks each expect a database of their own, as with SQLite. */
const freshDb = async () => (await openDatabase(`duckdb:${join(dir, `dest-${++n}.duckdb`)}`)) as DuckDatabase;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-duckdb-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('exports from DuckDB', () => {
  it('CSV: writes every value exactly, incremental exports hold only new rows', async () => {
    await checkIncrementalExports(await freshDb(), join(dir, 'inc'));
  });

  it('Parquet, JSON Lines and XLSX hold every value with its type, read by pyarrow, json and openpyxl', async () => {
    await checkTypedFormats(await freshDb(), join(dir, 'typed'));
  });

  it('types columns DuckDB declares: microseconds, timestamps without zone, NaN, and moves the watermark', async () => {
    const db = await freshDb();
    await withTransaction(db, async (tx) => {
      await tx.run(
        `create table custom_duck (id bigint, "at" timestamptz, wall timestamp, ratio double, flag boolean, doc json, pipeline text, load_id bigint)`,
        [],
      );
      await tx.run(
        `insert into custom_duck values (9223372036854775807, '2025-06-07 08:09:10.123456+02', '2025-06-07 08:09:10.5', 'NaN', false, '{"a": [1, 2]}', 'p', 3)`,
        [],
      );
    });
    await checkDeclaredTypesParquet(db, 'custom_duck', join(dir, 'custom'));
  });
});
