// What a worker process logs while it waits for a scraping run: waiting is the normal case (the check activity
// throws "still running" and Temporal retries it), so a run polled twenty times leaves no WARN line in the
// worker's log at its default level. Before, every poll logged a ~30-line "Activity failed" warning with a stack.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipelineRun } from '../../../temporal/start.js';
import { startPipelineBed, type PipelineBed } from '../../support/pipeline-bed.js';
import { leadsSocialSpec } from '../../support/pipeline-specs.js';
import { spawnWorkerProcess, type WorkerProcess } from '../../support/temporal.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const taskQueue = `logs-${crypto.randomBytes(4).toString('hex')}`;
let bed: PipelineBed;
let worker: WorkerProcess | undefined;

beforeAll(async () => {
  bed = await startPipelineBed({ name: 'logs', token: TOKEN, seed: 51, runDurationMs: 20_000 });
});

afterAll(async () => {
  await worker?.kill('SIGKILL');
  await bed?.close();
});

describe('worker logs', () => {
  it('a run polled twenty times leaves no WARN line in the log of a worker at its default level (WARN)', async () => {
    worker = await spawnWorkerProcess({
      address: bed.temporal.address,
      taskQueue,
      env: { SCRAPER_BASE_URL: bed.sim.baseUrl, SCRAPER_API_TOKEN: TOKEN, SCRAPE_ETL_WORKER_LOG_LEVEL: 'WARN' },
    });
    const spec = {
      ...leadsSocialSpec('polled', bed.dbUrl, 5),
      polling: { initial_interval: '100ms', backoff_coefficient: 1, max_interval: '100ms', deadline: '2m' },
    };
    bed.sim.resetStats();
    const result = await (await startPipelineRun({ client: bed.temporal.client, taskQueue }, spec, 'r1')).result();
    expect(result.status).toBe('succeeded');
    const polls = bed.sim.stats().byEndpoint['GET /api/scraping-runs/:id'] ?? 0;
    expect(polls).toBeGreaterThanOrEqual(20);
    const warnings = worker
      .output()
      .split('\n')
      .filter((line) => /\bWARN\b/.test(line));
    expect(warnings, `${polls} polls; worker log:\n${worker.output()}`).toEqual([]);
  });
});
