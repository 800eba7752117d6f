// Waiting that explains itself (issue 26), as a user sees it with `scrape-etl run` (embedded dev server, in-process
// worker, SQLite): the scraping service goes down once the run has started and comes back later, on the same port.
// (A service that cannot be reached when `run` starts is a wrong address: `run` fails at once, cli-service-check.test.ts.)
// - A sync kind (marketplace) rides out the outage for its polling.deadline: before, every URL failed after ~15 s
//   and the run failed (AllUrlsFailed); now it succeeds once the service is back, having said why it waited.
// - An async kind (pdf) whose create call Temporal retries says the activity's last failure and next attempt:
//   before, `creating 0 rows` for minutes with no reason.
// The outage here lasts ~25 s, longer than the ~15 s after which the sync kind gave up before.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { stopDevServer } from '../../../temporal/dev-server.js';
import { CLI } from '../../support/cli.js';

const TOKEN = 'cli-waiting-token';
const OUTAGE_MS = 25_000;
let dir: string;
let sim: RunningSimulator | undefined;
let port: number;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-waiting-'));
  // A port the service will come back on: the simulator's, taken and given back.
  const first = await startSimulator({ token: TOKEN, seed: 4, runDurationMs: 500 });
  port = first.port;
  await first.close();
  env = {
    SCRAPER_BASE_URL: `http://127.0.0.1:${port}`,
    SCRAPER_API_TOKEN: TOKEN,
    SCRAPE_ETL_DATA_DIR: path.join(dir, 'data'),
    SCRAPE_ETL_BACKGROUND_WORKER: '0',
    TEMPORAL_ADDRESS: '',
    DATABASE_URL: '',
  };
}, 60_000);

afterAll(async () => {
  await sim?.close();
  await stopDevServer({ dataDir: path.join(dir, 'data') });
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs `scrape-etl run` with the service up, takes it down once `run` has looked at it and goes on to run its worker,
 * brings it back after OUTAGE_MS; returns the output.
 */
async function runThroughOutage(
  file: string,
): Promise<{ code: number | null; stdout: string; stderr: string; waitedLines: string[] }> {
  sim = await startSimulator({ token: TOKEN, seed: 4, runDurationMs: 500, port });
  const child = spawn(process.execPath, [CLI, 'run', file], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  // Down once `run` checked the service and starts its worker (the first call comes after the worker polls).
  const deadline = Date.now() + 120_000;
  while (!/no worker polls/.test(stderr) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await sim.close();
  // The service comes back once `run` has started the run and waited a while without it.
  while (!/started /.test(stderr) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  await new Promise((r) => setTimeout(r, OUTAGE_MS));
  const waitedLines = stderr.split('\n').filter((l) => l.includes('waiting:'));
  sim = await startSimulator({ token: TOKEN, seed: 4, runDurationMs: 500, port });
  const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
  const code = await closed;
  clearTimeout(timer);
  await sim.close();
  sim = undefined;
  return { code, stdout, stderr, waitedLines };
}

describe('run while the service is down', () => {
  it('a sync kind waits out the outage for polling.deadline, saying why, then succeeds', async () => {
    const file = path.join(dir, 'shop.yaml');
    fs.writeFileSync(
      file,
      [
        'name: shop-outage',
        'kind: marketplace',
        'request:',
        '  urls:',
        '    - https://shopee.tw/api/v2/item/get?itemid=4420309814&shopid=10115139',
        `destination: { database: "sqlite:${path.join(dir, 'shop.sqlite')}" }`,
        'polling: { initial_interval: 2s, backoff_coefficient: 1.5, max_interval: 5s, deadline: 3m }',
      ].join('\n'),
    );
    const r = await runThroughOutage(file);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/pipeline shop-outage succeeded/);
    // While it waited, the reason and the next attempt, one line each time they changed.
    expect(r.waitedLines.length, r.stderr).toBeGreaterThan(0);
    expect(
      r.waitedLines.some((l) =>
        new RegExp(
          `waiting: service unreachable \\(ECONNREFUSED\\) at http://127\\.0\\.0\\.1:${port} \\(SCRAPER_BASE_URL\\), retry \\d+ (in \\d+s|now)`,
        ).test(l),
      ),
      r.waitedLines.join('\n'),
    ).toBe(true);
    expect(r.stdout).toMatch(/marketplace_products\s+1/);
  }, 300_000);

  it("an async kind shows the retried activity's last failure and next attempt while the service is down", async () => {
    const file = path.join(dir, 'pdf.yaml');
    fs.writeFileSync(
      file,
      [
        'name: pdf-outage',
        'kind: pdf',
        'request:',
        '  keywords:',
        '    - { keyword: annual report, prompt: Is this an annual report? }',
        '  expected_pdf: 2',
        `destination: { database: "sqlite:${path.join(dir, 'pdf.sqlite')}" }`,
        'polling: { initial_interval: 1s, backoff_coefficient: 1.5, max_interval: 3s, deadline: 3m }',
      ].join('\n'),
    );
    const r = await runThroughOutage(file);
    expect(
      r.waitedLines.some((l) =>
        new RegExp(
          `waiting: service unreachable \\(ECONNREFUSED\\) at http://127\\.0\\.0\\.1:${port} \\(SCRAPER_BASE_URL\\), retry \\d+ (in \\d+s|now)`,
        ).test(l),
      ),
      r.stderr,
    ).toBe(true);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/pipeline pdf-outage succeeded/);
    // One final line: the outcome is said once, by the summary.
    expect(r.stderr).not.toMatch(/: succeeded/);
    expect(r.stdout.match(/succeeded/g)).toHaveLength(1);
  }, 300_000);
});
