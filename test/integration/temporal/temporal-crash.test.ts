// Crash safety on a real Temporal dev server: the worker PROCESS is SIGKILLed while a run is being polled and
// again while a big run's results are being loaded; the dev server is stopped and restarted on its SQLite file
// mid-run. Each time the workflow completes and the tables equal the simulator's ground truth exactly.
import { scraperNameFor } from '../../../activities/scraping-runs.js';
import { decodeTimeoutType } from '@temporalio/common';
import crypto from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ResultRecord } from '../../../client/index.js';
import type { Database } from '../../../destinations/contract.js';
import { flattenResultRecords } from '../../../db/model/flatten/index.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { startPipelineRun } from '../../../temporal/start.js';
import { expectContentEqual, expectTablesEqual } from '../../support/pipeline-truth.js';
import { leadsSocialSpec, pdfSpec } from '../../support/pipeline-specs.js';
import {
  spawnWorkerProcess,
  startInProcessWorker,
  type TestTemporal,
  type WorkerProcess,
} from '../../support/temporal.js';
import { startPipelineBed, type PipelineBed } from '../../support/pipeline-bed.js';

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
  SCRAPE_ETL_WAIT_HEARTBEAT_TIMEOUT: '2s',
  SCRAPE_ETL_LOAD_BATCH_SIZE: '200',
  SCRAPE_ETL_STICKY_QUEUE_TIMEOUT: '1s',
});

async function spawnWorker(env: Record<string, string> = {}): Promise<WorkerProcess> {
  const w = await spawnWorkerProcess({ address: temporal.address, taskQueue, env: { ...workerEnv(), ...env } });
  workers.push(w);
  return w;
}

/**
 * Holds every scraping run in "not finished yet" for as long as the test needs: each status check is answered
 * 503 (retryable, so the workflow keeps polling) until release(). The run's own duration no longer decides
 * whether a kill or a restart lands while the run is polled; on a loaded machine it sometimes did not.
 */
function holdRunStatusChecks(): { polled(): number; release(): void } {
  sim.resetStats();
  sim.queueFaults(
    Array.from({ length: 10_000 }, () => ({ status: 503 })),
    { path: '/api/scraping-runs', method: 'GET' },
  );
  return {
    polled: () => sim.stats().byEndpoint['GET /api/scraping-runs/:id'] ?? 0,
    release: () => sim.clearFaults(),
  };
}

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 60_000,
  everyMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

