// One answer policy for every webhook delivery (alerts/webhook-post.ts): watch events and check alerts report a
// 3xx with its Location as run alerts do (they used to fail on fetch's redirect 'error' with a bare TypeError, taken
// for a network error and retried); `check --notify` records its deliveries in notify_deliveries; `up` opens each
// scheduled destination once at start. Real HTTP receivers, real SQLite files read back with Python's sqlite3.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverWatchEvents } from '../../../activities/checks.js';
import { sendCheckAlert } from '../../../alerts/check-alert.js';
import { createMetrics } from '../../../temporal/metrics.js';
import { readNotifyConfig } from '../../../alerts/notify-config.js';
import { deliverWebhook } from '../../../alerts/webhook-post.js';
import { FreshnessWatch } from '../../../monitor/freshness-watch.js';
import { atStart } from '../../../monitor/schedule-watch.js';
import { openDatabase, type Database } from '../../../destinations/open.js';
import { finishPipelineRun, startPipelineRun } from '../../../db/store/pipeline-runs.js';
import { parsePipelineText } from '../../../pipelines/loader.js';
import { runCli } from '../../support/cli.js';

let dir: string;
let base: string;
let server: http.Server;
const hits: Array<{ path: string; event: string | undefined }> = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhook-answers-'));
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits.push({ path: req.url ?? '', event: req.headers['x-scrape-etl-event'] as string | undefined });
      if (req.url?.startsWith('/moved')) res.writeHead(301, { location: `${base}/final?token=secret-in-query` }).end();
      else if (req.url === '/busy') res.writeHead(503).end();
      else if (req.url === '/gone') res.writeHead(404).end();
      else res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  fs.rmSync(dir, { recursive: true, force: true });
});

