// `scrape-etl run` when the run it remembers has already ended: the command always resumes or starts a run. The
// remembered run is reported in one line and a new run starts; `--attach` reports the ended run instead (its outcome
// and files, nothing started). Real simulator, the embedded dev server the command starts, a spawned worker.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../../simulator/server.js';
import { readDevServerState, ensureDevServer } from '../../../temporal/dev-server.js';
import { pipelineDataConverter } from '../../../temporal/payload-codec.js';
import { startCliBed, type CliBed } from '../../support/cli-bed.js';
import { CLI, REPO_ROOT, jsonLines, runCli } from '../../support/cli.js';
import { runFilesOf } from '../../support/run-state.js';
import { spawnWorkerProcess } from '../../support/temporal.js';

const TOKEN = 'cli-run-ended-token';
const EXAMPLES = path.join(REPO_ROOT, 'pipelines', 'examples');
let bed: CliBed;
let sim: RunningSimulator;
let dir: string;
let env: NodeJS.ProcessEnv;
let connection: Connection;
let client: Client;

beforeAll(async () => {
  bed = await startCliBed({ name: 'cli-run-ended', token: TOKEN, seed: 11 });
  ({ sim, dir, env } = bed);
  // The first run starts the embedded server; the tests below then reach it directly.
  const first = await runCli(['run', path.join(EXAMPLES, 'leads-social.yaml')], { cwd: dir, env, timeoutMs: 120_000 });
  expect(first.code, first.stderr).toBe(0);
  const server = await ensureDevServer({ dataDir: path.join(dir, 'data') });
  connection = await Connection.connect({ address: `127.0.0.1:${server!.port}` });
  client = new Client({ connection, dataConverter: pipelineDataConverter() });
}, 180_000);

afterAll(async () => {
  await connection?.close();
  await bed?.close();
});

async function runsOf(prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const w of client.workflow.list({ query: `WorkflowType = 'pipelineWorkflow'` }))
    if (w.workflowId.startsWith(`${prefix}--`)) ids.push(w.workflowId);
  return ids.sort();
}

/** A worker of its own (as `up` or a cluster's worker) finishes the run while no `run` command waits for it. */
async function finishElsewhere(workflowId: string): Promise<Date> {
  const server = await ensureDevServer({ dataDir: path.join(dir, 'data') });
  const worker = await spawnWorkerProcess({
    address: `127.0.0.1:${server!.port}`,
    taskQueue: 'scrape-etl',
    cwd: dir,
    env: { SCRAPER_BASE_URL: sim.baseUrl, SCRAPER_API_TOKEN: TOKEN, SCRAPE_ETL_DATA_DIR: path.join(dir, 'data') },
  });
  try {
    const handle = client.workflow.getHandle(workflowId);
    await handle.result();
    return (await handle.describe()).closeTime!;
  } finally {
    await worker.kill('SIGTERM');
  }
}

describe('run with a remembered run that already ended', () => {
  it('a run interrupted with Ctrl-C that then finished is reported in one line, and a new run starts and finishes', async () => {
    const file = path.join(EXAMPLES, 'pdf.yaml');
    sim.setRunDurationMs(6_000);
    const child = spawn(process.execPath, [CLI, 'run', file], {
      cwd: dir,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await new Promise<void>((resolve) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (/waiting/.test(stderr)) resolve();
      });
    });
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    const old = /started (\S+)/.exec(stderr)![1]!;
    sim.setRunDurationMs(300);
    const closedAt = await finishElsewhere(old);
    expect(runFilesOf(path.join(dir, 'data'), 'pdf-annual-reports').length).toBeGreaterThan(0);
    const before = await runsOf('pdf-annual-reports');

    const r = await runCli(['run', file], { cwd: dir, env, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    const said = r.stderr.split('\n').filter((l) => l.includes(old));
    expect(said, r.stderr).toEqual([
      `the remembered run ${old} already ended at ${closedAt.toISOString()} (succeeded); starting a new run (--attach reports such a run instead of starting one)`,
    ]);
    expect(r.stdout).not.toContain('nothing was resumed or started');
    const fresh = /^pipeline pdf-annual-reports succeeded \((pdf-annual-reports--\S+)\)$/m.exec(r.stdout)?.[1];
    expect(fresh, r.stdout).toBeDefined();
    expect(fresh).not.toBe(old);
    const after = await runsOf('pdf-annual-reports');
    expect(after).toEqual([...before, fresh!].sort());
    expect(runFilesOf(path.join(dir, 'data'), 'pdf-annual-reports')).toHaveLength(0);
  }, 240_000);

  it('a remembered run that ended without success (terminated) is named with its state, and a new run starts', async () => {
    const file = path.join(EXAMPLES, 'leads-social.yaml');
    const started = await runCli(['run', '--detach', file], { cwd: dir, env });
    expect(started.code, started.stderr).toBe(0);
    const old = started.stdout.trim();
    await client.workflow.getHandle(old).terminate('test: ended by an operator');
    const closedAt = (await client.workflow.getHandle(old).describe()).closeTime!;

    const r = await runCli(['run', '--json', file], { cwd: dir, env, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `the remembered run ${old} already ended at ${closedAt.toISOString()} (terminated); starting a new run`,
    );
    const result = jsonLines(r.stdout).at(-1)!;
    expect(result).toMatchObject({ type: 'result', status: 'succeeded', attached: false, alreadyCompleted: false });
    expect(result['workflowId']).not.toBe(old);
  }, 180_000);

  it('--attach keeps the report of the ended run: its outcome and files, nothing resumed or started', async () => {
    const file = path.join(EXAMPLES, 'job-board.yaml');
    const started = await runCli(['run', '--detach', file], { cwd: dir, env });
    expect(started.code, started.stderr).toBe(0);
    const workflowId = started.stdout.trim();
    const closedAt = await finishElsewhere(workflowId);
    expect(runFilesOf(path.join(dir, 'data'), 'jobs-remote-typescript').length > 0).toBe(true);
    const before = await runsOf('jobs-remote-typescript');
    expect(before).toContain(workflowId);

    const r = await runCli(['run', '--attach', file], { cwd: dir, env, timeoutMs: 90_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain(', resumed)');
    expect(r.stderr).not.toContain('resuming');
    expect(r.stdout).toContain(
      `pipeline jobs-remote-typescript: the remembered run ${workflowId} already completed at ${closedAt.toISOString()} (succeeded); nothing was resumed or started`,
    );
    expect(r.stdout).toContain(`start a new run with: scrape-etl run ${file} --new`);
    const listed = r.stdout
      .split('exported files:\n')[1]!
      .split('\n')
      .filter((l) => l.startsWith('  '))
      .map((l) => l.trim());
    expect(listed.length).toBeGreaterThan(0);
    for (const f of listed) {
      expect(f).toContain(path.join(dir, 'data', 'exports', 'jobs-remote-typescript_'));
      expect(fs.existsSync(f)).toBe(true);
    }
    // Nothing was started in Temporal, and the run is forgotten: the next `run` starts a new one.
    expect(await runsOf('jobs-remote-typescript')).toEqual(before);
    expect(runFilesOf(path.join(dir, 'data'), 'jobs-remote-typescript').length > 0).toBe(false);
    const next = await runCli(['run', '--json', file], { cwd: dir, env, timeoutMs: 90_000 });
    expect(next.code, next.stderr).toBe(0);
    const result = jsonLines(next.stdout).at(-1)!;
    expect(result).toMatchObject({ type: 'result', status: 'succeeded', attached: false, alreadyCompleted: false });
    expect(result['workflowId']).not.toBe(workflowId);
  }, 180_000);
});
