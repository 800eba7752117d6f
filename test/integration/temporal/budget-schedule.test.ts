// A run fired by a Schedule is held to its budget before it calls (issue #40): `run` refuses on the command line, and
// the workflow's first step (activities/plan.ts, budget/plan.ts) refuses the same forecast for a run no command
// started. Real Temporal dev server, Schedule and worker, the simulator counting every request it receives, a real
// SQLite file read back with Python's sqlite3, and a webhook receiver.
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySchedule } from '../../../cli/schedules.js';
import type { PipelineSpec } from '../../../pipelines/spec.js';
import { startPipelineBed, type PipelineBed } from '../../support/pipeline-bed.js';
import { marketplaceSpec, productUrl } from '../../support/pipeline-specs.js';
import { startInProcessWorker, type InProcessWorker } from '../../support/temporal.js';
import { startLocalServer, type LocalServer } from '../../support/local-server.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const taskQueue = `budget-schedule-${crypto.randomBytes(4).toString('hex')}`;
const SYNC = 'POST /api/marketplace/sync';
let bed: PipelineBed;
let worker: InProcessWorker;
let hooks: LocalServer;

beforeAll(async () => {
  bed = await startPipelineBed({ name: 'budget-schedule', token: TOKEN, seed: 41, runDurationMs: 500 });
  hooks = await startLocalServer();
  hooks.respond = (_req, res) => {
    res.writeHead(200);
    res.end('ok');
  };
  worker = await startInProcessWorker({
    address: bed.temporal.address,
    taskQueue,
    env: { SCRAPER_BASE_URL: bed.sim.baseUrl, SCRAPER_API_TOKEN: TOKEN },
  });
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await hooks?.close();
  await bed?.close();
});

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
    const v = await probe();
    if (v !== undefined) return v;
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Rows of the destination read by Python's sqlite3, not by the product's own code. */
function pyQuery(sql: string): unknown[][] {
  const file = bed.dbUrl.slice('sqlite:'.length);
  const out = execFileSync(
    'python3',
    [
      '-c',
      'import json,sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(json.dumps(c.execute(sys.argv[2]).fetchall()))',
      file,
      sql,
    ],
    { encoding: 'utf8' },
  );
  return JSON.parse(out) as unknown[][];
}

function scheduledSpec(name: string, urls: string[], budget: PipelineSpec['budget']): PipelineSpec {
  return {
    ...marketplaceSpec(name, bed.dbUrl, urls),
    budget,
    notify: {
      webhooks: [
        {
          url: `${hooks.base}/${name}`,
          format: 'json',
          on: ['partial', 'succeeded', 'budget_warning', 'budget_exhausted'],
        },
      ],
    },
    // Never due on its own during the test: the fire is the trigger's.
    schedule: { cron: '0 3 1 1 *', timezone: 'UTC', overlap: 'skip', catchup_window: '1m', paused: false },
  } as PipelineSpec;
}

/** Fires the pipeline's Schedule once and waits for the run it started. */
async function fire(spec: PipelineSpec) {
  expect(await applySchedule(bed.temporal.client, spec, `pipelines/${spec.name}.yaml`, taskQueue, false)).toBe(
    'created',
  );
  const schedule = bed.temporal.client.schedule.getHandle(spec.name);
  await schedule.trigger();
  const workflowId = await waitFor(
    'the triggered run',
    async () => (await schedule.describe()).info.recentActions[0]?.action.workflow.workflowId,
  );
  const result = await bed.temporal.client.workflow.getHandle(workflowId).result();
  await schedule.delete();
  return { workflowId, result };
}

const events = (name: string) =>
  hooks.seen
    .filter((s) => s.url === `/${name}`)
    .map((s) => JSON.parse(s.body) as { event: string; detail?: string; status?: string; error?: string });

describe('a scheduled run and its budget', () => {
  it('a fire whose forecast exceeds a limit makes no call and ends partial with the reason budget, and says so', async () => {
    const before = bed.sim.stats().total;
    const spec = scheduledSpec(
      'sched-over',
      [7100, 7101, 7102].map((i) => productUrl(i, 71)),
      { calls: { run: 2 } },
    );
    const { workflowId, result } = await fire(spec);
    const sentence =
      'pipeline sched-over was not started: its forecast of 3 service calls exceeds budget.calls.run of pipeline sched-over, 2; raise budget.calls.run or give the run fewer URLs';
    expect(result).toMatchObject({
      status: 'partial',
      reason: 'budget',
      budget: { limit: 'budget.calls.run', detail: sentence },
    });
    // Not one request of any kind reached the service, and nothing was recorded as spent.
    expect(bed.sim.stats().total - before).toBe(0);
    expect(pyQuery("SELECT count(*) FROM spend_calls WHERE pipeline = 'sched-over'")).toEqual([[0]]);
    expect(
      pyQuery(`SELECT status, status_reason, error FROM pipeline_runs WHERE workflow_id = '${workflowId}'`),
    ).toEqual([['partial', 'budget', sentence]]);
    // The run's alert: partial, with the sentence.
    const got = await waitFor('the alert', async () =>
      events('sched-over').length > 0 ? events('sched-over') : undefined,
    );
    expect(got.map((e) => e.event)).toEqual(['partial']);
    expect(JSON.stringify(got[0])).toContain(sentence);
  }, 120_000);

  it('a fire whose forecast fits runs and is counted; the next fire, over the day with it, is refused before its call', async () => {
    const spec = scheduledSpec('sched-fits', [productUrl(7200, 72), productUrl(7201, 72)], { calls: { day: 3 } });
    const before = bed.sim.stats().byEndpoint[SYNC] ?? 0;
    const first = await fire(spec);
    expect(first.result.status).toBe('succeeded');
    expect((bed.sim.stats().byEndpoint[SYNC] ?? 0) - before).toBe(2);
    expect(pyQuery("SELECT count(*) FROM spend_calls WHERE pipeline = 'sched-fits'")).toEqual([[2]]);

    // 2 spent today, 2 more forecast from the pipeline's own history: over 3.
    const second = await fire(spec);
    expect(second.result).toMatchObject({ status: 'partial', reason: 'budget', budget: { limit: 'budget.calls.day' } });
    expect(second.result.budget?.detail).toContain(
      'its forecast of 2 service calls on top of 2 service calls spent today (UTC) exceeds budget.calls.day of pipeline sched-fits, 3',
    );
    expect((bed.sim.stats().byEndpoint[SYNC] ?? 0) - before).toBe(2);
    expect(pyQuery("SELECT count(*) FROM spend_calls WHERE pipeline = 'sched-fits'")).toEqual([[2]]);
  }, 180_000);
});
