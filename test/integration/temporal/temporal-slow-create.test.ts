// Nothing paid twice, the slow create: the service processes a create-and-run after the client's 30 s timeout (here
// 45 s after it arrived). The answer is lost, the look-up by name right after the timeout finds nothing yet; the
// activity must keep looking (SCRAPE_ETL_CREATE_LOOKUP_SECONDS, default 120) and adopt the scraper when it appears,
// never send a second create. On a real Temporal dev server and worker, against the simulator's ground truth.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scraperNameFor } from '../../../activities/scraping-runs.js';
import { startPipelineRun } from '../../../temporal/start.js';
import { leadsSocialSpec } from '../../support/pipeline-specs.js';
import { startPipelineBed, type PipelineBed } from '../../support/pipeline-bed.js';
import { startInProcessWorker, type InProcessWorker } from '../../support/temporal.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const taskQueue = `slow-create-${crypto.randomBytes(4).toString('hex')}`;
const CREATE = '/api/scrapers/leads-generator/social/create-and-run';
let bed: PipelineBed;
let worker: InProcessWorker;

beforeAll(async () => {
  bed = await startPipelineBed({ name: 'slow-create', token: TOKEN, seed: 45, runDurationMs: 500 });
  worker = await startInProcessWorker({
    address: bed.temporal.address,
    taskQueue,
    env: { SCRAPER_BASE_URL: bed.sim.baseUrl, SCRAPER_API_TOKEN: TOKEN },
  });
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await bed?.close();
});

describe('a create the service processes after the client gave up', () => {
  it('a 45 s create behind a 30 s client timeout: one scraper, adopted, the run succeeds', async () => {
    bed.sim.queueFaults([{ kind: 'delay', ms: 45_000 }], { path: CREATE });
    const spec = leadsSocialSpec('slow-create', bed.dbUrl, 3);
    const handle = await startPipelineRun({ client: bed.temporal.client, taskQueue }, spec, 'k45');
    const result = await handle.result();
    expect(result.status).toBe('succeeded');
    const name = scraperNameFor(spec, handle.workflowId);
    expect(bed.sim.truth.scrapers().filter((s) => s.name === name)).toHaveLength(1);
    expect(bed.sim.stats().byEndpoint[`POST ${CREATE}`]).toBe(1);
  }, 300_000);
});
