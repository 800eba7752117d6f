// Several worker processes loading into ONE Postgres database at once: six runs of the same marketplace pipeline
// whose URL lists overlap (each product loaded by four runs, in different orders, from both workers at the same
// time) and four PDF runs of one pipeline. Every table ends up exactly as the simulator says, the price history
// holds one row per product and model (a concurrent first load must not record the first price twice), Postgres
// detected no deadlock, no activity needed a retry but for a timeout (a loaded machine), every URL of a run was landed
// once, and each worker kept to its connection pool.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { marketplaceResponseSchema, type ResultRecord } from '../../../client/index.js';
import { openDatabase, type Database } from '../../../destinations/open.js';
import { flattenMarketplace, flattenResultRecords } from '../../../db/model/flatten/index.js';
import { getPipelineRun } from '../../../db/store/pipeline-runs.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { startPipelineRun } from '../../../temporal/start.js';
import { expectContentEqual, expectTablesEqual, mergeRows } from '../../support/pipeline-truth.js';
import { marketplaceSpec, pdfSpec, productUrl } from '../../support/pipeline-specs.js';
import { testPostgresUrl } from '../../support/postgres.js';
import {
  spawnWorkerProcess,
  startTestTemporal,
  type TestTemporal,
  type WorkerProcess,
} from '../../support/temporal.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const taskQueue = `pg-concurrency-${crypto.randomBytes(4).toString('hex')}`;
const POOL_SIZE = 4;
let temporal: TestTemporal;
let sim: RunningSimulator;
let dbUrl: string;
let db: Database | undefined;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  [temporal, sim, dbUrl] = await Promise.all([
    startTestTemporal(),
    startSimulator({ port: 0, token: TOKEN, seed: 23, runDurationMs: 1000 }),
    testPostgresUrl(),
  ]);
  const env = {
    SCRAPER_BASE_URL: sim.baseUrl,
    SCRAPER_API_TOKEN: TOKEN,
    SCRAPE_ETL_HEARTBEAT_TIMEOUT: '5s',
    SCRAPE_ETL_WAIT_HEARTBEAT_TIMEOUT: '5s',
    // Small chunks: a run's URLs spread over several activities, so both workers load the same products at once.
    SCRAPE_ETL_URL_CHUNK_SIZE: '3',
    SCRAPE_ETL_PG_POOL_SIZE: String(POOL_SIZE),
  };
  workers.push(
    ...(await Promise.all([0, 1].map(() => spawnWorkerProcess({ address: temporal.address, taskQueue, env })))),
  );
}, 120_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.kill('SIGTERM')));
  await db?.close();
  await sim?.close();
  await temporal?.stop();
});

const SHOPS = [10115139, 42, 9001];
/** 18 products over 3 shops (shops are shared rows), a third of them with many models (longer transactions). */
const PRODUCTS = Array.from({ length: 18 }, (_, i) => {
  const url = productUrl(880_000 + i, SHOPS[i % SHOPS.length]);
  return i % 3 === 0 ? `${url}&sim_models=24` : url;
});
/** Six overlapping windows of 12, every other one reversed: each product is in four runs. */
const MARKET_RUNS = Array.from({ length: 6 }, (_, r) => {
  const start = r * 3;
  const urls = [...PRODUCTS.slice(start), ...PRODUCTS.slice(0, start)].slice(0, 12);
  return r % 2 === 1 ? urls.reverse() : urls;
});

const MARKET_TABLES = [
  'marketplace_products',
  'marketplace_shops',
  'marketplace_product_models',
  'marketplace_model_stocks',
  'marketplace_product_attributes',
  'marketplace_product_categories',
  'marketplace_product_images',
  'marketplace_product_tier_variations',
  'marketplace_product_tier_variation_options',
] as const;

