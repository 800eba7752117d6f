// Issue #37: `run` into SQLite on a full disk showed `starting 0 rows` for minutes while every attempt of the run's
// plan (a local activity: it starts the run's pipeline_runs row) failed with `database or disk is full`. Temporal
// records no attempt of a local activity, so the worker notes the last failed one in the data folder
// (temporal/attempt-notes.ts) and `run`'s waiting line says it. A 2 MB tmpfs is filled until one more run's rows do
// not fit. Needs root for the mount (CI runs as root); as anyone else it fails, saying so.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { stopDevServer } from '../../../temporal/dev-server.js';
import { CLI, runCli } from '../../support/cli.js';
import { until } from '../../support/up-process.js';

const TOKEN = 'cli-full-disk-token';
let dir: string;
let mnt: string;
let sim: RunningSimulator;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    throw new Error(
      'test/integration/cli/cli-full-disk-run.test.ts must run as root: it mounts a 2 MB tmpfs to fill (mount -t tmpfs); CI runs as root',
    );
  }
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-full-disk-run-'));
  mnt = path.join(dir, 'mnt');
  fs.mkdirSync(mnt, { mode: 0o700 });
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=2m,mode=0700', 'tmpfs', mnt], { encoding: 'utf8' });
  if (m.status !== 0) throw new Error(`mount -t tmpfs failed: ${m.stderr}`);
  sim = await startSimulator({ token: TOKEN, seed: 37, runDurationMs: 500 });
  env = {
    SCRAPER_BASE_URL: sim.baseUrl,
    SCRAPER_API_TOKEN: TOKEN,
    SCRAPE_ETL_DATA_DIR: path.join(dir, 'data'),
    SCRAPE_ETL_PROJECT: 'none',
    TEMPORAL_ADDRESS: '',
    DATABASE_URL: '',
  };
}, 60_000);

afterAll(async () => {
  await stopDevServer({ dataDir: path.join(dir, 'data') }).catch(() => false);
  await sim?.close();
  if (mnt) spawnSync('umount', [mnt]);
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function pipeline(name: string, items: number[]): string {
  const file = path.join(dir, `${name}.yaml`);
  const urls = items.map((i) => `    - https://shopee.tw/api/v2/item/get?itemid=${i}&shopid=10115139`).join('\n');
  fs.writeFileSync(
    file,
    `name: ${name}\nkind: marketplace\nrequest:\n  urls:\n${urls}\ndestination:\n  database: sqlite:${path.join(mnt, 'full.sqlite')}\n`,
  );
  return file;
}

describe('run on a full disk', () => {
  it("says why the run does not start: the plan's failing attempts, with the database's own words", async () => {
    // A first run makes the database (it fits), then the disk is filled to the last few pages.
    const first = await runCli(['run', pipeline('disk-a', [4420309814, 1234567890])], {
      cwd: dir,
      env,
      timeoutMs: 120_000,
    });
    expect(first.code, first.stderr).toBe(0);
    const free = Number(
      spawnSync('df', ['--output=avail', '-B1', mnt], { encoding: 'utf8' }).stdout.trim().split('\n').pop(),
    );
    fs.writeFileSync(path.join(mnt, 'filler'), Buffer.alloc(Math.max(0, free - 48 * 1024)));

    const child = spawn(process.execPath, [CLI, 'run', pipeline('disk-b', [4420309815, 1234567891])], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('close', r));
    try {
      const line = await until(
        'the waiting line naming the failed attempt',
        () =>
          /waiting: planPipelineRun attempt \d+ failed \(\d\d:\d\d:\d\dZ\): .*(disk is full|database or disk is full)/.exec(
            err,
          )?.[0],
        90_000,
        500,
      );
      expect(line).toMatch(/disk is full/);
    } finally {
      child.kill('SIGINT');
      await exited;
    }
    // The note lives in the data folder, private to its user.
    expect(fs.statSync(path.join(dir, 'data', 'attempts')).mode & 0o077).toBe(0);
  }, 240_000);
});
