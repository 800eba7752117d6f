// `scrape-etl run` as a user runs it: a real simulator, the embedded Temporal dev server started by the command
// itself (SCRAPE_ETL_DATA_DIR in a temp dir), the in-process worker, real SQLite and CSV files.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../../simulator/server.js';
import { startCliBed, type CliBed } from '../../support/cli-bed.js';
import { ensureDevServer } from '../../../temporal/dev-server.js';
import { CLI, REPO_ROOT, jsonLines, runCli } from '../../support/cli.js';
import { runFilesOf } from '../../support/run-state.js';

const TOKEN = 'cli-run-test-token';
const EXAMPLES = path.join(REPO_ROOT, 'pipelines', 'examples');
let bed: CliBed;
let sim: RunningSimulator;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  bed = await startCliBed({ name: 'cli-run', token: TOKEN, seed: 7 });
  ({ sim, dir, env } = bed);
});

afterAll(async () => {
  await bed?.close();
});

describe('scrape-etl run', () => {
  it('runs every example pipeline to success, loading rows and writing CSV files', async () => {
    const files = fs.readdirSync(EXAMPLES).sort();
    expect(files).toHaveLength(6);
    for (const f of files) {
      const r = await runCli(['run', '--json', path.join(EXAMPLES, f)], { cwd: dir, env, timeoutMs: 90_000 });
      expect(r.code, `${f}\n${r.stderr}`).toBe(0);
      expect(r.stderr).not.toContain(TOKEN);
      const lines = jsonLines(r.stdout);
      expect(lines.some((l) => l['type'] === 'progress')).toBe(true);
      const result = lines.at(-1)!;
      expect(result['type']).toBe('result');
      expect(result['status']).toBe('succeeded');
      const rows = result['rowsByTable'] as Record<string, number>;
      expect(Object.values(rows).reduce((s, n) => s + n, 0)).toBeGreaterThan(0);
      const exported = result['exportedFiles'] as string[];
      expect(exported.length).toBeGreaterThan(0);
      for (const file of exported) {
        expect(file.startsWith(path.join(dir, 'data', 'exports'))).toBe(true);
        expect(fs.readFileSync(file, 'utf8').split('\n').length).toBeGreaterThan(1);
      }
      // A finished run is forgotten: the next `run` starts fresh.
      expect(runFilesOf(path.join(dir, 'data'), `${String(result['pipeline'])}`).length > 0).toBe(false);
    }
    expect(fs.existsSync(path.join(dir, 'data', 'scrape-etl.sqlite'))).toBe(true);

    // `run` stopped the server it started (issue 36) and status never starts one: it runs here as under `up`.
    await ensureDevServer({ dataDir: bed.env['SCRAPE_ETL_DATA_DIR']! });
    const status = await runCli(['status', '--live', '--json'], { cwd: dir, env });
    expect(status.code, status.stderr).toBe(0);
    const runs = jsonLines(status.stdout);
    expect(runs).toHaveLength(6);
    for (const run of runs) {
      expect(run['state']).toBe('SUCCEEDED');
      expect(run['tableStatus']).toBe('succeeded');
      expect(run['rows']).toBeGreaterThan(0);
    }
    // Six runs, each with a worker started and stopped in its own process (no `scrape-etl up` polls): up to a
    // minute each on a busy machine.
  }, 480_000);

  it('--detach starts a run; the same `run` command then attaches to it instead of starting over', async () => {
    const file = path.join(EXAMPLES, 'leads-social.yaml');
    const started = await runCli(['run', '--detach', file], { cwd: dir, env });
    expect(started.code, started.stderr).toBe(0);
    const workflowId = started.stdout.trim();
    expect(workflowId).toMatch(/^leads-ai-sentiment--\d{8}T\d{6}Z-[0-9a-f]{6}$/);
    const remembered = JSON.parse(
      fs.readFileSync(runFilesOf(path.join(dir, 'data'), 'leads-ai-sentiment')[0]!, 'utf8'),
    ) as { workflowId: string };
    expect(remembered.workflowId).toBe(workflowId);

    const resumed = await runCli(['run', file], { cwd: dir, env, timeoutMs: 90_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`resuming unfinished run ${workflowId}`);
    expect(resumed.stdout).toContain(`pipeline leads-ai-sentiment succeeded (${workflowId}, resumed)`);
    expect(runFilesOf(path.join(dir, 'data'), 'leads-ai-sentiment').length > 0).toBe(false);

    // --new ignores nothing here (no unfinished run) but always makes a new workflow id.
    const fresh = await runCli(['run', '--detach', '--new', file], { cwd: dir, env });
    expect(fresh.stdout.trim()).not.toBe(workflowId);
    const done = await runCli(['run', file], { cwd: dir, env, timeoutMs: 90_000 });
    expect(done.stdout).toContain(`(${fresh.stdout.trim()}, resumed)`);
  });

  // A remembered run that already ended: cli-run-ended.test.ts (a new run starts; --attach reports the ended one).

  it('Ctrl-C leaves the run resumable and says how to resume; the same command then finishes it', async () => {
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
    const workflowId = /started (\S+)/.exec(stderr)?.[1];
    expect(workflowId).toBeDefined();
    expect(stderr).toContain(
      `interrupted: run ${workflowId} keeps running in Temporal; resume with: scrape-etl run ${file}`,
    );
    expect(runFilesOf(path.join(dir, 'data'), 'pdf-annual-reports').length > 0).toBe(true);

    sim.setRunDurationMs(300);
    const resumed = await runCli(['run', file], { cwd: dir, env, timeoutMs: 90_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`pipeline pdf-annual-reports succeeded (${workflowId}, resumed)`);
    const files = resumed.stdout
      .split('exported files:\n')[1]!
      .split('\n')
      .filter((l) => l.startsWith('  '))
      .map((l) => l.trim());
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(fs.existsSync(f)).toBe(true);
  });

  it('a failing run exits non-zero with the reason', async () => {
    sim.setFaults({ runFailureRate: 1 });
    try {
      const r = await runCli(['run', path.join(EXAMPLES, 'leads-search-engine.yaml')], {
        cwd: dir,
        env,
        timeoutMs: 90_000,
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^pipeline leads-coffee-roasters failed \(leads-coffee-roasters--[^)]+\): .+/m);
      expect(r.stderr).toMatch(/fail/i);
    } finally {
      sim.setFaults({ runFailureRate: 0 });
    }
  });

  it('an incremental export with no new row writes no file; run, status and history say no rows were new', async () => {
    const file = path.join(EXAMPLES, 'results.yaml');
    // Catch up with every result the runs above produced; then nothing is new.
    const catchUp = await runCli(['run', file], { cwd: dir, env, timeoutMs: 90_000 });
    expect(catchUp.code, catchUp.stderr).toBe(0);
    const exportsDir = path.join(dir, 'data', 'exports');
    const before = fs.readdirSync(exportsDir).sort();

    const r = await runCli(['run', file], { cwd: dir, env, timeoutMs: 90_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^exported files: none, no rows were new since the last export \(.*scraper_results.*\)$/m);
    expect(fs.readdirSync(exportsDir).sort()).toEqual(before);
    const workflowId = /^pipeline results-sync succeeded \((\S+)\)$/m.exec(r.stdout)?.[1];
    expect(workflowId, r.stdout).toBeDefined();

    // `run` stopped the server it started (issue 36) and status never starts one: it runs here as under `up`.
    await ensureDevServer({ dataDir: bed.env['SCRAPE_ETL_DATA_DIR']! });
    const json = await runCli(['status', '--live', '--pipeline', 'results-sync', '--json'], { cwd: dir, env });
    expect(jsonLines(json.stdout).find((s) => s['workflowId'] === workflowId)).toMatchObject({
      state: 'SUCCEEDED',
      exportStatus: 'no_new_rows',
    });
    const text = await runCli(['status', '--live', '--pipeline', 'results-sync'], { cwd: dir, env });
    expect(text.stdout.split('\n')[0]).toMatch(/\bEXPORT\b/);
    expect(text.stdout.split('\n').find((l) => l.includes(workflowId!))).toContain('no new rows');
    const history = await runCli(['history', 'results-sync', '--limit', '1'], { cwd: dir, env });
    expect(history.stdout).toContain('no new rows');
  });

  it('an invalid pipeline file is refused before anything starts (exit 2)', async () => {
    const r = await runCli(['run', path.join(REPO_ROOT, 'test', 'fixtures', 'pipelines-bad', 'bad-enum.yaml')], {
      cwd: dir,
      env,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "request.sentiment_type: expected one of 'all', 'positive', 'neutral', 'negative', got string 'happy'",
    );
  });
});
