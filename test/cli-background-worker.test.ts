// `run` on the embedded server as a user runs it (compiled command, `npm run build` first), with no setting: the
// first `run` starts the background worker, later ones are carried out by it and print what an in-process run
// (SCRAPE_ETL_BACKGROUND_WORKER=0) prints; a `run` of another identity replaces it; Ctrl-C leaves the run to it;
// `server stop`, its idle time and a stopped Temporal server end it. Real simulator, embedded dev server, SQLite files.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBackgroundWorkerState } from '../cli/background/settings.js';
import { findTemporalCli } from '../temporal/cli-binary.js';
import { isProcessAlive, readDevServerState, stopDevServer } from '../temporal/dev-server.js';
import { startCliBed, type CliBed } from './support/cli-bed.js';
import { CLI, jsonLines, runCli } from './support/cli.js';

const TOKEN = 'cli-background-worker-token';
let bed: CliBed;
let env: NodeJS.ProcessEnv;
/** The same environment with the worker in the `run` process: another identity. */
let inProcessEnv: NodeJS.ProcessEnv;
let dataDir: string;

const productUrl = (i: number) => `https://shopee.tw/api/v2/item/get?itemid=${4_420_309_814 + i}&shopid=10115139`;

function pipeline(name: string, urls: number): string {
  const file = path.join(bed.dir, `${name}.yaml`);
  const list = Array.from({ length: urls }, (_, i) => `    - ${productUrl(i)}`).join('\n');
  fs.writeFileSync(file, `name: ${name}\nkind: marketplace\nrequest:\n  urls:\n${list}\ndestination:\n  database: sqlite:${path.join(bed.dir, `${name}.sqlite`)}\n`);
  return file;
}