function sqlite(file: string, sql: string): unknown[][] {
  const r = spawnSync(
    'python3',
    [
      '-c',
      'import json,sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(json.dumps(c.execute(sys.argv[2]).fetchall()))',
      file,
      sql,
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as unknown[][];
}

function pipelineYaml(name: string, db: string, hook: string, extra = ''): string {
  return (
    `name: ${name}\nkind: marketplace\nrequest:\n  urls:\n    - https://shopee.tw/api/v2/item/get?itemid=5500000001&shopid=10115139\n` +
    `destination:\n  database: sqlite:${db}\nchecks:\n  - type: freshness\n    max_age: 1h\n${extra}` +
    `notify:\n  webhooks:\n    - url: ${hook}\n      on: [check_failed, new_rows]\n`
  );
}

describe('one answer policy for run alerts, watch events and check alerts', () => {
  it('deliverWebhook: 2xx delivered; 3xx reported with its Location (no query), not followed; 503 retryable; 404 not', async () => {
    const post = (p: string) =>
      deliverWebhook({
        url: new URL(`${base}${p}`),
        event: 'failed',
        idempotencyKey: 'k',
        body: '{}',
        timeoutMs: 5000,
      });
    expect(await post('/ok')).toEqual({ ok: true, status: 200 });
    const moved = await post('/moved');
    expect(moved).toMatchObject({ ok: false, retryable: false, reason: 'redirect', status: '301' });
    expect(moved.ok ? '' : moved.text).toBe(
      `HTTP 301, redirect to ${base}/final (not followed: put the final URL in the pipeline file)`,
    );
    expect(await post('/busy')).toMatchObject({ ok: false, retryable: true, reason: 'http_5xx', text: 'HTTP 503' });
    expect(await post('/gone')).toMatchObject({ ok: false, retryable: false, reason: 'http_4xx', text: 'HTTP 404' });
    expect(hits.filter((h) => h.path.startsWith('/final'))).toEqual([]);
  });

  it('a watch event answered by a 3xx fails for good naming the Location (not retried as a network error)', async () => {
    const file = path.join(dir, 'watch.sqlite');
    const spec = parsePipelineText(
      pipelineYaml(
        'watch-moved',
        file,
        `${base}/moved-watch`,
        'watch:\n  - type: new_rows\n    table: marketplace_products\n',
      ),
      'watch.yaml',
    );
    const db = await openDatabase(`sqlite:${file}`);
    try {
      const deps = { notify: readNotifyConfig({}), metrics: createMetrics() };
      const events = [{ watch: spec.watch![0]!.name, event: 'new_rows' as const, rowCount: 1, rows: [{ item_id: 1 }] }];
      const err = await deliverWatchEvents(deps, db, { workflowId: 'watch-moved--1', runId: 'r1', spec }, events).then(
        () => undefined,
        (e: unknown) => e as { message: string; nonRetryable: boolean; type: string },
      );
      expect(err?.nonRetryable).toBe(true);
      expect(err?.type).toBe('NotifyConfigError');
      expect(err?.message).toContain(
        `to 127.0.0.1:${new URL(base).port}: HTTP 301, redirect to ${base}/final (not followed`,
      );
      expect(err?.message).not.toContain('secret-in-query');
      expect(hits.filter((h) => h.path.startsWith('/final'))).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('a check alert answered by a 3xx says the Location; an accepted one is recorded in notify_deliveries once', async () => {
    const file = path.join(dir, 'check.sqlite');
    const db = await openDatabase(`sqlite:${file}`);
    try {
      const out = {
        results: [],
        errorsFailed: 1,
        warnsFailed: 0,
        detail: 'error check freshness failed',
        workflowId: 'freshness:2026-11-26T00:00:00.000Z',
      };
      const moved = parsePipelineText(pipelineYaml('check-moved', file, `${base}/moved-check`), 'c.yaml');
      const m = await sendCheckAlert(moved, out, { env: {}, db });
      expect(m.problems).toEqual([
        `webhook 127.0.0.1:${new URL(base).port}: HTTP 301, redirect to ${base}/final (not followed: put the final URL in the pipeline file)`,
      ]);

      const accepted = parsePipelineText(pipelineYaml('check-ok', file, `${base}/ok-check`), 'c.yaml');
      expect(await sendCheckAlert(accepted, out, { env: {}, db })).toMatchObject({
        sent: 1,
        alreadySent: 0,
        problems: [],
      });
      // The same evaluation sent again (a retry): recorded, so not sent twice.
      expect(await sendCheckAlert(accepted, out, { env: {}, db })).toMatchObject({
        sent: 0,
        alreadySent: 1,
        problems: [],
      });
    } finally {
      await db.close();
    }
    expect(hits.filter((h) => h.path === '/ok-check')).toHaveLength(1);
    expect(sqlite(file, 'SELECT workflow_id, event, http_status FROM notify_deliveries')).toEqual([
      ['freshness:2026-11-26T00:00:00.000Z', 'check_failed', 200],
    ]);
  });
});

describe('`check --notify`', () => {
  it('records its check_failed deliveries in notify_deliveries, as run alerts are', async () => {
    const db = path.join(dir, 'cli-check.sqlite');
    const file = path.join(dir, 'cli-check.yaml');
    fs.writeFileSync(file, pipelineYaml('cli-check', db, `${base}/cli-check`));
    const res = await runCli(['check', '--freshness', '--notify', file], { cwd: dir, timeoutMs: 120_000 });
    expect(res.code, res.stderr).toBe(3);
    expect(hits.filter((h) => h.path === '/cli-check').map((h) => h.event)).toEqual(['check_failed']);
    const rows = sqlite(db, 'SELECT workflow_id, run_id, event, http_status FROM notify_deliveries');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toEqual([
      expect.stringMatching(/^freshness:/),
      expect.stringMatching(/^freshness:/),
      'check_failed',
      200,
    ]);
  }, 180_000);
});

describe("up's start", () => {
  it("opens each scheduled pipeline's destination once for the last-success gauge and the first freshness evaluation", async () => {
    const file = path.join(dir, 'start.sqlite');
    const url = `sqlite:${file}`;
    const seed = await openDatabase(url);
    for (const p of ['up-start', 'up-paused']) {
      await startPipelineRun(seed, {
        workflowId: `${p}--1`,
        pipeline: p,
        kind: 'marketplace',
        startedAt: new Date(Date.now() - 7_200_000),
      });
      await finishPipelineRun(seed, {
        workflowId: `${p}--1`,
        status: 'succeeded',
        finishedAt: new Date(Date.now() - 7_000_000),
      });
    }
    await seed.close();
    const spec = parsePipelineText(pipelineYaml('up-start', file, `${base}/up-start`), 'start.yaml');
    // A pipeline that never ran: its destination is neither opened nor created.
    const absent = parsePipelineText(
      pipelineYaml('up-absent', path.join(dir, 'absent.sqlite'), `${base}/up-absent`),
      'absent.yaml',
    );
    const metrics = createMetrics();
    const logs: string[] = [];
    const opened: string[] = [];
    const open = async (u: string): Promise<Database> => {
      opened.push(u);
      return openDatabase(u);
    };
    const freshness = new FreshnessWatch({ metrics, log: (m) => logs.push(m), everyMs: 300_000, env: {} });
    // A paused schedule's pipeline (the same destination): its gauge is seeded too, its freshness not evaluated.
    const paused = parsePipelineText(pipelineYaml('up-paused', file, `${base}/up-paused`), 'paused.yaml');
    await atStart(
      [
        { spec, paused: false },
        { spec: absent, paused: false },
        { spec: paused, paused: true },
      ],
      metrics,
      (m) => logs.push(m),
      freshness,
      open,
    );
    // Two pipelines, one destination: one opening.
    expect(opened).toEqual([url]);
    expect(fs.existsSync(path.join(dir, 'absent.sqlite'))).toBe(false);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/scrape_etl_pipeline_last_success_timestamp_seconds\{pipeline="up-start"\} \d+/);
    expect(text).toMatch(/scrape_etl_pipeline_last_success_timestamp_seconds\{pipeline="up-paused"\} \d+/);
    // The freshness evaluation ran on that one connection: recorded, said, alerted once.
    expect(
      sqlite(file, "SELECT status FROM check_results WHERE pipeline = 'up-start' AND workflow_id LIKE 'freshness:%'"),
    ).toEqual([['fail']]);
    expect(logs.join('\n')).toMatch(/pipeline up-start: freshness check \S+ fails/);
    expect(logs.join('\n')).toMatch(
      /pipeline up-absent: freshness check freshness fails: its destination .* does not exist yet/,
    );
    expect(hits.filter((h) => h.path === '/up-start').map((h) => h.event)).toEqual(['check_failed']);
    expect(hits.filter((h) => h.path === '/up-paused')).toEqual([]);
    expect(logs.join('\n')).not.toContain('up-paused');
    expect(sqlite(file, 'SELECT event FROM notify_deliveries')).toEqual([['check_failed']]);
  });
});
