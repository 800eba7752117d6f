// Which worker `run` counts on (issue 37): a poller is a long-lived worker only if it says so (`up` and `worker` do,
// by their identity). Two `run`s of different pipelines on one data folder without `up`, 6 s apart: the second used
// to see the first's per-run worker polling, only start its workflow, and wait with no message after that worker
// exited (0 pollers). Now it runs its own worker. And a waiting `run` whose queue has had no poller for 30 s says so
// in one line and runs a worker itself. Real simulator, the embedded dev server, spawned commands.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { readDevServerState, stopDevServer, ensureDevServer } from '../../../temporal/dev-server.js';
import { CLI } from '../../support/cli.js';
import { spawnWorkerProcess } from '../../support/temporal.js';

const TOKEN = 'cli-run-workers-token';
let dir: string;
let sim: RunningSimulator;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-run-workers-'));
  sim = await startSimulator({ token: TOKEN, seed: 5, runDurationMs: 15_000 });
  env = {
    SCRAPER_BASE_URL: sim.baseUrl,
    SCRAPER_API_TOKEN: TOKEN,
    SCRAPE_ETL_DATA_DIR: path.join(dir, 'data'),
    SCRAPE_ETL_BACKGROUND_WORKER: '0',
    TEMPORAL_ADDRESS: '',
    DATABASE_URL: '',
    NO_COLOR: '1',
  };
});

afterAll(async () => {
  await stopDevServer({ dataDir: path.join(dir, 'data') });
  await sim?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function pdfPipeline(name: string): string {
  const file = path.join(dir, `${name}.yaml`);
  fs.writeFileSync(
    file,
    [
      `name: ${name}`,
      'kind: pdf',
      'request:',
      '  keywords:',
      '    - { keyword: annual report, prompt: Is this an annual report? }',
      '  expected_pdf: 2',
      `destination: { database: "sqlite:${path.join(dir, `${name}.sqlite`)}" }`,
      'polling: { initial_interval: 1s, backoff_coefficient: 1.5, max_interval: 2s, deadline: 10m }',
    ].join('\n'),
  );
  return file;
}

interface Spawned {
  stderr(): string;
  stdout(): string;
  closed: Promise<number | null>;
  kill(): void;
}

function spawnRun(file: string): Spawned {
  const child = spawn(process.execPath, [CLI, 'run', file], {
    cwd: dir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return {
    stderr: () => err,
    stdout: () => out,
    closed: new Promise((resolve) => child.on('close', (code) => resolve(code))),
    kill: () => child.kill('SIGKILL'),
  };
}

async function until(what: string, cond: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits for the command to end, killing it after `ms` (a hang is a failure with its output, not a stuck test). */
async function ended(r: Spawned, ms: number): Promise<number | null | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), ms)));
  const code = await Promise.race([r.closed, hung]);
  clearTimeout(timer);
  if (code === 'hung') {
    r.kill();
    await r.closed;
  }
  return code;
}

describe('run and the workers that poll its task queue', () => {
  it("a second run 6 s after the first runs its own worker: another run's worker leaves with its run", async () => {
    const first = spawnRun(pdfPipeline('pdf-first'));
    await until('the first run starts', () => /started /.test(first.stderr()), 120_000);
    await new Promise((r) => setTimeout(r, 6_000));
    const second = spawnRun(pdfPipeline('pdf-second'));
    const firstCode = await ended(first, 180_000);
    expect(firstCode, first.stderr()).toBe(0);
    // Before: the second only started its workflow and waited, with no message, after the first's worker left.
    const secondCode = await ended(second, 120_000);
    expect(secondCode, `${second.stderr()}\n${second.stdout()}`).toBe(0);
    expect(second.stdout()).toMatch(/^pipeline pdf-second succeeded/m);
    expect(second.stderr()).toContain(
      "only another run's worker polls task queue 'scrape-etl' (it stops when that run ends): running one in this process for this run only",
    );
  }, 420_000);

  it('a waiting run whose queue has had no poller for 30 s says so in one line and takes the run over', async () => {
    const server = await ensureDevServer({ dataDir: path.join(dir, 'data') });
    const worker = await spawnWorkerProcess({
      address: `127.0.0.1:${server!.port}`,
      taskQueue: 'scrape-etl',
      cwd: dir,
      env: { SCRAPER_BASE_URL: sim.baseUrl, SCRAPER_API_TOKEN: TOKEN, SCRAPE_ETL_DATA_DIR: path.join(dir, 'data') },
    });
    sim.setRunDurationMs(20_000);
    const run = spawnRun(pdfPipeline('pdf-taken-over'));
    try {
      await until('the run starts', () => /started /.test(run.stderr()), 60_000);
      // A long-lived worker polled: the command is a client only.
      expect(run.stderr()).toContain('(worked on by the worker polling the task queue)');
      await new Promise((r) => setTimeout(r, 2_000));
    } finally {
      // The worker leaves while the run waits for its scraping run.
      await worker.kill('SIGTERM');
    }
    const left = Date.now();
    sim.setRunDurationMs(1_000);
    const code = await ended(run, 150_000);
    expect(code, `${run.stderr()}\n${run.stdout()}`).toBe(0);
    expect(run.stdout()).toMatch(/^pipeline pdf-taken-over succeeded/m);
    const said = run
      .stderr()
      .split('\n')
      .filter((l) => l.includes('no worker has polled'));
    expect(said, run.stderr()).toEqual([
      "no worker has polled task queue 'scrape-etl' for 30 s (the worker that worked on this run stopped): running one in this process to take the run over",
    ]);
    // Not before the 30 s.
    expect(Date.now() - left).toBeGreaterThan(30_000);
  }, 300_000);
});
