// The compiled CLI as a user runs it against a DuckDB destination (`npm run build` first; the embedded Temporal
// dev server the command starts, the simulator over HTTP, a real DuckDB file): `run` loads into it, a second run
// of the same URLs changes no row, and `status`, `export --format csv|parquet` and `schema show` read it.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../destinations/open.js';
import { DATA_TABLES } from '../../../db/model/tables.js';
import { startCliBed, type CliBed } from '../../support/cli-bed.js';
import { ensureDevServer } from '../../../temporal/dev-server.js';
import { REPO_ROOT, jsonLines, runCli } from '../../support/cli.js';
import { dumpDatabase, lastSeenAt } from '../../support/db-dump.js';
import { readCsv } from '../../support/export-data.js';
import { readParquetWithPyarrow } from '../../support/python-readers.js';

const TOKEN = 'cli-duckdb-test-token';
const EXAMPLES = path.join(REPO_ROOT, 'pipelines', 'examples');
let bed: CliBed;
let dir: string;
let env: NodeJS.ProcessEnv;
let dbUrl: string;
const ids: string[] = [];

async function dump() {
  const db = await openDatabase(dbUrl);
  try {
    // last_seen_at apart: a run moves it on every row it saw (asserted with seen()).
    return await dumpDatabase(db, { keepLoadedAt: true, keepLastSeen: false });
  } finally {
    await db.close();
  }
}

async function seen(pipeline: string) {
  const db = await openDatabase(dbUrl);
  try {
    return await lastSeenAt(db, [pipeline]);
  } finally {
    await db.close();
  }
}

beforeAll(async () => {
  bed = await startCliBed({ name: 'cli-duckdb', token: TOKEN, seed: 19 });
  ({ dir, env } = bed);
  dbUrl = `duckdb:${path.join(dir, 'dest.duckdb')}`;
  env = { ...env, DATABASE_URL: dbUrl };
}, 60_000);

afterAll(async () => {
  await bed?.close();
});

