// `scrape-etl load` spawned for real: loads files into SQLite and Postgres, twice without duplicates, and
// refuses bad files naming the file and the JSON path, loading nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/connect.js';
import { runCli } from './support/cli.js';
import { countRows, dumpDatabase } from './support/db-dump.js';
import { testPostgresUrl } from './support/postgres.js';

const REAL = '/work/shared/fixtures/real';
let tmp: string;
let pgUrl: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'db-load-cli-'));
  pgUrl = await testPostgresUrl();
}, 30_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('scrape-etl load', () => {
  it('loads into SQLite and Postgres with the same contents, and a second run adds only raw rows', async () => {
    const sqliteUrl = `sqlite:${path.join(tmp, 'cli.sqlite')}`;
    const wrapped = path.join(tmp, 'wrapped.json');
    fs.writeFileSync(
      wrapped,
      JSON.stringify({ request: { url: 'https://shop.example.tw/api?itemid=1&shopid=2' }, response: JSON.parse(fs.readFileSync(`${REAL}/shopee-sync-response-1.json`, 'utf8')) }),
    );
    for (const url of [sqliteUrl, pgUrl]) {
      for (let round = 0; round < 2; round++) {
        const m = await runCli(['load', 'marketplace', `${REAL}/shopee-sync-response-1.json`, wrapped, '--db', url, '--pipeline', 'shop', '--price-divisor', '100000']);
        expect(m.stderr).toBe('');
        expect(m.code).toBe(0);
        expect(m.stdout).toContain(round === 0 ? '25 rows inserted or changed' : '0 rows inserted or changed');
        const r = await runCli(['load', 'scraping-run', `${REAL}/scraping-runs-id-response-1.json`, '--db', url, '--pipeline', 'docs', '--pipeline-kind', 'pdf']);
        expect(r.code).toBe(0);
        expect(r.stdout).toMatch(/pdf_results=1/);
      }
    }
    const [s, p] = [await openDatabase(sqliteUrl), await openDatabase(pgUrl)];
    try {
      // Each command run has its own workflow id; everything else must match exactly.
      const withoutRunIds = (d: Awaited<ReturnType<typeof dumpDatabase>>) => {
        d['raw_responses'] = d['raw_responses']!.map(({ workflow_id, ...rest }) => {
          expect(workflow_id).toMatch(/^cli-load--/);
          return rest;
        });
        return d;
      };
      const a = withoutRunIds(await dumpDatabase(s));
      const b = withoutRunIds(await dumpDatabase(p));
      expect(b).toEqual(a);
      expect(a['marketplace_products']).toHaveLength(1);
      expect(a['pdf_results']).toEqual([expect.objectContaining({ id: '1', scraping_run_id: '12', content: '<your-extracted-data>' })]);
      expect(a['raw_responses']!.filter((r) => r['request_key'] === 'https://shop.example.tw/api?itemid=1&shopid=2')).toHaveLength(2);
      expect(await countRows(s, 'raw_responses')).toBe(6);
      expect(await countRows(p, 'pipeline_runs')).toBe(4);
    } finally {
      await s.close();
      await p.close();
    }
  }, 60_000);

  it('rejects a bad file by name and JSON path, and loads none of the files given', async () => {
    const dbUrl = `sqlite:${path.join(tmp, 'bad.sqlite')}`;
    const doc = JSON.parse(fs.readFileSync(`${REAL}/shopee-sync-response-1.json`, 'utf8')) as { data: { data: { item: { models: Array<Record<string, unknown>> } } } };
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
