// Parquet, JSON Lines and XLSX exports from a real Postgres server (values arrive as the server's text), read
// back by the same independent Python readers and compared with the same expectations as SQLite.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { openDatabase, type PostgresDatabase } from '../../../destinations/open.js';
import { checkDeclaredTypesParquet, checkTypedFormats } from '../../support/export-formats.js';
import { testPostgresUrl } from '../../support/postgres.js';

let dir: string;
let db: PostgresDatabase;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-formats-pg-'));
  db = (await openDatabase(await testPostgresUrl())) as PostgresDatabase;
});
afterAll(async () => {
  await db?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('typed exports from Postgres', () => {
  it('Parquet, JSON Lines and XLSX hold every value with its type, read by pyarrow, json and openpyxl', async () => {
    await checkTypedFormats(db, join(dir, 'out'));
  });

  it('types columns Postgres declares: microseconds, timestamps without zone, NaN, and moves the watermark', async () => {
    await db.pool.query(
      `create table custom_pg (id bigint, at timestamptz, wall timestamp, ratio double precision, flag boolean, doc jsonb, pipeline text, load_id bigint)`,
    );
    await db.pool.query(
      `insert into custom_pg values (9223372036854775807, '2025-06-07 08:09:10.123456+02', '2025-06-07 08:09:10.5', 'NaN', false, '{"a": [1, 2]}', 'p', 3)`,
    );
    await checkDeclaredTypesParquet(db, 'custom_pg', join(dir, 'custom'));
  });
});
