// What a run costs on Temporal Cloud (issue 29): its history events and billable actions, counted from the real
// history of runs on a real dev server, worker, simulator and SQLite file (temporal/actions.ts counts them as
// Temporal Cloud's documentation does). Before LEAN_PATCH a one-URL marketplace run was 32 events and 7 actions
// (the alerts step alone 8 events, with nothing configured to hear it); the goal is at most 15 and 4.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPipelineRun } from '../../../db/store/pipeline-runs.js';
import { countActions, formatActions } from '../../../temporal/actions.js';
import { startPipelineRun } from '../../../temporal/start.js';
import { startPipelineBed, type PipelineBed } from '../../support/pipeline-bed.js';
import { marketplaceSpec, productUrl } from '../../support/pipeline-specs.js';
import { startInProcessWorker, type InProcessWorker } from '../../support/temporal.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const taskQueue = `actions-${crypto.randomBytes(4).toString('hex')}`;
let bed: PipelineBed;
let worker: InProcessWorker;
let receiver: http.Server;
const received: string[] = [];

beforeAll(async () => {
  bed = await startPipelineBed({ name: 'actions', token: TOKEN, seed: 29, runDurationMs: 200 });
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      received.push(body);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as AddressInfo).port;
  worker = await startInProcessWorker({
    address: bed.temporal.address,
    taskQueue,
    env: { SCRAPER_BASE_URL: bed.sim.baseUrl, SCRAPER_API_TOKEN: TOKEN, ACTIONS_HOOK: `http://127.0.0.1:${port}/hook` },
  });
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await bed?.close();
  await new Promise((r) => receiver?.close(r));
});

async function historyOf(spec: Parameters<typeof startPipelineRun>[1], runKey: string) {
  const handle = await startPipelineRun({ client: bed.temporal.client, taskQueue }, spec, runKey);
  const result = await handle.result();
  const history = await handle.fetchHistory();
  const events = history.events ?? [];
  const activities = events.flatMap((e) =>
    e.activityTaskScheduledEventAttributes?.activityType?.name
      ? [e.activityTaskScheduledEventAttributes.activityType.name]
      : [],
  );
  return { result, events, activities, count: countActions(events) };
}

describe('history events and billable actions of a run', () => {
  it('a one-URL marketplace run: at most 15 events and 4 actions, no alerts step when nothing would hear it', async () => {
    const spec = marketplaceSpec('actions-one', bed.dbUrl, [productUrl(29_000_001)]);
    const { result, events, activities, count } = await historyOf(spec, 'r1');
    console.log(`one-URL run: ${count.events} events, ${formatActions(count)}`);
    expect(result.status).toBe('succeeded');
    expect(result.rowsByTable['marketplace_products']).toBe(1);
    expect(count.events).toBeLessThanOrEqual(15);
    expect(count.actions).toBeLessThanOrEqual(4);
    expect(activities).not.toContain('notifyPipelineRun');
    expect(result.alerts).toBeUndefined();
    // The pipeline_runs row is still started and finished (by local activities now): its outcome is recorded.
    const row = await getPipelineRun(bed.db, result.workflowId);
    expect(row?.status).toBe('succeeded');
    expect(row?.finishedAt).toBeTruthy();
  }, 120_000);

  it('the alerts step runs when the pipeline has a webhook, and its alert is delivered', async () => {
    const spec = {
      ...marketplaceSpec('actions-hooked', bed.dbUrl, [productUrl(29_000_002)]),
      notify: { webhooks: [{ url: '${ACTIONS_HOOK}', format: 'json' as const, on: ['succeeded' as const] }] },
    };
    const { result, activities, count } = await historyOf(spec, 'r1');
    console.log(`one-URL run with a webhook: ${count.events} events, ${formatActions(count)}`);
    expect(result.status).toBe('succeeded');
    expect(activities).toContain('notifyPipelineRun');
    expect(result.alerts?.status).toBe('delivered');
    expect(received.some((b) => b.includes('actions-hooked'))).toBe(true);
  }, 120_000);

  it('a 1,000-URL run: at most 1.5 events a URL', async () => {
    const urls = Array.from({ length: 1000 }, (_, i) => productUrl(29_100_000 + i));
    const spec = { ...marketplaceSpec('actions-thousand', bed.dbUrl, urls), concurrency: 16 };
    const { result, count } = await historyOf(spec, 'r1');
    console.log(
      `1,000-URL run: ${count.events} events (${(count.events / 1000).toFixed(3)} a URL), ${formatActions(count)}`,
    );
    expect(result.status).toBe('succeeded');
    expect(result.rowsByTable['marketplace_products']).toBe(1000);
    expect(count.events / 1000).toBeLessThanOrEqual(1.5);
  }, 600_000);
});
