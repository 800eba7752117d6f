// Every command that takes a pipeline takes it by file and by name (issue 36: `check shop` said
// `shop:1:1: <file>: file not found` although the README shows it). A project whose pipeline writes to its own
// destination (not the default database), runs loaded with `scrape-etl load`; each command is run from a subfolder
// by name and by file, and both must do the same thing on the pipeline's own database. The schedule commands run
// against the embedded Temporal dev server.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScraperClient } from '../../../client/index.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { stopDevServer } from '../../../temporal/dev-server.js';
import { CLI, REPO_ROOT, jsonLines, runCli } from '../../support/cli.js';
import { JOB_SCHEMA } from '../../support/job-schema.js';

const TOKEN = `tok-${crypto.randomBytes(8).toString('hex')}`;
let sim: RunningSimulator;
let root: string;
let sub: string;
let file: string;
const NAME = 'jobs';
const env: NodeJS.ProcessEnv = {
  DATABASE_URL: undefined,
  SCRAPE_ETL_DATA_DIR: undefined,
  SCRAPE_ETL_PROJECT: undefined,
  TEMPORAL_ADDRESS: undefined,
};

beforeAll(async () => {
  sim = await startSimulator({ port: 0, token: TOKEN, seed: 5 });
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-by-name-')));
  sub = path.join(root, 'reports');
  fs.mkdirSync(sub, { recursive: true });
  fs.writeFileSync(path.join(root, 'scrape-etl.yaml'), 'pipelines: [pipelines/*.yaml]\ndata_dir: data\n');
  const example = fs.readFileSync(path.join(REPO_ROOT, 'pipelines', 'examples', 'job-board.yaml'), 'utf8');
  fs.mkdirSync(path.join(root, 'pipelines'));
  file = path.join(root, 'pipelines', 'jobs.yaml');
  fs.writeFileSync(
    file,
    `${example.replace('name: jobs-remote-typescript', `name: ${NAME}\ndestination: { database: "sqlite:warehouse/jobs.sqlite" }`)}\n` +
      'checks:\n  - type: row_count\n    table: job_records\n    scope: table\n    min: 1\n' +
      'schedule: { cron: "0 3 * * *", timezone: UTC }\n',
  );
  const client = new ScraperClient({ baseUrl: sim.baseUrl, token: TOKEN });
  const api = await client.jobBoardScrape({
    urls: ['https://weworkremotely.com/remote-jobs/search?term=p'],
    min: 2,
    max: 5,
    timeout: 60,
    schema: JOB_SCHEMA,
  } as never);
  const answer = path.join(root, 'answer.json');
  fs.writeFileSync(answer, api.raw);
  const r = await runCli(
    [
      'load',
      'job-board',
      answer,
      '--pipeline',
      NAME,
      '--database',
      `sqlite:${path.join(root, 'warehouse', 'jobs.sqlite')}`,
    ],
    { cwd: sub, env },
  );
  expect(r.code, r.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await stopDevServer({ dataDir: path.join(root, 'data') });
  await sim?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** The same command by name and by file (relative to the subfolder it runs in): both exit 0 and print alike. */
async function both(
  args: (pipeline: string) => string[],
  same: (stdout: string) => unknown = (s) => s,
): Promise<string> {
  const byName = await runCli(args(NAME), { cwd: sub, env, timeoutMs: 120_000 });
  const byFile = await runCli(args(path.relative(sub, file)), { cwd: sub, env, timeoutMs: 120_000 });
  expect(byName.code, `${args(NAME).join(' ')}\n${byName.stderr}`).toBe(0);
  expect(byFile.code, `${args('<file>').join(' ')}\n${byFile.stderr}`).toBe(0);
  expect(same(byName.stdout)).toEqual(same(byFile.stdout));
  return byName.stdout;
}

describe('every command that takes a pipeline takes it by name and by file', () => {
  it('validate, check, status, history, schema show, export --pipeline, report, prune', async () => {
    await both(
      (p) => ['validate', p],
      (s) => s.replace(/\S*jobs\.yaml/, 'FILE'),
    );
    const checked = await both(
      (p) => ['check', '--json', p],
      (s) => jsonLines(s).map((l) => [l['name'], l['status']]),
    );
    expect(jsonLines(checked).map((l) => [l['pipeline'], l['status']])).toEqual([[NAME, 'pass']]);
    const status = await both((p) => ['status', '--json', p]);
    expect(jsonLines(status)).toHaveLength(1);
    await both((p) => ['history', '--json', p]);
    // Its own database, by name as by file.
    expect(await both((p) => ['schema', 'show', p])).toContain(`sqlite:${path.join(root, 'warehouse', 'jobs.sqlite')}`);
    let n = 0;
    await both(
      (p) => ['export', '--pipeline', p, '--out', path.join(root, `out-${n++}`)],
      (s) => s.replace(/out-\d+/g, 'out').replace(/_\d{8}T[0-9.]*Z?\./g, '.'),
    );
    const reported = await both(
      (p) => ['report', p, '--out', path.join(root, `report-${n++}.html`)],
      (s) => s.replace(/report-\d+\.html/, 'R').replace(/\d+ bytes/, 'N bytes'),
    );
    // The pipeline's own database (not the default one): its one run.
    expect(reported).toMatch(/\(1 run\(s\), \d+ bytes\)/);
    await both((p) => ['prune', p]);
  }, 300_000);

  it('console', async () => {
    for (const p of [NAME, path.relative(sub, file)]) {
      const child = spawn(process.execPath, [CLI, 'console', '--no-temporal', p], {
        cwd: sub,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const closed = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
      const deadline = Date.now() + 30_000;
      while (!/Ctrl-C stops it/.test(out) && child.exitCode === null && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      child.kill('SIGTERM');
      await closed;
      expect(out, `${p}\n${err}`).toContain(`read-only over sqlite:${path.join(root, 'warehouse', 'jobs.sqlite')}`);
    }
  }, 120_000);

  it('schedule apply, describe, pause, unpause and delete', async () => {
    const tEnv = { ...env, SCRAPER_BASE_URL: sim.baseUrl, SCRAPER_API_TOKEN: TOKEN };
    for (const p of [NAME, path.relative(sub, file)]) {
      const applied = await runCli(['schedule', 'apply', p], { cwd: sub, env: tEnv, timeoutMs: 180_000 });
      expect(applied.code, applied.stderr).toBe(0);
      for (const verb of ['describe', 'pause', 'unpause']) {
        const r = await runCli(['schedule', verb, p], { cwd: sub, env: tEnv, timeoutMs: 60_000 });
        expect(r.code, `${verb} ${p}\n${r.stderr}`).toBe(0);
        expect(r.stdout).toContain(NAME);
      }
      const deleted = await runCli(['schedule', 'delete', p], { cwd: sub, env: tEnv, timeoutMs: 60_000 });
      expect(deleted.code, deleted.stderr).toBe(0);
      expect(deleted.stdout).toContain(`${NAME}: deleted`);
    }
  }, 400_000);
});
