// `scrape-etl up` and `down`, and `run` as a client beside it: the real command, the embedded Temporal dev server
// it starts, a seeded simulator, SQLite destinations read back with Python's sqlite3 (not the writer's driver).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readDevServerState, isProcessAlive, stopDevServer } from '../../../temporal/dev-server.js';
import { startCliBed, type CliBed } from '../../support/cli-bed.js';
import { REPO_ROOT, runCli } from '../../support/cli.js';
import { startTestTemporal } from '../../support/temporal.js';
import { killUps, startUp, until, type UpProcess } from '../../support/up-process.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { REAL_FIXTURES } from '../../support/fixtures.js';

const TOKEN = 'cli-up-test-token';
let bed: CliBed;
const ups: UpProcess[] = [];

beforeAll(async () => {
  bed = await startCliBed({ name: 'up', token: TOKEN, seed: 11 });
});

afterEach(async () => {
  await killUps(ups);
});

afterAll(async () => {
  await bed?.close();
});

/** Rows of a query on an SQLite file, read by Python's sqlite3. */
function sqlite(file: string, sql: string): unknown[][] {
  if (!fs.existsSync(file)) return [];
  const r = spawnSync(
    'python3',
    [
      '-c',
      'import json,sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(json.dumps(c.execute(sys.argv[2]).fetchall()))',
      file,
      sql,
    ],
    {
      encoding: 'utf8',
    },
  );
  if (r.status !== 0) {
    // A table the run has not created yet is "no rows yet", not a failure.
    if (/no such table/.test(r.stderr)) return [];
    throw new Error(r.stderr);
  }
  return JSON.parse(r.stdout) as unknown[][];
}

const productUrl = (i: number) => `https://shopee.tw/api/v2/item/get?itemid=${5_500_000_000 + i}&shopid=10115139`;

function pipeline(dir: string, name: string, urls: number, extra = ''): { file: string; db: string } {
  const db = path.join(dir, `${name}.sqlite`);
  const file = path.join(dir, `${name}.yaml`);
  const list = Array.from({ length: urls }, (_, i) => `    - ${productUrl(i)}`).join('\n');
  fs.writeFileSync(
    file,
    `name: ${name}\nkind: marketplace\nrequest:\n  urls:\n${list}\ndestination:\n  database: sqlite:${db}\n${extra}`,
  );
  return { file, db };
}

function caseEnv(name: string): { dir: string; env: NodeJS.ProcessEnv; dataDir: string } {
  const dir = path.join(bed.dir, name);
  fs.mkdirSync(dir, { recursive: true });
  const dataDir = path.join(dir, 'data');
  return { dir, dataDir, env: { ...bed.env, SCRAPE_ETL_DATA_DIR: dataDir } };
}

