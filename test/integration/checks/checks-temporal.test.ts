// Checks and watches on real runs: a real Temporal dev server, the simulator with drift (prices, stock, vanished
// and nulled products change between epochs, deterministically per seed), real SQLite files and HTTP webhooks.
// Every expectation is computed from the simulator's truth (truth.productAt), not from what scrape-etl wrote.
// The SIGKILL case runs the compiled worker (bin/scrape-etl.js): `npm run build` first.
import crypto from 'node:crypto';
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateFreshness } from '../../../checks/run-checks.js';
import { listCheckResults } from '../../../checks/evaluate.js';
import { getPipelineRun } from '../../../db/store/pipeline-runs.js';
import { withTransaction } from '../../../db/store/sql.js';
import { parsePipelineText } from '../../../pipelines/loader.js';
import type { PipelineSpec } from '../../../pipelines/spec.js';
import { startPipelineRun } from '../../../temporal/start.js';
import { startPipelineBed, type PipelineBed } from '../../support/pipeline-bed.js';
import { FAST_POLLING, productUrl } from '../../support/pipeline-specs.js';
import {
  startInProcessWorker,
  spawnWorkerProcess,
  type InProcessWorker,
  type WorkerProcess,
} from '../../support/temporal.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const taskQueue = `checks-${crypto.randomBytes(4).toString('hex')}`;
const repo = path.resolve(import.meta.dirname, '..', '..', '..');
let bed: PipelineBed;
let worker: InProcessWorker;
const spawned: WorkerProcess[] = [];

interface Received {
  path: string;
  key: string;
  event: string;
  body: Record<string, unknown>;
  /** The body as sent, for an independent reader (Python's json). */
  raw: string;
  answered: boolean;
}
const received: Received[] = [];
let mode: 'ok' | 'hang' = 'ok';
const hanging: http.ServerResponse[] = [];
let hookServer: http.Server;
let hookBase: string;

