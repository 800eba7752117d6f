// `scrape-etl doctor`: a healthy project (the simulator as the service, the token it accepts, a real Temporal dev
// server at TEMPORAL_ADDRESS, a writable SQLite destination, its webhook variable set, a 0600 key file) passes every
// check with exit 0; a wrong token, a wrong SCRAPER_BASE_URL and a 0644 key file each give their fail line (exit 1).
// The JSON is read by Python's json module.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { runCli } from '../../support/cli.js';
import { startTestTemporal, type TestTemporal } from '../../support/temporal.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
let sim: RunningSimulator;
let temporal: TestTemporal;
let proj: string;
let keyFile: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  [sim, temporal] = await Promise.all([
    startSimulator({ port: 0, token: TOKEN, seed: 5, runDurationMs: 1000 }),
    startTestTemporal(),
  ]);
  proj = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-doctor-')));
  fs.writeFileSync(
    path.join(proj, 'scrape-etl.yaml'),
    'pipelines: [pipelines/*.yaml]\ndestination: sqlite:data/main.sqlite\ndata_dir: data\n',
  );
  fs.mkdirSync(path.join(proj, 'pipelines'));
  fs.writeFileSync(
    path.join(proj, 'pipelines', 'shop.yaml'),
    [
      'name: shop',
      'kind: marketplace',
      'request:',
      '  urls: [https://shopee.tw/api/v2/item/get?itemid=1&shopid=2]',
      'notify:',
      '  webhooks:',
      '    - url: ${DOCTOR_HOOK_URL}',
      '',
    ].join('\n'),
  );
  fs.mkdirSync(path.join(proj, 'data'), { mode: 0o700 });
  keyFile = path.join(proj, 'data', 'secret.key');
  fs.writeFileSync(keyFile, `${crypto.randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  env = {
    SCRAPER_BASE_URL: sim.baseUrl,
    SCRAPER_API_TOKEN: TOKEN,
    TEMPORAL_ADDRESS: temporal.address,
    DOCTOR_HOOK_URL: 'http://127.0.0.1:9/hook',
    DATABASE_URL: undefined,
    SCRAPE_ETL_DATA_DIR: undefined,
    SCRAPE_ETL_KEY_FILE: undefined,
    SCRAPE_ETL_PROJECT: undefined,
    SCRAPE_ETL_NOTIFY_URL: undefined,
  };
}, 180_000);

afterAll(async () => {
  await sim?.close();
  await temporal?.stop();
  if (proj) fs.rmSync(proj, { recursive: true, force: true });
});

interface Check {
  check: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
  fix?: string;
}

function pythonJsonLines(text: string): Check[] {
  const out = execFileSync(
    'python3',
    ['-c', 'import json,sys\nprint(json.dumps([json.loads(l) for l in sys.stdin.read().splitlines() if l.strip()]))'],
    { input: text, encoding: 'utf8' },
  );
  return JSON.parse(out) as Check[];
}

async function doctor(extra: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; checks: Check[]; text: string }> {
  const json = await runCli(['doctor', '--json'], {
    cwd: path.join(proj, 'pipelines'),
    env: { ...env, ...extra },
    timeoutMs: 90_000,
  });
  const text = await runCli(['doctor'], { cwd: proj, env: { ...env, ...extra }, timeoutMs: 90_000 });
  expect(text.code, text.stderr).toBe(json.code);
  return { code: json.code, checks: pythonJsonLines(json.stdout), text: text.stdout };
}

const byName = (checks: Check[], name: string): Check => {
  const c = checks.find((x) => x.check === name);
  if (!c) throw new Error(`no check '${name}' among ${checks.map((x) => x.check).join(', ')}`);
  return c;
};

describe('scrape-etl doctor', () => {
  it('a healthy setup passes every check (exit 0), one line each', async () => {
    const r = await doctor();
    expect(
      r.checks.filter((c) => c.status === 'fail'),
      r.text,
    ).toEqual([]);
    expect(r.code, r.text).toBe(0);
    const names = r.checks.map((c) => c.check);
    for (const n of [
      'node',
      'sqlite native module',
      'temporal',
      'destination',
      'scraping service',
      'webhooks',
      'key file',
      'disk space',
      'up',
    ]) {
      expect(
        names.some((x) => x === n || x.startsWith(`${n} `)),
        `${n} in ${names.join(', ')}`,
      ).toBe(true);
    }
    expect(byName(r.checks, 'scraping service')).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining(sim.baseUrl),
    });
    expect(byName(r.checks, 'temporal')).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining(temporal.address),
    });
    expect(byName(r.checks, 'key file')).toMatchObject({ status: 'ok' });
    expect(r.checks.find((c) => c.check.startsWith('destination'))).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining('main.sqlite'),
    });
    expect(byName(r.checks, 'webhooks')).toMatchObject({ status: 'ok' });
    // Everything but `up` (not running here: a warning, not a failure) is ok.
    expect(r.checks.filter((c) => c.status !== 'ok').map((c) => c.check)).toEqual(['up']);
    // The text: one line per check, each starting with its status.
    const lines = r.text.trim().split('\n');
    expect(lines).toHaveLength(r.checks.length + 1);
    for (const l of lines.slice(0, -1)) expect(l).toMatch(/^(ok|warn|fail)\s+\S/);
    // The token is never printed.
    expect(r.text).not.toContain(TOKEN);
  }, 120_000);

  it('a wrong token: the service check fails, naming the variable (exit 1)', async () => {
    const r = await doctor({ SCRAPER_API_TOKEN: 'not-the-token' });
    expect(r.code).toBe(1);
    const c = byName(r.checks, 'scraping service');
    expect(c).toMatchObject({ status: 'fail', detail: expect.stringMatching(/rejected the token|401/) });
    expect(c.fix).toContain('SCRAPER_API_TOKEN');
    expect(r.text).toMatch(/^fail\s+scraping service: .*SCRAPER_API_TOKEN/m);
  }, 120_000);

  it('a wrong SCRAPER_BASE_URL: the service check fails, naming the URL and the variable (exit 1)', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const s = http.createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as AddressInfo;
        s.close(() => resolve(port));
      });
    });
    const wrong = `http://127.0.0.1:${closedPort}`;
    const started = Date.now();
    const r = await doctor({ SCRAPER_BASE_URL: wrong });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(r.code).toBe(1);
    const c = byName(r.checks, 'scraping service');
    expect(c).toMatchObject({ status: 'fail', detail: expect.stringContaining(wrong) });
    expect(`${c.detail} ${c.fix}`).toContain('SCRAPER_BASE_URL');
  }, 120_000);

  it('a TEMPORAL_ADDRESS where nothing listens: the temporal check fails naming it (exit 1)', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const s = http.createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as AddressInfo;
        s.close(() => resolve(port));
      });
    });
    const r = await doctor({ TEMPORAL_ADDRESS: `127.0.0.1:${closedPort}` });
    expect(r.code).toBe(1);
    expect(byName(r.checks, 'temporal')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining(`TEMPORAL_ADDRESS 127.0.0.1:${closedPort} does not answer (ECONNREFUSED)`),
    });
  }, 120_000);

  it('a key file others can read (0644): the key check fails with the chmod that fixes it (exit 1)', async () => {
    fs.chmodSync(keyFile, 0o644);
    try {
      const r = await doctor();
      expect(r.code).toBe(1);
      const c = byName(r.checks, 'key file');
      expect(c).toMatchObject({ status: 'fail', detail: expect.stringContaining('644') });
      expect(c.fix).toBe(`chmod 600 ${keyFile}`);
      expect(r.text).toMatch(/^fail\s+key file: /m);
    } finally {
      fs.chmodSync(keyFile, 0o600);
    }
  }, 120_000);

  it('a webhook variable unset: the webhooks check fails naming the variable and the file, never a value', async () => {
    const r = await doctor({ DOCTOR_HOOK_URL: undefined });
    expect(r.code).toBe(1);
    const c = byName(r.checks, 'webhooks');
    expect(c).toMatchObject({ status: 'fail', detail: expect.stringContaining('DOCTOR_HOOK_URL') });
    expect(c.detail).toContain('shop.yaml');
  }, 120_000);
});
