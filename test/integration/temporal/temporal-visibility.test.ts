// What runs show in Temporal's visibility, on a real dev server (started by the product, which registers the
// search attributes), worker, simulator and SQLite file: every run carries a memo (pipeline, kind, destination with
// its password redacted, file) and the ScrapeEtl* search attributes, so a list query finds a pipeline's runs; a run
// started by a Schedule records the time it was scheduled for in pipeline_runs.
import crypto from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@temporalio/client';
import { applySchedule } from '../../../cli/schedules.js';
import { getPipelineRun } from '../../../db/store/pipeline-runs.js';
import { startPipelineRun } from '../../../temporal/start.js';
import { SEARCH_ATTRIBUTES } from '../../../temporal/visibility.js';
import { startPipelineBed, type PipelineBed } from '../../support/pipeline-bed.js';
import { marketplaceSpec, productUrl } from '../../support/pipeline-specs.js';
import { startInProcessWorker, type InProcessWorker } from '../../support/temporal.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const taskQueue = `visibility-${crypto.randomBytes(4).toString('hex')}`;
let bed: PipelineBed;
let worker: InProcessWorker;

beforeAll(async () => {
  bed = await startPipelineBed({ name: 'visibility', token: TOKEN, seed: 61, runDurationMs: 500 });
  worker = await startInProcessWorker({
    address: bed.temporal.address,
    taskQueue,
    env: { SCRAPER_BASE_URL: bed.sim.baseUrl, SCRAPER_API_TOKEN: TOKEN },
  });
});

afterAll(async () => {
  await worker?.stop();
  await bed?.close();
});

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
    const v = await probe();
    if (v !== undefined) return v;
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('visibility', () => {
  it('a run carries a memo and search attributes, and a list query by pipeline finds it', async () => {
    const spec = marketplaceSpec('visible', bed.dbUrl, [productUrl(7001, 70)]);
    const handle = await startPipelineRun(
      { client: bed.temporal.client, taskQueue, file: 'pipelines/visible.yaml' },
      spec,
      'r1',
    );
    await handle.result();
    const described = await handle.describe();
    // The memo as started, plus the run's outcome set when it ended (workflows/visibility.ts).
    expect(await described.memo).toEqual({
      pipeline: 'visible',
      kind: 'marketplace',
      destination: bed.dbUrl,
      file: 'pipelines/visible.yaml',
      status: 'succeeded',
    });
    // The Web UI has no key to the encrypted payloads (temporal/payload-codec.ts): a client without the codec reads
    // the same memo.
    const plain = new Client({ connection: bed.temporal.client.connection });
    expect((await plain.workflow.getHandle(handle.workflowId).describe()).memo).toEqual({
      pipeline: 'visible',
      kind: 'marketplace',
      destination: bed.dbUrl,
      file: 'pipelines/visible.yaml',
      status: 'succeeded',
    });
    expect(described.typedSearchAttributes.get(SEARCH_ATTRIBUTES.status)).toBe('succeeded');
    expect(described.typedSearchAttributes.get(SEARCH_ATTRIBUTES.pipeline)).toBe('visible');
    expect(described.typedSearchAttributes.get(SEARCH_ATTRIBUTES.kind)).toBe('marketplace');
    // Visibility is eventually consistent: the list finds the run a moment after it closed.
    const ids = await waitFor('the run in a list query', async () => {
      const found: string[] = [];
      for await (const w of bed.temporal.client.workflow.list({
        query: `ScrapeEtlPipeline = 'visible' AND ScrapeEtlKind = 'marketplace'`,
      }))
        found.push(w.workflowId);
      return found.length > 0 ? found : undefined;
    });
    expect(ids).toEqual([handle.workflowId]);
  });

  it('a run started by a Schedule records the time it was scheduled for', async () => {
    const spec = {
      ...marketplaceSpec('scheduled-run', bed.dbUrl, [productUrl(7002, 70)]),
      schedule: { cron: '0 3 1 1 *', timezone: 'UTC', overlap: 'skip' as const, catchup_window: '1m', paused: false },
    };
    expect(await applySchedule(bed.temporal.client, spec, 'pipelines/scheduled-run.yaml', taskQueue, false)).toBe(
      'created',
    );
    const schedule = bed.temporal.client.schedule.getHandle('scheduled-run');
    const triggered = Date.now();
    await schedule.trigger();
    const workflowId = await waitFor(
      'the triggered run',
      async () => (await schedule.describe()).info.recentActions[0]?.action.workflow.workflowId,
    );
    const result = await bed.temporal.client.workflow.getHandle(workflowId).result();
    expect(result.status).toBe('succeeded');
    const row = await getPipelineRun(bed.db, workflowId);
    expect(row?.scheduledAt).not.toBeNull();
    expect(Math.abs(Date.parse(row!.scheduledAt!) - triggered)).toBeLessThan(60_000);
    const described = await bed.temporal.client.workflow.getHandle(workflowId).describe();
    // applySchedule records the file absolute (a schedule's source is compared across working directories).
    expect(await described.memo).toMatchObject({
      pipeline: 'scheduled-run',
      kind: 'marketplace',
      file: path.resolve('pipelines/scheduled-run.yaml'),
    });
    await schedule.delete();
  });
});
