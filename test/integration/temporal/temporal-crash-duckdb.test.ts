// Crash safety into a DuckDB file on a real Temporal dev server: the worker PROCESS is SIGKILLed while it loads a
// big run's results (it holds the file and its lock file at that moment, or between two loads). A new worker takes
// over the lock the dead one left, the workflow completes, and the tables equal the simulator's ground truth: no
// missing rows, no duplicate, nothing of the batch that was being written when the process died.
// (test/integration/temporal/temporal-crash.test.ts does the same on SQLite, with a trigger to hold the load at an exact row count;
// DuckDB has no triggers, so here the kill lands wherever the load is once its first batches are in.)
import crypto from 'node:crypto';
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ResultRecord } from '../../../client/index.js';
import type { Database } from '../../../destinations/contract.js';
import { lockPathOf } from '../../../destinations/duckdb/file-lock.js';
import { flattenResultRecords } from '../../../db/model/flatten/index.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { startPipelineRun } from '../../../temporal/start.js';
import { duckSelect } from '../../support/duckdb.js';
import { expectContentEqual, expectTablesEqual } from '../../support/pipeline-truth.js';
import { leadsSocialSpec } from '../../support/pipeline-specs.js';
import { startPipelineBed, type PipelineBed } from '../../support/pipeline-bed.js';
import { spawnWorkerProcess, type TestTemporal, type WorkerProcess } from '../../support/temporal.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const taskQueue = `crash-duck-${crypto.randomBytes(4).toString('hex')}`;
let bed: PipelineBed;
let temporal: TestTemporal;
let sim: RunningSimulator;
let dbUrl: string;
let db: Database;
const workers: WorkerProcess[] = [];

async function spawnWorker(): Promise<WorkerProcess> {
  const w = await spawnWorkerProcess({
    address: temporal.address,
    taskQueue,
    env: {
      SCRAPER_BASE_URL: sim.baseUrl,
      SCRAPER_API_TOKEN: TOKEN,
      SCRAPE_ETL_HEARTBEAT_TIMEOUT: '10s',
      SCRAPE_ETL_WAIT_HEARTBEAT_TIMEOUT: '10s',
      SCRAPE_ETL_LOAD_BATCH_SIZE: '100',
      SCRAPE_ETL_STICKY_QUEUE_TIMEOUT: '1s',
    },
  });
  workers.push(w);
  return w;
}

beforeAll(async () => {
  bed = await startPipelineBed({
    name: 'crash-duckdb',
    token: TOKEN,
    seed: 7,
    runDurationMs: 500,
    destination: 'duckdb',
  });
  ({ dbUrl, db, temporal, sim } = bed);
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.kill('SIGKILL')));
});
afterAll(async () => {
  await bed?.close();
});

describe('crash safety into DuckDB', () => {
  it('worker SIGKILLed mid-load of a 2,000-result run: a new worker takes over the file, no missing or duplicate rows', async () => {
    const spec = leadsSocialSpec('crash-duck', dbUrl, 2000);
    const first = await spawnWorker();
    const handle = await startPipelineRun({ client: temporal.client, taskQueue }, spec, 'r1');
    // Killed once some result batches are committed (each a transaction of its own), while the rest still load.
    const deadline = Date.now() + 120_000;
    let landed = 0;
    while (landed < 3) {
      if (Date.now() > deadline) throw new Error('timed out waiting for the first result batches');
      await new Promise((r) => setTimeout(r, 50));
      const [row] = await duckSelect(
        db,
        `SELECT count(*) AS n FROM raw_responses WHERE workflow_id = $1 AND request_key LIKE 'scraping-run:%'`,
        [handle.workflowId],
      );
      landed = Number(row?.['n'] ?? 0);
    }
    await first.kill('SIGKILL');
    const lockLeft = fs.existsSync(lockPathOf(dbUrl.slice('duckdb:'.length)));
    await spawnWorker();
    const result = await handle.result();
    expect(result.status).toBe('succeeded');
    const records = result.scrapingRunIds.flatMap(
      (id) => sim.truth.runResults(Number(id)) as unknown as ResultRecord[],
    );
    expect(records).toHaveLength(2000);
    await expectTablesEqual(db, spec, flattenResultRecords(records, 'leads_results'), ['leads_results']);
    await expectContentEqual(db, spec, records);
    const [dupes] = await duckSelect(
      db,
      `SELECT count(*) - count(DISTINCT id) AS n FROM leads_results WHERE pipeline = $1`,
      [spec.name],
    );
    expect(Number(dupes?.['n'])).toBe(0);
    console.log(
      `killed after ${landed} result batches; the dead worker ${lockLeft ? 'left its lock file (taken over)' : 'held no lock at that moment'}`,
    );
  }, 240_000);
});
