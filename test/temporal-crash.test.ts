// Crash safety on a real Temporal dev server: the worker PROCESS is SIGKILLed while a run is being polled and
// again while a big run's results are being loaded; the dev server is stopped and restarted on its SQLite file
// mid-run. Each time the workflow completes and the tables equal the simulator's ground truth exactly.
import { scraperNameFor } from '../activities/scraping-runs.js';
import crypto from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ResultRecord } from '../client/index.js';
import type { Database } from '../db/connect.js';
import { flattenResultRecords } from '../db/flatten/index.js';
import type { RunningSimulator } from '../simulator/server.js';
import { startPipelineRun } from '../temporal/start.js';
import type { PipelineProgress } from '../workflows/pipeline.js';
import { expectTablesEqual } from './support/pipeline-truth.js';
import { leadsSocialSpec, pdfSpec } from './support/pipeline-specs.js';
import { spawnWorkerProcess, startInProcessWorker, type TestTemporal, type WorkerProcess } from './support/temporal.js';
import { startPipelineBed, type PipelineBed } from './support/pipeline-bed.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const taskQueue = `crash-${crypto.randomBytes(4).toString('hex')}`;
let bed: PipelineBed;
let temporal: TestTemporal;
let sim: RunningSimulator;
let dbUrl: string;
let db: Database;
const workers: WorkerProcess[] = [];

const workerEnv = () => ({
  SCRAPER_BASE_URL: sim.baseUrl,
  SCRAPER_API_TOKEN: TOKEN,
  SCRAPE_ETL_HEARTBEAT_TIMEOUT: '2s',
  SCRAPE_ETL_LOAD_BATCH_SIZE: '200',
  SCRAPE_ETL_STICKY_QUEUE_TIMEOUT: '1s',
});

async function spawnWorker(): Promise<WorkerProcess> {
  const w = await spawnWorkerProcess({ address: temporal.address, taskQueue, env: workerEnv() });
  workers.push(w);
  return w;
}

async function waitForPhase(handle: { query<T>(name: string): Promise<T> }, phase: PipelineProgress['phase']): Promise<void> {
  await waitFor(`phase ${phase}`, async () => {
    const p = await handle.query<PipelineProgress>('progress');
    if (p.phase === 'failed') throw new Error(`workflow failed early: ${p.error}`);
    return p.phase === phase ? true : undefined;
  });
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000, everyMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

function count(sql: string, ...params: unknown[]): number {
  if (db.dialect !== 'sqlite') throw new Error('sqlite only');
  return Number((db.sqlite.prepare(sql).get(...params) as { n: number }).n);
}

beforeAll(async () => {
  bed = await startPipelineBed({ name: 'crash', token: TOKEN, seed: 7, runDurationMs: 1500 });
  ({ dbUrl, db, temporal, sim } = bed);
});

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.kill('SIGKILL')));
});

afterAll(async () => {
  await bed?.close();
});

function runResults(runIds: string[]): ResultRecord[] {
  return runIds.flatMap((id) => sim.truth.runResults(Number(id)) as unknown as ResultRecord[]);
}

describe('crash safety', () => {
  it('worker SIGKILLed while the run is being polled: a new worker finishes it, one scraper created, tables exact', async () => {
    sim.setRunDurationMs(4000);
    const first = await spawnWorker();
    const spec = leadsSocialSpec('crash-poll', dbUrl, 120);
    const handle = await startPipelineRun({ client: temporal.client, taskQueue }, spec, 'r1');
    await waitForPhase(handle, 'waiting');
    await first.kill('SIGKILL');
    const started = Date.now();
    await spawnWorker();
    const result = await handle.result();
    console.log(`poll-phase kill: recovered and finished in ${Date.now() - started} ms`);
    expect(result.status).toBe('succeeded');
    expect(sim.truth.scrapers().filter((s) => s['name'] === scraperNameFor(spec, handle.workflowId))).toHaveLength(1);
    const records = runResults(result.scrapingRunIds);
    expect(records).toHaveLength(120);
    await expectTablesEqual(db, spec, flattenResultRecords(records, 'leads_results'), ['leads_results', 'result_content_fields', 'result_content_items']);
    sim.setRunDurationMs(1500);
  });

  it('worker SIGKILLed mid-load of a 4,000-result run: resumes at the next batch, no missing or duplicate rows', async () => {
    const first = await spawnWorker();
    const spec = leadsSocialSpec('crash-load', dbUrl, 4000);
    const handle = await startPipelineRun({ client: temporal.client, taskQueue }, spec, 'r1');
    const total = 4000;
    // Kill once some batches are committed but far from all.
    const atKill = await waitFor(
      'a partial load',
      () => {
        const n = count(`SELECT count(*) AS n FROM leads_results WHERE pipeline = ?`, spec.name);
        return n >= 600 && n < total ? n : undefined;
      },
      60_000,
      5,
    );
    await first.kill('SIGKILL');
    const afterKill = count(`SELECT count(*) AS n FROM leads_results WHERE pipeline = ?`, spec.name);
    expect(afterKill).toBeLessThan(total);
    await spawnWorker();
    const result = await handle.result();
    console.log(`load-phase kill at ${atKill}/${total} rows (${afterKill} committed)`);
    expect(result.status).toBe('succeeded');
    const records = runResults(result.scrapingRunIds);
    expect(records).toHaveLength(total);
    await expectTablesEqual(db, spec, flattenResultRecords(records, 'leads_results'), ['leads_results', 'result_content_fields', 'result_content_items']);
    // Resumed from the heartbeat rather than from scratch: far fewer than two full passes of 20 batches.
    const batches = count(
      `SELECT count(*) AS n FROM raw_responses WHERE workflow_id = ? AND request_key LIKE 'scraping-run:%'`,
      handle.workflowId,
    );
    console.log(`load-phase kill: ${batches} result batches landed for 20 needed`);
    expect(batches).toBeGreaterThanOrEqual(20);
    expect(batches).toBeLessThan(40);
  });

  it('dev server stopped and restarted on its SQLite file mid-run: the workflow completes exactly', async () => {
    sim.setRunDurationMs(3000);
    const worker = await startInProcessWorker({ address: temporal.address, taskQueue, env: workerEnv() });
    try {
      const spec = pdfSpec('crash-server', dbUrl, 3, 30);
      const handle = await startPipelineRun({ client: temporal.client, taskQueue }, spec, 'r1');
      await waitForPhase(handle, 'waiting');
      const t0 = Date.now();
      await temporal.restart({ downMs: 1000 });
      console.log(`dev server restarted in ${Date.now() - t0} ms`);
      const result = await handle.result();
      expect(result.status).toBe('succeeded');
      expect(sim.truth.scrapers().filter((s) => s['name'] === scraperNameFor(spec, handle.workflowId))).toHaveLength(1);
      const records = runResults(result.scrapingRunIds);
      expect(records).toHaveLength(30);
      await expectTablesEqual(db, spec, flattenResultRecords(records, 'pdf_results'), ['pdf_results', 'result_content_fields', 'result_content_items']);
    } finally {
      await worker.stop();
      sim.setRunDurationMs(1500);
    }
  });
});
