// The production topology (docker-compose.yml) for real: a Temporal server built from go.temporal.io/server (the
// pinned version) on its own Postgres cluster, three `scrape-etl worker` processes on one task queue, and the
// warehouse on a second Postgres cluster. Every kind at once (pdf, leads social and search engine, job-board,
// marketplace) plus a schedule; then, mid-run, one worker is SIGKILLed, the warehouse's Postgres is restarted
// (immediate stop: no checkpoint, connections cut, as in a crash), the Temporal server is SIGKILLed and started
// again on its database, and then that database (Temporal's own Postgres cluster) is restarted the same way under
// the running server. Every run completes, every table equals the simulator's ground truth with no duplicate,
// the schedule created before the server was killed fires after its restart, and the service saw one scraper per
// workflow and exactly the runs it should have: no scraper paid twice.
//
// Both Postgres clusters are restarted once: the warehouse is the database scrape-etl's activities write to (their
// retries must land every row once), Temporal's is the one the server's state lives in (the server must ride
// through losing it). Both keep synchronous_commit on, as production databases do (see startPostgresCluster).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { scraperNameFor } from '../../../activities/scraping-runs.js';
import { marketplaceResponseSchema, type JobBoardResponse, type ResultRecord } from '../../../client/index.js';
import { openDatabase, type Database } from '../../../destinations/open.js';
import { flattenJobBoard, flattenMarketplace, flattenResultRecords } from '../../../db/model/flatten/index.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { PROGRESS_QUERY, type PipelineProgress } from '../../../temporal/contract.js';
import { pipelineScheduleAction, startPipelineRun, type PipelineWorkflowHandle } from '../../../temporal/start.js';
import type { PipelineSpec } from '../../../pipelines/spec.js';
import { expectContentEqual, expectTablesEqual, mergeRows } from '../../support/pipeline-truth.js';
import {
  FAST_POLLING,
  JOB_SCHEMA,
  jobBoardSpec,
  leadsSearchSpec,
  leadsSocialSpec,
  marketplaceSpec,
  pdfSpec,
  productUrl,
} from '../../support/pipeline-specs.js';
import { startPostgresCluster, type PostgresCluster } from '../../support/postgres.js';
import {
  startRealTemporal,
  TEMPORAL_SERVER_VERSION,
  waitFor as waitUntil,
  type RealTemporal,
} from '../../support/temporal-server.js';
import { spawnWorkerProcess, type WorkerProcess } from '../../support/temporal.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const taskQueue = `topology-${crypto.randomBytes(4).toString('hex')}`;
let temporal: RealTemporal;
let warehouse: PostgresCluster;
let sim: RunningSimulator;
let dbUrl: string;
let db: Database | undefined;
const workers: WorkerProcess[] = [];
const t0 = Date.now();
const mark = (what: string) => console.log(`[topology +${((Date.now() - t0) / 1000).toFixed(1)} s] ${what}`);

beforeAll(async () => {
  if (!fs.existsSync(path.join(repoRoot, 'dist', 'cli', 'main.js')))
    throw new Error('dist/ is not built: run `npm run build` first (the workers run bin/scrape-etl.js)');
  [temporal, warehouse, sim] = await Promise.all([
    startRealTemporal(),
    // Commits flushed before they are acknowledged: the restart below is an immediate stop, and with
    // synchronous_commit=off (the other test databases' speed setting) it loses the last acknowledged commits.
    startPostgresCluster({ crashSafe: true }),
    startSimulator({ port: 0, token: TOKEN, seed: 31, runDurationMs: 1000 }),
  ]);
  mark(`Temporal server v${TEMPORAL_SERVER_VERSION} on Postgres ready at ${temporal.address}`);
  const admin = new pg.Client({ connectionString: warehouse.url });
  await admin.connect();
  await admin.query('CREATE DATABASE warehouse');
  await admin.end();
  dbUrl = warehouse.url.replace(/\/postgres$/, '/warehouse');
  const env = {
    SCRAPER_BASE_URL: sim.baseUrl,
    SCRAPER_API_TOKEN: TOKEN,
    // A killed worker's activities are retried within seconds; its workflows' sticky tasks move on within 1 s.
    SCRAPE_ETL_HEARTBEAT_TIMEOUT: '3s',
    SCRAPE_ETL_WAIT_HEARTBEAT_TIMEOUT: '3s',
    SCRAPE_ETL_STICKY_QUEUE_TIMEOUT: '1s',
    // Small chunks: a marketplace run's URLs spread over several activities, hence over the three workers.
    SCRAPE_ETL_URL_CHUNK_SIZE: '4',
    SCRAPE_ETL_LOAD_BATCH_SIZE: '50',
    SCRAPE_ETL_PG_POOL_SIZE: '4',
  };
  workers.push(
    ...(await Promise.all([0, 1, 2].map(() => spawnWorkerProcess({ address: temporal.address, taskQueue, env })))),
  );
  mark('three worker processes polling');
}, 600_000);