describe('scrape-etl on a DuckDB destination', () => {
  it('run loads the marketplace example; a second run of the same URLs changes no row but raw_responses', async () => {
    const first = await runCli(['run', '--json', path.join(EXAMPLES, 'marketplace.yaml')], {
      cwd: dir,
      env,
      timeoutMs: 120_000,
    });
    expect(first.code, first.stderr).toBe(0);
    ids.push(String(jsonLines(first.stdout).at(-1)!['workflowId']));
    const before = await dump();
    expect(before['marketplace_products']).toHaveLength(2);
    expect(before['marketplace_price_history']!.length).toBeGreaterThan(0);
    const pipeline = String(before['marketplace_products']![0]!['pipeline']);
    const seenBefore = await seen(pipeline);
    const secondStart = Date.now();

    const second = await runCli(['run', '--json', '--new', path.join(EXAMPLES, 'marketplace.yaml')], {
      cwd: dir,
      env,
      timeoutMs: 120_000,
    });
    expect(second.code, second.stderr).toBe(0);
    ids.push(String(jsonLines(second.stdout).at(-1)!['workflowId']));
    expect(ids[1]).not.toBe(ids[0]);
    const after = await dump();
    // Every data table exactly as before, lineage (load_id, loaded_at) included: no row was rewritten.
    for (const t of DATA_TABLES) expect({ t, rows: after[t] }).toEqual({ t, rows: before[t] });
    // And the second run saw every row: last_seen_at moved to its time on each (the freshness of the data).
    const seenAfter = await seen(pipeline);
    expect(Object.keys(seenAfter)).toContain('marketplace_products');
    for (const [t, times] of Object.entries(seenAfter))
      expect({ t, stale: times.filter((ms) => ms < secondStart), rows: times.length }).toEqual({
        t,
        stale: [],
        rows: seenBefore[t]?.length,
      });
    expect(after['raw_responses']!.length).toBe(2 * before['raw_responses']!.length);
  }, 300_000);

  it('the documented price-history queries (docs/exports.md) run on the file, opened by DuckDB itself (no scrape-etl code)', async () => {
    const readme = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'exports.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## DuckDB: embedded analytics'));
    const block = /```sql\n([\s\S]*?)```/.exec(section)![1]!;
    const queries = block
      .split(';')
      .map((q) => q.replace(/^\s*--.*$/gm, '').trim())
      .filter((q) => q !== '');
    expect(queries).toHaveLength(2);
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(path.join(dir, 'dest.duckdb'), { access_mode: 'READ_ONLY' });
    try {
      const conn = await instance.connect();
      const changes = (await conn.runAndReadAll(queries[0]!)).getRowObjectsJS();
      // Two products, each with its own price and its models' prices: first loads only (the second run changed nothing).
      expect(changes.length).toBeGreaterThan(2);
      expect(new Set(changes.map((r) => String(r['item_id'])))).toEqual(new Set(['1234567890', '4420309814']));
      expect(
        changes.every((r) => r['was'] === null && typeof r['now'] === 'number' && r['loaded_at'] instanceof Date),
      ).toBe(true);
      const daily = (await conn.runAndReadAll(queries[1]!)).getRowObjectsJS();
      expect(daily.map((r) => [String(r['item_id']), Number(r['changes'])])).toEqual([
        ['1234567890', 1],
        ['4420309814', 1],
      ]);
      conn.closeSync();
    } finally {
      instance.closeSync();
    }
  });

  it('status shows both runs from the DuckDB file', async () => {
    // `run` stopped the server it started (issue 36) and status never starts one: it runs here as under `up`.
    await ensureDevServer({ dataDir: bed.env['SCRAPE_ETL_DATA_DIR']! });
    const r = await runCli(['status', '--live', '--database', dbUrl, '--json'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    const runs = jsonLines(r.stdout);
    expect(runs.map((x) => x['workflowId']).sort()).toEqual([...ids].sort());
    for (const run of runs) expect(run).toMatchObject({ state: 'SUCCEEDED', tableStatus: 'succeeded' });
    const missing = await runCli(['status', '--database', `duckdb:${path.join(dir, 'typo.duckdb')}`], {
      cwd: dir,
      env,
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no database at duckdb:');
    expect(fs.existsSync(path.join(dir, 'typo.duckdb'))).toBe(false);
  });

  it('export --format csv and parquet read the DuckDB file', async () => {
    const out = path.join(dir, 'out');
    const csv = await runCli(
      [
        'export',
        '--db',
        dbUrl,
        '--out',
        out,
        '--tables',
        'marketplace_products,marketplace_price_history',
        '--file-name',
        '{table}.csv',
        '--json',
      ],
      { cwd: dir, env },
    );
    expect(csv.code, csv.stderr).toBe(0);
    const products = await readCsv(path.join(out, 'marketplace_products.csv'));
    expect(products.rows).toHaveLength(2);
    expect(products.rows.map((r) => r[products.header.indexOf('item_id')]).sort()).toEqual([
      '1234567890',
      '4420309814',
    ]);
    const pq = await runCli(
      [
        'export',
        '--db',
        dbUrl,
        '--out',
        out,
        '--format',
        'parquet',
        '--tables',
        'marketplace_price_history',
        '--file-name',
        '{table}.parquet',
      ],
      { cwd: dir, env },
    );
    expect(pq.code, pq.stderr).toBe(0);
    const read = readParquetWithPyarrow(path.join(out, 'marketplace_price_history.parquet'));
    expect(Object.fromEntries(read.schema)).toMatchObject({
      shop_id: 'int64',
      item_id: 'int64',
      price: 'int64',
      price_major: 'double',
      loaded_at: 'timestamp[us, tz=UTC]',
    });
    const history = await readCsv(path.join(out, 'marketplace_price_history.csv'));
    expect(read.rows).toHaveLength(history.rows.length);
  });

  it('schema show lists the tables and columns of a pipeline from the DuckDB file', async () => {
    const r = await runCli(['schema', 'show', 'marketplace-products', '--db', dbUrl, '--json'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    const shown = JSON.parse(r.stdout) as { pipeline: string; tables: Array<{ table: string; columns: unknown[] }> };
    expect(shown.pipeline).toBe('marketplace-products');
    expect(Array.isArray(shown.tables)).toBe(true);
  });
});
