// `scrape-etl cancel`: a real PDF run waiting for its scraping runs (the simulator's runs take 10 minutes) on a real
// Temporal dev server and worker, cancelled by the built command by pipeline name and by workflow id. The workflow
// must end CANCELLED and its pipeline_runs row say `cancelled`; with nothing open the command says so (exit 1), an
// unknown name is a usage error (exit 2).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPipelineRun } from '../../../db/store/pipeline-runs.js';
import { secretKeyFile } from '../../../lib/secret-key.js';
import { startPipelineRun } from '../../../temporal/start.js';
import type { PipelineProgress } from '../../../workflows/pipeline.js';
import { jsonLines, runCli } from '../../support/cli.js';
import { startPipelineBed, type PipelineBed } from '../../support/pipeline-bed.js';
import { pdfSpec } from '../../support/pipeline-specs.js';
import { startInProcessWorker, type InProcessWorker } from '../../support/temporal.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const taskQueue = `cli-cancel-${crypto.randomBytes(4).toString('hex')}`;
let bed: PipelineBed;
let worker: InProcessWorker;
let proj: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  bed = await startPipelineBed({ name: 'cli-cancel', token: TOKEN, seed: 23, runDurationMs: 600_000 });
  worker = await startInProcessWorker({
    address: bed.temporal.address,
    taskQueue,
    env: { SCRAPER_BASE_URL: bed.sim.baseUrl, SCRAPER_API_TOKEN: TOKEN },
  });
  proj = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-cancel-proj-')));
  fs.writeFileSync(path.join(proj, 'scrape-etl.yaml'), `pipelines: [pipelines/*.yaml]\ndestination: ${bed.dbUrl}\n`);
  fs.mkdirSync(path.join(proj, 'pipelines'));
  fs.writeFileSync(
    path.join(proj, 'pipelines', 'reports.yaml'),
    [
      'name: cancel-reports',
      'kind: pdf',
      'request:',
      '  keywords:',
      '    - keyword: annual report',
      '      prompt: Is this an annual report?',
      '  expected_pdf: 3',
      '',
    ].join('\n'),
  );
  env = {
    TEMPORAL_ADDRESS: bed.temporal.address,
    TEMPORAL_TASK_QUEUE: taskQueue,
    SCRAPE_ETL_KEY_FILE: secretKeyFile(),
    DATABASE_URL: undefined,
    SCRAPE_ETL_PROJECT: undefined,
  };
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await bed?.close();
  if (proj) fs.rmSync(proj, { recursive: true, force: true });
});

type Handle = Awaited<ReturnType<typeof startPipelineRun>>;

/** A run of the project's pipeline, started as `run` would and waiting for its scraping runs. */
async function waitingRun(runKey: string): Promise<Handle> {
  const handle = await startPipelineRun(
    { client: bed.temporal.client, taskQueue },
    pdfSpec('cancel-reports', bed.dbUrl, 1, 3),
    runKey,
  );
  const by = Date.now() + 120_000;
  for (;;) {
    const p = await handle.query<PipelineProgress>('progress');
    if (p.phase === 'waiting') return handle;
    if (Date.now() > by) throw new Error(`${handle.workflowId} never reached 'waiting': ${JSON.stringify(p)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function expectCancelled(handle: Handle): Promise<void> {
  expect((await handle.describe()).status.name).toBe('CANCELLED');
  const row = await getPipelineRun(bed.db, handle.workflowId);
  expect(row).toMatchObject({
    status: 'cancelled',
    error: expect.stringContaining('the run was cancelled while waiting'),
  });
}

describe('scrape-etl cancel', () => {
  it('by pipeline name: the waiting run ends CANCELLED and pipeline_runs says cancelled; the service side is said', async () => {
    const handle = await waitingRun('n1');
    const r = await runCli(['cancel', 'cancel-reports'], { cwd: path.join(proj, 'pipelines'), env, timeoutMs: 90_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      `cancelled ${handle.workflowId} (pipeline cancel-reports): the workflow ended CANCELLED; pipeline_runs says cancelled`,
    );
    expect(r.stdout).toContain('scraping runs it had already started on the service are not stopped');
    await expectCancelled(handle);
  }, 240_000);

  it('by workflow id, --json: one object with the ended status and the row', async () => {
    const handle = await waitingRun('w1');
    const r = await runCli(['cancel', handle.workflowId, '--json'], { cwd: proj, env, timeoutMs: 90_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(jsonLines(r.stdout)).toEqual([
      {
        workflowId: handle.workflowId,
        pipeline: 'cancel-reports',
        status: 'CANCELLED',
        pipelineRun: { status: 'cancelled', error: expect.stringContaining('cancelled while waiting') },
      },
    ]);
    await expectCancelled(handle);
  }, 240_000);

  it('with no worker polling: the cancel is requested (status RUNNING, exit 0), and the run ends CANCELLED when a worker comes', async () => {
    const idleQueue = `${taskQueue}-idle`;
    const handle = await startPipelineRun(
      { client: bed.temporal.client, taskQueue: idleQueue },
      pdfSpec('cancel-reports', bed.dbUrl, 1, 3),
      'q1',
    );
    const r = await runCli(['cancel', handle.workflowId, '--wait', '1'], { cwd: proj, env, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      `cancel requested for ${handle.workflowId} (pipeline cancel-reports); it has not ended within 1s`,
    );
    expect(r.stdout).toContain(`task queue ${idleQueue}`);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    // A worker arrives: the run never starts its work and ends as docs/cancelling-runs.md says.
    const late = await startInProcessWorker({
      address: bed.temporal.address,
      taskQueue: idleQueue,
      env: { SCRAPER_BASE_URL: bed.sim.baseUrl, SCRAPER_API_TOKEN: TOKEN },
    });
    try {
      await handle.result().catch(() => undefined);
      expect((await handle.describe()).status.name).toBe('CANCELLED');
    } finally {
      await late.stop();
    }
  }, 240_000);

  it('nothing to cancel is exit 1 and says so; an unknown name is exit 2; no running Temporal is nothing to cancel', async () => {
    const none = await runCli(['cancel', 'cancel-reports'], { cwd: proj, env });
    expect(none.code, none.stderr).toBe(1);
    expect(none.stderr).toContain("nothing to cancel: pipeline 'cancel-reports' has no open run in Temporal at");

    const ended = await runCli(['cancel', 'cancel-reports--n1'], { cwd: proj, env });
    expect(ended.code, ended.stderr).toBe(1);
    expect(ended.stderr).toContain('nothing to cancel: workflow cancel-reports--n1 already ended CANCELLED');

    const unknown = await runCli(['cancel', 'cancel-reprots'], { cwd: proj, env });
    expect(unknown.code, unknown.stderr).toBe(2);
    expect(unknown.stderr).toContain("no pipeline named 'cancel-reprots'");
    expect(unknown.stderr).toContain("did you mean 'cancel-reports'?");

    // The embedded server is not running in this data folder: not started to answer, nothing to cancel.
    const dataDir = path.join(proj, 'data');
    const idle = await runCli(['cancel', 'cancel-reports'], {
      cwd: proj,
      env: { ...env, TEMPORAL_ADDRESS: undefined, SCRAPE_ETL_DATA_DIR: dataDir },
    });
    expect(idle.code, idle.stderr).toBe(1);
    expect(idle.stderr).toContain('nothing to cancel: the embedded Temporal server');
    expect(fs.existsSync(path.join(dataDir, 'temporal'))).toBe(false);
  }, 120_000);
});
