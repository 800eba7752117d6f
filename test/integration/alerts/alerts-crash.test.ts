// An alert survives a worker SIGKILLed between the run's end and the delivery: the receiver is down while the
// run finishes (its pipeline_runs row is final, the notify activity fails to connect and waits for its retry),
// the worker process is SIGKILLed, the receiver comes up on the same port and a new worker process takes the
// retry. The receiver then gets exactly one request per event, for succeeded, partial and failed runs alike.
// Runs the compiled worker (bin/scrape-etl.js): `npm run build` first.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPipelineRun } from '../../../db/store/pipeline-runs.js';
import type { NotifySpec, PipelineSpec } from '../../../pipelines/spec.js';
import { startPipelineRun } from '../../../temporal/start.js';
import { startPipelineBed, type PipelineBed } from '../../support/pipeline-bed.js';
import { jobBoardSpec, leadsSearchSpec, marketplaceSpec, productUrl } from '../../support/pipeline-specs.js';
import { spawnWorkerProcess, type WorkerProcess } from '../../support/temporal.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const taskQueue = `alerts-crash-${crypto.randomBytes(4).toString('hex')}`;
let bed: PipelineBed;
let port: number;
const received: Array<{ url: string; key: string; event: string }> = [];
const workers: WorkerProcess[] = [];

/** A port that was free a moment ago, with nothing listening on it: connections to it are refused. */
async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const p = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return p;
}

async function startReceiver(): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push({
        url: req.url ?? '',
        key: String(req.headers['idempotency-key']),
        event: String(req.headers['x-scrape-etl-event']),
      });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return server;
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const spawnWorker = async () => {
  const w = await spawnWorkerProcess({
    address: bed.temporal.address,
    taskQueue,
    env: {
      SCRAPER_BASE_URL: bed.sim.baseUrl,
      SCRAPER_API_TOKEN: TOKEN,
      HOOK_BASE: `http://127.0.0.1:${port}`,
      SCRAPE_ETL_STICKY_QUEUE_TIMEOUT: '1s',
    },
  });
  workers.push(w);
  return w;
};

beforeAll(async () => {
  bed = await startPipelineBed({ name: 'alerts-crash', token: TOKEN, seed: 5, runDurationMs: 300 });
  port = await freePort();
}, 120_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.kill('SIGKILL')));
  await bed?.close();
});

const notify = (path: string): NotifySpec => ({
  webhooks: [{ url: `\${HOOK_BASE}${path}`, format: 'json', on: ['failed', 'partial', 'succeeded'] }],
});

describe('alerts across a worker SIGKILL', () => {
  it('succeeded, partial and failed runs: the worker dies after the runs end and before delivery; each event arrives exactly once', async () => {
    const specs: Array<{ spec: PipelineSpec; status: string }> = [
      {
        spec: {
          ...jobBoardSpec('kill-ok', bed.dbUrl, ['https://weworkremotely.com/remote-jobs/search?term=k1']),
          notify: notify('/ok'),
        },
        status: 'succeeded',
      },
      {
        spec: {
          ...marketplaceSpec('kill-partial', bed.dbUrl, [
            productUrl(4420309814),
            'https://shopee.tw/api/v2/item/get?shopid=1',
          ]),
          notify: notify('/partial'),
        },
        status: 'partial',
      },
    ];
    const first = await spawnWorker();
    const handles = [];
    for (const { spec } of specs)
      handles.push(await startPipelineRun({ client: bed.temporal.client, taskQueue }, spec, 'r1'));
    // The failed run: its scraping run ends 'failed' at the service.
    bed.sim.setFaults({ runFailureRate: 1 });
    const failedSpec: PipelineSpec = { ...leadsSearchSpec('kill-failed', bed.dbUrl, 1), notify: notify('/failed') };
    const failedHandle = await startPipelineRun({ client: bed.temporal.client, taskQueue }, failedSpec, 'r1');
    const all = [...handles, failedHandle];
    // Every run has ended (its pipeline_runs row is final) and nothing could be delivered: the receiver is down.
    for (const h of all) {
      await waitFor(`${h.workflowId} to finish its row`, async () => {
        const row = await getPipelineRun(bed.db, h.workflowId);
        return row && row.status !== 'running' ? row : undefined;
      });
    }
    bed.sim.setFaults({ runFailureRate: 0 });
    expect(received).toHaveLength(0);
    await first.kill('SIGKILL');

    const receiver = await startReceiver();
    try {
      await spawnWorker();
      const outcomes = await Promise.all(
        all.map((h) =>
          h.result().then(
            (r) => r.status as string,
            () => 'failed',
          ),
        ),
      );
      expect(outcomes).toEqual(['succeeded', 'partial', 'failed']);
      // One request per run, each its run's event and key.
      expect(received.map((r) => r.url).sort()).toEqual(['/failed', '/ok', '/partial']);
      for (const [i, h] of all.entries()) {
        const got = received.filter((r) => r.key.startsWith(`scrape-etl:${h.workflowId}:`));
        expect(got).toHaveLength(1);
        expect(got[0]?.event).toBe(outcomes[i]);
      }
      // The killed worker's attempts are in history as failures to connect, the new worker's as the success.
      const history = await failedHandle.fetchHistory();
      const started = (history.events ?? []).filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'notifyPipelineRun',
      );
      expect(started).toHaveLength(1);
      console.log(`alerts after SIGKILL: ${received.length} requests received for 3 runs`);
    } finally {
      await new Promise<void>((r) => {
        receiver.closeAllConnections();
        receiver.close(() => r());
      });
    }
  });
});
