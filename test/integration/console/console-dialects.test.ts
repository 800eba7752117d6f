// The console shows the same pages on SQLite, Postgres and DuckDB: the same service answers (marketplace products
// fetched from simulators of two seeds, so prices change, and job-board answers with tokens) are loaded into each
// dialect with `scrape-etl load`, and the pages' contents (pipeline rows, keyset pages walked one row at a time,
// the price chart's data, the cost chart's data) must agree with each other and with the rows. Each database
// refuses a write through the console's connection; the SQLite and DuckDB files are unchanged after browsing.
// Needs `npm run build` (the load runs the compiled command).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScraperClient } from '../../../client/index.js';
import { startConsole } from '../../../console/server.js';
import { openReadOnly } from '../../../console/source.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { runCli } from '../../support/cli.js';
import { testDatabaseUrl, type TestDialect } from '../../support/destinations.js';
import { JOB_SCHEMA } from '../../support/job-schema.js';
import { productUrl } from '../../support/pipeline-specs.js';
import { readCsvWithPython } from '../../support/python-csv.js';
import { openDatabase } from '../../../destinations/open.js';
import { withTransaction } from '../../../db/store/sql.js';

const TOKEN = 'console-dialects-token';
const DIALECTS: TestDialect[] = ['sqlite', 'postgres', 'duckdb'];
const PRODUCTS = [productUrl(4420309814), productUrl(1234567890), productUrl(777, 42)];
let dir: string;
const sims: RunningSimulator[] = [];
const urls = new Map<TestDialect, string>();

interface Seen {
  pipelines: Array<{ name: string; status: string; rows: string }>;
  walk: string[];
  chart: unknown;
  cost: unknown;
  csvRows: number;
}
const seen = new Map<TestDialect, Seen>();

function chartsOf(htmlText: string): Record<string, { data: unknown; series: string[] }> {
  const out: Record<string, { data: unknown; series: string[] }> = {};
  for (const m of htmlText.matchAll(
    /data-chart-name="([^"]+)"><\/div><script type="application\/json" id="[^"]+">([\s\S]*?)<\/script>/g,
  )) {
    out[m[1]!] = JSON.parse(m[2]!) as { data: unknown; series: string[] };
  }
  return out;
}

const unescape = (s: string) => s.replace(/&#(\d+);/g, (_m, n: string) => String.fromCharCode(Number(n)));
const cellsOf = (row: string) =>
  [...row.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((m) => unescape(m[1]!.replace(/<[^>]+>/g, '')));

function fileSha(file: string): string {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'console-dialects-'));
  // Two seeds: the same products at other prices, as on two days.
  for (const [i, seed] of [3, 4].entries()) {
    const sim = await startSimulator({ port: 0, token: TOKEN, seed });
    sims.push(sim);
    const client = new ScraperClient({ baseUrl: sim.baseUrl, token: TOKEN });
    for (const [j, url] of PRODUCTS.entries()) {
      const api = await client.marketplaceSync({ url } as never);
      fs.mkdirSync(path.join(dir, `market-${i}`), { recursive: true });
      fs.writeFileSync(
        path.join(dir, `market-${i}`, `p${j}.json`),
        JSON.stringify({ request: { url }, response: JSON.parse(api.raw) as unknown }),
      );
    }
    const jobs = await client.jobBoardScrape({
      urls: [`https://weworkremotely.com/remote-jobs/search?term=c${i}`],
      min: 2,
      max: 6,
      timeout: 60,
      schema: JOB_SCHEMA,
    } as never);
    fs.writeFileSync(path.join(dir, `jobs-${i}.json`), jobs.raw);
  }
  for (const d of DIALECTS) {
    const url = await testDatabaseUrl(d, dir, `console-${d}`);
    urls.set(d, url);
    for (const i of [0, 1]) {
      const m = await runCli(
        ['load', 'marketplace', path.join(dir, `market-${i}`), '--database', url, '--pipeline', 'shop'],
        { timeoutMs: 120_000 },
      );
      expect(m.code, m.stderr).toBe(0);
      const j = await runCli(
        ['load', 'job-board', path.join(dir, `jobs-${i}.json`), '--database', url, '--pipeline', 'jobs'],
        { timeoutMs: 120_000 },
      );
      expect(j.code, j.stderr).toBe(0);
    }
    // A text key of digit strings (issue 36: row_key sorted as text read 1, 10, 2).
    const db = await openDatabase(url);
    try {
      await withTransaction(db, async (tx) => {
        await tx.run(
          'CREATE TABLE shop_notes (pipeline TEXT NOT NULL, row_key TEXT NOT NULL, note TEXT, PRIMARY KEY (pipeline, row_key))',
          [],
        );
        for (const k of ['10', '2', '1', '21', '3'])
          await tx.run(`INSERT INTO shop_notes VALUES (${tx.ph(1)}, ${tx.ph(2)}, ${tx.ph(3)})`, [
            'shop',
            k,
            `note ${k}`,
          ]);
      });
    } finally {
      await db.close();
    }
  }
}, 600_000);

