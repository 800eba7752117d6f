// The one alert delivery (alerts/deliver.ts) that run alerts, watch events, check alerts and up's did_not_run all
// go through, against a real HTTP receiver and a real SQLite destination: an accepted delivery is recorded in
// notify_deliveries and never sent again; a retryable answer is tried again NOTIFY_RETRY apart, as many times as
// the caller asks; a 4xx and a URL that cannot be expanded are reported at once; a delivery that cannot start
// before the deadline is reported, not sent; every attempt is counted in the metrics.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { alertWebhooks, deliverAlerts, webhookTarget, type Alert, type AlertWebhook } from '../../../alerts/deliver.js';
import { readNotifyConfig } from '../../../alerts/notify-config.js';
import { openDatabase } from '../../../destinations/open.js';
import type { Database } from '../../../destinations/contract.js';
import { listDeliveries } from '../../../db/store/notify-deliveries.js';
import { createMetrics, type Metrics } from '../../../temporal/metrics.js';
import { startLocalServer, type LocalServer } from '../../support/local-server.js';

let dir: string;
let db: Database;
let receiver: LocalServer;
let metrics: Metrics;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alerts-deliver-'));
  db = await openDatabase(`sqlite:${path.join(dir, 'etl.sqlite')}`);
  receiver = await startLocalServer();
});

afterAll(async () => {
  await receiver?.close();
  await db?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  receiver.seen.length = 0;
  metrics = createMetrics();
});

function alertTo(hook: AlertWebhook, workflowId: string, event = 'did_not_run'): Alert {
  return {
    hook,
    key: { workflowId, runId: 'r1', event, target: webhookTarget(hook.w, hook.origin) },
    event,
    idempotencyKey: `scrape-etl:${workflowId}:${event}`,
    where: `webhook #${hook.n} (${hook.origin}, ${hook.w.format}, event ${event})`,
    body: () => JSON.stringify({ event, workflow_id: workflowId }),
  };
}

async function counted(m: Metrics, name: string): Promise<string> {
  return (await m.registry.getSingleMetricAsString(name))
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .join('\n');
}

describe('the one alert delivery', () => {
  it("sends to the pipeline's webhooks, records the accepted delivery, and a second call sends nothing", async () => {
    receiver.respond = (_req, res) => res.writeHead(204).end();
    const cfg = readNotifyConfig({ SCRAPE_ETL_NOTIFY_URL: 'http://127.0.0.1:9/unused' });
    const hooks = alertWebhooks(
      { webhooks: [{ url: `${receiver.base}/a`, format: 'json', on: ['did_not_run'] }] },
      cfg,
    );
    expect(hooks.map((h) => [h.origin, h.n])).toEqual([['pipeline', 1]]);
    const alerts = hooks.map((h) => alertTo(h, 'shop--did-not-run-1'));
    const first = await deliverAlerts(alerts, { db, cfg, metrics });
    expect(first).toMatchObject({ sent: 1, alreadySent: 0, failures: [] });
    expect(receiver.seen.map((r) => [r.url, r.headers['idempotency-key'], JSON.parse(r.body)])).toEqual([
      [
        '/a',
        'scrape-etl:shop--did-not-run-1:did_not_run',
        { event: 'did_not_run', workflow_id: 'shop--did-not-run-1' },
      ],
    ]);
    expect((await listDeliveries(db, 'shop--did-not-run-1')).map((d) => [d.event, d.httpStatus])).toEqual([
      ['did_not_run', 204],
    ]);
    const again = await deliverAlerts(alerts, { db, cfg, metrics });
    expect(again).toMatchObject({ sent: 0, alreadySent: 1, failures: [] });
    expect(receiver.seen).toHaveLength(1);
    expect(await counted(metrics, 'scrape_etl_webhooks_total')).toContain('event="did_not_run"');
  });

  it("without webhooks of the pipeline, the worker's default one hears the alert", () => {
    const cfg = readNotifyConfig({
      SCRAPE_ETL_NOTIFY_URL: 'https://hooks.example/x',
      SCRAPE_ETL_NOTIFY_FORMAT: 'slack',
    });
    expect(alertWebhooks(undefined, cfg).map((h) => [h.origin, h.n, h.w.format, h.w.url])).toEqual([
      ['worker', 1, 'slack', 'https://hooks.example/x'],
    ]);
  });

  it('tries a retryable answer again as many times as asked, then reports it with the attempts', async () => {
    receiver.respond = (_req, res) => res.writeHead(503).end('busy');
    const cfg = readNotifyConfig({});
    const hook: AlertWebhook = {
      w: { url: `${receiver.base}/busy`, format: 'json', on: ['did_not_run'] },
      n: 2,
      origin: 'pipeline',
    };
    const got = await deliverAlerts([alertTo(hook, 'shop--did-not-run-2')], { db, cfg, metrics, attempts: 2 });
    expect(receiver.seen).toHaveLength(2);
    expect(got.sent).toBe(0);
    expect(got.attemptsMax).toBe(2);
    expect(got.failures.map((f) => [f.retryable, f.reason, f.text])).toEqual([
      [
        true,
        'http_5xx',
        expect.stringMatching(
          new RegExp(`^webhook #2 \\(pipeline, json, event did_not_run\\) to ${receiver.base.slice(7)}: .*503`),
        ),
      ],
    ]);
    expect(await listDeliveries(db, 'shop--did-not-run-2')).toEqual([]);
  });

  it('reports a 4xx and a URL that cannot be expanded at once, without another attempt', async () => {
    receiver.respond = (_req, res) => res.writeHead(404).end();
    const cfg = readNotifyConfig({});
    const gone: AlertWebhook = {
      w: { url: `${receiver.base}/gone`, format: 'json', on: ['failed'] },
      n: 1,
      origin: 'pipeline',
    };
    const unset: AlertWebhook = {
      w: { url: '${NOT_SET_ANYWHERE_HOOK}', format: 'json', on: ['failed'] },
      n: 2,
      origin: 'pipeline',
    };
    const got = await deliverAlerts([alertTo(gone, 'shop--3', 'failed'), alertTo(unset, 'shop--3', 'failed')], {
      db,
      cfg,
      metrics,
      attempts: 3,
    });
    expect(receiver.seen).toHaveLength(1);
    expect(got.failures.map((f) => [f.retryable, f.reason, f.host === undefined])).toEqual([
      [false, 'http_4xx', false],
      [false, 'config', true],
    ]);
    expect(got.failures[1]!.text).toMatch(/^webhook #2 \(pipeline, json, event failed\): .*NOT_SET_ANYWHERE_HOOK/);
  });

  it('a delivery that cannot start before the deadline is reported, not sent', async () => {
    receiver.respond = (_req, res) => res.writeHead(200).end();
    const cfg = readNotifyConfig({});
    const hook: AlertWebhook = {
      w: { url: `${receiver.base}/late`, format: 'json', on: ['failed'] },
      n: 1,
      origin: 'pipeline',
    };
    const got = await deliverAlerts([alertTo(hook, 'shop--4', 'failed')], {
      db,
      cfg,
      metrics,
      deadline: Date.now() + 100,
    });
    expect(receiver.seen).toHaveLength(0);
    expect(got.failures.map((f) => [f.retryable, f.reason, f.problem])).toEqual([
      [true, 'timeout', 'not attempted, the time for alerts ran out'],
    ]);
  });
});