describe('scrape-etl up', () => {
  it('works a schedule that fires twice with no other process; the last-success gauge is served, and right again after a restart', async () => {
    const { dir, env, dataDir } = caseEnv('schedule');
    const { file, db } = pipeline(
      dir,
      'up-every',
      1,
      'schedule:\n  cron: "@every 5s"\n  timezone: UTC\n  overlap: skip\n  catchup_window: 1m\n',
    );
    try {
      // Applied with no worker running: created, and a warning that says how to start one.
      const applied = await runCli(['schedule', 'apply', file], { cwd: dir, env, timeoutMs: 120_000 });
      expect(applied.code, applied.stderr).toBe(0);
      expect(applied.stdout).toContain('up-every: created');
      // On the embedded server, schedules fire only while `up` runs (issue 36: apply stops the server it started).
      expect(applied.stderr).toMatch(
        /schedules fire only while `scrape-etl up` runs \(in this data folder\); start it with `scrape-etl up --detach`/,
      );

      const up = startUp(['--metrics-port', '0'], { cwd: dir, env });
      ups.push(up);
      await up.ready();
      expect(up.stdout()).toMatch(/Temporal: +127\.0\.0\.1:\d+ \(embedded dev server/);
      expect(up.stdout()).toMatch(/Web UI: +http:\/\/127\.0\.0\.1:\d+/);
      expect(up.stdout()).toMatch(/workers: +1 polling task queue 'scrape-etl'/);
      expect(up.stdout()).toMatch(/schedules: +1 on this task queue \(1 active\)/);

      // Nothing else runs: the schedule's own actions, worked on by up's worker, finish twice.
      const succeeded = await until(
        'two scheduled runs succeeded',
        () => {
          const rows = sqlite(
            db,
            "SELECT workflow_id, finished_at FROM pipeline_runs WHERE status = 'succeeded' AND workflow_id LIKE 'up-every--scheduled-%' ORDER BY finished_at",
          );
          return rows.length >= 2 ? rows : undefined;
        },
        180_000,
      );
      expect(new Set(succeeded.map((r) => r[0])).size).toBe(succeeded.length);
      // A worker polls now: apply says nothing more.
      const again = await runCli(['schedule', 'apply', file], { cwd: dir, env });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).not.toMatch(/no worker polls/);

      const metricsUrl = up.metricsUrl();
      expect(metricsUrl).toBeDefined();
      const gauge = async (url: string) => {
        const text = await (await fetch(url)).text();
        const m = /^scrape_etl_pipeline_last_success_timestamp_seconds\{pipeline="up-every"\} (\S+)$/m.exec(text);
        return m ? Number(m[1]) : undefined;
      };
      const live = await until('the gauge', () => gauge(metricsUrl!), 30_000);
      expect(live).toBeGreaterThan(Date.now() / 1000 - 600);

      // Paused, not deleted: up reads its scheduled pipelines' destinations at start.
      const paused = await runCli(['schedule', 'pause', 'up-every'], { cwd: dir, env });
      expect(paused.code, paused.stderr).toBe(0);
      const serverPid = readDevServerState(dataDir)?.pid;
      expect(serverPid).toBeTruthy();
      up.child.kill('SIGTERM');
      const exit = await up.exited;
      // Ended by SIGTERM: 143, as every command (README, "Exit codes"; issue 36: it was 0).
      expect(exit.code, up.stderr()).toBe(143);
      expect(up.stderr()).toMatch(/stopped the embedded Temporal server/);
      expect(isProcessAlive(serverPid!)).toBe(false);

      // After a restart the gauge is there at once, from the destination's pipeline_runs (no run finished since).
      const lastFinished = Date.parse(
        String(sqlite(db, "SELECT max(finished_at) FROM pipeline_runs WHERE status = 'succeeded'")[0]![0]),
      );
      const restarted = startUp(['--metrics-port', '0'], { cwd: dir, env });
      ups.push(restarted);
      await restarted.ready();
      const seeded = await gauge(restarted.metricsUrl()!);
      expect(seeded).toBeDefined();
      expect(Math.abs(seeded! * 1000 - lastFinished)).toBeLessThan(1000);
      expect(restarted.stdout()).toMatch(/schedules: +1 on this task queue \(0 active\)/);
    } finally {
      await stopDevServer({ dataDir });
    }
  }, 420_000);

  it('killed (SIGKILL) and started again, resumes an open run to completion with no duplicate rows; `run` beside it loads no worker code', async () => {
    const { dir, env, dataDir } = caseEnv('resume');
    const urls = 24;
    // Slow answers, one URL at a time: the run is still open when up is killed.
    const { file, db } = pipeline(dir, 'up-resume', urls, 'concurrency: 1\n');
    bed.sim.setFaults({ latencyMs: 400 });
    try {
      const first = startUp([], { cwd: dir, env });
      ups.push(first);
      await first.ready();
      const started = await runCli(['run', '--detach', file], { cwd: dir, env, timeoutMs: 120_000 });
      expect(started.code, started.stderr).toBe(0);
      expect(started.stderr).not.toMatch(/no worker polls/);
      await until('some rows loaded', () => {
        const n = Number(sqlite(db, 'SELECT count(*) FROM marketplace_products')[0]?.[0] ?? 0);
        return n >= 2 ? n : undefined;
      });
      first.child.kill('SIGKILL');
      await first.exited;
      const partial = Number(sqlite(db, 'SELECT count(*) FROM marketplace_products')[0]![0]);
      expect(partial).toBeLessThan(urls);

      const second = startUp([], { cwd: dir, env });
      ups.push(second);
      await second.ready();
      // `run` of the same file attaches to the remembered run and waits for it, as a client of up's worker.
      const modules = path.join(dir, 'modules.txt');
      const waited = await runCli(['run', file], {
        cwd: dir,
        env: {
          ...env,
          NODE_OPTIONS: `--import ${path.join(REPO_ROOT, 'test', 'support', 'record-modules.mjs')}`,
          RECORD_MODULES_FILE: modules,
        },
        timeoutMs: 300_000,
      });
      expect(waited.code, waited.stderr).toBe(0);
      expect(waited.stderr).toMatch(/resuming unfinished run up-resume--/);
      expect(waited.stderr).not.toMatch(/no worker polls/);
      expect(waited.stdout).toMatch(/pipeline up-resume succeeded/);

      const loaded = fs.readFileSync(modules, 'utf8').split('\n').filter(Boolean);
      // The recorder works: the Temporal client and the command's own modules are in the list.
      expect(loaded.some((m) => m.includes('/@temporalio/client/'))).toBe(true);
      expect(loaded.some((m) => m.includes('/dist/cli/commands/run.js'))).toBe(true);
      const forbidden = [
        '/@temporalio/worker/',
        '/@temporalio/core-bridge/',
        '/drizzle-orm/',
        '/node_modules/pg/',
        '/better-sqlite3/',
        '/@duckdb/',
        '/dist/activities/',
        '/dist/destinations/open.js',
      ];
      expect(loaded.filter((m) => forbidden.some((f) => m.includes(f)))).toEqual([]);

      // Every URL once: the rows loaded before the kill were not loaded again, and none is missing.
      expect(sqlite(db, 'SELECT count(*), count(DISTINCT item_id) FROM marketplace_products')[0]).toEqual([urls, urls]);
      expect(sqlite(db, 'SELECT count(*), min(status) FROM pipeline_runs')[0]).toEqual([1, 'succeeded']);
    } finally {
      bed.sim.setFaults({ latencyMs: 0 });
      await stopDevServer({ dataDir });
    }
  }, 600_000);

  it('--detach leaves it running with a pid file and a log; `down` stops it and the embedded server; `run` then says on one line that no worker polls', async () => {
    const { dir, env, dataDir } = caseEnv('detach');
    try {
      const detached = await runCli(['up', '--detach'], { cwd: dir, env, timeoutMs: 200_000 });
      expect(detached.code, detached.stderr).toBe(0);
      const pidFile = /pid file: (\S+)/.exec(detached.stdout)?.[1];
      const logFile = /log: +(\S+)/.exec(detached.stdout)?.[1];
      expect(pidFile).toBe(path.join(dataDir, 'up.pid'));
      expect(logFile).toBe(path.join(dataDir, 'up.log'));
      expect(detached.stdout).toMatch(/workers: +1 polling task queue 'scrape-etl'/);
      expect(detached.stdout).toContain('stop it with: scrape-etl down');
      const pid = Number(fs.readFileSync(pidFile!, 'utf8').trim());
      expect(isProcessAlive(pid)).toBe(true);
      expect(fs.readFileSync(logFile!, 'utf8')).toMatch(/scrape-etl up \(pid \d+\)/);
      // A second one for the same data folder is refused.
      const second = await runCli(['up', '--detach'], { cwd: dir, env });
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`scrape-etl up already runs for ${dataDir} (pid ${pid}`);
      const serverPid = readDevServerState(dataDir)?.pid;
      const status = await runCli(['server', 'status'], { cwd: dir, env });
      expect(status.stdout).toContain(`scrape-etl up running: pid ${pid}, 1 worker(s)`);
      // The server is not stopped from under its workers.
      const stop = await runCli(['server', 'stop'], { cwd: dir, env });
      expect(stop.code).toBe(1);
      expect(stop.stderr).toContain(
        `scrape-etl up (pid ${pid}) runs on this embedded server; \`scrape-etl down\` stops both`,
      );
      expect(isProcessAlive(serverPid!)).toBe(true);

      const down = await runCli(['down'], { cwd: dir, env, timeoutMs: 120_000 });
      expect(down.code, down.stderr).toBe(0);
      expect(down.stdout).toMatch(new RegExp(`stopped scrape-etl up \\(pid ${pid}\\) in [0-9.]+ s`));
      expect(isProcessAlive(pid)).toBe(false);
      expect(isProcessAlive(serverPid!)).toBe(false);
      expect(fs.existsSync(pidFile!)).toBe(false);
      const downAgain = await runCli(['down'], { cwd: dir, env });
      // Nothing runs: 1, as `server status` (issue 36: it was 0, on stdout).
      expect(downAgain.code).toBe(1);
      expect(downAgain.stderr).toContain('nothing to stop');

      // No worker now: `run` says so on one line, with the command that starts one, and works on the run itself.
      const { file } = pipeline(dir, 'up-alone', 1);
      const alone = await runCli(['run', file], { cwd: dir, env, timeoutMs: 180_000 });
      expect(alone.code, alone.stderr).toBe(0);
      const lines = alone.stderr.split('\n').filter((l) => /no worker polls/.test(l));
      expect(lines).toEqual([
        "no worker polls task queue 'scrape-etl' now: running one in this process for this run only (start a long-lived one with `scrape-etl up` (or `scrape-etl up --detach` to leave it running in the background))",
      ]);
    } finally {
      await runCli(['down'], { cwd: dir, env }).catch(() => undefined);
      await stopDevServer({ dataDir });
    }
  }, 400_000);

  it("with TEMPORAL_ADDRESS starts no embedded server; a `run` beside it is worked on with the worker's environment (its token), not the caller's", async () => {
    const temporal = await startTestTemporal();
    const { dir, env, dataDir } = caseEnv('cluster');
    const clusterEnv = { ...env, TEMPORAL_ADDRESS: temporal.address };
    try {
      const up = startUp(['--workers', '2'], { cwd: dir, env: clusterEnv });
      ups.push(up);
      await up.ready();
      expect(up.stdout()).toContain(`Temporal:   ${temporal.address} (TEMPORAL_ADDRESS)`);
      expect(up.stdout()).toMatch(/workers: +2 polling task queue 'scrape-etl'/);
      expect(fs.existsSync(path.join(dataDir, 'temporal'))).toBe(false);
      // The caller has another token and no service address: only the worker's environment is used.
      const { file, db } = pipeline(dir, 'up-cluster', 2);
      const r = await runCli(['run', file], {
        cwd: dir,
        env: { ...clusterEnv, SCRAPER_API_TOKEN: 'a-token-of-another-shell', SCRAPER_BASE_URL: '' },
        timeoutMs: 180_000,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/started up-cluster--\S+ \(worked on by the worker polling the task queue\)/);
      expect(sqlite(db, 'SELECT count(*) FROM marketplace_products')[0]).toEqual([2]);
      up.child.kill('SIGINT');
      expect((await up.exited).code, up.stderr()).toBe(130);
      // Its cluster goes on: up stops only an embedded server.
      expect(await temporal.client.workflowService.getSystemInfo({})).toBeDefined();
    } finally {
      await temporal.stop();
    }
  }, 400_000);

  it("sends did_not_run once per missed fire (skipped behind a run that hangs) to the pipeline's webhooks, recorded and shown in history, also across a restart of up", async () => {
    const { dir, env, dataDir } = caseEnv('missed');
    const db = path.join(dir, 'missed.sqlite');
    const file = path.join(dir, 'up-missed.yaml');
    // Two receivers: one accepts; one answers a redirect, which is reported with its Location (never followed).
    const posts: Array<{
      path: string;
      event: string | undefined;
      key: string | undefined;
      body: Record<string, unknown>;
    }> = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        posts.push({
          path: req.url ?? '',
          event: req.headers['x-scrape-etl-event'] as string | undefined,
          key: req.headers['idempotency-key'] as string | undefined,
          body: JSON.parse(body) as Record<string, unknown>,
        });
        if (req.url === '/moved')
          res.writeHead(302, { location: 'https://hooks.example.com/final?token=secret-in-query' }).end();
        else res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    fs.writeFileSync(
      file,
      `name: up-missed\nkind: leads-social\nrequest:\n  keywords: AI\n  sentiment_type: positive\n  expected_data: 5\n` +
        `destination:\n  database: sqlite:${db}\nschedule:\n  cron: "@every 5s"\n  timezone: UTC\n  overlap: skip\n  catchup_window: 1m\n` +
        // The first webhook names no events: did_not_run is in the default list.
        `notify:\n  webhooks:\n    - url: ${base}/ok\n    - url: ${base}/moved\n      on: [did_not_run]\n`,
    );
    const upEnv = { ...env, SCRAPE_ETL_UP_WATCH_SECONDS: '2', SCRAPE_ETL_UP_MISSED_GRACE_SECONDS: '3' };
    const ok = () => posts.filter((p) => p.path === '/ok');
    // Every scraping run stays 'running': the first scheduled run never ends, and `skip` drops the next fires.
    bed.sim.setFaults({ runHangRate: 1 });
    try {
      const up = startUp(['--metrics-port', '0'], { cwd: dir, env: upEnv });
      ups.push(up);
      await up.ready();
      const applied = await runCli(['schedule', 'apply', file], { cwd: dir, env });
      expect(applied.code, applied.stderr).toBe(0);
      await until('two missed fires alerted', () => (ok().length >= 2 ? true : undefined), 180_000);
      const failures = async () => {
        const text = await (await fetch(up.metricsUrl()!)).text();
        return /^scrape_etl_alert_delivery_failures_total\{event="did_not_run",reason="redirect"\} (\d+)$/m.exec(
          text,
        )?.[1];
      };
      expect(Number(await until('the failure metric', failures, 30_000))).toBeGreaterThanOrEqual(1);
      up.child.kill('SIGTERM');
      expect((await up.exited).code, up.stderr()).toBe(143);
      const stoppedAt = Date.now();
      const before = ok().length;

      // Fires pass while up (and its embedded server) is down; the restarted up finds them, once, and sends none again.
      await new Promise((r) => setTimeout(r, 12_000));
      const again = startUp([], { cwd: dir, env: upEnv });
      ups.push(again);
      await again.ready();
      const downtime = (p: { body: Record<string, unknown> }) => {
        const t = Date.parse(String(p.body['scheduled_at']));
        return t > stoppedAt && t < stoppedAt + 12_000;
      };
      await until(
        'a fire missed while up was down alerted after its restart',
        () => (ok().some(downtime) ? true : undefined),
        180_000,
      );
      await new Promise((r) => setTimeout(r, 6000));
      again.child.kill('SIGTERM');
      expect((await again.exited).code, again.stderr()).toBe(143);
      expect(ok().length).toBeGreaterThan(before);

      // Exactly one POST per missed fire and webhook, none for the fire that started the run.
      const fires = ok().map((p) => String(p.body['scheduled_at']));
      expect(new Set(fires).size).toBe(fires.length);
      const moved = posts.filter((p) => p.path === '/moved').map((p) => String(p.body['scheduled_at']));
      expect(new Set(moved).size).toBe(moved.length);
      expect([...moved].sort()).toEqual([...fires].sort());
      const started = sqlite(
        db,
        "SELECT scheduled_at FROM pipeline_runs WHERE workflow_id LIKE 'up-missed--scheduled-%'",
      ).map((r) => Date.parse(String(r[0])));
      expect(started.length).toBeGreaterThanOrEqual(1);
      for (const f of fires) expect(started).not.toContain(Date.parse(f));
      for (const p of ok()) {
        const at = String(p.body['scheduled_at']);
        const workflowId = `up-missed--did-not-run-${at.replace(/\.\d{3}Z$/, 'Z')}`;
        expect(p.event).toBe('did_not_run');
        expect(p.key).toBe(`scrape-etl:${workflowId}:did_not_run`);
        expect(p.body).toMatchObject({
          source: 'scrape-etl',
          event: 'did_not_run',
          status: 'did_not_run',
          pipeline: 'up-missed',
          kind: 'leads-social',
          schedule_id: 'up-missed',
          workflow_id: workflowId,
          idempotency_key: p.key,
        });
        expect(String(p.body['detail'])).toContain(
          `schedule up-missed of pipeline up-missed did not run at ${at}: skipped by its overlap policy (skip) while the run up-missed--scheduled-`,
        );
        expect(String(p.body['detail'])).toContain('`scrape-etl schedule describe up-missed` shows its recent actions');
      }
      // A fire that passed while up was down says so.
      expect(String(ok().find(downtime)!.body['cause'])).toContain(
        '`scrape-etl up` (the worker) was not running at that time',
      );
      // Said once per fire on up's output, across both processes.
      const said =
        `${up.stderr()}${again.stderr()}`.match(/warning: schedule up-missed of pipeline up-missed did not run at/g) ??
        [];
      expect(said).toHaveLength(fires.length);

      // Recorded: a did_not_run row per fire with the alert's outcome (the redirect, without the query), and the
      // accepted deliveries in notify_deliveries.
      const rows = sqlite(
        db,
        "SELECT workflow_id, alert_status, alert_error FROM pipeline_runs WHERE status = 'did_not_run' ORDER BY workflow_id",
      );
      expect(rows).toHaveLength(fires.length);
      for (const [, status, error] of rows) {
        expect(status).toBe('failed');
        expect(String(error)).toContain(
          '1 of 2 alert(s) not delivered: webhook #2 (pipeline, json, event did_not_run) to 127.0.0.1',
        );
        expect(String(error)).toContain('HTTP 302, redirect to https://hooks.example.com/final (not followed');
        expect(String(error)).not.toContain('secret-in-query');
      }
      expect(
        sqlite(db, "SELECT count(*) FROM notify_deliveries WHERE event = 'did_not_run' AND http_status = 200")[0]![0],
      ).toBe(fires.length);
      const history = await runCli(['history', file, '--limit', '100'], { cwd: dir, env });
      expect(history.code, history.stderr).toBe(0);
      expect(history.stdout).toMatch(
        /DID_NOT_RUN .*up-missed--did-not-run-\S+ +schedule up-missed of pipeline up-missed did not run at/,
      );
      expect(history.stdout).toContain('alert not delivered: 1 of 2 alert(s) not delivered');
      // Missed fires are events counted apart from the runs (issue 36), not runs of status did_not_run.
      expect(history.stdout).toContain(`${fires.length} missed fire${fires.length === 1 ? '' : 's'}; `);
    } finally {
      bed.sim.setFaults({ runHangRate: 0 });
      await runCli(['schedule', 'delete', 'up-missed'], { cwd: dir, env }).catch(() => undefined);
      await new Promise<void>((r) => receiver.close(() => r()));
      await stopDevServer({ dataDir });
    }
  }, 600_000);
  it('--console serves the read-only console over the destination beside the workers, and stops with up', async () => {
    const { dir, env, dataDir } = caseEnv('console');
    const { file, db } = pipeline(dir, 'up-console', 1);
    const consoleEnv = { ...env, DATABASE_URL: `sqlite:${db}` };
    try {
      // No destination yet: up --console says so and starts nothing.
      const early = startUp(['--console'], { cwd: dir, env: consoleEnv });
      ups.push(early);
      const refused = await early.exited;
      expect(refused.code, early.stderr()).toBe(1);
      expect(early.stderr()).toContain('no destination database exists yet');

      // A first run (no worker polls: a worker in the run process) creates the destination.
      const ran = await runCli(['run', file], { cwd: dir, env: consoleEnv, timeoutMs: 240_000 });
      expect(ran.code, ran.stderr).toBe(0);
      const up = startUp(['--console'], { cwd: dir, env: consoleEnv });
      ups.push(up);
      await up.ready();
      const url = /console: +(http:\/\/127\.0\.0\.1:\d+\S*)/.exec(up.stdout())?.[1];
      expect(url, up.stdout()).toBeDefined();
      const page = await fetch(url!);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('up-console');
      // Read-only: a write is refused.
      expect((await fetch(url!, { method: 'POST' })).status).toBe(405);
      up.child.kill('SIGTERM');
      await up.exited;
      await expect(fetch(url!)).rejects.toThrow();
    } finally {
      await stopDevServer({ dataDir });
    }
  }, 400_000);
  it('evaluates the freshness checks of scheduled pipelines with no run: a stale one is said on its output and check_failed sent once', async () => {
    const { dir, env, dataDir } = caseEnv('freshness');
    const hooks: Array<{ event: string | undefined; body: string }> = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        hooks.push({ event: req.headers['x-scrape-etl-event'] as string | undefined, body });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    // A yearly schedule: it will not fire during the test, so only up's own evaluation can catch the staleness.
    const { file, db } = pipeline(
      dir,
      'up-fresh',
      1,
      `schedule:\n  cron: "0 0 1 1 *"\n  timezone: UTC\nchecks:\n  - type: freshness\n    max_age: 2s\nnotify:\n  webhooks:\n    - url: ${hook}\n      on: [check_failed]\n`,
    );
    try {
      // The pipeline's last success: a load of a real response, recorded as a succeeded run of 'up-fresh'.
      const loaded = await runCli(
        [
          'load',
          'marketplace',
          path.join(REAL_FIXTURES, 'shopee-sync-response-1.json'),
          '--db',
          `sqlite:${db}`,
          '--pipeline',
          'up-fresh',
        ],
        { cwd: dir, env },
      );
      expect(loaded.code, loaded.stderr).toBe(0);
      const applied = await runCli(['schedule', 'apply', file], { cwd: dir, env, timeoutMs: 120_000 });
      expect(applied.code, applied.stderr).toBe(0);
      await new Promise((r) => setTimeout(r, 3000));
      const up = startUp([], {
        cwd: dir,
        env: { ...env, SCRAPE_ETL_UP_WATCH_SECONDS: '1', SCRAPE_ETL_UP_FRESHNESS_SECONDS: '2' },
      });
      ups.push(up);
      await up.ready();
      await until(
        "the stale pipeline said on up's output",
        () => (/pipeline up-fresh: freshness check \S+ fails/.test(up.stderr()) ? true : undefined),
        120_000,
      );
      await until('check_failed delivered', () => (hooks.length > 0 ? true : undefined), 60_000);
      // Several more evaluations (every 2 s): still failing, not alerted again.
      await new Promise((r) => setTimeout(r, 8000));
      expect(hooks.map((h) => h.event)).toEqual(['check_failed']);
      expect(hooks[0]!.body).toContain('up-fresh');
      expect(up.stderr().match(/freshness check \S+ fails/g)).toHaveLength(1);
      // Recorded as `scrape-etl check --freshness` records them.
      expect(
        sqlite(
          db,
          "SELECT count(*) FROM check_results WHERE pipeline = 'up-fresh' AND workflow_id LIKE 'freshness:%' AND status = 'fail'",
        )[0]![0],
      ).toBeGreaterThanOrEqual(2);
    } finally {
      await runCli(['schedule', 'delete', 'up-fresh'], { cwd: dir, env }).catch(() => undefined);
      await new Promise<void>((r) => receiver.close(() => r()));
      await stopDevServer({ dataDir });
    }
  }, 400_000);
});
