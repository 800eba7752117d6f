// Alerts on a real Temporal dev server with a real worker and a local HTTP receiver: a succeeded, a partial and
// a failed run each deliver exactly one webhook per subscribed event, in the JSON and Slack formats, with the
// run's figures; the webhook URL stays a `${VAR}` template in history and the worker expands it; a retried
// notify activity finds its delivery recorded and does not send it again.
import crypto from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities, createActivityDeps } from '../../../activities/index.js';
import type { NotifyRunInput, NotifyRunOutput } from '../../../activities/types.js';
import { listDeliveries } from '../../../db/store/notify-deliveries.js';
import { getPipelineRun } from '../../../db/store/pipeline-runs.js';
import type { NotifySpec, PipelineSpec } from '../../../pipelines/spec.js';
import { startPipelineRun } from '../../../temporal/start.js';
import { startPipelineBed, type PipelineBed } from '../../support/pipeline-bed.js';
import { jobBoardSpec, leadsSearchSpec, marketplaceSpec, productUrl } from '../../support/pipeline-specs.js';
import { startLocalServer, type LocalServer, type SeenRequest } from '../../support/local-server.js';
import { decodedHistoryText, startInProcessWorker, type InProcessWorker } from '../../support/temporal.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const taskQueue = `alerts-${crypto.randomBytes(4).toString('hex')}`;
let bed: PipelineBed;
let receiver: LocalServer;
let worker: InProcessWorker;

const conn = () => ({ client: bed.temporal.client, taskQueue });
const hooks = (path: string) => receiver.seen.filter((r) => r.url === path);
const json = (r: SeenRequest | undefined) => JSON.parse(r?.body ?? 'null') as Record<string, unknown>;

function withNotify<S extends PipelineSpec>(spec: S, notify: NotifySpec): S {
  return { ...spec, notify };
}

beforeAll(async () => {
  bed = await startPipelineBed({ name: 'alerts', token: TOKEN, seed: 11, runDurationMs: 300 });
  receiver = await startLocalServer();
  receiver.respond = (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  };
  worker = await startInProcessWorker({
    address: bed.temporal.address,
    taskQueue,
    // HOOK_BASE exists only in the worker's environment: the pipeline carries `${HOOK_BASE}`.
    env: {
      SCRAPER_BASE_URL: bed.sim.baseUrl,
      SCRAPER_API_TOKEN: TOKEN,
      HOOK_BASE: receiver.base,
      SCRAPE_ETL_WEB_UI_URL: 'http://ui.example:8233',
    },
  });
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await bed?.close();
});

