// What a run costs on Temporal Cloud, before and after LEAN_PATCH, in the same run (issue 29): history events and
// billable actions counted from each run's real history by temporal/actions.ts (Temporal Cloud's documented
// rules; activity heartbeats estimated from the heartbeat timeouts in history), plus the progress queries of a
// waiting `run` (waitForRun, counted at the client by wrapping the handle's query).
//   before: the workflow code of BENCH_ACTIONS_BEFORE (a checkout of main, default /tmp/actions-main-src), bundled
//           here, and that checkout's waitForRun; after: this checkout's. Both run on this checkout's activities
//           (a superset of main's) on one dev server, against one simulator.
//   cases: a one-URL marketplace run with a waiting `run`; a 1,000-URL marketplace run; a leads-search-engine run
//          whose scraping run lasts BENCH_ACTIONS_LEADS_MS (default 600000: 10 minutes) with the example's polling
//          (initial 1s, max 10s) and a waiting `run`. Before and after of a case run at the same time.
//   git archive main | tar -x -C /tmp/actions-main-src && ln -s $PWD/node_modules /tmp/actions-main-src/
//   npx tsx bench/actions.ts
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { WorkflowHandle } from '@temporalio/client';
import { createLogger } from '../cli/logger.js';
import * as afterRunner from '../cli/pipeline-runner.js';
import { startSimulator } from '../simulator/server.js';
import { countActions, formatActions, type ActionCount } from '../temporal/actions.js';
import type { PipelineSpec } from '../pipelines/spec.js';
import { startPipelineBed } from '../test/support/pipeline-bed.js';
import { leadsSearchSpec, marketplaceSpec, productUrl } from '../test/support/pipeline-specs.js';
import { startInProcessWorker } from '../test/support/temporal.js';

const BEFORE = path.resolve(process.env['BENCH_ACTIONS_BEFORE'] ?? '/tmp/actions-main-src');
const LEADS_MS = Number(process.env['BENCH_ACTIONS_LEADS_MS'] ?? 600_000);
const THOUSAND = Number(process.env['BENCH_ACTIONS_URLS'] ?? 1000);
const TOKEN = `bench-actions-${crypto.randomBytes(6).toString('hex')}`;