function exec(sql: string): void {
  if (db.dialect !== 'sqlite') throw new Error('sqlite only');
  db.sqlite.exec(sql);
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
    const hold = holdRunStatusChecks();
    try {
      const first = await spawnWorker();
      const spec = leadsSocialSpec('crash-poll', dbUrl, 120);
      const handle = await startPipelineRun({ client: temporal.client, taskQueue }, spec, 'r1');
      // Killed once the worker is polling the run (and before it could see it finished: the checks are held).
      await waitFor('the first run-status check', () => (hold.polled() >= 1 ? true : undefined));
      await first.kill('SIGKILL');
      const started = Date.now();
      await spawnWorker();
      hold.release();
      const result = await handle.result();
      console.log(`poll-phase kill: recovered and finished in ${Date.now() - started} ms`);
      expect(result.status).toBe('succeeded');
      expect(sim.truth.scrapers().filter((s) => s['name'] === scraperNameFor(spec, handle.workflowId))).toHaveLength(1);
      const records = runResults(result.scrapingRunIds);
      expect(records).toHaveLength(120);
      await expectTablesEqual(db, spec, flattenResultRecords(records, 'leads_results'), ['leads_results']);
      await expectContentEqual(db, spec, records);
    } finally {
      hold.release();
    }
  });

  it('worker SIGKILLed inside the create, its request on its way: retried within the heartbeat timeout, the scraper adopted, not created twice', async () => {
    // The service takes 8 s to answer this create; the worker dies while it waits. Before, the next attempt came
    // only after the activity's 2-minute start-to-close; a retry that came sooner and only looked once (the
    // scraper not there yet) would have sent a second create and paid for two scrapers.
    const CREATE = '/api/scrapers/leads-generator/social/create-and-run';
    sim.resetStats();
    sim.queueFaults([{ kind: 'delay', ms: 8_000 }], { path: CREATE });
    try {
      const first = await spawnWorker();
      const spec = leadsSocialSpec('crash-create', dbUrl, 3);
      const handle = await startPipelineRun({ client: temporal.client, taskQueue }, spec, 'r-create');
      await waitFor('the create to reach the service', () =>
        (sim.stats().byEndpoint[`POST ${CREATE}`] ?? 0) >= 1 ? true : undefined,
      );
      await first.kill('SIGKILL');
      await spawnWorker();
      const result = await handle.result();
      expect(result.status).toBe('succeeded');
      expect(sim.truth.scrapers().filter((s) => s['name'] === scraperNameFor(spec, handle.workflowId))).toHaveLength(1);
      expect(sim.stats().byEndpoint[`POST ${CREATE}`]).toBe(1);
      // The attempt after the kill was started because the dead one stopped beating, not by its start-to-close.
      const history = await temporal.client.workflow.getHandle(handle.workflowId).fetchHistory();
      const creates = (history.events ?? []).filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'createAndRun',
      );
      expect(creates).toHaveLength(1);
      const startedAgain = (history.events ?? []).find(
        (e) => (e.activityTaskStartedEventAttributes?.attempt ?? 0) >= 2,
      );
      expect(
        decodeTimeoutType(
          startedAgain?.activityTaskStartedEventAttributes?.lastFailure?.timeoutFailureInfo?.timeoutType,
        ),
      ).toBe('HEARTBEAT');
    } finally {
      sim.clearFaults();
    }
  });

  it('worker SIGKILLed mid-load of a 4,000-result run: resumes at the next batch, no missing or duplicate rows', async () => {
    const spec = leadsSocialSpec('crash-load', dbUrl, 4000);
    const total = 4000;
    const heldAt = 600;
    // A gate in the destination: once 3 batches (of 200) are committed, the next batch's transaction aborts and
    // is retried, so the load stays at exactly 600 rows until the gate is dropped. Watching the row count race
    // against the loader instead missed the window on a loaded machine (the load finished between two looks).
    // The gate's error must be one a retry can get past: RAISE(ABORT) is SQLITE_CONSTRAINT_TRIGGER, a constraint
    // violation, which db/store/permanent-errors.ts rightly fails at once (no retry, so never held). A bad JSON path is a
    // plain SQLITE_ERROR, retried like a lock or a lost connection, and its message carries the gate's text.
    exec(
      `CREATE TRIGGER crash_load_gate BEFORE INSERT ON leads_results
       WHEN (SELECT count(*) FROM leads_results WHERE pipeline = '${spec.name}') >= ${heldAt}
       BEGIN SELECT json_extract('{}', 'test gate: load held at ${heldAt} rows'); END`,
    );
    // The load's attempts heartbeat every batch; 2 s without one, on a machine at load 8, timed an attempt out
    // while it kept loading, and the retry loaded the same batches again beside it (41 batches for 20). The kill
    // below lands between two attempts, so a longer timeout does not delay the recovery.
    const tuning = { SCRAPE_ETL_HEARTBEAT_TIMEOUT: '10s', SCRAPE_ETL_WAIT_HEARTBEAT_TIMEOUT: '10s' };
    try {
      const first = await spawnWorker(tuning);
      const handle = await startPipelineRun({ client: temporal.client, taskQueue }, spec, 'r1');
      // Killed once an attempt has failed at the gate and the next waits for its retry: no attempt is in flight
      // then, so the new worker takes the retry at once instead of after a heartbeat timeout.
      await waitFor('the load to be held at the gate', async () => {
        const pending = (await handle.describe()).raw.pendingActivities ?? [];
        const held = pending.some(
          (a) =>
            a.activityType?.name === 'loadRunResults' &&
            a.state === 1 /* SCHEDULED: in retry backoff */ &&
            /test gate/.test(a.lastFailure?.message ?? ''),
        );
        return held ? true : undefined;
      });
      await first.kill('SIGKILL');
      expect(count(`SELECT count(*) AS n FROM leads_results WHERE pipeline = ?`, spec.name)).toBe(heldAt);
      exec('DROP TRIGGER crash_load_gate');
      await spawnWorker(tuning);
      const result = await handle.result();
      expect(result.status).toBe('succeeded');
      const records = runResults(result.scrapingRunIds);
      expect(records).toHaveLength(total);
      await expectTablesEqual(db, spec, flattenResultRecords(records, 'leads_results'), ['leads_results']);
      await expectContentEqual(db, spec, records);
      // Resumed from the heartbeat rather than from scratch: far fewer than two full passes of 20 batches.
      const batches = count(
        `SELECT count(*) AS n FROM raw_responses WHERE workflow_id = ? AND request_key LIKE 'scraping-run:%'`,
        handle.workflowId,
      );
      console.log(`load-phase kill at ${heldAt}/${total} rows: ${batches} result batches landed for 20 needed`);
      expect(batches).toBeGreaterThanOrEqual(20);
      expect(batches).toBeLessThan(40);
    } finally {
      exec('DROP TRIGGER IF EXISTS crash_load_gate');
    }
  });

  it('dev server stopped and restarted on its SQLite file mid-run: the workflow completes exactly', async () => {
    const hold = holdRunStatusChecks();
    const worker = await startInProcessWorker({ address: temporal.address, taskQueue, env: workerEnv() });
    try {
      const spec = pdfSpec('crash-server', dbUrl, 3, 30);
      const handle = await startPipelineRun({ client: temporal.client, taskQueue }, spec, 'r1');
      // Restarted while the workflow polls its runs, which it keeps doing until the checks are released.
      await waitFor('the first run-status check', () => (hold.polled() >= 1 ? true : undefined));
      const t0 = Date.now();
      await temporal.restart({ downMs: 1000 });
      console.log(`dev server restarted in ${Date.now() - t0} ms`);
      hold.release();
      const result = await handle.result();
      expect(result.status).toBe('succeeded');
      expect(sim.truth.scrapers().filter((s) => s['name'] === scraperNameFor(spec, handle.workflowId))).toHaveLength(1);
      const records = runResults(result.scrapingRunIds);
      expect(records).toHaveLength(30);
      await expectTablesEqual(db, spec, flattenResultRecords(records, 'pdf_results'), ['pdf_results']);
      await expectContentEqual(db, spec, records);
    } finally {
      hold.release();
      await worker.stop();
    }
  });
});
