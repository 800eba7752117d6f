// Cancelling a run (the Temporal Web UI's cancel, `temporal workflow cancel`, a schedule's overlap policy
// cancel_other: all a cancel request) on a real dev server, worker, simulator and SQLite file. Before
// scrape-etl-cancel-1 the workflow's scope was cancelled, so its finishPipelineRun was never scheduled: the
// pipeline_runs row stayed 'running' for ever and the workflow ended FAILED with an empty message and an
// undelivered-alert note. Now the row is finished 'cancelled' (what was loaded stays) and the workflow ends CANCELLED.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandIO } from '../../../cli/io.js';
import { createLogger } from '../../../cli/logger.js';
import { CANCELLED_REASON, waitForRun } from '../../../cli/pipeline-runner.js';
import { getPipelineRun } from '../../../db/store/pipeline-runs.js';
import type { PipelineSpec } from '../../../pipelines/spec.js';
import { startPipelineRun } from '../../../temporal/start.js';
import { SEARCH_ATTRIBUTES } from '../../../temporal/visibility.js';
import type { PipelineProgress } from '../../../workflows/pipeline.js';
import { startPipelineBed, type PipelineBed } from '../../support/pipeline-bed.js';
import { marketplaceSpec, pdfSpec, productUrl } from '../../support/pipeline-specs.js';
import { startInProcessWorker, type InProcessWorker } from '../../support/temporal.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const taskQueue = `cancel-${crypto.randomBytes(4).toString('hex')}`;
const downQueue = `${taskQueue}-down`;
let bed: PipelineBed;
let worker: InProcessWorker;
/** A worker whose scraping service is a closed port: its url-list runs wait the outage out on a workflow timer. */
let downWorker: InProcessWorker;

beforeAll(async () => {
  // Scraping runs take 10 minutes: a pdf run is still waiting for its runs when it is cancelled.
  bed = await startPipelineBed({ name: 'cancel', token: TOKEN, seed: 17, runDurationMs: 600_000 });
  const closedPort = await new Promise<number>((resolve) => {
    const s = http.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
  [worker, downWorker] = await Promise.all([
    startInProcessWorker({
      address: bed.temporal.address,
      taskQueue,
      env: { SCRAPER_BASE_URL: bed.sim.baseUrl, SCRAPER_API_TOKEN: TOKEN },
    }),
    startInProcessWorker({
      address: bed.temporal.address,
      taskQueue: downQueue,
      env: { SCRAPER_BASE_URL: `http://127.0.0.1:${closedPort}`, SCRAPER_API_TOKEN: TOKEN },
    }),
  ]);
}, 180_000);

afterAll(async () => {
  await Promise.all([worker?.stop(), downWorker?.stop()]);
  await bed?.close();
});

type Handle = Awaited<ReturnType<typeof startPipelineRun>>;

async function progressUntil(
  handle: Handle,
  ok: (p: PipelineProgress) => boolean,
  what: string,
): Promise<PipelineProgress> {
  const by = Date.now() + 120_000;
  for (;;) {
    const p = await handle.query<PipelineProgress>('progress');
    if (ok(p)) return p;
    if (Date.now() > by) throw new Error(`${handle.workflowId} never reached ${what}; progress: ${JSON.stringify(p)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Cancels the run and checks how it ended: CANCELLED, its row 'cancelled' and finished, its status said as such. */
async function cancelAndCheck(handle: Handle, during: string): Promise<void> {
  await handle.cancel();
  const err = await handle.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  const described = await handle.describe();
  expect(described.status.name).toBe('CANCELLED');
  expect(described.memo).toMatchObject({ status: 'cancelled' });
  expect(described.typedSearchAttributes.get(SEARCH_ATTRIBUTES.status)).toBe('cancelled');
  const row = await getPipelineRun(bed.db, handle.workflowId);
  expect(row).toMatchObject({
    status: 'cancelled',
    error: expect.stringContaining(`the run was cancelled while ${during}`),
  });
  expect(row?.finishedAt).not.toBeNull();
  expect(await handle.query<PipelineProgress>('progress')).toMatchObject({
    phase: 'cancelled',
    error: `cancelled while ${during}`,
  });
}

describe('a cancelled run', () => {
  it('waiting for its scraping runs (pdf): its row is finished cancelled with what it created, and it ends CANCELLED', async () => {
    const spec = pdfSpec('cancel-pdf', bed.dbUrl, 1, 3);
    const handle = await startPipelineRun({ client: bed.temporal.client, taskQueue }, spec, 'r1');
    // A foreground `run` waits for it meanwhile, as cli/pipeline-runner.ts does.
    const log = createLogger({ env: {} });
    const io = { stdout: { write: () => true }, stderr: { write: () => true } } as unknown as CommandIO;
    const waited = waitForRun(
      { handle, workflowId: handle.workflowId, runKey: 'r1', attached: false },
      { mode: 'lines', log, io },
    );
    await progressUntil(handle, (p) => p.phase === 'waiting', "the 'waiting' phase");
    await cancelAndCheck(handle, 'waiting');
    // The waiting `run` says it was cancelled, by whom it can be and what stays, not the SDK's bare "Workflow canceled".
    expect(await waited).toEqual({ status: 'failed', workflowId: handle.workflowId, reason: CANCELLED_REASON });
    // What the run wrote before the cancel (its scraper) is counted in its row, not lost.
    expect((await getPipelineRun(bed.db, handle.workflowId))?.rowsByTable).toMatchObject({ scrapers: 1 });
  }, 240_000);

  it('waiting out a service outage (url-list, a workflow timer): its row is finished cancelled and it ends CANCELLED', async () => {
    const spec: PipelineSpec = {
      ...marketplaceSpec('cancel-outage', bed.dbUrl, [productUrl(8_100_001), productUrl(8_100_002)]),
      polling: { initial_interval: '10m', backoff_coefficient: 2, max_interval: '10m', deadline: '2h' },
    };
    const handle = await startPipelineRun({ client: bed.temporal.client, taskQueue: downQueue }, spec, 'r1');
    await progressUntil(handle, (p) => p.waiting !== undefined, 'a wait for the service');
    await cancelAndCheck(handle, 'loading');
  }, 240_000);
});