function products(name: string): number {
  const db = new Database(path.join(bed.dir, `${name}.sqlite`), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM marketplace_products').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** Products loaded so far: 0 while the file or its table does not exist yet (`schedule apply` probes the file). */
function productsIfAny(name: string): number {
  if (!fs.existsSync(path.join(bed.dir, `${name}.sqlite`))) return 0;
  const db = new Database(path.join(bed.dir, `${name}.sqlite`), { readonly: true });
  try {
    const table = db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'marketplace_products'`).get();
    return table ? (db.prepare('SELECT count(*) AS n FROM marketplace_products').get() as { n: number }).n : 0;
  } finally {
    db.close();
  }
}

async function until(what: string, check: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const worker = () => readBackgroundWorkerState(dataDir);

beforeAll(async () => {
  bed = await startCliBed({ name: 'cli-background-worker', token: TOKEN, seed: 11 });
  dataDir = path.join(bed.dir, 'data');
  // The default: the test bed sets nothing about the background worker.
  expect(bed.env['SCRAPE_ETL_BACKGROUND_WORKER']).toBeUndefined();
  env = bed.env;
  inProcessEnv = { ...bed.env, SCRAPE_ETL_BACKGROUND_WORKER: '0' };
});

afterAll(async () => {
  const pid = worker()?.pid;
  if (pid && isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
  await bed?.close();
});

describe('run with the background worker (the default on the embedded server)', () => {
  it('starts the worker once, reuses it, and prints and loads what an in-process run does', async () => {
    const file = pipeline('reuse', 3);
    const first = await runCli(['run', '--json', file], { cwd: bed.dir, env, timeoutMs: 120_000 });
    expect(first.code, first.stderr).toBe(0);
    const started = worker();
    expect(started && isProcessAlive(started.pid)).toBe(true);
    expect(started!.cwd).toBe(fs.realpathSync(bed.dir));

    const second = await runCli(['run', '--new', '--json', file], { cwd: bed.dir, env, timeoutMs: 60_000 });
    expect(second.code, second.stderr).toBe(0);
    expect(worker()?.pid).toBe(started!.pid);

    // Plain output goes to the client's own stdout and stderr.
    const plain = await runCli(['run', '--new', file], { cwd: bed.dir, env, timeoutMs: 60_000 });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/^pipeline reuse succeeded \(reuse--/);
    expect(plain.stderr).toMatch(/^started reuse--/);
    expect(plain.stderr).toContain('and so does the background worker');
    expect(plain.stdout + plain.stderr).not.toContain(TOKEN);
    expect(worker()?.pid).toBe(started!.pid);
    // The same command without the background worker (which it stops: another environment): the same result, rows.
    const inProcess = await runCli(['run', '--new', '--json', file], { cwd: bed.dir, env: inProcessEnv, timeoutMs: 90_000 });
    expect(inProcess.code, inProcess.stderr).toBe(0);
    expect(inProcess.stderr).not.toContain('background worker');
    const shape = (stdout: string) => jsonLines(stdout).map((l): Record<string, unknown> => ({ ...l, workflowId: typeof l['workflowId'] }));
    const resultOf = (stdout: string) => shape(stdout).filter((l) => l['type'] === 'result');
    expect(resultOf(second.stdout)).toEqual(resultOf(inProcess.stdout));
    expect(jsonLines(first.stdout).at(-1)).toMatchObject({ type: 'result', status: 'succeeded', rowsByTable: { marketplace_products: 3 } });
    expect(products('reuse')).toBe(3);

    expect(fs.readFileSync(path.join(dataDir, 'temporal', 'background-worker.log'), 'utf8')).not.toContain(TOKEN);
  });

  it('shows the SDK lines of a run to the --verbose command it serves, as an in-process run does; not without --verbose', async () => {
    const file = pipeline('verbose', 2);
    const first = await runCli(['run', '--new', file], { cwd: bed.dir, env, timeoutMs: 60_000 });
    expect(first.code, first.stderr).toBe(0);
    const served = worker()!;
    const verbose = await runCli(['run', '--new', '--verbose', file], { cwd: bed.dir, env, timeoutMs: 60_000 });
    expect(verbose.code, verbose.stderr).toBe(0);
    expect(worker()!.pid).toBe(served.pid);
    // The activities of this run, as the SDK logs them in the worker that carried them out, to the last one (the
    // SDK buffers its lines; the command gets them before it ends), and no line of another pipeline's run.
    const sdk = verbose.stderr.split('\n').filter((l) => l.includes('"sdk":true'));
    const activities = sdk.map((l) => /"activityType":"(\w+)".*"msg":"Activity completed"/.exec(l)?.[1]).filter(Boolean);
    expect(activities).toEqual(['planPipelineRun', 'beginPipelineRun', 'loadUrlChunk', 'finishPipelineRun', 'notifyPipelineRun']);
    for (const l of sdk) expect(l).toMatch(/"workflowId":"verbose--|^(?!.*"workflowId")/);
    const quiet = await runCli(['run', '--new', file], { cwd: bed.dir, env, timeoutMs: 60_000 });
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toContain('"sdk":true');
  });

  it('answers a bad pipeline file as the command does: its message, exit 2', async () => {
    const missing = path.join(bed.dir, 'missing.yaml');
    const viaWorker = await runCli(['run', missing], { cwd: bed.dir, env });
    const inProcess = await runCli(['run', missing], { cwd: bed.dir, env: inProcessEnv });
    expect(viaWorker.code).toBe(2);
    // The same message, after the line that says the background worker is starting (when it was not running).
    expect(viaWorker.stderr.replace(/^starting the background worker \(pid \d+; log .*\)\n/, '')).toBe(inProcess.stderr);
    const bad = await runCli(['run', missing], { cwd: bed.dir, env: { ...env, SCRAPE_ETL_BACKGROUND_WORKER: 'yes' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("SCRAPE_ETL_BACKGROUND_WORKER='yes' must be 1 or 0");
  });

  it('is replaced by a run of another environment; the old worker stops polling and exits', async () => {
    const file = pipeline('replace', 1);
    const before = await runCli(['run', file], { cwd: bed.dir, env, timeoutMs: 60_000 });
    expect(before.code, before.stderr).toBe(0);
    const old = worker()!;
    const other = await runCli(['run', '--new', file], { cwd: bed.dir, env: { ...env, SCRAPE_ETL_LOG_LEVEL: 'error' }, timeoutMs: 120_000 });
    expect(other.code, other.stderr).toBe(0);
    const now = worker()!;
    expect(now.pid).not.toBe(old.pid);
    expect(now.key).not.toBe(old.key);
    await until('the replaced worker exited', () => !isProcessAlive(old.pid));
  });

  it('leaves no socket behind after a SIGKILL once the next worker starts', async () => {
    const file = pipeline('killed', 1);
    const r = await runCli(['run', '--new', file], { cwd: bed.dir, env, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const killed = worker()!;
    process.kill(killed.pid, 'SIGKILL');
    await until('the killed worker is gone', () => !isProcessAlive(killed.pid));
    expect(fs.existsSync(killed.socket)).toBe(true);
    const next = await runCli(['run', '--new', file], { cwd: bed.dir, env: { ...env, SCRAPE_ETL_LOG_LEVEL: 'error' }, timeoutMs: 120_000 });
    expect(next.code, next.stderr).toBe(0);
    const sockets = fs.readdirSync(path.join(dataDir, 'temporal')).filter((f) => f.endsWith('.sock'));
    expect(sockets).toEqual([path.basename(worker()!.socket)]);
  });

  it('is stopped by an in-process run of another environment (the setting turned off), which would share its queue', async () => {
    const file = pipeline('turned-off', 1);
    const r = await runCli(['run', file], { cwd: bed.dir, env, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const live = worker()!;
    const inProcess = await runCli(['run', '--new', '--json', file], { cwd: bed.dir, env: inProcessEnv, timeoutMs: 90_000 });
    expect(inProcess.code, inProcess.stderr).toBe(0);
    await until('the background worker exited', () => !isProcessAlive(live.pid));
    expect(worker()).toBeUndefined();
  });

  it('is stopped by a detached run of another environment, which it would otherwise carry out', async () => {
    const r = await runCli(['run', '--new', pipeline('before-detach', 1)], { cwd: bed.dir, env, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const live = worker()!;
    const detached = await runCli(['run', '--detach', pipeline('detached-elsewhere', 5)], { cwd: bed.dir, env: inProcessEnv, timeoutMs: 90_000 });
    expect(detached.code, detached.stderr).toBe(0);
    await until('the background worker exited', () => !isProcessAlive(live.pid));
    expect(fs.readFileSync(path.join(dataDir, 'temporal', 'background-worker.log'), 'utf8')).toContain(`(pid ${live.pid}): retiring: replaced by a worker of another identity`);
    // Nothing of another environment works on the detached run (it waits for a worker, as the command warns).
    await new Promise((r) => setTimeout(r, 2000));
    expect(products('detached-elsewhere')).toBe(0);
  });

  it('is stopped by `schedule trigger` and `schedule backfill` of another environment, which start runs now; `schedule apply` leaves it', async () => {
    for (const [command, ...args] of [['trigger'], ['backfill', '--start', '2026-01-01T00:00:00Z', '--end', '2026-01-06T00:00:00Z']] as const) {
      const name = `${command}-elsewhere`;
      const file = pipeline(name, 5);
      fs.appendFileSync(file, 'schedule:\n  cron: "15 4 * * 1"\n');
      const r = await runCli(['run', '--new', pipeline(`before-${command}`, 1)], { cwd: bed.dir, env, timeoutMs: 60_000 });
      expect(r.code, r.stderr).toBe(0);
      const live = worker()!;
      // Applying starts no run now: scheduled runs are for whichever worker polls when they come, as on a cluster.
      const applied = await runCli(['schedule', 'apply', file], { cwd: bed.dir, env: inProcessEnv, timeoutMs: 60_000 });
      expect(applied.code, applied.stderr).toBe(0);
      expect(isProcessAlive(live.pid)).toBe(true);
      const started = await runCli(['schedule', command, name, ...args], { cwd: bed.dir, env: inProcessEnv, timeoutMs: 60_000 });
      expect(started.code, started.stderr).toBe(0);
      await until('the background worker exited', () => !isProcessAlive(live.pid));
      expect(fs.readFileSync(path.join(dataDir, 'temporal', 'background-worker.log'), 'utf8')).toContain(`(pid ${live.pid}): retiring: replaced by a worker of another identity`);
      // Nothing of another environment works on the started run: it waits for a worker (the next one takes it).
      await new Promise((r) => setTimeout(r, 2000));
      expect(productsIfAny(name)).toBe(0);
    }
  });

  it('is stopped by a `scrape-etl worker` of another environment on the embedded server', async () => {
    const r = await runCli(['run', '--new', pipeline('beside-worker', 1)], { cwd: bed.dir, env, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    const live = worker()!;
    const child = spawn(process.execPath, [CLI, 'worker'], { cwd: bed.dir, env: { ...process.env, ...inProcessEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      await until('the worker polls', () => /polling task queue/.test(stderr), 60_000);
      expect(stderr).toContain(`stopped the background worker (pid ${live.pid}) of another environment`);
      await until('the background worker exited', () => !isProcessAlive(live.pid));
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('leaves an interrupted run to the worker, which finishes it with no command waiting', async () => {
    const file = pipeline('interrupt', 400);
    const child = spawn(process.execPath, [CLI, 'run', file], { cwd: bed.dir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.resume();
    const code = new Promise<number | null>((resolve) => child.on('close', resolve));
    await until('the run started', () => /started interrupt--/.test(stderr), 120_000);
    child.kill('SIGINT');
    expect(await code, stderr).toBe(130);
    expect(stderr).toMatch(/interrupted: run interrupt--\S+ keeps running in Temporal; resume with: scrape-etl run /);
    // Nobody waits any more; the background worker goes on with the run until it is done.
    await until('the interrupted run loaded every URL', () => fs.existsSync(path.join(bed.dir, 'interrupt.sqlite')) && products('interrupt') === 400, 120_000);
    // The same command again picks the remembered run up: completed by now, or about to (its last steps).
    const after = await runCli(['run', '--json', file], { cwd: bed.dir, env, timeoutMs: 60_000 });
    expect(after.code, after.stderr).toBe(0);
    expect(jsonLines(after.stdout).at(-1)).toMatchObject({ type: 'result', status: 'succeeded', attached: true });
  });

  it('exits when its Temporal server is gone, and a later run starts a new worker and the server', async () => {
    const file = pipeline('stale', 1);
    const first = await runCli(['run', file], { cwd: bed.dir, env, timeoutMs: 120_000 });
    expect(first.code, first.stderr).toBe(0);
    const old = worker()!;
    await stopDevServer({ dataDir });
    // With no command to tell it: it watches its server, so it does not poll a dead address for its idle time.
    await until('the worker of the stopped server exited', () => !isProcessAlive(old.pid), 20_000);
    expect(fs.readFileSync(path.join(dataDir, 'temporal', 'background-worker.log'), 'utf8')).toMatch(new RegExp(`\\(pid ${old.pid}\\): retiring: its embedded Temporal server \\(pid \\d+\\) is gone`));
    const again = await runCli(['run', '--new', '--json', file], { cwd: bed.dir, env, timeoutMs: 120_000 });
    expect(again.code, again.stderr).toBe(0);
    expect(jsonLines(again.stdout).at(-1)).toMatchObject({ type: 'result', status: 'succeeded' });
    expect(worker()!.pid).not.toBe(old.pid);
  });

  it('works on a detached run: no "no worker" warning, the rows arrive with nobody waiting', async () => {
    const file = pipeline('detached', 20);
    const r = await runCli(['run', '--detach', '--json', file], { cwd: bed.dir, env, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('no worker');
    expect(jsonLines(r.stdout)).toEqual([expect.objectContaining({ type: 'started', attached: false })]);
    await until('the detached run loaded its URLs', () => fs.existsSync(path.join(bed.dir, 'detached.sqlite')) && products('detached') === 20, 60_000);
  });

  it('Ctrl-C while the background worker starts: the command exits at once with 130', async () => {
    // A Temporal CLI that waits 60 s before it starts the server: the worker is certainly still starting.
    const slow = path.join(bed.dir, 'slow-temporal');
    fs.writeFileSync(slow, `#!/bin/sh\nsleep 60\nexec '${await findTemporalCli()}' "$@"\n`, { mode: 0o755 });
    const slowData = path.join(bed.dir, 'slow-data');
    const child = spawn(process.execPath, [CLI, 'run', pipeline('slow', 1)], {
      cwd: bed.dir,
      env: { ...process.env, ...env, SCRAPE_ETL_DATA_DIR: slowData, TEMPORAL_CLI_PATH: slow },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = new Promise<number | null>((resolve) => child.on('close', resolve));
    let workerPid: number | undefined;
    try {
      await until('the background worker is starting', () => (workerPid = Number(/starting the background worker \(pid (\d+)/.exec(stderr)?.[1])) > 0, 30_000);
      await new Promise((r) => setTimeout(r, 300));
      child.kill('SIGINT');
      const exit = await Promise.race([code, new Promise<'still running'>((r) => setTimeout(() => r('still running'), 20_000))]);
      expect(exit, stderr).toBe(130);
      expect(stderr).toContain('interrupted while starting: no run was started or attached');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      if (workerPid && isProcessAlive(workerPid)) process.kill(workerPid, 'SIGKILL');
      const serverPid = readDevServerState(slowData)?.pid;
      if (serverPid && isProcessAlive(serverPid)) process.kill(-serverPid, 'SIGKILL');
    }
  });

  it('is stopped by `server stop`, and exits by itself when idle', async () => {
    const file = pipeline('stop', 1);
    const r = await runCli(['run', file], { cwd: bed.dir, env, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    const pid = worker()!.pid;
    const status = await runCli(['server', 'status', '--json'], { cwd: bed.dir, env });
    expect(JSON.parse(status.stdout)).toMatchObject({ running: true, backgroundWorker: { pid } });
    const stop = await runCli(['server', 'stop'], { cwd: bed.dir, env, timeoutMs: 60_000 });
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toContain(`stopped the background worker (pid ${pid})`);
    expect(isProcessAlive(pid)).toBe(false);
    expect(worker()).toBeUndefined();

    const idleEnv = { ...env, SCRAPE_ETL_BACKGROUND_WORKER_IDLE_SECONDS: '1' };
    const idle = await runCli(['run', '--new', file], { cwd: bed.dir, env: idleEnv, timeoutMs: 120_000 });
    expect(idle.code, idle.stderr).toBe(0);
    const idlePid = worker()!.pid;
    await until('the idle worker exited', () => !isProcessAlive(idlePid), 20_000);
    expect(worker()).toBeUndefined();
    expect(fs.readFileSync(path.join(dataDir, 'temporal', 'background-worker.log'), 'utf8')).toContain('retiring: idle for 1 s');
  });
});
