// Hostile content through a real Temporal run (issue 30): the simulator's leads gain a field nested 300 levels
// deep, which no table can hold. The run is not failed and not retried: each such result is quarantined in
// rejected_results with its reason, the run ends `partial` naming them, `status` shows it, and a later run without
// the field loads normally. And a load error no retry can fix (two pipeline names that give one table name) fails
// the run at once, without the ten attempts of a transient error.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultRecord } from '../../../client/index.js';
import { startPipelineRun } from '../../../temporal/start.js';
import { jsonLines, runCli } from '../../support/cli.js';
import { startDestinationBed, type DestinationBed } from '../../support/pipeline-bed.js';
import { leadsSearchSpec } from '../../support/pipeline-specs.js';
import { startTestTemporal, type TestTemporal } from '../../support/temporal.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
let temporal: TestTemporal;
let dir: string;
let bed: DestinationBed;
const taskQueue = `hostile-${crypto.randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-hostile-'));
  temporal = await startTestTemporal();
  bed = await startDestinationBed({
    destination: 'sqlite',
    dir,
    temporal,
    taskQueue,
    token: TOKEN,
    seed: 31,
    runDurationMs: 300,
  });
}, 120_000);

afterAll(async () => {
  await bed?.close();
  await temporal?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const conn = () => ({ client: temporal.client, taskQueue });
let deep: unknown = 1;
for (let i = 0; i < 300; i++) deep = { d: deep };

function sqlite(sql: string, ...params: unknown[]): Array<Record<string, unknown>> {
  if (bed.db.dialect !== 'sqlite') throw new Error('sqlite only');
  return bed.db.sqlite.prepare(sql).all(...params) as Array<Record<string, unknown>>;
}

describe('hostile content through Temporal', () => {
  it('results nested 300 deep are quarantined: the run ends partial, status says so, the next run loads', async () => {
    const spec = leadsSearchSpec('deep-leads', bed.dbUrl, 1);
    bed.sim.setContentDrift({ tree: deep as never });
    let outcome;
    let workflowId: string;
    try {
      const handle = await startPipelineRun(conn(), spec, 'deep-1');
      workflowId = handle.workflowId;
      outcome = await handle.result();
    } finally {
      bed.sim.setContentDrift(null);
    }
    expect(outcome.status).toBe('partial');
    const results = outcome.scrapingRunIds.flatMap(
      (id) => bed.sim.truth.runResults(Number(id)) as unknown as ResultRecord[],
    );
    expect(results.length).toBeGreaterThan(0);
    expect(outcome.rejectedResults).toBe(results.length);
    expect(outcome.error).toMatch(/quarantined in rejected_results/);
    const rejected = sqlite(
      `SELECT result_id, reason, table_name FROM rejected_results WHERE workflow_id = ? ORDER BY CAST(result_id AS INTEGER)`,
      workflowId,
    );
    expect(rejected.map((r) => String(r['result_id']))).toEqual(
      results.map((r) => String(r.id)).sort((a, b) => Number(a) - Number(b)),
    );
    for (const r of rejected) {
      expect(r['reason']).toBe('content nested deeper than 100 levels');
      expect(r['table_name']).toBe('deep_leads_items');
    }
    // The landing holds every result as received; the inferred table none of the quarantined ones.
    expect(Number(sqlite(`SELECT COUNT(*) AS n FROM leads_results WHERE pipeline = 'deep-leads'`)[0]!['n'])).toBe(
      results.length,
    );
    const [run] = sqlite(`SELECT status, error FROM pipeline_runs WHERE workflow_id = ?`, workflowId);
    expect(run!['status']).toBe('partial');
    expect(String(run!['error'])).toMatch(
      new RegExp(
        `^${results.length} result\\(s\\) could not be loaded and were quarantined in rejected_results \\(the others loaded\\): result \\d+: content nested deeper than 100 levels`,
      ),
    );
    const status = await runCli(['status', '--database', bed.dbUrl, '--json'], { cwd: dir });
    expect(status.code, status.stderr).toBe(0);
    const shown = jsonLines(status.stdout).find((r) => r['workflowId'] === workflowId);
    expect(shown).toMatchObject({ tableStatus: 'partial' });
    expect(String(shown!['error'])).toContain('quarantined in rejected_results');

    // Without the field, the next run loads its results into the table.
    const next = await (await startPipelineRun(conn(), spec, 'deep-2')).result();
    expect(next.status).toBe('succeeded');
    expect(Number(sqlite(`SELECT COUNT(*) AS n FROM deep_leads_items`)[0]!['n'])).toBeGreaterThan(0);
  }, 180_000);

  it('a load error no retry can fix fails the run on its first attempt', async () => {
    const first = await (await startPipelineRun(conn(), leadsSearchSpec('crm-leads', bed.dbUrl, 1), 'ns-1')).result();
    expect(first.status).toBe('succeeded');
    const handle = await startPipelineRun(conn(), leadsSearchSpec('crm_leads', bed.dbUrl, 1), 'ns-2');
    const err = await handle.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const chain: string[] = [];
    for (let e: unknown = err; e instanceof Error; e = (e as { cause?: unknown }).cause) chain.push(e.message);
    expect(chain.join(' / ')).toMatch(
      /pipeline 'crm_leads' would write its content into table 'crm_leads_items', which pipeline 'crm-leads' created/,
    );
    // The failed activity ran once (its started event records the attempt that failed), not ten times.
    const events = (await handle.fetchHistory()).events ?? [];
    const failed = events
      .filter((e) => e.activityTaskFailedEventAttributes)
      .map((e) => e.activityTaskFailedEventAttributes!);
    expect(failed).toHaveLength(1);
    expect(
      failed[0]!.failure?.cause?.applicationFailureInfo?.nonRetryable ??
        failed[0]!.failure?.applicationFailureInfo?.nonRetryable,
    ).toBe(true);
    const started = events.find((e) => e.eventId?.toString() === failed[0]!.startedEventId?.toString());
    expect(started?.activityTaskStartedEventAttributes?.attempt).toBe(1);
  }, 180_000);
});