type Runner = typeof afterRunner;

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(BEFORE, 'workflows', 'index.ts')))
    throw new Error(`BENCH_ACTIONS_BEFORE=${BEFORE}: no checkout there (see the header)`);
  const beforeRunner = (await import(path.join(BEFORE, 'cli', 'pipeline-runner.ts'))) as Runner;
  const quiet = {
    trace() {},
    debug() {},
    info() {},
    warn() {},
    error: (...a: unknown[]) => console.error(...a),
    log() {},
  };
  const beforeBundle = await bundleWorkflowCode({
    workflowsPath: path.join(BEFORE, 'workflows', 'index.ts'),
    logger: quiet as never,
  });
  const bundleFile = path.join(BEFORE, '.bench-actions-bundle.js');
  fs.writeFileSync(bundleFile, beforeBundle.code);

  const bed = await startPipelineBed({ name: 'bench-actions', token: TOKEN, seed: 29, runDurationMs: 200 });
  // The leads run's scraping run lasts LEADS_MS: a simulator of its own.
  const slow = await startSimulator({ port: 0, token: TOKEN, seed: 30, runDurationMs: LEADS_MS });
  const queues = {
    before: `before-${crypto.randomBytes(3).toString('hex')}`,
    after: `after-${crypto.randomBytes(3).toString('hex')}`,
  };
  const env = (base: string) => ({ SCRAPER_BASE_URL: base, SCRAPER_API_TOKEN: TOKEN });
  const workers = [
    await startInProcessWorker({
      address: bed.temporal.address,
      taskQueue: queues.before,
      env: env(bed.sim.baseUrl),
      workflowBundle: { codePath: bundleFile },
    }),
    await startInProcessWorker({ address: bed.temporal.address, taskQueue: queues.after, env: env(bed.sim.baseUrl) }),
    await startInProcessWorker({
      address: bed.temporal.address,
      taskQueue: `${queues.before}-slow`,
      env: env(slow.baseUrl),
      workflowBundle: { codePath: bundleFile },
    }),
    await startInProcessWorker({
      address: bed.temporal.address,
      taskQueue: `${queues.after}-slow`,
      env: env(slow.baseUrl),
    }),
  ];
  const log = createLogger({ env: {} });
  let n = 0;

  /** Starts `spec` (as `run` does), waits as `run` does with the side's waitForRun, counts its queries and actions. */
  async function measured(
    side: 'before' | 'after',
    spec: PipelineSpec,
    taskQueue: string,
    wait: boolean,
  ): Promise<{ count: ActionCount; queries: number; seconds: number; status: string }> {
    const runner = side === 'before' ? beforeRunner : afterRunner;
    const file = path.join(bed.dir, `${spec.name}.yaml`);
    fs.writeFileSync(file, '# the spec is passed in; the file is only remembered\n');
    const t0 = performance.now();
    const run = await runner.startOrAttach({
      client: bed.temporal.client,
      taskQueue,
      dataDir: path.join(bed.dir, `data-${n++}`),
      spec,
      file,
      fresh: true,
      log,
    });
    let queries = 0;
    const handle = run.handle as WorkflowHandle;
    const query = handle.query.bind(handle);
    // Counted here, whatever the runner says: every query the waiting makes goes through this handle.
    (handle as { query: unknown }).query = (...args: Parameters<typeof query>) => {
      queries++;
      return query(...args);
    };
    let status: string;
    if (wait) {
      const outcome = await runner.waitForRun(run, {
        mode: 'lines',
        log,
        io: { stdout: { write: () => true }, stderr: { write: () => true } } as never,
      });
      status = outcome.status === 'completed' ? outcome.result.status : outcome.status;
    } else {
      status = ((await handle.result()) as { status: string }).status;
    }
    const seconds = (performance.now() - t0) / 1000;
    // A continue-as-new chain: every run of it (the handle follows the chain; earlier runs are fetched by run id).
    const history = await handle.fetchHistory();
    return { count: countActions(history.events ?? []), queries, seconds, status };
  }

  const say = (label: string, side: string, r: Awaited<ReturnType<typeof measured>>, urls?: number) =>
    console.log(
      `${label}, ${side}: ${r.status} in ${r.seconds.toFixed(1)} s; ${r.count.events} history events${urls ? ` (${(r.count.events / urls).toFixed(3)} a URL)` : ''}, ` +
        `${formatActions(r.count)}; run's progress queries ${r.queries}; total billable ${r.count.actions + r.queries}`,
    );

  try {
    console.log(
      `# billable actions a run (temporal/actions.ts; heartbeats estimated), before = workflow code and waitForRun of ${BEFORE}, after = this checkout`,
    );
    // The leads runs take LEADS_MS: started first, measured while the others run.
    const leads = (side: 'before' | 'after') =>
      measured(
        side,
        {
          ...leadsSearchSpec(`leads-${side}`, bed.dbUrl, 2),
          polling: { initial_interval: '1s', backoff_coefficient: 2, max_interval: '10s', deadline: '1h' },
        },
        `${queues[side]}-slow`,
        true,
      );
    const leadsRuns = Promise.all([leads('before'), leads('after')]);
    for (const side of ['before', 'after'] as const) {
      // Warm-up (the worker's first workflow task, the bundle's first run), not counted.
      await measured(
        side,
        marketplaceSpec(`warm-${side}`, bed.dbUrl, [productUrl(29_900_000 + (side === 'before' ? 0 : 1))]),
        queues[side],
        false,
      );
    }
    const one = await Promise.all(
      (['before', 'after'] as const).map((side, i) =>
        measured(side, marketplaceSpec(`one-${side}`, bed.dbUrl, [productUrl(29_000_100 + i)]), queues[side], true),
      ),
    );
    say('1 URL with a waiting run', 'before', one[0]!);
    say('1 URL with a waiting run', 'after', one[1]!);
    const many = await Promise.all(
      (['before', 'after'] as const).map((side, i) =>
        measured(
          side,
          {
            ...marketplaceSpec(
              `many-${side}`,
              bed.dbUrl,
              Array.from({ length: THOUSAND }, (_, u) => productUrl(29_200_000 + i * THOUSAND + u)),
            ),
            concurrency: 16,
          },
          queues[side],
          false,
        ),
      ),
    );
    say(`${THOUSAND} URLs`, 'before', many[0]!, THOUSAND);
    say(`${THOUSAND} URLs`, 'after', many[1]!, THOUSAND);
    const [lb, la] = await leadsRuns;
    say(`leads run of ${(LEADS_MS / 60_000).toFixed(1)} min with a waiting run`, 'before', lb);
    say(`leads run of ${(LEADS_MS / 60_000).toFixed(1)} min with a waiting run`, 'after', la);
  } finally {
    for (const w of workers) await w.stop();
    await slow.close();
    await bed.close();
    fs.rmSync(bundleFile, { force: true });
  }
}

await main();
