// The README's exit-code table, command by command, in each situation it names (issue 36: `down` and `server stop`
// with nothing running exited 0 while `server status` exited 1; `up` stopped by Ctrl-C exited 0, not 130). The codes
// are defined once (lib/exit-codes.ts); this runs the built command as a user does, with a real simulator, the
// embedded Temporal dev server and SQLite files.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { readDevServerState, stopDevServer, ensureDevServer } from '../../../temporal/dev-server.js';
import { CLI, runCli } from '../../support/cli.js';
import { spawnWorkerProcess } from '../../support/temporal.js';
import { startUp } from '../../support/up-process.js';
import { EXIT } from '../../../lib/exit-codes.js';

const TOKEN = 'cli-exit-codes-token';
let sim: RunningSimulator;
let root: string;
let env: NodeJS.ProcessEnv;

function write(file: string, text: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

const URL_OK = 'https://shopee.tw/api/v2/item/get?itemid=4420309814&shopid=10115139';

function shop(name: string, extra: string[] = []): string[] {
  return [
    `name: ${name}`,
    'kind: marketplace',
    'request:',
    '  urls:',
    `    - ${URL_OK}`,
    `destination: { database: "sqlite:data/${name}.sqlite" }`,
    ...extra,
  ];
}

beforeAll(async () => {
  sim = await startSimulator({ token: TOKEN, seed: 3, runDurationMs: 500 });
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-exit-codes-')));
  write(path.join(root, 'scrape-etl.yaml'), 'pipelines: [pipelines/*.yaml]\ndata_dir: data\n');
  write(path.join(root, 'pipelines', 'shop.yaml'), shop('shop', ['exports:', '  - dir: ./exports']).join('\n'));
  // An error check that fails: the run ends failed_checks, its data kept.
  write(
    path.join(root, 'pipelines', 'checked.yaml'),
    shop('checked', ['checks:', '  - type: row_count', '    table: marketplace_products', '    min: 1000']).join('\n'),
  );
  // The export folder is a file: the data loads, the export fails.
  write(path.join(root, 'not-a-folder'), 'a file\n');
  write(
    path.join(root, 'pipelines', 'no-exports.yaml'),
    shop('no-exports', ['exports:', '  - dir: ./not-a-folder/exports']).join('\n'),
  );
  write(
    path.join(root, 'pipelines', 'slow.yaml'),
    [
      'name: slow',
      'kind: pdf',
      'request:',
      '  keywords:',
      '    - { keyword: annual report, prompt: Is this an annual report? }',
      '  expected_pdf: 2',
      'destination: { database: "sqlite:data/slow.sqlite" }',
      'polling: { initial_interval: 1s, backoff_coefficient: 1, max_interval: 1s, deadline: 10m }',
    ].join('\n'),
  );
  write(path.join(root, 'other', 'bad.yaml'), 'name: bad\nkind: nope\n');
  env = {
    SCRAPER_BASE_URL: sim.baseUrl,
    SCRAPER_API_TOKEN: TOKEN,
    SCRAPE_ETL_DATA_DIR: path.join(root, 'data'),
    TEMPORAL_ADDRESS: '',
    DATABASE_URL: '',
    SCRAPE_ETL_PROJECT: '',
    SCRAPE_ETL_BACKGROUND_WORKER: '0',
  };
});

afterAll(async () => {
  await stopDevServer({ dataDir: path.join(root, 'data') });
  await sim?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

async function code(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<number | null> {
  const r = await runCli(args, { cwd: root, env: { ...env, ...extraEnv }, timeoutMs: 120_000 });
  return r.code;
}

/** Starts `args`, sends `signal` once stderr matches `when`, resolves with the exit code. */
async function signalled(args: string[], when: RegExp, signal: NodeJS.Signals): Promise<number | null> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: root,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  const closed = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${when} within 120 s:\n${err}`)), 120_000);
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      if (when.test(err)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  child.kill(signal);
  return closed;
}

describe('exit codes (README, "Exit codes")', () => {
  it('2: usage or configuration error, nothing started', async () => {
    expect(await code(['status', '--no-such-flag'])).toBe(EXIT.usage);
    expect(await code(['run', 'no-such-pipeline'])).toBe(EXIT.usage);
    expect(await code(['validate', 'other/bad.yaml'])).toBe(EXIT.usage);
    expect(await code(['run', 'shop'], { TEMPORAL_ADDRESS: 'http://not-host-port' })).toBe(EXIT.usage);
    expect(await code(['run', 'shop'], { SCRAPER_API_TOKEN: '' })).toBe(EXIT.usage);
    expect(await code(['status', '--database', 'mysql://x'])).toBe(EXIT.usage);
  }, 120_000);

  it('0 done, 3 failed_checks, 4 exports failed, 1 a failed run or an unreachable service', async () => {
    expect(await code(['run', 'shop'])).toBe(EXIT.ok);
    expect(await code(['validate', 'shop'])).toBe(EXIT.ok);
    // `run` stopped the server it started (issue 36): nothing runs, 1 (`server status` exits 0 once `up` runs it, below).
    expect(await code(['server', 'status'])).toBe(EXIT.failed);
    expect(await code(['run', 'checked'])).toBe(EXIT.partial);
    expect(await code(['run', 'no-exports'])).toBe(EXIT.exportFailed);
    sim.setFaults({ runFailureRate: 1 });
    try {
      expect(await code(['run', 'slow'])).toBe(EXIT.failed);
    } finally {
      sim.setFaults({ runFailureRate: 0 });
    }
    expect(await code(['run', 'shop'], { SCRAPER_BASE_URL: 'http://127.0.0.1:9' })).toBe(EXIT.failed);
  }, 300_000);

  it('1: what was named is not there (a database file, a schedule)', async () => {
    expect(await code(['status', '--database', `sqlite:${path.join(root, 'data', 'missing.sqlite')}`])).toBe(
      EXIT.failed,
    );
    expect(await code(['schedule', 'pause', 'no-such-schedule'])).toBe(EXIT.failed);
  }, 120_000);

  it('130 / 143: a command ended by Ctrl-C or SIGTERM, `up` and `worker` included', async () => {
    sim.setRunDurationMs(20_000);
    try {
      expect(await signalled(['run', 'slow'], /started /, 'SIGINT')).toBe(EXIT.sigint);
      expect(await signalled(['run', 'slow'], /resuming /, 'SIGTERM')).toBe(EXIT.sigterm);
    } finally {
      sim.setRunDurationMs(500);
    }
    const server = await ensureDevServer({ dataDir: path.join(root, 'data') });
    const worker = await spawnWorkerProcess({
      address: `127.0.0.1:${server!.port}`,
      taskQueue: 'exit-codes',
      cwd: root,
      env: { SCRAPER_BASE_URL: sim.baseUrl, SCRAPER_API_TOKEN: TOKEN },
    });
    expect(await worker.kill('SIGTERM'), worker.output()).toBe(EXIT.sigterm);
    expect(await signalled(['simulate', '--port', '0'], /simulator listening/, 'SIGTERM')).toBe(EXIT.sigterm);
    expect(await signalled(['simulate', '--port', '0'], /simulator listening/, 'SIGINT')).toBe(EXIT.sigint);
    for (const [signal, expected] of [
      ['SIGINT', EXIT.sigint],
      ['SIGTERM', EXIT.sigterm],
    ] as const) {
      const up = startUp([], { cwd: root, env });
      await up.ready();
      up.child.kill(signal);
      expect((await up.exited).code, up.stderr()).toBe(expected);
    }
  }, 400_000);

  it('0 when `down` / `server stop` stopped what runs; 1 when nothing runs, as `server status`', async () => {
    const up = await runCli(['up', '--detach'], { cwd: root, env, timeoutMs: 180_000 });
    expect(up.code, up.stderr).toBe(EXIT.ok);
    expect(await code(['server', 'status'])).toBe(EXIT.ok);
    expect(await code(['down'])).toBe(EXIT.ok);
    expect(await code(['down'])).toBe(EXIT.failed);
    expect(await code(['server', 'status'])).toBe(EXIT.failed);
    expect(await code(['server', 'stop'])).toBe(EXIT.failed);
    // `run` without `up` stops the server it started when it ends (issue 36): nothing runs after it.
    expect(await code(['run', 'shop'])).toBe(EXIT.ok);
    expect(await code(['server', 'status'])).toBe(EXIT.failed);
    // A server that runs (started as `up` and `worker` start it) is stopped: 0.
    await ensureDevServer({ dataDir: path.join(root, 'data') });
    expect(await code(['server', 'stop'])).toBe(EXIT.ok);
    expect(await code(['server', 'stop'])).toBe(EXIT.failed);
  }, 300_000);
});