/** Highest number of connections the workers held to the database, sampled while `work` runs. */
async function peakConnections<T>(work: Promise<T>): Promise<{ value: T; peak: number }> {
  const probe = new pg.Client({ connectionString: dbUrl });
  await probe.connect();
  let peak = 0;
  let done = false;
  const sampling = (async () => {
    while (!done) {
      const res = await probe.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity
          WHERE datname = current_database() AND backend_type = 'client backend' AND application_name = 'scrape-etl'`,
      );
      peak = Math.max(peak, Number(res.rows[0]?.n));
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  try {
    return { value: await work, peak };
  } finally {
    done = true;
    await sampling;
    await probe.end();
  }
}

describe('concurrent loads into one Postgres database', () => {
  it('two worker processes, ten overlapping runs: exact tables, no duplicate history, no deadlock, bounded pools', async () => {
    const conn = { client: temporal.client, taskQueue };
    const marketSpecs = MARKET_RUNS.map((urls) => ({ ...marketplaceSpec('shop-watch', dbUrl, urls), concurrency: 3 }));
    const pdfSpecs = Array.from({ length: 4 }, () => pdfSpec('pdf-watch', dbUrl, 2, 8));
    const started = Date.now();
    const { value: outcomes, peak } = await peakConnections(
      Promise.all([
        ...marketSpecs.map(async (s, i) => {
          const h = await startPipelineRun(conn, s, `m${i}`);
          return { handle: h, result: await h.result() };
        }),
        ...pdfSpecs.map(async (s, i) => {
          const h = await startPipelineRun(conn, s, `p${i}`);
          return { handle: h, result: await h.result() };
        }),
      ]),
    );
    console.log(
      `10 concurrent runs (6 overlapping marketplace, 4 pdf) on 2 worker processes into Postgres: ${Date.now() - started} ms, peak ${peak} worker connections`,
    );
    for (const { result } of outcomes) expect(result.status).toBe('succeeded');

    // Each worker process keeps to its one pool for the URL, however many activities run at once.
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(2 * POOL_SIZE);

    db = await openDatabase(dbUrl);
    if (db.dialect !== 'postgres') throw new Error(`expected a Postgres destination, got ${db.dialect}`);
    const pool = db.pool;
    const marketSpec = marketSpecs[0]!;
    const expected = mergeRows(
      PRODUCTS.map((u) => flattenMarketplace(marketplaceResponseSchema.parse(sim.truth.product(u)))),
    );
    await expectTablesEqual(db, marketSpec, expected, MARKET_TABLES);

    // Prices never change in the simulator: one history row per product (model_id null) and one per model.
    const history = await pool.query<{ n: string; distinct_keys: string }>(
      `SELECT count(*) AS n, count(DISTINCT (shop_id, item_id, coalesce(model_id, -1))) AS distinct_keys
         FROM marketplace_price_history WHERE pipeline = 'shop-watch'`,
    );
    const models = expected.marketplace_product_models?.length ?? 0;
    expect(models).toBeGreaterThan(PRODUCTS.length * 2);
    expect(history.rows[0]).toEqual({
      n: String(PRODUCTS.length + models),
      distinct_keys: String(PRODUCTS.length + models),
    });

    // Every URL of every run was landed once (raw_responses is the per-run record, even when no row changed).
    const raw = await pool.query<{ workflow_id: string; n: string }>(
      `SELECT workflow_id, count(*) AS n FROM raw_responses WHERE pipeline = 'shop-watch' GROUP BY workflow_id ORDER BY workflow_id`,
    );
    expect(raw.rows).toEqual(
      MARKET_RUNS.map((urls, i) => ({ workflow_id: `shop-watch--m${i}`, n: String(urls.length) })),
    );

    const pdfRunIds = outcomes.slice(marketSpecs.length).flatMap((o) => o.result.scrapingRunIds);
    expect(pdfRunIds).toHaveLength(8);
    const records = pdfRunIds.flatMap((id) => sim.truth.runResults(Number(id)) as unknown as ResultRecord[]);
    expect(records).toHaveLength(4 * 8);
    await expectTablesEqual(db, pdfSpecs[0]!, flattenResultRecords(records, 'pdf_results'), ['pdf_results']);
    await expectContentEqual(db, pdfSpecs[0]!, records);

    for (const { handle } of outcomes) {
      expect((await getPipelineRun(db, handle.workflowId))?.status).toBe('succeeded');
      // A deadlock or serialization failure that escaped the load's own retries would have failed an attempt.
      // (Polling a run is retried by design, so only the other activities are looked at.)
      const events = (await handle.fetchHistory()).events ?? [];
      const typeOf = new Map(
        events.map((e) => [String(e.eventId), e.activityTaskScheduledEventAttributes?.activityType?.name]),
      );
      // An attempt that timed out (a worker too busy to heartbeat within 5 s, as at a load average of 40) is retried
      // by design, and its retry lands nothing twice (the raw_responses check above); any other failure is a defect.
      const attempts = events
        .filter((e) => e.activityTaskStartedEventAttributes)
        .map((e) => ({
          type: typeOf.get(String(e.activityTaskStartedEventAttributes!.scheduledEventId)),
          attempt: e.activityTaskStartedEventAttributes!.attempt,
          lastFailure: e.activityTaskStartedEventAttributes!.lastFailure,
        }))
        .filter((a) => a.type !== 'checkRunStatus');
      expect(attempts.length).toBeGreaterThan(0);
      expect(
        attempts
          .filter((a) => a.attempt !== 1 && !a.lastFailure?.timeoutFailureInfo)
          .map((a) => ({ type: a.type, attempt: a.attempt, lastFailure: a.lastFailure?.message })),
        handle.workflowId,
      ).toEqual([]);
    }

    // Postgres counts the deadlocks it detected; backends report their counts when they exit (pools closed).
    await Promise.all(workers.splice(0).map((w) => w.kill('SIGTERM')));
    const deadlocks = await pool.query<{ deadlocks: string }>(
      'SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()',
    );
    expect(deadlocks.rows[0]?.deadlocks).toBe('0');
  });
});
