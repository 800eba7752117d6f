// `scrape-etl load` spawned for real: loads files into SQLite and Postgres, twice without duplicates, and
// refuses bad files naming the file and the JSON path, loading nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../destinations/open.js';
import { startSimulator } from '../../../simulator/server.js';
import { runCli } from '../../support/cli.js';
import { countRows, dumpDatabase, dumpTable } from '../../support/db-dump.js';
import { JOB_SCHEMA } from '../../support/job-schema.js';
import { testPostgresUrl } from '../../support/postgres.js';
import { REAL_FIXTURES } from '../../support/fixtures.js';

const REAL = REAL_FIXTURES;
let tmp: string;
let pgUrl: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'db-load-cli-'));
  pgUrl = await testPostgresUrl();
}, 30_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('scrape-etl load', () => {
  it('loads into SQLite, Postgres and DuckDB with the same contents, and a second run adds only raw rows', async () => {
    const sqliteUrl = `sqlite:${path.join(tmp, 'cli.sqlite')}`;
    const duckUrl = `duckdb:${path.join(tmp, 'cli.duckdb')}`;
    const wrapped = path.join(tmp, 'wrapped.json');
    fs.writeFileSync(
      wrapped,
      JSON.stringify({
        request: { url: 'https://shop.example.tw/api?itemid=1&shopid=2' },
        response: JSON.parse(fs.readFileSync(`${REAL}/shopee-sync-response-1.json`, 'utf8')),
      }),
    );
    for (const url of [sqliteUrl, pgUrl, duckUrl]) {
      for (let round = 0; round < 2; round++) {
        const m = await runCli([
          'load',
          'marketplace',
          `${REAL}/shopee-sync-response-1.json`,
          wrapped,
          '--db',
          url,
          '--pipeline',
          'shop',
          '--price-divisor',
          '100000',
        ]);
        expect(m.stderr).toBe('');
        expect(m.code).toBe(0);
        expect(m.stdout).toContain(round === 0 ? '25 rows inserted or changed' : '0 rows inserted or changed');
        const r = await runCli([
          'load',
          'scraping-run',
          `${REAL}/scraping-runs-id-response-1.json`,
          '--db',
          url,
          '--pipeline',
          'docs',
          '--pipeline-kind',
          'pdf',
        ]);
        expect(r.code).toBe(0);
        expect(r.stdout).toMatch(/pdf_results=1/);
      }
    }
    const [s, p, d] = [await openDatabase(sqliteUrl), await openDatabase(pgUrl), await openDatabase(duckUrl)];
    try {
      // Each command run has its own workflow id; everything else must match exactly.
      const withoutRunIds = (d: Awaited<ReturnType<typeof dumpDatabase>>) => {
        d['raw_responses'] = d['raw_responses']!.map(({ workflow_id, ...rest }) => {
          expect(workflow_id).toMatch(/^cli-load--/);
          return rest;
        });
        // Price-history rows name their run too (issue 28); their row hash covers it.
        d['marketplace_price_history'] = d['marketplace_price_history']!.map(({ workflow_id, row_hash, ...rest }) => {
          expect(workflow_id).toMatch(/^cli-load--/);
          expect(row_hash).toMatch(/^[0-9a-f]{40}$/);
          return rest;
        });
        return d;
      };
      const a = withoutRunIds(await dumpDatabase(s));
      const b = withoutRunIds(await dumpDatabase(p));
      expect(b).toEqual(a);
      expect(withoutRunIds(await dumpDatabase(d))).toEqual(a);
      expect(a['marketplace_products']).toHaveLength(1);
      expect(a['pdf_results']).toEqual([
        expect.objectContaining({ id: '1', scraping_run_id: '12', content: '<your-extracted-data>' }),
      ]);
      expect(
        a['raw_responses']!.filter((r) => r['request_key'] === 'https://shop.example.tw/api?itemid=1&shopid=2'),
      ).toHaveLength(2);
      expect(await countRows(s, 'raw_responses')).toBe(6);
      expect(await countRows(p, 'pipeline_runs')).toBe(4);
    } finally {
      await s.close();
      await p.close();
      await d.close();
    }
  }, 90_000);

  it('loads the job-board and results kinds: every record as one row, typed by the request schema, twice without change', async () => {
    const dbUrl = `sqlite:${path.join(tmp, 'kinds.sqlite')}`;
    const sim = await startSimulator({ port: 0, token: 't', seed: 3 });
    const request = {
      urls: ['https://jobs.example.com/search?q=etl'],
      min: 4,
      max: 4,
      timeout: 30,
      schema: JOB_SCHEMA,
    };
    let body: string;
    try {
      const res = await fetch(`${sim.baseUrl}/api/job-board-scrape`, {
        method: 'POST',
        headers: { Authorization: 'Bearer t', 'Content-Type': 'application/json' },
        body: JSON.stringify(request),
      });
      expect(res.status).toBe(200);
      body = await res.text();
    } finally {
      await sim.close();
    }
    const response = JSON.parse(body) as { result: Array<Record<string, unknown>> };
    expect(response.result).toHaveLength(4);
    const jobs = path.join(tmp, 'jobs.json');
    fs.writeFileSync(jobs, JSON.stringify({ request: { ...request, url: request.urls[0] }, response }));
    for (let round = 0; round < 2; round++) {
      const j = await runCli(['load', 'job-board', jobs, '--db', dbUrl, '--pipeline', 'jobs']);
      expect(j.stderr).toBe('');
      expect(j.code).toBe(0);
      expect(j.stdout).toContain(round === 0 ? '4 rows inserted or changed' : '0 rows inserted or changed');
      const r = await runCli([
        'load',
        'results',
        `${REAL}/results-response-1.json`,
        '--db',
        dbUrl,
        '--pipeline',
        'sync',
      ]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/scraper_results=2/);
    }
    const db = await openDatabase(dbUrl);
    try {
      const rows = await dumpTable(db, 'job_records');
      const got = rows.map((row) => [
        row['job_title'],
        row['job_url'],
        row['job_salary_number'],
        row['job_salary_text'],
        row['job_currency'],
      ]);
      const want = response.result.map((rec) => [
        rec['job_title'],
        rec['job_url'],
        rec['job_salary'],
        null,
        rec['job_currency'],
      ]);
      const key = (a: unknown[]) => JSON.stringify(a);
      expect(got.map(key).sort()).toEqual(want.map(key).sort());
      expect(rows.every((row) => row['pipeline'] === 'jobs')).toBe(true);
      const results = await dumpTable(db, 'scraper_results');
      expect(results.map((row) => [row['id'], row['scraping_run_id'], row['scraper_name'], row['content']])).toEqual([
        ['1', '12', 'My scraper 1', '<your-extracted-data>'],
        ['2', '12', 'My scraper 1', '<your-extracted-data>'],
      ]);
    } finally {
      await db.close();
    }

    // A record that breaks the schema the request sent is refused by JSON path.
    const broken = structuredClone(response);
    broken.result[1]!['job_salary'] = 'a lot';
    const bad = path.join(tmp, 'jobs-bad.json');
    fs.writeFileSync(bad, JSON.stringify({ request, response: broken }));
    const refused = await runCli(['load', 'job-board', bad, '--db', dbUrl]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${bad}: response.result[1].job_salary:`);
  }, 60_000);

  it('rejects a bad file by name and JSON path, and loads none of the files given', async () => {
    const dbUrl = `sqlite:${path.join(tmp, 'bad.sqlite')}`;
    const doc = JSON.parse(fs.readFileSync(`${REAL}/shopee-sync-response-1.json`, 'utf8')) as {
      data: { data: { item: { models: Array<Record<string, unknown>> } } };
    };
    doc.data.data.item.models[0]!['price'] = '169';
    const bad = path.join(tmp, 'bad-price.json');
    fs.writeFileSync(bad, JSON.stringify(doc));
    const res = await runCli(['load', 'marketplace', `${REAL}/shopee-sync-response-1.json`, bad, '--db', dbUrl]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`${bad}: data.data.item.models[0].price: expected integer, got string`);
    expect(res.stderr).toContain('nothing loaded (1 of 2 files invalid)');
    expect(fs.existsSync(path.join(tmp, 'bad.sqlite'))).toBe(false);

    const res2 = await runCli(['load', 'orders', bad, '--db', dbUrl]);
    expect(res2.code).toBe(2);
    expect(res2.stderr).toContain("unknown kind 'orders'");
  }, 60_000);
});