describe('alerts', () => {
  it("succeeded run: one JSON webhook for succeeded, one for duration_over, none for an unsubscribed event; figures are the run's", async () => {
    const urls = Array.from({ length: 3 }, (_, i) => `https://weworkremotely.com/remote-jobs/search?term=alert${i}`);
    const spec = withNotify(jobBoardSpec('alert-ok', bed.dbUrl, urls), {
      duration_over: '1ms',
      webhooks: [
        { url: '${HOOK_BASE}/ok', format: 'json', on: ['succeeded'] },
        { url: '${HOOK_BASE}/only-failures', format: 'json', on: ['failed', 'partial'] },
        { url: '${HOOK_BASE}/slow', format: 'json', on: ['duration_over'] },
      ],
    });
    const handle = await startPipelineRun(conn(), spec, 'r1');
    const result = await handle.result();
    expect(result.status).toBe('succeeded');

    expect(hooks('/ok')).toHaveLength(1);
    expect(hooks('/only-failures')).toHaveLength(0);
    expect(hooks('/slow')).toHaveLength(1);
    const ok = hooks('/ok')[0]!;
    const body = json(ok);
    const row = await getPipelineRun(bed.db, handle.workflowId);
    expect(row?.tokenUsage).toBeGreaterThan(0);
    expect(body).toMatchObject({
      source: 'scrape-etl',
      event: 'succeeded',
      pipeline: 'alert-ok',
      kind: 'job-board',
      workflow_id: handle.workflowId,
      status: 'succeeded',
      error: null,
      rows_by_table: result.rowsByTable,
      token_usage: row?.tokenUsage,
    });
    expect(body['rows_total']).toBe(Object.values(result.rowsByTable).reduce((a, b) => a + b, 0));
    expect(body['duration_ms']).toBeGreaterThan(0);
    expect(String(body['web_ui_url'])).toMatch(
      new RegExp(`^http://ui\\.example:8233/namespaces/default/workflows/${handle.workflowId}/[0-9a-f-]+/history$`),
    );
    const runId = String(body['run_id']);
    expect(ok.headers['idempotency-key']).toBe(`scrape-etl:${handle.workflowId}:${runId}:succeeded`);
    expect(hooks('/slow')[0]!.headers['idempotency-key']).toBe(
      `scrape-etl:${handle.workflowId}:${runId}:duration_over`,
    );
    // Never the token, in any request.
    for (const r of receiver.seen) expect(JSON.stringify(r)).not.toContain(TOKEN);
    // The history holds the template, never the expanded URL.
    // Payloads are encrypted (the secrets feature): read them decrypted, as the worker does.
    const history = await decodedHistoryText(await handle.fetchHistory());
    expect(history).toContain('${HOOK_BASE}/ok');
    expect(history).not.toContain(receiver.base);
    expect((await listDeliveries(bed.db, handle.workflowId)).map((d) => d.event).sort()).toEqual([
      'duration_over',
      'succeeded',
    ]);
  });

  it('partial run: exactly one Slack-format webhook', async () => {
    const good = [productUrl(4420309814), productUrl(777, 42)];
    const bad = 'https://shopee.tw/api/v2/item/get?shopid=10115139';
    const spec = withNotify(marketplaceSpec('alert-partial', bed.dbUrl, [good[0]!, bad, good[1]!]), {
      webhooks: [{ url: '${HOOK_BASE}/slack', format: 'slack', on: ['failed', 'partial'] }],
    });
    const handle = await startPipelineRun(conn(), spec, 'r1');
    expect((await handle.result()).status).toBe('partial');
    expect(hooks('/slack')).toHaveLength(1);
    const body = json(hooks('/slack')[0]);
    expect(String(body['text'])).toContain('alert-partial');
    expect(String(body['text'])).toContain('partial');
    const blocks = body['blocks'] as Array<{
      type: string;
      text?: { text: string };
      elements?: Array<{ text: string }>;
    }>;
    expect(blocks[0]?.text?.text).toContain('1 of 3 URLs failed');
    expect(blocks[0]?.text?.text).toContain('marketplace_products=');
    expect(blocks[1]?.elements?.[0]?.text).toContain(handle.workflowId);
  });

  it('failed run: exactly one webhook with the failure', async () => {
    bed.sim.setFaults({ runFailureRate: 1 });
    try {
      const spec = withNotify(leadsSearchSpec('alert-failed', bed.dbUrl, 1), {
        webhooks: [{ url: '${HOOK_BASE}/failed', format: 'json', on: ['failed'] }],
      });
      const handle = await startPipelineRun(conn(), spec, 'r1');
      await expect(handle.result()).rejects.toThrow();
      expect(hooks('/failed')).toHaveLength(1);
      const body = json(hooks('/failed')[0]);
      expect(body).toMatchObject({ event: 'failed', status: 'failed', pipeline: 'alert-failed' });
      expect(String(body['error'])).toContain("status 'failed'");
    } finally {
      bed.sim.setFaults({ runFailureRate: 0 });
    }
  });

  it('schema_changed: the run whose loads created or widened inferred tables sends one, naming them; a run that changed nothing sends none', async () => {
    const spec = withNotify(leadsSearchSpec('alert-schema', bed.dbUrl, 1), {
      webhooks: [
        { url: '${HOOK_BASE}/schema', format: 'json', on: ['schema_changed'] },
        { url: '${HOOK_BASE}/schema-ok', format: 'json', on: ['succeeded'] },
      ],
    });
    const first = await startPipelineRun(conn(), spec, 'r1');
    expect((await first.result()).status).toBe('succeeded');
    expect(hooks('/schema')).toHaveLength(1);
    const body = json(hooks('/schema')[0]);
    expect(body).toMatchObject({
      event: 'schema_changed',
      pipeline: 'alert-schema',
      workflow_id: first.workflowId,
      status: 'succeeded',
    });
    expect(body['detail']).toBe('new tables alert_schema_items, alert_schema_items__social_profiles');

    // Same leads again: the tables already have every column, so only the status webhook goes out.
    const second = await startPipelineRun(conn(), spec, 'r2');
    expect((await second.result()).status).toBe('succeeded');
    expect(hooks('/schema-ok')).toHaveLength(2);
    expect(hooks('/schema')).toHaveLength(1);
  });

  it('a retried notify activity finds its delivery recorded and sends nothing; a missing variable is named, not the URL', async () => {
    const deps = createActivityDeps({ env: { HOOK_BASE: receiver.base } });
    try {
      const { notifyPipelineRun, beginPipelineRun } = createActivities(deps);
      const workflowId = 'alert-retry--r1';
      await beginPipelineRun({ workflowId, pipeline: 'alert-retry', kind: 'pdf', database: bed.dbUrl });
      const input: NotifyRunInput = {
        workflowId,
        pipeline: 'alert-retry',
        kind: 'pdf',
        database: bed.dbUrl,
        runId: 'run-1',
        notify: { webhooks: [{ url: '${HOOK_BASE}/retry', format: 'json', on: ['failed'] }] },
        events: [{ event: 'failed' }],
        status: 'failed',
        error: 'boom',
        startedAt: new Date(0).toISOString(),
        finishedAt: new Date(1000).toISOString(),
        durationMs: 1000,
      };
      const first = await new MockActivityEnvironment({ attempt: 1 }).run(notifyPipelineRun, input);
      const second = await new MockActivityEnvironment({ attempt: 2 }).run(notifyPipelineRun, input);
      expect(first).toMatchObject({ sent: 1, alreadySent: 0 });
      expect(second).toMatchObject({ sent: 0, alreadySent: 1 });
      expect(hooks('/retry')).toHaveLength(1);

      const missing = {
        ...input,
        runId: 'run-2',
        notify: { webhooks: [{ url: '${NOT_SET_ANYWHERE}/x', format: 'json' as const, on: ['failed' as const] }] },
      };
      const err = await new MockActivityEnvironment().run(notifyPipelineRun, missing).catch((e: unknown) => e as Error);
      expect(String((err as Error).message)).toContain(
        'environment variable NOT_SET_ANYWHERE is not set on this worker',
      );
    } finally {
      await deps.close();
    }
  });

  it('a webhook variable this worker lacks fails the run at its first step (NotifyConfigError), before anything is loaded', async () => {
    const spec = withNotify(marketplaceSpec('alert-unset', bed.dbUrl, [productUrl(4420309814)]), {
      webhooks: [{ url: '${HOOK_NOT_ON_THIS_WORKER}/x', format: 'json', on: ['failed'] }],
    });
    const handle = await startPipelineRun(conn(), spec, 'r1');
    const err = await handle.result().catch((e: unknown) => e as Error);
    const cause = (err as { cause?: { type?: string; message?: string } }).cause;
    expect(cause?.type).toBe('NotifyConfigError');
    expect(cause?.message).toContain(
      'notify.webhooks[0].url: environment variable HOOK_NOT_ON_THIS_WORKER is not set on this worker',
    );
    // Nothing ran: no pipeline_runs row, no request to the service for it.
    expect(await getPipelineRun(bed.db, handle.workflowId)).toBeUndefined();
  });

  it('a bounded delivery: a 302 is attempted once and counted in scrape_etl_alert_delivery_failures_total, the outcome recorded', async () => {
    receiver.respond = (req, res) => {
      if (req.url === '/moved') {
        res.writeHead(302, { location: 'https://elsewhere.example/hook' });
        res.end();
        return;
      }
      res.writeHead(200);
      res.end('ok');
    };
    const deps = createActivityDeps({ env: { HOOK_BASE: receiver.base } });
    try {
      const { notifyPipelineRun, beginPipelineRun, finishPipelineRun } = createActivities(deps);
      const workflowId = 'alert-bounded--r1';
      const ref = { workflowId, pipeline: 'alert-bounded', kind: 'marketplace' as const, database: bed.dbUrl };
      await beginPipelineRun(ref);
      await new MockActivityEnvironment().run(finishPipelineRun, { ...ref, status: 'succeeded' as const, error: null });
      const input: NotifyRunInput = {
        ...ref,
        runId: 'run-1',
        notify: { webhooks: [{ url: '${HOOK_BASE}/moved', format: 'json', on: ['succeeded'] }] },
        events: [{ event: 'succeeded' }],
        status: 'succeeded',
        error: null,
        startedAt: new Date(0).toISOString(),
        finishedAt: new Date(1000).toISOString(),
        durationMs: 1000,
        deliverWithinMs: 20_000,
      };
      const out: NotifyRunOutput = await new MockActivityEnvironment({
        attempt: 1,
        scheduledTimestampMs: Date.now(),
      }).run(notifyPipelineRun, input);
      expect(out.undelivered).toHaveLength(1);
      expect(out.error).toContain('HTTP 302, redirect to https://elsewhere.example/hook');
      expect(hooks('/moved')).toHaveLength(1);
      const metric = await deps.metrics.registry.getSingleMetric('scrape_etl_alert_delivery_failures_total')!.get();
      expect(metric.values).toEqual([{ labels: { event: 'succeeded', reason: 'redirect' }, value: 1 }]);
      const row = await getPipelineRun(bed.db, workflowId);
      expect(row?.alertStatus).toBe('failed');
      expect(row?.alertError).toContain('HTTP 302');
    } finally {
      await deps.close();
    }
  });
});