function startReceiver(): Promise<void> {
  hookServer = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        path: req.url ?? '',
        key: String(req.headers['idempotency-key']),
        event: String(req.headers['x-scrape-etl-event']),
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
        raw: Buffer.concat(chunks).toString('utf8'),
        answered: mode === 'ok',
      };
      received.push(r);
      if (mode === 'hang') hanging.push(res);
      else res.writeHead(204).end();
    });
  });
  return new Promise((resolve) =>
    hookServer.listen(0, '127.0.0.1', () => {
      hookBase = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}`;
      resolve();
    }),
  );
}

beforeAll(async () => {
  bed = await startPipelineBed({ name: 'checks', token: TOKEN, seed: 11, runDurationMs: 300 });
  await startReceiver();
  worker = await startInProcessWorker({
    address: bed.temporal.address,
    taskQueue,
    env: { SCRAPER_BASE_URL: bed.sim.baseUrl, SCRAPER_API_TOKEN: TOKEN, HOOK_BASE: hookBase },
  });
}, 180_000);

afterAll(async () => {
  await Promise.all(spawned.map((w) => w.kill('SIGKILL')));
  await worker?.stop();
  for (const r of hanging) r.destroy();
  hookServer?.closeAllConnections();
  await new Promise<void>((r) => (hookServer ? hookServer.close(() => r()) : r()));
  await bed?.close();
});

/** A pipeline from YAML text, as `validate` and `run` read it, with fast polling and the bed's destination. */
function pipeline(yaml: string, database = bed.dbUrl): PipelineSpec {
  const spec = parsePipelineText(yaml, 'test.yaml', { env: { HOOK_BASE: hookBase } });
  return { ...spec, destination: { database }, polling: FAST_POLLING } as PipelineSpec;
}

const urlsYaml = (urls: string[]) => urls.map((u) => `    - ${u}`).join('\n');
const items = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => productUrl(4_420_309_000 + from + i, 10_115_139 + (i % 3)));

type Item = { price: number; models: Array<{ model_id: number; stock: number }> };
function itemAt(url: string, epoch: number): Item | null {
  const body = bed.sim.truth.productAt(url, epoch) as { data: { data: { item: Item } } } | null;
  return body ? body.data.data.item : null;
}
function soldAt(url: string, epoch: number): unknown {
  const body = bed.sim.truth.productAt(url, epoch) as {
    data: { data: { product_review: { historical_sold: unknown } } };
  };
  return body.data.data.product_review.historical_sold;
}
const idsOf = (url: string) => {
  const q = new URL(url).searchParams;
  return `${q.get('shopid')}:${q.get('itemid')}`;
};

async function run(spec: PipelineSpec, key: string) {
  const h = await startPipelineRun({ client: bed.temporal.client, taskQueue }, spec, key);
  return h.result();
}

function resetDrift(epoch = 0): void {
  bed.sim.setDrift({ priceDrift: false, epoch, vanishRate: 0, nullRate: 0, nullFields: [] });
}

describe('checks after every run', () => {
  it('a null-rate spike fails an error check: the run ends failed_checks with the observed rate, its data kept, check_failed sent', async () => {
    resetDrift();
    const urls = items(100, 12);
    const spec = pipeline(`
name: nulls
kind: marketplace
request:
  urls:
${urlsYaml(urls)}
checks:
  - type: null_rate
    table: marketplace_products
    column: historical_sold
    max: 5%
  - type: range
    table: marketplace_products
    expression: price_major > 0
notify:
  webhooks:
    - url: \${HOOK_BASE}/nulls
      on: [check_failed]
exports:
  - dir: ${path.join(bed.dir, 'nulls-gated')}
    tables: [marketplace_products]
    on_failed_checks: skip
  - dir: ${path.join(bed.dir, 'nulls-always')}
    tables: [marketplace_products]
`);
    const first = await run(spec, 'r1');
    expect(first.status).toBe('succeeded');
    expect(first.exportFiles?.map((f) => path.basename(path.dirname(f.file))).sort()).toEqual([
      'nulls-always',
      'nulls-gated',
    ]);
    expect(first.checks?.map((c) => [c.name, c.status])).toEqual([
      ['null_rate:marketplace_products.historical_sold', 'pass'],
      ['range:marketplace_products', 'pass'],
    ]);

    // The service stops sending how many were sold for about half the products.
    bed.sim.setDrift({ epoch: 1, nullRate: 0.5, nullFields: ['product_review.historical_sold'] });
    const nulled = urls.filter((u) => soldAt(u, 1) === null).length;
    expect(urls.filter((u) => soldAt(u, 0) === null)).toHaveLength(0);
    expect(nulled).toBeGreaterThan(1); // the seed gives a spike well above 5%
    const rate = Math.round((nulled / urls.length) * 100 * 100) / 100;
    const second = await run(spec, 'r2');
    expect(second.status).toBe('failed_checks');
    const nullCheck = second.checks?.find((c) => c.type === 'null_rate');
    expect(nullCheck?.status).toBe('fail');
    expect(nullCheck?.observed).toBe(`${rate}% (${nulled} of ${urls.length} rows)`);
    expect(second.checks?.find((c) => c.type === 'range')?.status).toBe('pass');
    // exports[0] says on_failed_checks: skip; exports[1] is written anyway.
    expect(second.exportFiles?.map((f) => path.basename(path.dirname(f.file)))).toEqual(['nulls-always']);

    const row = await getPipelineRun(bed.db, second.workflowId);
    expect(row?.status).toBe('failed_checks');
    expect(row?.error).toContain(`${rate}%`);
    const stored = await listCheckResults(bed.db, { workflowId: second.workflowId });
    const storedNull = stored.find((r) => r.type === 'null_rate');
    expect(storedNull?.observedValue).toBeCloseTo((nulled / urls.length) * 100, 6);
    expect(storedNull?.failingKeys).toHaveLength(Math.min(nulled, 20));
    // The data is kept: every product of the run is in the table, its sold count NULL where the service sent none.
    const [count] = await withTransaction(bed.db, (tx) =>
      tx.all(
        `SELECT count(*) AS n, sum(CASE WHEN historical_sold IS NULL THEN 1 ELSE 0 END) AS nulls FROM marketplace_products WHERE pipeline = 'nulls'`,
        [],
      ),
    );
    expect(Number(count?.['n'])).toBe(urls.length);
    expect(Number(count?.['nulls'])).toBe(nulled);
    // `history` (and `status`) carry them: the run's status, and which checks failed.
    const history = await promisify(execFile)(process.execPath, [
      path.join(repo, 'bin', 'scrape-etl.js'),
      'history',
      'nulls',
      '--database',
      bed.dbUrl,
      '--json',
    ]);
    const runs = history.stdout
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as { workflowId: string; tableStatus: string; checks?: { total: number; failed: string[] } },
      );
    expect(runs.find((r) => r.workflowId === second.workflowId)).toMatchObject({
      tableStatus: 'failed_checks',
      checks: { total: 2, failed: ['null_rate:marketplace_products.historical_sold'] },
    });
    expect(runs.find((r) => r.workflowId === first.workflowId)).toMatchObject({
      tableStatus: 'succeeded',
      checks: { total: 2, failed: [] },
    });
    const alerts = received.filter((r) => r.path === '/nulls');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]?.event).toBe('check_failed');
    expect(String(alerts[0]?.body['detail'])).toContain(`${rate}%`);
    // Besides the sentence, the failed checks as data with a sample of failing keys (issue 36), read by Python.
    const read = JSON.parse(
      execFileSync(
        'python3',
        [
          '-c',
          [
            'import json, sys',
            'd = json.load(sys.stdin)',
            "print(json.dumps([{k: c[k] for k in ('name', 'type', 'severity', 'status', 'observed', 'threshold')} | {'keys': len(c['failing_keys']), 'keyed': all(isinstance(k, dict) and len(k) > 0 for k in c['failing_keys'])} for c in d['failed_checks']]))",
          ].join('\n'),
        ],
        { input: alerts[0]!.raw },
      ).toString(),
    ) as unknown;
    expect(read).toEqual([
      {
        name: 'null_rate:marketplace_products.historical_sold',
        type: 'null_rate',
        severity: 'error',
        status: 'fail',
        observed: `${rate}% (${nulled} of ${urls.length} rows)`,
        threshold: storedNull?.threshold,
        keys: Math.min(nulled, 20),
        keyed: true,
      },
    ]);
  });

  it('a max_drop row_count check catches half the products vanishing', async () => {
    resetDrift();
    const urls = items(480, 10);
    const spec = pipeline(`
name: vanish
kind: marketplace
request:
  urls:
${urlsYaml(urls)}
checks:
  - type: row_count
    table: marketplace_products
    min: 1
    max_drop: 30%
`);
    const first = await run(spec, 'r1');
    expect(first.status).toBe('succeeded');
    expect(first.checks?.[0]?.observed).toBe('10 rows');

    bed.sim.setDrift({ epoch: 1, vanishRate: 0.5 });
    const gone = urls.filter((u) => itemAt(u, 1) === null).length;
    expect(gone / urls.length).toBeGreaterThanOrEqual(0.4);
    const second = await run(spec, 'r2');
    expect(second.failedUrlCount).toBe(gone);
    expect(second.status).toBe('failed_checks');
    const c = second.checks?.[0];
    expect(c?.status).toBe('fail');
    const drop = Math.round((gone / urls.length) * 100 * 100) / 100;
    expect(c?.message).toBe(`marketplace_products: dropped ${drop}% from 10 to ${urls.length - gone}, more than 30%`);

    // Products back: the next run passes again, compared with the last *successful* run (10), not the failed one.
    resetDrift(2);
    const third = await run(spec, 'r3');
    expect(third.status).toBe('succeeded');
    expect(third.checks?.[0]?.observed).toBe('10 rows (previous successful run 10, -0%)');
  });

  it('freshness fires when no run happened: evaluateFreshness and scrape-etl check --freshness', async () => {
    resetDrift();
    const yaml = (name: string) => `
name: ${name}
kind: marketplace
destination:
  database: ${bed.dbUrl}
request:
  urls:
${urlsYaml(items(500, 2))}
checks:
  - type: freshness
    max_age: 1h
  - type: freshness
    name: products-fresh
    table: marketplace_products
    max_age: 2h
notify:
  webhooks:
    - url: \${HOOK_BASE}/${name}
      on: [check_failed]
`;
    const never = pipeline(yaml('never-ran'));
    const none = await evaluateFreshness(bed.db, never);
    expect(none.errorsFailed).toBe(2);
    expect(none.results.map((r) => r.message)).toEqual([
      'the last successful run: none yet',
      'the newest row of marketplace_products: none yet',
    ]);

    const spec = pipeline(yaml('fresh'));
    expect((await run(spec, 'r1')).status).toBe('succeeded');
    const now = await evaluateFreshness(bed.db, spec);
    expect(now.results.map((r) => r.status)).toEqual(['pass', 'pass']);
    // No run for 90 minutes: the run-based check fires, the table's newest row (2h allowed) does not yet.
    const later = await evaluateFreshness(bed.db, spec, { now: new Date(Date.now() + 90 * 60_000) });
    expect(later.results.map((r) => r.status)).toEqual(['fail', 'pass']);
    expect(later.results[0]?.message).toMatch(/^the last successful run is 9\dm old, older than 1h$/);
    const stored = await listCheckResults(bed.db, { workflowId: later.workflowId });
    expect(stored.map((r) => r.status).sort()).toEqual(['fail', 'pass']);

    // The CLI, as a cron job or `up` would run it: exit code 3 on a failed error check, 0 when fresh.
    const file = path.join(bed.dir, 'never.yaml');
    fs.writeFileSync(file, yaml('never-ran'));
    const failed = await promisify(execFile)(
      process.execPath,
      [path.join(repo, 'bin', 'scrape-etl.js'), 'check', '--freshness', '--notify', file],
      {
        env: { ...process.env, HOOK_BASE: hookBase },
      },
    ).then(
      () => ({ code: 0, stdout: '' }),
      (err: { code: number; stdout: string }) => ({ code: err.code, stdout: err.stdout }),
    );
    expect(failed.code).toBe(3);
    expect(failed.stdout).toContain('FAIL    error never-ran freshness: the last successful run: none yet');
    // --notify: the pipeline's webhook got check_failed, once, naming what is stale.
    const alerts = received.filter((r) => r.path === '/never-ran');
    expect(alerts.map((a) => a.event)).toEqual(['check_failed']);
    expect(String(alerts[0]?.body['detail'])).toContain(
      'error check freshness failed: the last successful run: none yet',
    );
    const freshFile = path.join(bed.dir, 'fresh.yaml');
    fs.writeFileSync(freshFile, yaml('fresh'));
    const ok = await promisify(execFile)(process.execPath, [
      path.join(repo, 'bin', 'scrape-etl.js'),
      'check',
      '--freshness',
      freshFile,
    ]);
    expect(ok.stdout).toContain('fresh (');
    expect(ok.stdout).toContain('2 passed, 0 error failure(s)');
  });
});

describe('watches', () => {
  it('back_in_stock (models) and new_rows deliver exactly the rows the simulator changed, once per run', async () => {
    resetDrift();
    const urls = items(700, 26);
    const spec = (list: string[]) =>
      pipeline(`
name: stock
kind: marketplace
request:
  urls:
${urlsYaml(list)}
watch:
  - type: back_in_stock
    level: model
  - type: new_rows
    table: marketplace_products
notify:
  webhooks:
    - url: \${HOOK_BASE}/stock
      on: [back_in_stock, new_rows]
`);
    const first = await run(spec(urls.slice(0, 24)), 'r1');
    expect(first.watchEvents).toEqual([
      { watch: 'back_in_stock', event: 'back_in_stock', rows: 0 },
      { watch: 'new_rows:marketplace_products', event: 'new_rows', rows: 24 },
    ]);
    bed.sim.setDrift({ priceDrift: true, epoch: 1 });
    const expected: string[] = [];
    for (const u of urls.slice(0, 24)) {
      const before = itemAt(u, 0)!.models;
      const after = itemAt(u, 1)!.models;
      for (const [i, m] of after.entries())
        if (before[i]!.stock === 0 && m.stock > 0) expected.push(`${idsOf(u)}:${m.model_id}`);
    }
    expect(expected.length).toBeGreaterThan(0);
    const second = await run(spec(urls), 'r2');
    expect(second.watchEvents?.map((e) => e.rows)).toEqual([expected.length, 2]);
    const got = received.filter((r) => r.path === '/stock');
    const back = got.filter((r) => r.event === 'back_in_stock');
    expect(back).toHaveLength(1);
    const rows = back[0]!.body['rows'] as Array<{ shop_id: number; item_id: number; model_id: number; stock: number }>;
    expect(rows.map((r) => `${r.shop_id}:${r.item_id}:${r.model_id}`).sort()).toEqual(expected.sort());
    const fresh = got.filter((r) => r.event === 'new_rows');
    expect(fresh).toHaveLength(2);
    const added = fresh.find((r) => r.key.includes('--r2:'))!.body['rows'] as Array<{
      shop_id: number;
      item_id: number;
    }>;
    expect(added.map((r) => `${r.shop_id}:${r.item_id}`).sort()).toEqual(urls.slice(24).map(idsOf).sort());
  });

  it('new_rows of an inferred table (new leads): each run delivers exactly its new rows, by row key', async () => {
    const spec = pipeline(`
name: leads
kind: leads-social
request: {keywords: heat pumps, sentiment_type: all, expected_data: 4}
checks:
  - type: row_count
    table: leads_items
    min: 4
watch:
  - type: new_rows
    table: leads_items
notify:
  webhooks:
    - url: \${HOOK_BASE}/leads
      on: [new_rows]
`);
    const first = await run(spec, 'r1');
    expect(first.checks?.[0]).toMatchObject({ status: 'pass', observed: '4 rows' });
    const second = await run(spec, 'r2');
    expect([first.watchEvents?.[0]?.rows, second.watchEvents?.[0]?.rows]).toEqual([4, 4]);
    const got = received.filter((r) => r.path === '/leads');
    expect(got).toHaveLength(2);
    const keys = got.map((r) => (r.body['rows'] as Array<{ row_key: string }>).map((x) => x.row_key));
    // Each run's rows are its own results (the service gives every run new result ids): no row twice.
    const all = await withTransaction(bed.db, (tx) =>
      tx.all(`SELECT row_key FROM leads_items WHERE pipeline = 'leads' ORDER BY row_key`, []),
    );
    expect([...keys[0]!, ...keys[1]!].sort()).toEqual(all.map((r) => String(r['row_key'])).sort());
    expect(new Set([...keys[0]!, ...keys[1]!]).size).toBe(8);
  });

  it('price_drop: exactly the products whose price fell by 10% or more, once, across a worker SIGKILLed during delivery', async () => {
    resetDrift();
    const queue = `${taskQueue}-kill`;
    const urls = items(900, 16);
    const spec = pipeline(`
name: prices
kind: marketplace
request:
  urls:
${urlsYaml(urls)}
watch:
  - type: price_drop
    by: 10%
notify:
  webhooks:
    - url: \${HOOK_BASE}/prices
      format: json
      on: [price_drop]
    - url: \${HOOK_BASE}/prices-slack
      format: slack
      on: [price_drop]
`);
    const env = {
      SCRAPER_BASE_URL: bed.sim.baseUrl,
      SCRAPER_API_TOKEN: TOKEN,
      HOOK_BASE: hookBase,
      SCRAPE_ETL_STICKY_QUEUE_TIMEOUT: '1s',
    };
    const w1 = await spawnWorkerProcess({ address: bed.temporal.address, taskQueue: queue, env });
    spawned.push(w1);
    const r1 = await (await startPipelineRun({ client: bed.temporal.client, taskQueue: queue }, spec, 'r1')).result();
    expect(r1.watchEvents).toEqual([{ watch: 'price_drop', event: 'price_drop', rows: 0 }]);

    bed.sim.setDrift({ priceDrift: true, epoch: 1 });
    const expected = urls.filter((u) => {
      const p0 = itemAt(u, 0)!.price;
      const p1 = itemAt(u, 1)!.price;
      return ((p0 - p1) / p0) * 100 >= 10;
    });
    const fellLess = urls.filter((u) => itemAt(u, 1)!.price < itemAt(u, 0)!.price && !expected.includes(u));
    expect(expected.length).toBeGreaterThan(1);

    // The receiver takes the first delivery and never answers; the worker is killed while it waits.
    mode = 'hang';
    const handle = await startPipelineRun({ client: bed.temporal.client, taskQueue: queue }, spec, 'r2');
    const deadline = Date.now() + 120_000;
    while (!received.some((r) => r.path.startsWith('/prices') && r.key.includes('--r2:'))) {
      if (Date.now() > deadline) throw new Error(`no delivery within 120 s:\n${w1.output()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await w1.kill('SIGKILL');
    mode = 'ok';
    spawned.push(await spawnWorkerProcess({ address: bed.temporal.address, taskQueue: queue, env }));
    const r2 = await handle.result();
    expect(r2.watchEvents).toEqual([{ watch: 'price_drop', event: 'price_drop', rows: expected.length }]);

    const deliveries = received.filter((r) => r.path.startsWith('/prices') && r.key.includes('--r2:'));
    for (const p of ['/prices', '/prices-slack']) {
      // Accepted (answered 2xx) exactly once per webhook; the one the killed worker was waiting on was never answered.
      expect(deliveries.filter((r) => r.path === p && r.answered)).toHaveLength(1);
    }
    expect(new Set(deliveries.map((r) => r.key)).size).toBe(1);
    const json = deliveries.find((r) => r.path === '/prices' && r.answered)!.body;
    const rows = json['rows'] as Array<{
      shop_id: number;
      item_id: number;
      price_major: number;
      previous_price_major: number;
      link: string;
    }>;
    expect(rows.map((r) => `${r.shop_id}:${r.item_id}`).sort()).toEqual(expected.map(idsOf).sort());
    for (const r of rows) {
      const u = urls.find((x) => idsOf(x) === `${r.shop_id}:${r.item_id}`)!;
      expect(r.price_major).toBe(itemAt(u, 1)!.price / 100000);
      expect(r.previous_price_major).toBe(itemAt(u, 0)!.price / 100000);
      expect(r.link).toBe(`https://shopee.tw/product/${r.shop_id}/${r.item_id}`);
    }
    for (const u of fellLess) expect(rows.some((r) => `${r.shop_id}:${r.item_id}` === idsOf(u))).toBe(false);
    const slack = deliveries.find((r) => r.path === '/prices-slack' && r.answered)!.body as {
      blocks: Array<{ text?: { text: string } }>;
    };
    const text = slack.blocks[0]!.text!.text;
    expect(text).toContain(`price drops (${expected.length}, watch price_drop)`);
    expect(text).toContain('<https://shopee.tw/product/');

    // The price history says what changed in the run, in one table.
    const hist = await withTransaction(bed.db, (tx) =>
      tx.all(
        `SELECT count(*) AS n FROM marketplace_price_history WHERE pipeline = 'prices' AND workflow_id = 'prices--r2' AND model_id IS NULL AND previous_price_major IS NOT NULL`,
        [],
      ),
    );
    expect(Number(hist[0]?.['n'])).toBe(urls.filter((u) => itemAt(u, 1)!.price !== itemAt(u, 0)!.price).length);
  });
});
