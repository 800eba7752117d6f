// The soak's finish phase is bounded (soak/open-runs.ts): waiting for a run that does not finish ends at the
// deadline with the run reported open, and the report says what Temporal knows of it (status, pending activities
// with their attempts and last failure) and what the workers wrote last. A plain handle.result() waited forever for
// such a run: the short soak's DuckDB case once hit its test timeout with nothing but "waiting for them to finish".
import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRunsReport, resultBy } from '../../../soak/open-runs.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { startPipelineRun } from '../../../temporal/start.js';
import { pdfSpec } from '../../support/pipeline-specs.js';
import { startInProcessWorker, startTestTemporal, type TestTemporal } from '../../support/temporal.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
let temporal: TestTemporal;
let sim: RunningSimulator;

beforeAll(async () => {
  [temporal, sim] = await Promise.all([
    startTestTemporal(),
    // Every API call answered 5xx: the run's first activity fails attempt after attempt and the run stays open.
    startSimulator({ port: 0, token: TOKEN, seed: 5, faults: { errorRate: 1 } }),
  ]);
}, 120_000);

afterAll(async () => {
  await sim?.close();
  await temporal?.stop();
});

const isFinal = (err: unknown) => err instanceof WorkflowFailedError;
const dbUrl = () => `sqlite:${path.join(os.tmpdir(), `soak-open-${crypto.randomBytes(4).toString('hex')}.sqlite`)}`;

describe('the soak never waits without end for a run', () => {
  it('a run no worker picks up: the wait ends at its deadline, reported open with its pending workflow task', async () => {
    const taskQueue = `no-worker-${crypto.randomBytes(4).toString('hex')}`;
    const handle = await startPipelineRun({ client: temporal.client, taskQueue }, pdfSpec('open-nobody', dbUrl()), 'k');
    const at = Date.now();
    const out = await resultBy(temporal.client, handle.workflowId, at + 3000, isFinal);
    const waited = Date.now() - at;
    expect(out).toMatchObject({ open: true });
    expect(waited).toBeGreaterThanOrEqual(2900);
    expect(waited).toBeLessThan(15_000);

    const report = await openRunsReport(
      temporal.client,
      [{ workflowId: handle.workflowId, startedAt: at }],
      [{ name: 'worker-0-1-pid1.log', text: 'line 1\nline 2\nthe last line' }],
      'now',
    );
    expect(report).toContain(`${handle.workflowId}: open`);
    expect(report).toContain('status RUNNING');
    expect(report).toContain('workflow task: attempt 1');
    expect(report).toContain('no pending activity');
    expect(report).toMatch(/ event 2 at \S+: WORKFLOW_TASK_SCHEDULED\n/);
    expect(report).toContain('--- worker-0-1-pid1.log (last 3 of 3 lines)');
    expect(report).toContain('the last line');
    await handle.terminate('test over');
  });

  it('a run whose activity fails attempt after attempt: the report names the activity, its attempt and last failure', async () => {
    const taskQueue = `failing-${crypto.randomBytes(4).toString('hex')}`;
    const worker = await startInProcessWorker({
      address: temporal.address,
      taskQueue,
      env: { SCRAPER_BASE_URL: sim.baseUrl, SCRAPER_API_TOKEN: TOKEN },
    });
    try {
      const handle = await startPipelineRun(
        { client: temporal.client, taskQueue },
        pdfSpec('open-failing', dbUrl()),
        'k',
      );
      const at = Date.now();
      // Until the server has recorded a failed attempt (its retry then waits 1 s, 2 s, ...).
      for (;;) {
        const pending = (await handle.describe()).raw.pendingActivities ?? [];
        if (pending.some((a) => (a.attempt ?? 1) >= 2)) break;
        if (Date.now() - at > 90_000) throw new Error('no activity was retried within 90 s');
        await new Promise((r) => setTimeout(r, 250));
      }
      const out = await resultBy(temporal.client, handle.workflowId, Date.now() + 1000, isFinal);
      expect(out).toMatchObject({ open: true });
      const report = await openRunsReport(
        temporal.client,
        [{ workflowId: handle.workflowId, startedAt: at }],
        [],
        'now',
      );
      console.log(report);
      expect(report).toMatch(/activity createAndRun \(id [^)]+\): (SCHEDULED|STARTED), attempt [2-9]/);
      expect(report).toMatch(/last failure: .*(500|502|503)/);
      await handle.terminate('test over');
    } finally {
      await worker.stop();
    }
  });
});
