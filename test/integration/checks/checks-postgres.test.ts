// Checks and watches with a Postgres destination: a real Postgres server (test/support/postgres.ts), a real
// Temporal dev server and the drifting simulator. The null-rate spike ends the run failed_checks with the
// observed rate; a price drop is found in the run's price history (workflow_id, previous_price_major); the
// `sql:` escape hatch runs in a READ ONLY transaction, so a write is refused by the server.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listCheckResults } from '../../../checks/evaluate.js';
import { runReadOnlyQuery } from '../../../checks/sql-readonly.js';
import { getPipelineRun } from '../../../db/store/pipeline-runs.js';
import { withTransaction } from '../../../db/store/sql.js';
import { parsePipelineText } from '../../../pipelines/loader.js';
import type { PipelineSpec } from '../../../pipelines/spec.js';
import { startPipelineRun } from '../../../temporal/start.js';
import { startDestinationBed, type DestinationBed } from '../../support/pipeline-bed.js';
import { FAST_POLLING, productUrl } from '../../support/pipeline-specs.js';
import { startTestTemporal, type TestTemporal } from '../../support/temporal.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-checks-pg-'));
let temporal: TestTemporal;
let bed: DestinationBed;

beforeAll(async () => {
  temporal = await startTestTemporal();
  bed = await startDestinationBed({
    destination: 'postgres',
    dir,
    temporal,
    taskQueue: `checks-pg-${crypto.randomBytes(4).toString('hex')}`,
    token: TOKEN,
    seed: 11,
    runDurationMs: 300,
  });
}, 240_000);

afterAll(async () => {
  await bed?.close();
  await temporal?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const urls = Array.from({ length: 12 }, (_, i) => productUrl(4_420_309_100 + i, 10_115_139 + (i % 3)));
const soldAt = (url: string, epoch: number) =>
  (bed.sim.truth.productAt(url, epoch) as { data: { data: { product_review: { historical_sold: unknown } } } }).data
    .data.product_review.historical_sold;
const priceAt = (url: string, epoch: number) =>
  (bed.sim.truth.productAt(url, epoch) as { data: { data: { item: { price: number } } } }).data.data.item.price;

describe('checks on a Postgres destination', () => {
  it('a null-rate spike ends the run failed_checks with the observed rate; the price history names the run', async () => {
    const spec = {
      ...parsePipelineText(
        `
name: pg-nulls
kind: marketplace
request:
  urls:
${urls.map((u) => `    - ${u}`).join('\n')}
checks:
  - type: null_rate
    table: marketplace_products
    column: historical_sold
    max: 5%
  - type: sql
    name: no-free-products
    severity: warn
    sql: SELECT item_id FROM marketplace_products WHERE pipeline = 'pg-nulls' AND price_major <= 0
`,
        'pg.yaml',
        { env: {} },
      ),
      destination: { database: bed.dbUrl },
      polling: FAST_POLLING,
    } as PipelineSpec;
    const conn = { client: temporal.client, taskQueue: bed.taskQueue };
    const first = await (await startPipelineRun(conn, spec, 'r1')).result();
    expect(first.status).toBe('succeeded');

    bed.sim.setDrift({ priceDrift: true, epoch: 1, nullRate: 0.5, nullFields: ['product_review.historical_sold'] });
    const nulled = urls.filter((u) => soldAt(u, 1) === null).length;
    expect(nulled).toBeGreaterThan(1);
    const second = await (await startPipelineRun(conn, spec, 'r2')).result();
    expect(second.status).toBe('failed_checks');
    const rate = Math.round((nulled / urls.length) * 100 * 100) / 100;
    expect(second.checks).toEqual([
      expect.objectContaining({
        name: 'null_rate:marketplace_products.historical_sold',
        status: 'fail',
        observed: `${rate}% (${nulled} of ${urls.length} rows)`,
      }),
      expect.objectContaining({ name: 'no-free-products', status: 'pass' }),
    ]);
    expect((await getPipelineRun(bed.db, second.workflowId))?.status).toBe('failed_checks');
    const stored = await listCheckResults(bed.db, { workflowId: second.workflowId });
    expect(stored.find((r) => r.type === 'null_rate')?.observedValue).toBeCloseTo((nulled / urls.length) * 100, 6);

    // What changed in the run is one table: its rows carry the run and the previous major price.
    const hist = await withTransaction(bed.db, (tx) =>
      tx.all(
        `SELECT item_id, price_major, previous_price_major FROM marketplace_price_history WHERE pipeline = 'pg-nulls' AND workflow_id = $1 AND model_id IS NULL ORDER BY item_id`,
        [second.workflowId],
      ),
    );
    const changed = urls.filter((u) => priceAt(u, 1) !== priceAt(u, 0));
    expect(hist).toHaveLength(changed.length);
    for (const h of hist) {
      const u = urls.find((x) => new URL(x).searchParams.get('itemid') === String(h['item_id']))!;
      expect(Number(h['price_major'])).toBe(priceAt(u, 1) / 100000);
      expect(Number(h['previous_price_major'])).toBe(priceAt(u, 0) / 100000);
    }
  });

  it('sql: runs READ ONLY: a write is refused by the server and nothing changes', async () => {
    const before = await withTransaction(bed.db, (tx) => tx.all('SELECT count(*) AS n FROM marketplace_products', []));
    // A data-modifying query cannot even be wrapped; a function that writes is refused by the READ ONLY transaction.
    await expect(
      runReadOnlyQuery(bed.db, 'WITH d AS (DELETE FROM marketplace_products RETURNING item_id) SELECT * FROM d', {
        limit: 5,
        timeoutMs: 5000,
      }),
    ).rejects.toThrow();
    // (The test's destination user is a superuser, so the check runs as scrape_etl_check_reader, which may not use
    // the sequence at all: refused by that before the READ ONLY transaction is asked.)
    await expect(
      runReadOnlyQuery(bed.db, "SELECT nextval('check_results_id_seq')", { limit: 5, timeoutMs: 5000 }),
    ).rejects.toThrow(/read-only transaction|permission denied for sequence/);
    await expect(runReadOnlyQuery(bed.db, 'SELECT pg_sleep(5)', { limit: 5, timeoutMs: 200 })).rejects.toThrow(
      /statement timeout/,
    );
    const after = await withTransaction(bed.db, (tx) => tx.all('SELECT count(*) AS n FROM marketplace_products', []));
    expect(after[0]?.['n']).toBe(before[0]?.['n']);
  });
});
