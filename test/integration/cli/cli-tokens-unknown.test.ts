// Unknown tokens are said as unknown, never as 0 (issue 36: `history` summed runs whose service reported no
// tokenUsage as "0 tokens"). Job-board answers fetched from the simulator over HTTP are loaded with the compiled
// `scrape-etl load`, one of them with its tokenUsage taken out (pipeline_runs.token_usage NULL); `history` and
// `status` must show that run's tokens as `unknown` and the summary must not count it as 0.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScraperClient } from '../../../client/index.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { runCli } from '../../support/cli.js';
import { JOB_SCHEMA } from '../../support/job-schema.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
let sim: RunningSimulator;
let dir: string;
let dbUrl: string;
let known = 0;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, token: TOKEN, seed: 21 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-tokens-'));
  dbUrl = `sqlite:${path.join(dir, 'dest.sqlite')}`;
  const client = new ScraperClient({ baseUrl: sim.baseUrl, token: TOKEN });
  // A job-board answer reports tokenUsage; a marketplace answer reports none (the spec documents it on job-board only).
  const jobs = await client.jobBoardScrape({
    urls: ['https://weworkremotely.com/remote-jobs/search?term=t'],
    min: 2,
    max: 4,
    timeout: 60,
    schema: JOB_SCHEMA,
  } as never);
  known = Number(jobs.data.tokenUsage);
  fs.writeFileSync(path.join(dir, 'jobs.json'), jobs.raw);
  const loads: string[][] = [['job-board', path.join(dir, 'jobs.json'), 'jobs']];
  for (const item of [101, 102]) {
    const m = await client.marketplaceSync({
      url: `https://shop.example.tw/api/v4/pdp/get_pc?itemid=${item}&shopid=7`,
    });
    fs.writeFileSync(path.join(dir, `shop-${item}.json`), m.raw);
    loads.push(['marketplace', path.join(dir, `shop-${item}.json`), 'shop']);
  }
  for (const [kind, file, pipeline] of loads) {
    const r = await runCli(['load', kind!, file!, '--db', dbUrl, '--pipeline', pipeline!]);
    expect(r.code, r.stderr).toBe(0);
  }
}, 120_000);

afterAll(async () => {
  await sim?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const column = (out: string, name: string) => {
  const lines = out.trim().split('\n');
  const header = lines[0]!;
  const at = header.indexOf(name);
  return lines.slice(1).map((l) => l.slice(at).split(/\s{2,}/)[0]);
};

describe('unknown tokens', () => {
  it('history shows runs without tokenUsage as unknown, and its summary does not count them as 0', async () => {
    const shop = await runCli(['history', 'shop', '--database', dbUrl]);
    expect(shop.code, shop.stderr).toBe(0);
    const lines = shop.stdout.trim().split('\n');
    expect(column(lines.slice(0, 3).join('\n'), 'TOKENS')).toEqual(['unknown', 'unknown']);
    expect(lines[3]).toMatch(/; tokens unknown$/);
    expect(shop.stdout).not.toMatch(/\b0 tokens\b/);
    const jobs = await runCli(['history', 'jobs', '--database', dbUrl]);
    expect(jobs.stdout.trim().split('\n')[2]).toMatch(new RegExp(`; ${known} tokens$`));
  });

  it('status shows them as unknown too; --json keeps null', async () => {
    const r = await runCli(['status', '--database', dbUrl, '--no-temporal']);
    expect(r.code, r.stderr).toBe(0);
    // Newest first: the two marketplace loads, then the job-board one.
    expect(column(r.stdout, 'TOKENS')).toEqual(['unknown', 'unknown', String(known)]);
    const json = await runCli(['status', '--database', dbUrl, '--no-temporal', '--json']);
    expect(
      json.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { tokenUsage: number | null }).tokenUsage),
    ).toEqual([null, null, known]);
  });
});
