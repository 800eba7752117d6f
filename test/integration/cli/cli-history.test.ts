// Cost and history from the command line (compiled: `npm run build` first): job-board answers fetched from the
// simulator over HTTP are loaded with `scrape-etl load` (one pipeline run each); the service's tokenUsage is
// stored per response and summed per run; `history P` and `status --pipeline P --since 7d --json` show rows,
// duration and tokens of that pipeline only; `status` on a database file that does not exist fails and creates
// nothing.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScraperClient } from '../../../client/index.js';
import { openDatabase } from '../../../destinations/open.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { runCli } from '../../support/cli.js';
import { JOB_SCHEMA } from '../../support/job-schema.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
let sim: RunningSimulator;
let dir: string;
let dbUrl: string;
const usages: number[] = [];

beforeAll(async () => {
  sim = await startSimulator({ port: 0, token: TOKEN, seed: 9 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-history-'));
  dbUrl = `sqlite:${path.join(dir, 'dest.sqlite')}`;
  const client = new ScraperClient({ baseUrl: sim.baseUrl, token: TOKEN });
  for (let i = 0; i < 3; i++) {
    const api = await client.jobBoardScrape({
      urls: [`https://weworkremotely.com/remote-jobs/search?term=h${i}`],
      min: 2,
      max: 6,
      timeout: 60,
      schema: JOB_SCHEMA,
    } as never);
    usages.push(Number(api.data.tokenUsage));
    fs.writeFileSync(path.join(dir, `jobs-${i}.json`), api.raw);
  }
  for (let i = 0; i < 3; i++) {
    const r = await runCli([
      'load',
      'job-board',
      path.join(dir, `jobs-${i}.json`),
      '--db',
      dbUrl,
      '--pipeline',
      'jobs',
    ]);
    expect(r.code, r.stderr).toBe(0);
  }
  // Another pipeline in the same database, which the filters must leave out.
  const other = await runCli([
    'load',
    'job-board',
    path.join(dir, 'jobs-0.json'),
    '--db',
    dbUrl,
    '--pipeline',
    'other',
  ]);
  expect(other.code, other.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await sim?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('cost and history', () => {
  it('tokenUsage is stored per response and per run', async () => {
    expect(usages.every((u) => Number.isInteger(u) && u > 0)).toBe(true);
    const db = await openDatabase(dbUrl);
    try {
      if (db.dialect !== 'sqlite') throw new Error('sqlite expected');
      const runs = db.sqlite
        .prepare(`SELECT token_usage FROM pipeline_runs WHERE pipeline = 'jobs' ORDER BY id`)
        .all() as Array<{ token_usage: number }>;
      expect(runs.map((r) => r.token_usage)).toEqual(usages);
      const raw = db.sqlite
        .prepare(`SELECT sum(token_usage) AS n FROM raw_responses WHERE pipeline = 'jobs'`)
        .get() as { n: number };
      expect(raw.n).toBe(usages.reduce((a, b) => a + b, 0));
    } finally {
      await db.close();
    }
  });

  it('history P: the last N runs of that pipeline with rows, duration and tokens', async () => {
    const r = await runCli(['history', 'jobs', '--database', dbUrl, '--limit', '2']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(
      /^STARTED\s+STATUS\s+ROWS SEEN\s+ROWS CHANGED\s+BOOKKEEPING\s+DURATION\s+TOKENS\s+EXPORT\s+WORKFLOW ID/,
    );
    expect(lines).toHaveLength(4); // header, two runs, summary
    // Newest first: the third and second loads.
    expect(lines[1]).toContain(String(usages[2]));
    expect(lines[2]).toContain(String(usages[1]));
    expect(lines[1]).toMatch(/job_records=\d+/);
    expect(lines[3]).toBe(
      `2 run(s): 2 succeeded, 0 partial, 0 failed; median duration ${lines[3]!.match(/median duration (\S+);/)?.[1]}; ${usages[2]! + usages[1]!} tokens`,
    );
    expect(r.stdout).not.toContain('other');

    const json = await runCli(['history', 'jobs', '--database', dbUrl, '--json']);
    const runs = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { pipeline: string; tokenUsage: number; rows: number; durationMs: number });
    expect(runs.map((x) => x.tokenUsage)).toEqual([...usages].reverse());
    expect(runs.every((x) => x.pipeline === 'jobs' && x.rows > 0 && x.durationMs >= 0)).toBe(true);
  });

  it('status --pipeline P --since 7d --json: that pipeline only, with tokens; --since 0m: none', async () => {
    const r = await runCli([
      'status',
      '--database',
      dbUrl,
      '--pipeline',
      'jobs',
      '--since',
      '7d',
      '--json',
      '--no-temporal',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const runs = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { pipeline: string; tokenUsage: number; state: string });
    expect(runs).toHaveLength(3);
    expect(runs.every((x) => x.pipeline === 'jobs' && x.state === 'SUCCEEDED')).toBe(true);
    expect(runs.map((x) => x.tokenUsage).sort()).toEqual([...usages].sort());
    const none = await runCli(['status', '--database', dbUrl, '--pipeline', 'jobs', '--since', '0m', '--no-temporal']);
    expect(none.stdout).toContain("no pipeline runs of 'jobs' in the last 0m");
    const table = await runCli(['status', '--database', dbUrl, '--no-temporal']);
    expect(table.stdout.split('\n')[0]).toMatch(/TOKENS/);
  });

  it('status and history on a database file that does not exist: exit 1, nothing created', async () => {
    const missing = path.join(dir, 'typo.sqlite');
    for (const args of [
      ['status', '--database', `sqlite:${missing}`, '--no-temporal'],
      ['history', 'jobs', '--database', `sqlite:${missing}`],
    ]) {
      const r = await runCli(args);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('no database at');
      expect(fs.existsSync(missing)).toBe(false);
    }
  });
});