afterAll(async () => {
  await Promise.all(sims.map((s) => s.close()));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe.each(DIALECTS)('console on %s', (dialect) => {
  it('serves every page from a read-only connection', async () => {
    const url = urls.get(dialect)!;
    const file = dialect === 'postgres' ? undefined : url.slice(dialect.length + 1);
    const shaBefore = file ? fileSha(file) : undefined;
    const con = await startConsole({ databases: [{ url }], temporal: false });
    try {
      const get = async (p: string) => {
        const res = await fetch(new URL(p, con.url));
        const text = await res.text();
        expect(res.status, `${p}: ${text.slice(0, 2000)}`).toBe(200);
        return text;
      };
      const home = await get('/');
      const pipelines = [...home.matchAll(/<tr><td><a href="[^"]+">([^<]+)<\/a><\/td>([\s\S]*?)<\/tr>/g)].map((m) => {
        const cells = cellsOf(`<td>${m[1]}</td>${m[2]}`);
        return { name: m[1]!, status: /data-status="([^"]+)"/.exec(m[2]!)![1]!, rows: cells[7]! };
      });
      expect(pipelines.map((p) => p.name)).toEqual(['jobs', 'shop']);
      for (const p of [
        '/db/0/p/shop',
        '/db/0/p/shop/data',
        '/db/0/p/jobs/data/job_records',
        '/db/0/raw/1',
        '/db/0/p/shop/data/marketplace_price_history?sort=price_major',
      ])
        await get(p);
      const runs = [...(await get('/db/0/p/shop')).matchAll(/href="(\/db\/0\/run\/[^"]+)"/g)].map((m) => m[1]!);
      expect(runs.length).toBeGreaterThanOrEqual(2);
      for (const r of new Set(runs)) expect(await get(r)).toContain('Rows per table');

      // Keyset pages of one row, sorted by price descending: the cursor works in this dialect.
      const walk: string[] = [];
      let next: string | null = '/db/0/p/shop/data/marketplace_products?sort=price&desc=1&limit=1';
      while (next) {
        const page = await get(next);
        const header = [...page.matchAll(/data-column="([^"]+)"/g)].map((m) => m[1]!);
        const row = /<tbody>([\s\S]*?)<\/tbody>/.exec(page)![1]!;
        const cells = cellsOf(row);
        // The raw column comes after the data columns (issue 36): a cell's index is its header's.
        walk.push(`${cells[header.indexOf('item_id')]}@${cells[header.indexOf('price')]}`);
        const n = /<a data-next href="([^"]+)"/.exec(page)?.[1];
        next = n ? unescape(n) : null;
      }
      expect(walk).toHaveLength(PRODUCTS.length);
      // A key of digit strings walks in numeric order, both ways, in keyset pages of two rows.
      for (const [q, expected] of [
        ['limit=2', ['1', '2', '3', '10', '21']],
        ['limit=2&sort=row_key&desc=1', ['21', '10', '3', '2', '1']],
      ] as const) {
        const keys: string[] = [];
        let at: string | null = `/db/0/p/shop/data/shop_notes?${q}`;
        while (at) {
          const page = await get(at);
          const header = [...page.matchAll(/data-column="([^"]+)"/g)].map((m) => m[1]!);
          for (const row of page
            .split('<tbody>')[1]!
            .split('</tbody>')[0]!
            .split('</tr>')
            .filter((r) => r.includes('<td>')))
            keys.push(cellsOf(row)[header.indexOf('row_key')]!);
          const n = /<a data-next href="([^"]+)"/.exec(page)?.[1];
          at = n ? unescape(n).replace(/&amp;/g, '&') : null;
        }
        expect(keys, `${dialect} ${q}`).toEqual(expected);
      }
      const prices = walk.map((w) => Number(w.split('@')[1]));
      expect([...prices].sort((a, b) => b - a)).toEqual(prices);

      const pricesPage = await get('/db/0/p/shop/prices?item=10115139:1234567890');
      const chart = chartsOf(pricesPage)['price-10115139-1234567890'];
      expect(chart).toBeDefined();
      const cost = chartsOf(await get('/cost'))['tokens-per-run'];
      expect(cost).toBeDefined();

      const csv = await fetch(
        new URL('/db/0/p/shop/data/marketplace_products/download.csv?sort=price&desc=1', con.url),
      );
      expect(csv.status).toBe(200);
      const csvFile = path.join(dir, `${dialect}.csv`);
      fs.writeFileSync(csvFile, Buffer.from(await csv.arrayBuffer()));
      const records = readCsvWithPython(csvFile);
      const itemCol = records[0]!.indexOf('item_id');
      expect(records.slice(1).map((r) => r[itemCol])).toEqual(walk.map((w) => w.split('@')[0]));

      // Chart x values are load times, which differ between the three loads; the plotted prices must not.
      seen.set(dialect, {
        pipelines,
        walk,
        chart: (chart!.data as unknown[]).slice(1),
        cost: cost!.data,
        csvRows: records.length - 1,
      });
    } finally {
      await con.close();
    }
    if (file) expect(fileSha(file)).toBe(shaBefore);
  });

  it('refuses a write through its own connection', async () => {
    const source = await openReadOnly(urls.get(dialect)!);
    try {
      await expect(source.read((r) => r.all('DELETE FROM pipeline_runs RETURNING id'))).rejects.toThrow(
        /read-only|readonly|read only/i,
      );
      await expect(source.read((r) => r.all('CREATE TABLE console_probe (x integer)'))).rejects.toThrow(
        /read-only|readonly|read only/i,
      );
      if (dialect === 'postgres') {
        // Outside the pages' READ ONLY transactions too: every session of the pool starts read-only.
        await expect(source.exportDatabase().pool!.query('CREATE TABLE console_probe (x integer)')).rejects.toThrow(
          /read-only transaction/,
        );
      }
    } finally {
      await source.close();
    }
  });
});

describe('the three dialects agree', () => {
  it('same pipelines, pages, price chart and cost chart', () => {
    const [a, ...others] = DIALECTS.map((d) => seen.get(d));
    expect(a).toBeDefined();
    for (const o of others) {
      expect(o).toBeDefined();
      expect(o!.pipelines).toEqual(a!.pipelines);
      expect(o!.walk).toEqual(a!.walk);
      expect(o!.chart).toEqual(a!.chart);
      expect(o!.cost).toEqual(a!.cost);
      expect(o!.csvRows).toEqual(a!.csvRows);
    }
    // The price line has a point per load whose price changed: both seeds' prices.
    const series = a!.chart as number[][];
    expect(series.flat().filter((v) => v !== null).length).toBeGreaterThan(2);
  });
});
