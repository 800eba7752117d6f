// raw_responses exported by name, on SQLite and Postgres: a response landed twice with the same body stores the
// body once (the second row points at the first, db/store/raw-responses.ts), yet both rows of the export carry the whole
// body, read back by Python's csv module (strict) and by pyarrow from Parquet (whose SQLite and Postgres exports
// read the body's expression as CSV the database writes), byte for byte what the service sent.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../../lib/json.js';
import { marketplaceResponseSchema } from '../../../client/schemas.js';
import { openDatabase, type Database } from '../../../destinations/open.js';
import { loadBatch } from '../../../db/store/load.js';
import { exportTables } from '../../../export/csv.js';
import { exportTables as exportAnyFormat } from '../../../export/export.js';
import { readParquetWithPyarrow } from '../../support/python-readers.js';
import { REAL_FIXTURES } from '../../support/fixtures.js';
import { testPostgresUrl } from '../../support/postgres.js';
import { readCsvWithPython } from '../../support/python-csv.js';
import { testDatabaseUrl } from '../../support/destinations.js';

const RAW = fs.readFileSync(`${REAL_FIXTURES}/shopee-sync-response-1.json`, 'utf8');
let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-raw-bodies-'));
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe.each(['sqlite', 'postgres', 'duckdb'] as const)('%s', (dialect) => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase(await testDatabaseUrl(dialect, dir, 'raw'));
  });
  afterAll(async () => db?.close());

  it('a body stored once for two landings is exported whole in both rows', async () => {
    const data = marketplaceResponseSchema.parse(parseJson(RAW));
    const first = await loadBatch(db, {
      pipeline: 'raw',
      kind: 'marketplace',
      endpoint: 'POST /api/marketplace/sync',
      requestKey: 'u',
      raw: RAW,
      data,
    });
    const second = await loadBatch(db, {
      pipeline: 'raw',
      kind: 'marketplace',
      endpoint: 'POST /api/marketplace/sync',
      requestKey: 'u',
      raw: RAW,
      data,
    });
    const [file] = await exportTables(db, {
      tables: ['raw_responses'],
      outDir: path.join(dir, dialect),
      neutralizeFormulas: false,
    });
    const [header, ...rows] = readCsvWithPython(file!.file);
    const id = header!.indexOf('id');
    const body = header!.indexOf('body');
    const ref = header!.indexOf('body_ref');
    const byId = new Map(rows.map((r) => [r[id], r]));
    expect(byId.get(String(first.loadId))![ref]).toBe('');
    expect(byId.get(String(second.loadId))![ref]).toBe(String(first.loadId));
    expect(byId.get(String(first.loadId))![body]).toBe(RAW);
    expect(byId.get(String(second.loadId))![body]).toBe(RAW);

    const [parquet] = await exportAnyFormat(db, {
      tables: ['raw_responses'],
      outDir: path.join(dir, `${dialect}-parquet`),
      format: 'parquet',
    });
    const read = readParquetWithPyarrow(parquet!.file).rows;
    const parquetById = new Map(read.map((r) => [(r['id'] as { int: string }).int, r]));
    expect(parquetById.get(String(first.loadId))!['body']).toBe(RAW);
    expect(parquetById.get(String(second.loadId))!['body']).toBe(RAW);
    expect(parquetById.get(String(second.loadId))!['body_ref']).toEqual({ int: String(first.loadId) });
  });
});
