// `scrape-etl schedule` against the embedded Temporal dev server, checked through Temporal's own CLI.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../../simulator/server.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { findTemporalCli } from '../../../temporal/cli-binary.js';
import { readDevServerState, stopDevServer } from '../../../temporal/dev-server.js';
import { REPO_ROOT, runCli } from '../../support/cli.js';

const TOKEN = 'cli-schedule-test-token';
let sim: RunningSimulator;
let dir: string;
let env: NodeJS.ProcessEnv;
let pipelineFile: string;

beforeAll(async () => {
  sim = await startSimulator({ token: TOKEN, seed: 3, runDurationMs: 300 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-cli-schedule-'));
  env = { SCRAPER_BASE_URL: sim.baseUrl, SCRAPER_API_TOKEN: TOKEN, SCRAPE_ETL_DATA_DIR: path.join(dir, 'data'), TEMPORAL_ADDRESS: '', DATABASE_URL: '' };
  pipelineFile = path.join(dir, 'social.yaml');
  fs.writeFileSync(
    pipelineFile,
    fs.readFileSync(path.join(REPO_ROOT, 'pipelines', 'examples', 'leads-social.yaml'), 'utf8') +
      'schedule:\n  cron: "15 4 * * 1"\n  timezone: America/New_York\n  overlap: buffer_one\n  catchup_window: 30m\n',
  );
});

afterAll(async () => {
  await stopDevServer({ dataDir: path.join(dir, 'data') });
  await sim?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function describeWithTemporalCli(id: string): Promise<Record<string, unknown>> {
  const server = readDevServerState(path.join(dir, 'data'));
  expect(server).toBeDefined();
  const binary = await findTemporalCli({ obtain: false });
  const r = spawnSync(binary, ['schedule', 'describe', '--schedule-id', id, '--address', `127.0.0.1:${server!.port}`, '-o', 'json'], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

describe('scrape-etl schedule', () => {
  it('apply creates, re-apply changes nothing, and Temporal reports the schedule as written in the file', async () => {
    const first = await runCli(['schedule', 'apply', '--json', pipelineFile], { cwd: dir, env });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ file: pipelineFile, scheduleId: 'leads-ai-sentiment', outcome: 'created' });
    const before = await describeWithTemporalCli('leads-ai-sentiment');

    const second = await runCli(['schedule', 'apply', '--json', pipelineFile], { cwd: dir, env });
    expect(JSON.parse(second.stdout)).toMatchObject({ outcome: 'unchanged' });
    const after = await describeWithTemporalCli('leads-ai-sentiment');
    expect(after['schedule']).toEqual(before['schedule']);

    const schedule = after['schedule'] as {
      spec: { structuredCalendar?: unknown[]; cronString?: string[]; timezoneName?: string };
      action: { startWorkflow: { workflowType: { name: string }; taskQueue: { name: string }; workflowId: string } };
      policies: { overlapPolicy: string; catchupWindow: string };
      state: { paused?: boolean; notes?: string };
    };
    expect(schedule.spec.timezoneName).toBe('America/New_York');
    expect(JSON.stringify(schedule.spec.structuredCalendar ?? schedule.spec.cronString)).toContain('"start":4'); // hour 4
    expect(schedule.action.startWorkflow.workflowType.name).toBe('pipelineWorkflow');
    expect(schedule.action.startWorkflow.taskQueue.name).toBe('scrape-etl');
    expect(schedule.action.startWorkflow.workflowId).toBe('leads-ai-sentiment--scheduled');
    expect(schedule.policies.overlapPolicy).toBe('SCHEDULE_OVERLAP_POLICY_BUFFER_ONE');
    expect(schedule.policies.catchupWindow).toBe('1800s');
    expect(schedule.state.paused ?? false).toBe(false);

    // Changing the file updates the schedule.
    fs.writeFileSync(pipelineFile, fs.readFileSync(pipelineFile, 'utf8').replace('overlap: buffer_one', 'overlap: skip'));
    const third = await runCli(['schedule', 'apply', '--json', pipelineFile], { cwd: dir, env });
    expect(JSON.parse(third.stdout)).toMatchObject({ outcome: 'updated' });
    const updated = (await describeWithTemporalCli('leads-ai-sentiment'))['schedule'] as typeof schedule;
    expect(updated.policies.overlapPolicy).toBe('SCHEDULE_OVERLAP_POLICY_SKIP');
  });

  it('pause shows in describe; trigger --wait produces a completed run', async () => {
    const paused = await runCli(['schedule', 'pause', 'leads-ai-sentiment', '--note', 'maintenance'], { cwd: dir, env });
    expect(paused.code, paused.stderr).toBe(0);
    const d = await runCli(['schedule', 'describe', '--json', 'leads-ai-sentiment'], { cwd: dir, env });
    expect(JSON.parse(d.stdout)).toMatchObject({ scheduleId: 'leads-ai-sentiment', paused: true, note: 'maintenance', cron: '15 4 * * 1' });
    await runCli(['schedule', 'unpause', 'leads-ai-sentiment'], { cwd: dir, env });

    const t = await runCli(['schedule', 'trigger', '--wait', '--json', 'leads-ai-sentiment'], { cwd: dir, env, timeoutMs: 90_000 });
    expect(t.code, `${t.stdout}\n${t.stderr}`).toBe(0);
    const result = JSON.parse(t.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(result).toMatchObject({ type: 'result', scheduleId: 'leads-ai-sentiment', status: 'succeeded' });
    expect(String(result['workflowId'])).toMatch(/^leads-ai-sentiment--scheduled-\d{4}-\d{2}-\d{2}T/);

    const status = await runCli(['status', '--live', '--json'], { cwd: dir, env });
    const runs = status.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(runs.find((r) => r['workflowId'] === result['workflowId'])).toMatchObject({ state: 'COMPLETED', tableStatus: 'succeeded' });
  });

  it('apply from a second file whose pipeline has the same name is refused, changing nothing; --force replaces it', async () => {
    const other = path.join(dir, 'copy-of-social.yaml');
    fs.writeFileSync(other, fs.readFileSync(pipelineFile, 'utf8').replace(/cron: "[^"]*"/, 'cron: "45 5 * * 2"'));
    const before = await describeWithTemporalCli('leads-ai-sentiment');
    const refused = await runCli(['schedule', 'apply', other], { cwd: dir, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `${other}: schedule 'leads-ai-sentiment' was applied from ${pipelineFile}, another file with the same pipeline name; rename one pipeline (\`name:\`), ` +
        `or replace the schedule with this file's: scrape-etl schedule apply --force ${other}`,
    );
    expect((await describeWithTemporalCli('leads-ai-sentiment'))['schedule']).toEqual(before['schedule']);
    // The printed command, run verbatim, replaces it.
    const forced = await runCli(['schedule', 'apply', '--force', other], { cwd: dir, env });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toBe('leads-ai-sentiment: updated\n');
    const d = await runCli(['schedule', 'describe', '--json', 'leads-ai-sentiment'], { cwd: dir, env });
    expect(JSON.parse(d.stdout)).toMatchObject({ cron: '45 5 * * 2' });
    // Now the first file is the second one, and the same rule holds; forced back for the next test.
    const back = await runCli(['schedule', 'apply', pipelineFile], { cwd: dir, env });
    expect(back.code).toBe(2);
    expect((await runCli(['schedule', 'apply', '--force', pipelineFile], { cwd: dir, env })).code).toBe(0);
  });

  it('apply --prune deletes the schedule of a file without a schedule section; unknown ids are errors', async () => {
    fs.writeFileSync(pipelineFile, fs.readFileSync(pipelineFile, 'utf8').replace(/schedule:[\s\S]*$/, ''));
    const kept = await runCli(['schedule', 'apply', '--json', pipelineFile], { cwd: dir, env });
    expect(JSON.parse(kept.stdout)).toMatchObject({ outcome: 'absent' });
    const pruned = await runCli(['schedule', 'apply', '--prune', '--json', pipelineFile], { cwd: dir, env });
    expect(JSON.parse(pruned.stdout)).toMatchObject({ outcome: 'deleted' });
    const list = await runCli(['schedule', 'list'], { cwd: dir, env });
    expect(list.stdout).toBe('no schedules\n');
    const missing = await runCli(['schedule', 'describe', 'leads-ai-sentiment'], { cwd: dir, env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no schedule 'leads-ai-sentiment'");
  });
});