let failed = false;
afterEach((ctx) => {
  if (ctx.task.result?.state !== 'fail') return;
  failed = true;
  console.error(temporal?.logTail(40));
  for (const w of workers) console.error(`--- worker ${w.pid} (tail) ---\n${w.output().slice(-3000)}`);
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.kill('SIGTERM')));
  await db?.close();
  await sim?.close();
  await temporal?.stop({ keepLogs: failed });
  warehouse?.stop();
});

/** waitFor with this test's defaults, ending a timeout with the Temporal server's log. */
const waitFor = <T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 120_000,
  everyMs = 100,
): Promise<T> => waitUntil(what, timeoutMs, probe, () => `--- Temporal server log ---\n${temporal.logTail()}`, everyMs);

const POLLING = { ...FAST_POLLING, deadline: '10m' };
const withPolling = <S extends PipelineSpec>(s: S): S => ({ ...s, polling: POLLING });
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

describe('production topology: real Temporal server on Postgres, three workers, Postgres warehouse', () => {
  it('every kind at once survives a worker SIGKILL, a warehouse restart, a Temporal server kill -9 and a restart of its database: exact tables, schedules fire, one scraper per workflow', async () => {
    const conn = { client: temporal.client, taskQueue };

    // Run-status checks held (answered 503, retryable) until the disruptions are over, so they land while the
    // pdf and leads runs are waited for; each /api answer delayed, so the marketplace and job-board runs are mid-way.
    sim.queueFaults(
      Array.from({ length: 100_000 }, () => ({ status: 503 })),
      { path: '/api/scraping-runs', method: 'GET' },
    );
    sim.setFaults({ latencyMs: 250 });
    const polled = () => sim.stats().byEndpoint['GET /api/scraping-runs/:id'] ?? 0;

    // A schedule, created (and fired once) before the server is killed.
    const schedSpec = withPolling(marketplaceSpec('topo-sched', dbUrl, [productUrl(990_001), productUrl(990_002, 42)]));
    const schedule = await temporal.client.schedule.create({
      scheduleId: `topo-sched-${crypto.randomBytes(3).toString('hex')}`,
      spec: { intervals: [{ every: '4s' }] },
      action: await pipelineScheduleAction(temporal.client, schedSpec, taskQueue),
      policies: { overlap: 'SKIP' },
    });
    await waitFor(
      'the schedule to fire once',
      async () => ((await schedule.describe()).info.recentActions.length > 0 ? true : undefined),
      60_000,
      250,
    );
    mark('schedule created and fired');

    const SHOPS = [10115139, 42, 9001];
    const products = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) =>
        i % 4 === 0 ? `${productUrl(from + i, SHOPS[i % 3])}&sim_models=12` : productUrl(from + i, SHOPS[i % 3]),
      );
    const marketA = products(910_000, 24);
    // Overlaps A by half: the same rows loaded by two runs at once, from different workers.
    const marketB = [...marketA.slice(12), ...products(920_000, 12)].reverse();
    const jobUrls = Array.from({ length: 6 }, (_, i) => `https://weworkremotely.com/remote-jobs/search?term=topo${i}`);
    const specs = {
      pdfA: withPolling(pdfSpec('topo-pdf', dbUrl, 3, 12)),
      pdfB: withPolling(pdfSpec('topo-pdf-b', dbUrl, 2, 8)),
      social: withPolling(leadsSocialSpec('topo-social', dbUrl, 60)),
      search: withPolling(leadsSearchSpec('topo-search', dbUrl, 3)),
      jobs: withPolling({ ...jobBoardSpec('topo-jobs', dbUrl, jobUrls), concurrency: 2 }),
      marketA: withPolling({ ...marketplaceSpec('topo-market', dbUrl, marketA), concurrency: 2 }),
      marketB: withPolling({ ...marketplaceSpec('topo-market', dbUrl, marketB), concurrency: 2 }),
    };
    const handles = new Map<keyof typeof specs, PipelineWorkflowHandle>();
    for (const [k, s] of Object.entries(specs) as Array<[keyof typeof specs, PipelineSpec]>)
      handles.set(k, await startPipelineRun(conn, s, k));
    const createAndWait = ['pdfA', 'pdfB', 'social', 'search'] as const;
    const results = [...handles.entries()].map(([k, h]) => h.result().then((r) => ({ key: k, handle: h, result: r })));
    // Unhandled while the disruptions run; awaited below.
    for (const r of results) r.catch(() => {});

    // Disruptions once every scraper is created (its runs are being waited for) and the marketplace runs are loading.
    await waitFor('every scraper created and the marketplace runs under way', async () => {
      for (const k of createAndWait)
        if ((await handles.get(k)!.query<PipelineProgress>(PROGRESS_QUERY)).phase !== 'waiting') return undefined;
      const m = await handles.get('marketA')!.query<PipelineProgress>(PROGRESS_QUERY);
      return m.urls.done >= 2 && polled() > 0 ? true : undefined;
    });
    const before = await handles.get('marketA')!.query<PipelineProgress>(PROGRESS_QUERY);
    mark(
      `disruptions start: marketplace A at ${before.urls.done}/${before.urls.total} URLs, ${polled()} status checks held`,
    );

    const victim = workers.shift()!;
    await victim.kill('SIGKILL');
    mark(`worker ${victim.pid} SIGKILLed`);

    await warehouse.restart({ downMs: 1000 });
    mark('warehouse Postgres restarted (immediate stop)');

    const { downMs, readyMs } = await temporal.killAndRestart({ downMs: 1000 });
    const restartedAt = Date.now();
    mark(`Temporal server SIGKILLed and restarted: ${downMs} ms without a server, ${readyMs} ms to serve again`);

    // The server's own database goes away under the running server and comes back (immediate stop, connections cut).
    await temporal.postgres.restart({ downMs: 1000 });
    mark("Temporal's Postgres restarted under the running server (immediate stop)");

    sim.setFaults({ latencyMs: 0 });
    sim.clearFaults();

    // The schedule made before the kill keeps firing after the restart, and its run completes.
    const firedAfter = await waitFor(
      'the schedule to fire after the restart',
      async () => {
        const d = await schedule.describe();
        return d.info.recentActions.find((a) => a.takenAt.getTime() > restartedAt);
      },
      120_000,
      500,
    );
    const scheduledRun = temporal.client.workflow.getHandle(
      firedAfter.action.workflow.workflowId,
      firedAfter.action.workflow.firstExecutionRunId,
    );
    expect((await scheduledRun.result()).status).toBe('succeeded');
    mark(`schedule fired after the restart: ${firedAfter.action.workflow.workflowId} succeeded`);
    const schedInfo = await schedule.describe();
    await schedule.delete();

    const outcomes = await Promise.all(results);
    mark('every run completed');
    for (const o of outcomes) expect(o.result.status, o.key).toBe('succeeded');

    // Every run the schedule started is closed and succeeded (none left behind by the kills).
    const scheduled = await waitFor(
      'every scheduled run to close',
      async () => {
        const list: Array<{ id: string; status: string }> = [];
        for await (const w of temporal.client.workflow.list({ query: `ScrapeEtlPipeline = 'topo-sched'` })) {
          list.push({ id: w.workflowId, status: w.status.name });
        }
        return list.length >= schedInfo.info.numActionsTaken && list.every((w) => w.status !== 'RUNNING')
          ? list
          : undefined;
      },
      120_000,
      500,
    );
    expect(scheduled.length).toBeGreaterThanOrEqual(2);
    expect(scheduled.filter((w) => w.status !== 'COMPLETED')).toEqual([]);

    db = await openDatabase(dbUrl);
    // create-and-wait kinds: one scraper per workflow, exactly the runs it should have made, results exact.
    const recordsOf = (ids: string[]) =>
      ids.flatMap((id) => sim.truth.runResults(Number(id)) as unknown as ResultRecord[]);
    for (const k of createAndWait) {
      const o = outcomes.find((x) => x.key === k)!;
      const spec = specs[k];
      const name = scraperNameFor(spec, o.handle.workflowId);
      expect(
        sim.truth.scrapers().filter((s) => s['name'] === name),
        `${k}: scrapers`,
      ).toHaveLength(1);
      const truthRuns = sim.truth.runs().filter((r) => r.scraper_name === name);
      expect(o.result.scrapingRunIds.slice().sort(), `${k}: runs`).toEqual(truthRuns.map((r) => String(r.id)).sort());
      const records = recordsOf(o.result.scrapingRunIds);
      expect(records.length, `${k}: results`).toBeGreaterThan(0);
      await expectTablesEqual(
        db,
        spec,
        flattenResultRecords(records, spec.kind === 'pdf' ? 'pdf_results' : 'leads_results'),
        [spec.kind === 'pdf' ? 'pdf_results' : 'leads_results'],
      );
      await expectContentEqual(db, spec, records);
    }
    expect(recordsOf(outcomes.find((x) => x.key === 'pdfA')!.result.scrapingRunIds)).toHaveLength(12);
    expect(recordsOf(outcomes.find((x) => x.key === 'social')!.result.scrapingRunIds)).toHaveLength(60);

    const jobs = mergeRows(
      jobUrls.map((u) =>
        flattenJobBoard({
          result: sim.truth.jobs(u, JOB_SCHEMA, 2, 6),
          tokenUsage: 0,
          totalDone: 0,
        } as unknown as JobBoardResponse),
      ),
    );
    await expectTablesEqual(db, specs.jobs, jobs, ['job_records']);

    const market = (urls: string[]) =>
      mergeRows(urls.map((u) => flattenMarketplace(marketplaceResponseSchema.parse(sim.truth.product(u)))));
    await expectTablesEqual(db, specs.marketA, market([...new Set([...marketA, ...marketB])]), MARKET_TABLES);
    await expectTablesEqual(db, schedSpec, market(schedSpec.request.urls), MARKET_TABLES);

    if (db.dialect !== 'postgres') throw new Error('expected the Postgres warehouse');
    // Every URL of each marketplace run was landed for that run. raw_responses is the ledger of calls made: a chunk
    // retried after a kill re-fetches the URLs it finished after its last recorded heartbeat (a call made twice is
    // landed twice, by design; the data tables above stay exact). Those re-fetches are bounded by a chunk per
    // disruption (a worker kill, a server kill, two database restarts).
    const raw = await db.pool.query<{ workflow_id: string; n: string; keys: string }>(
      `SELECT workflow_id, count(*) AS n, count(DISTINCT request_key) AS keys FROM raw_responses WHERE pipeline = 'topo-market' GROUP BY workflow_id ORDER BY workflow_id`,
    );
    const want = new Map([
      [handles.get('marketA')!.workflowId, marketA.length],
      [handles.get('marketB')!.workflowId, marketB.length],
    ]);
    expect(raw.rows.map((r) => [r.workflow_id, Number(r.keys)])).toEqual([...want.entries()].sort());
    const refetched = raw.rows.reduce((sum, r) => sum + Number(r.n) - Number(r.keys), 0);
    mark(`marketplace URLs fetched again after the disruptions: ${refetched} of ${marketA.length + marketB.length}`);
    expect(refetched).toBeLessThanOrEqual(4 * 4);
    // Prices never change in the simulator: one price-history row per product and model, however many loads.
    const history = await db.pool.query<{ n: string; distinct_keys: string }>(
      `SELECT count(*) AS n, count(DISTINCT (shop_id, item_id, coalesce(model_id, -1))) AS distinct_keys FROM marketplace_price_history WHERE pipeline = 'topo-market'`,
    );
    expect(history.rows[0]!.n).toBe(history.rows[0]!.distinct_keys);

    // The surviving workers are still alive and polling (neither the server kill nor the database restart ended them).
    for (const w of workers) expect(w.child.exitCode, w.output()).toBeNull();
    mark('tables exact');
  }, 600_000);
});
