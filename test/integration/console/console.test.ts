// The console in a real headless Chromium over a destination made by the real command line (demo twice, a partial
// marketplace run on a Temporal Schedule, a hostile job-board answer): what each page shows is checked against
// the database read directly with better-sqlite3 (an independent reader), downloads against Python's csv and
// pyarrow, and the report is opened from disk with every network request blocked. Browsing every page leaves
// the database file byte-identical, and a write through the console's own connection fails.
// Needs `npm run build` (the CLI runs compiled) and Chromium (.ci/run installs Debian's package).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import BetterSqlite3 from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole, type RunningConsole } from '../../../console/server.js';
import { splitRows } from '../../../db/model/table-names.js';
import { openReadOnly } from '../../../console/source.js';
import { ARTIFACTS, launchBrowser, withScreenshotOnFailure } from '../../support/browser.js';
import { CLI, REPO_ROOT, runCli } from '../../support/cli.js';
import { buildConsoleFixture, type ConsoleFixture } from '../../support/console-fixture.js';
import { readCsvWithPython } from '../../support/python-csv.js';
import { readParquetWithPyarrow } from '../../support/python-readers.js';

let fx: ConsoleFixture;
let con: RunningConsole;
let browser: Browser;
let page: Page;
let db: BetterSqlite3.Database;
let before: { sha: string; mtimeMs: number; size: number };

function fileState(file: string) {
  const st = fs.statSync(file);
  return {
    sha: crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex'),
    mtimeMs: st.mtimeMs,
    size: st.size,
  };
}

beforeAll(async () => {
  fx = await buildConsoleFixture('console');
  // The independent view of the same file, opened read-only so it cannot change what it checks.
  db = new BetterSqlite3(fx.dbFile, { readonly: true });
  db.pragma('wal_checkpoint(PASSIVE)');
  before = fileState(fx.dbFile);
  con = await startConsole({ databases: [{ url: fx.dbUrl }], temporalEnv: { ...process.env, ...fx.bed.env } });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
}, 900_000);

afterAll(async () => {
  await browser?.close();
  await con?.close();
  db?.close();
  await fx?.close();
});

const url = (p: string) => new URL(p, con.url).toString();

async function visit(p: string): Promise<void> {
  const res = await page.goto(url(p));
  expect(res?.status(), `${p}: ${await res?.text()}`).toBe(200);
  await page.waitForSelector('html[data-charts-ready]');
}

function lastRun(pipeline: string): {
  workflow_id: string;
  status: string;
  rows_by_table: string;
  seen_by_table: string | null;
  token_usage: number | null;
} {
  return db
    .prepare(
      'SELECT workflow_id, status, rows_by_table, seen_by_table, token_usage FROM pipeline_runs WHERE pipeline = ? ORDER BY id DESC LIMIT 1',
    )
    .get(pipeline) as never;
}

describe('console pages in Chromium', () => {
  it('pipelines list: one row per pipeline with its last run, data status, rows, tokens, sparkline and next scheduled time', async () => {
    await withScreenshotOnFailure(page, 'pipelines', async () => {
      // A page waits at most 2 s for Temporal and says "unknown" meanwhile; on a busy machine the first connection
      // can take longer, so the page is reloaded until the connection made in the background answers.
      for (let i = 0; ; i++) {
        await visit('/');
        if ((await page.$('.next-run')) || i >= 30) break;
        await page.waitForTimeout(1000);
      }
      const pipelines = (
        db.prepare('SELECT DISTINCT pipeline FROM pipeline_runs ORDER BY pipeline').all() as Array<{ pipeline: string }>
      ).map((r) => r.pipeline);
      const rows = await page.$$eval('#pipelines tbody tr', (trs) =>
        trs.map((tr) => ({
          name: tr.querySelector('td a')!.textContent,
          status: tr.querySelector('[data-status]')!.getAttribute('data-status'),
          cells: [...tr.querySelectorAll('td')].map((td) => td.textContent!.trim()),
          spark: tr.querySelector('svg.spark')?.getAttribute('data-values'),
          next: tr.querySelector('.next-run time')?.getAttribute('datetime') ?? null,
        })),
      );
      expect(rows.map((r) => r.name)).toEqual(pipelines);
      for (const r of rows) {
        const last = lastRun(r.name!);
        expect(r.status, r.name!).toBe(last.status);
        // Data rows seen and changed, as `status` counts them (bookkeeping tables apart); tokens never reported are
        // said as unknown (issue 36).
        const dataRows = (json: string | null) => splitRows(JSON.parse(json ?? '{}') as Record<string, number>).data;
        expect(r.cells[7]).toBe(
          last.seen_by_table === null ? '—' : dataRows(last.seen_by_table).toLocaleString('en-US'),
        );
        expect(r.cells[8]).toBe(dataRows(last.rows_by_table).toLocaleString('en-US'));
        expect(r.cells[9]).toBe(last.token_usage === null ? 'unknown' : last.token_usage.toLocaleString('en-US'));
        const perRun = (
          db.prepare('SELECT rows_by_table FROM pipeline_runs WHERE pipeline = ? ORDER BY id').all(r.name) as Array<{
            rows_by_table: string | null;
          }>
        ).map((x) => dataRows(x.rows_by_table));
        expect(r.spark).toBe(perRun.join(','));
      }
      const partial = rows.find((r) => r.name === fx.partialPipeline)!;
      expect(partial.status).toBe('partial');
      // The schedule `schedule apply` made: Temporal's next action time, in the future, at 03:17 UTC.
      expect(partial.next).not.toBeNull();
      expect(Date.parse(partial.next!)).toBeGreaterThan(Date.now());
      expect(new Date(partial.next!).toISOString()).toMatch(/T03:17:00/);
      // The screenshot for the docs (docs/console.png when UPDATE_DOCS_SCREENSHOT=1).
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: path.join(ARTIFACTS, 'pipelines.png') });
      if (process.env['UPDATE_DOCS_SCREENSHOT'] === '1')
        await page.screenshot({ path: path.join(REPO_ROOT, 'docs', 'console.png') });
    });
  });

  it('a run page: timeline, rows per table with content tables first, tokens, exported files, Temporal link', async () => {
    await withScreenshotOnFailure(page, 'run', async () => {
      const run = lastRun('leads-coffee-roasters');
      await visit(`/db/0/run/${encodeURIComponent(run.workflow_id)}`);
      expect(await page.textContent('h1')).toContain(run.workflow_id);
      const steps = await page.$$eval('table.timeline tbody tr', (trs) =>
        trs.map((tr) => [tr.children[0]!.textContent, tr.querySelector('time')?.getAttribute('datetime') ?? null]),
      );
      expect(steps.map((s) => s[0])).toEqual(['started', 'scraped', 'loaded', 'exported', 'finished']);
      expect(steps.every((s) => s[1] !== null)).toBe(true);
      const tables = await page.$$eval('table.run-tables tbody tr', (trs) =>
        trs.map((tr) => [...tr.children].map((td) => td.textContent!.trim())),
      );
      // Content tables (created by the loader for this pipeline) first, counted from the tables by the run's loads.
      const content = (
        db
          .prepare(
            `SELECT DISTINCT table_name FROM schema_history WHERE pipeline = ? AND change = 'create_table' ORDER BY table_name`,
          )
          .all('leads-coffee-roasters') as Array<{ table_name: string }>
      ).map((r) => r.table_name);
      expect(content.length).toBeGreaterThan(0);
      const expectedContent = content
        .map((t) => [
          t,
          (
            db
              .prepare(
                `SELECT count(*) AS n FROM "${t}" WHERE pipeline = ? AND load_id IN (SELECT id FROM raw_responses WHERE workflow_id = ?)`,
              )
              .get('leads-coffee-roasters', run.workflow_id) as { n: number }
          ).n,
        ])
        .filter(([, n]) => (n as number) > 0);
      expect(tables.slice(0, expectedContent.length).map((t) => [t[0], Number(t[1]!.replace(/,/g, ''))])).toEqual(
        expectedContent,
      );
      expect(tables.slice(0, expectedContent.length).every((t) => t[2] === 'content')).toBe(true);
      // rows_by_table counts the inferred (content) tables too since the merge (activities/control.ts): those are
      // shown once, among the content tables, with the same count; the rest follow, as rows_by_table has them.
      const byTable = JSON.parse(run.rows_by_table) as Record<string, number>;
      for (const [t, n] of expectedContent)
        if ((t as string) in byTable) expect(byTable[t as string], t as string).toBe(n);
      const bookkeeping = Object.fromEntries(Object.entries(byTable).filter(([t]) => !content.includes(t)));
      expect(Object.keys(bookkeeping).length).toBeGreaterThan(0);
      expect(Object.fromEntries(tables.slice(expectedContent.length).map((t) => [t[0], Number(t[1])]))).toEqual(
        bookkeeping,
      );
      expect(tables.slice(expectedContent.length).every((t) => t[2] !== 'content')).toBe(true);
      const exported = await page.$$eval('table.exports tbody tr td:nth-child(2)', (tds) =>
        tds.map((td) => td.textContent),
      );
      const files = (
        db
          .prepare('SELECT last_file FROM export_watermarks WHERE last_run = ? ORDER BY table_name')
          .all(run.workflow_id) as Array<{ last_file: string }>
      ).map((r) => r.last_file);
      expect(files.length).toBeGreaterThan(0);
      expect(exported.map((f) => f!.replace(/…$/, ''))).toEqual(files.map((f) => f.slice(0, 200)));
      const temporal = await page.getAttribute('a[href*="/namespaces/"]', 'href');
      expect(temporal).toMatch(
        new RegExp(`^http://127\\.0\\.0\\.1:\\d+/namespaces/default/workflows/${encodeURIComponent(run.workflow_id)}$`),
      );
    });
  });

  it('a partial run is marked partial, with its failed URL and the reason', async () => {
    await withScreenshotOnFailure(page, 'partial-run', async () => {
      const run = lastRun(fx.partialPipeline);
      expect(run.status).toBe('partial');
      await visit(`/db/0/run/${encodeURIComponent(run.workflow_id)}`);
      expect(await page.getAttribute('.kv [data-status]', 'data-status')).toBe('partial');
      expect(await page.textContent('.kv')).toContain('1 of 3 URLs failed');
      const failed = await page.$$eval('#failed-urls tbody tr', (trs) =>
        trs.map((tr) => [...tr.children].map((td) => td.textContent)),
      );
      expect(failed).toHaveLength(1);
      expect(failed[0]![0]).toBe(fx.badUrl);
      expect(failed[0]![1]).toMatch(/sim_models/);
    });
  });

  it('price chart: the plotted points are the price history rows of the product', async () => {
    await withScreenshotOnFailure(page, 'prices', async () => {
      const [shop, item] = [10115139, 1234567890];
      await visit(`/db/0/p/marketplace-products/prices?item=${shop}:${item}`);
      const plotted = await page.evaluate(() => {
        const charts = (
          globalThis as unknown as {
            __consoleCharts: Record<string, { data: Array<Array<number | null>>; series: Array<{ label: string }> }>;
          }
        ).__consoleCharts;
        const name = Object.keys(charts).find((k) => k.startsWith('price-'))!;
        return { name, data: charts[name]!.data.map((a) => [...a]), labels: charts[name]!.series.map((s) => s.label) };
      });
      expect(plotted.name).toBe(`price-${shop}-${item}`);
      const history = db
        .prepare(
          'SELECT model_id, price_major, loaded_at FROM marketplace_price_history WHERE pipeline = ? AND shop_id = ? AND item_id = ? ORDER BY id',
        )
        .safeIntegers(true)
        .all('marketplace-products', shop, item) as Array<{
        model_id: bigint | null;
        price_major: number;
        loaded_at: string;
      }>;
      expect(history.length).toBeGreaterThan(3);
      // Every non-null point of every series, as (series model id, time, price), against the rows.
      const [xs, ...ys] = plotted.data;
      const modelOf = (label: string) => (label === 'product' ? null : /\((\d+)\)$/.exec(label)![1]!);
      const points = ys.flatMap((series, i) =>
        series.flatMap((y, j) =>
          y === null ? [] : [[modelOf(plotted.labels[i + 1]!), new Date(xs![j]! * 1000).toISOString(), y]],
        ),
      );
      const rows = history.map((h) => [
        h.model_id === null ? null : h.model_id.toString(),
        new Date(h.loaded_at).toISOString(),
        h.price_major,
      ]);
      const key = (p: unknown[]) => JSON.stringify(p);
      expect(points.map(key).sort()).toEqual(rows.map(key).sort());
      expect(await page.textContent('.chart figcaption')).toContain('TWD');
      // Rises since the previous run: the last run's history rows with a previous price, percent from the integers.
      const moves = db
        .prepare(
          `SELECT price, previous_price FROM marketplace_price_history WHERE pipeline = ? AND previous_price IS NOT NULL
             AND load_id IN (SELECT id FROM raw_responses WHERE workflow_id = ?)`,
        )
        .all('marketplace-products', lastRun('marketplace-products').workflow_id) as Array<{
        price: number;
        previous_price: number;
      }>;
      const shown = await page.$$eval('table.drops tbody tr, table.rises tbody tr', (trs) =>
        trs.map((tr) => tr.children[4]!.textContent),
      );
      const expected = moves
        .map((m) => (m.price - m.previous_price) / m.previous_price)
        .filter((x) => x !== 0)
        .map((x) => `${x > 0 ? '+' : ''}${(x * 100).toFixed(1)}%`);
      expect([...shown].sort()).toEqual(expected.sort());
    });
  });

  it('lead table: leads with their social profiles joined, and leads per run', async () => {
    await withScreenshotOnFailure(page, 'leads', async () => {
      await visit('/db/0/p/leads-coffee-roasters/leads');
      const root = 'leads_coffee_roasters_items';
      const expectedLeads = db
        .prepare(
          `SELECT row_key, name, email FROM ${root} WHERE pipeline = ? ORDER BY length(row_key), row_key LIMIT 50`,
        )
        .all('leads-coffee-roasters') as Array<{ row_key: string; name: string; email: string }>;
      const shown = await page.$$eval('#leads-table tbody tr', (trs) =>
        trs.map((tr) => ({ key: tr.getAttribute('data-row-key'), text: tr.textContent })),
      );
      expect(shown.map((r) => r.key)).toEqual(expectedLeads.map((l) => l.row_key));
      const headers = await page.$$eval('#leads-table thead th', (ths) => ths.map((th) => th.textContent));
      expect(headers).toContain('social profiles');
      const col = headers.indexOf('social profiles');
      const profiles = await page.$$eval(`#leads-table tbody tr td:nth-child(${col + 1})`, (tds) =>
        tds.map((td) => [...td.querySelectorAll('li')].map((li) => li.textContent)),
      );
      for (const [i, lead] of expectedLeads.entries()) {
        const children = db
          .prepare(
            `SELECT platform, handle, url FROM ${root}__social_profiles WHERE pipeline = ? AND parent_key = ? ORDER BY list_index`,
          )
          .all('leads-coffee-roasters', lead.row_key) as Array<{ platform: string; handle: string; url: string }>;
        expect(profiles[i]).toEqual(children.map((c) => [c.platform, c.handle, c.url].join(' · ')));
        if (lead.email) expect(shown[i]!.text).toContain(lead.email);
        if (lead.name) expect(shown[i]!.text).toContain(lead.name);
      }
      const perRun = await page.evaluate(() => {
        const charts = (globalThis as unknown as { __consoleCharts: Record<string, { data: number[][] }> })
          .__consoleCharts;
        return [...charts['leads-per-run-leads-coffee-roasters']!.data[1]!];
      });
      const runs = db
        .prepare(`SELECT workflow_id FROM pipeline_runs WHERE pipeline = ? ORDER BY id`)
        .all('leads-coffee-roasters') as Array<{ workflow_id: string }>;
      const counts = runs.map(
        (r) =>
          (
            db
              .prepare(
                `SELECT count(*) AS n FROM ${root} l JOIN raw_responses rr ON rr.id = l.load_id WHERE l.pipeline = ? AND rr.workflow_id = ?`,
              )
              .get('leads-coffee-roasters', r.workflow_id) as { n: number }
          ).n,
      );
      expect(perRun).toEqual(counts);
    });
  });

  it('data: keyset pages sorted by a column walk every row once, in order; a row opens its raw response', async () => {
    await withScreenshotOnFailure(page, 'data', async () => {
      const pipeline = 'marketplace-products';
      const table = 'marketplace_product_models';
      const expected = (
        db
          .prepare(
            `SELECT item_id, model_id, stock FROM ${table} WHERE pipeline = ? ORDER BY stock IS NULL, stock DESC, shop_id DESC, item_id DESC, model_id DESC`,
          )
          .safeIntegers(true)
          .all(pipeline) as Array<Record<string, bigint | null>>
      ).map((r) => `${r['item_id']}/${r['model_id']}/${r['stock'] ?? 'NULL'}`);
      expect(expected.length).toBeGreaterThan(10);
      let next: string | null = `/db/0/p/${pipeline}/data/${table}?sort=stock&desc=1&limit=4`;
      const seen: string[] = [];
      let pages = 0;
      while (next) {
        await visit(next);
        pages++;
        const cols = await page.$$eval('#data-table thead th a', (as) => as.map((a) => a.getAttribute('data-column')));
        const at = (c: string) => cols.indexOf(c) + 1; // +1 for nth-child (the raw column is last, issue 36)
        seen.push(
          ...(await page.$$eval(
            `#data-table tbody tr`,
            (trs, idx) => trs.map((tr) => idx.map((i) => tr.children[i - 1]!.textContent).join('/')),
            [at('item_id'), at('model_id'), at('stock')],
          )),
        );
        next = await page.$eval('.pager', (p) => p.querySelector('a[data-next]')?.getAttribute('href') ?? null);
      }
      expect(pages).toBe(Math.ceil(expected.length / 4));
      expect(seen).toEqual(expected);
      // Column types are shown under the names.
      expect(await page.textContent('#data-table thead')).toContain('INTEGER');
      // Lineage: the first row's raw response is the body its load stored.
      await visit(`/db/0/p/${pipeline}/data/marketplace_products`);
      const loadId = (
        db
          .prepare(`SELECT load_id FROM marketplace_products WHERE pipeline = ? ORDER BY shop_id, item_id LIMIT 1`)
          .get(pipeline) as { load_id: number }
      ).load_id;
      await page.click('#data-table tbody tr:first-child a:has-text("response")');
      await page.waitForSelector('#raw-body');
      const rawRow = db.prepare('SELECT body, body_ref FROM raw_responses WHERE id = ?').get(loadId) as {
        body: string;
        body_ref: number | null;
      };
      const body =
        rawRow.body_ref === null
          ? rawRow.body
          : (db.prepare('SELECT body FROM raw_responses WHERE id = ?').get(rawRow.body_ref) as { body: string }).body;
      expect(JSON.parse((await page.textContent('#raw-body'))!)).toEqual(JSON.parse(body));
      expect(await page.textContent('h1')).toBe(`Raw response ${loadId}`);
    });
  });

  it('download of the current view as CSV and Parquet, read back by Python csv and pyarrow', async () => {
    await withScreenshotOnFailure(page, 'download', async () => {
      const pipeline = 'marketplace-products';
      await visit(`/db/0/p/${pipeline}/data/marketplace_products?sort=price&desc=1`);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'console-dl-'));
      try {
        const expected = db
          .prepare(
            `SELECT item_id, title, price FROM marketplace_products WHERE pipeline = ? ORDER BY price IS NULL, price DESC, shop_id DESC, item_id DESC`,
          )
          .safeIntegers(true)
          .all(pipeline) as Array<{ item_id: bigint; title: string; price: bigint }>;
        const [csvDl] = await Promise.all([page.waitForEvent('download'), page.click('a:has-text("CSV")')]);
        const csvFile = path.join(dir, csvDl.suggestedFilename());
        await csvDl.saveAs(csvFile);
        const records = readCsvWithPython(csvFile);
        const header = records[0]!;
        expect(header).toContain('title');
        const pick = (r: string[], c: string) => r[header.indexOf(c)];
        expect(records.slice(1).map((r) => [pick(r, 'item_id'), pick(r, 'title'), pick(r, 'price')])).toEqual(
          expected.map((e) => [e.item_id.toString(), e.title, e.price.toString()]),
        );

        const [pqDl] = await Promise.all([page.waitForEvent('download'), page.click('a:has-text("Parquet")')]);
        const pqFile = path.join(dir, pqDl.suggestedFilename());
        await pqDl.saveAs(pqFile);
        const read = readParquetWithPyarrow(pqFile);
        expect(read.schema).toContainEqual(['item_id', 'int64']);
        expect(
          read.rows.map((r) => [
            (r['item_id'] as { int: string }).int,
            r['title'],
            (r['price'] as { int: string }).int,
          ]),
        ).toEqual(expected.map((e) => [e.item_id.toString(), e.title, e.price.toString()]));
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  it('hostile texts from the data are shown as text: no markup, no script runs', async () => {
    await withScreenshotOnFailure(page, 'hostile', async () => {
      let dialogs = 0;
      page.on('dialog', (d) => {
        dialogs++;
        void d.dismiss();
      });
      await visit('/db/0/p/hostile-jobs/data/job_records');
      const cells = await page.$$eval('#data-table tbody td', (tds) => tds.map((td) => td.textContent));
      expect(cells).toContain(fx.hostileTitle);
      expect(cells).toContain('</td></tr></table><h1>injected</h1>');
      expect(await page.$$eval('h1', (hs) => hs.length)).toBe(1);
      expect(await page.$$eval('#data-table img', (imgs) => imgs.length)).toBe(0);
      expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(dialogs).toBe(0);
    });
  });

  it('cost: tokens per run from pipeline_runs in a bar chart', async () => {
    await withScreenshotOnFailure(page, 'cost', async () => {
      await visit('/cost');
      const chart = await page.evaluate(() => {
        const c = (
          globalThis as unknown as {
            __consoleCharts: Record<string, { data: Array<Array<number | null>>; series: Array<{ label: string }> }>;
          }
        ).__consoleCharts['tokens-per-run']!;
        return { data: c.data.map((a) => [...a]), labels: c.series.map((s) => s.label) };
      });
      const runs = db
        .prepare('SELECT pipeline, token_usage FROM pipeline_runs WHERE token_usage IS NOT NULL ORDER BY started_at')
        .all() as Array<{ pipeline: string; token_usage: number }>;
      expect(runs.length).toBeGreaterThan(1);
      const plotted = chart.data[0]!.map((_, i) => {
        const s = chart.data.slice(1).findIndex((series) => series[i] !== null);
        return { pipeline: chart.labels[s + 1], token_usage: chart.data[s + 1]![i] };
      });
      expect(plotted).toEqual(runs);
    });
  });
});

describe('read-only', () => {
  it('browsing every page leaves the database file byte-identical, with the same mtime', async () => {
    // Every link reachable from the pipelines list (downloads and raw bodies included), each visited once.
    const seen = new Set<string>();
    const queue = ['/'];
    while (queue.length > 0 && seen.size < 400) {
      const p = queue.shift()!;
      if (seen.has(p)) continue;
      seen.add(p);
      const res = await fetch(url(p));
      expect(res.status, p).toBe(200);
      const type = res.headers.get('content-type') ?? '';
      const text = type.includes('text/html') ? await res.text() : (await res.arrayBuffer(), '');
      for (const m of text.matchAll(/href="(\/[^"]*)"/g)) {
        const href = m[1]!.replace(/&#38;/g, '&');
        if (!href.startsWith('/assets/') && !seen.has(href)) queue.push(href);
      }
    }
    expect(seen.size).toBeGreaterThan(40);
    expect([...seen].some((p) => p.includes('download.parquet'))).toBe(true);
    expect(fileState(fx.dbFile)).toEqual(before);
  });

  it('a write through the console connection fails: the database refuses it', async () => {
    const source = await openReadOnly(fx.dbUrl);
    try {
      // Through the reader the pages use (a statement that returns rows, so it runs) and the raw handle beside it.
      await expect(source.read((r) => r.all(`DELETE FROM pipeline_runs RETURNING id`))).rejects.toThrow(
        /readonly|read-only/i,
      );
      await expect(
        source.read((r) =>
          r.all(
            `INSERT INTO pipeline_runs (workflow_id, pipeline, kind, status, started_at) VALUES ('x', 'x', 'x', 'x', 'x') RETURNING id`,
          ),
        ),
      ).rejects.toThrow(/readonly|read-only/i);
      const handle = source.exportDatabase().sqlite!;
      expect(() => handle.exec('CREATE TABLE console_probe (x integer)')).toThrow(/readonly|read-only/i);
      expect(() => handle.exec('PRAGMA query_only = OFF; DELETE FROM pipeline_runs')).toThrow(/readonly|read-only/i);
    } finally {
      await source.close();
    }
    expect(fileState(fx.dbFile)).toEqual(before);
  });

  it('answers only GET and HEAD', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await fetch(url('/'), { method });
      expect(res.status, method).toBe(405);
    }
  });
});

describe('degrading and optional tables', () => {
  it('Temporal unreachable: the schedule column says unknown, with the reason, and the pages work', async () => {
    const other = await startConsole({
      databases: [{ url: fx.dbUrl }],
      temporalEnv: { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1' },
    });
    try {
      const res = await fetch(new URL('/', other.url));
      const text = await res.text();
      expect(res.status).toBe(200);
      // Within the page's wait (the connection attempt itself may take the SDK's 10 s) or after it failed.
      expect(text).toMatch(
        /<span class="muted" title="(cannot connect to Temporal at 127\.0\.0\.1:1|Temporal did not answer within 2 s)[^"]*">unknown<\/span>/,
      );
      expect(
        (await fetch(new URL(`/db/0/run/${encodeURIComponent(lastRun(fx.partialPipeline).workflow_id)}`, other.url)))
          .status,
      ).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('check results: shown on the pipelines list and the run page when a check_results table exists', async () => {
    const copy = path.join(fx.bed.dir, 'with-checks.sqlite');
    await db.backup(copy);
    const run = lastRun('jobs-remote-typescript');
    // The table the checks feature made (db/model/schema/definition.ts), written by its own writer, as a run leaves it.
    const { openDatabase } = await import('../../../destinations/open.js');
    const { recordCheckResults } = await import('../../../checks/evaluate.js');
    const w = await openDatabase(`sqlite:${copy}`);
    try {
      await recordCheckResults(w, 'jobs-remote-typescript', run.workflow_id, [
        {
          name: 'rows_min',
          type: 'row_count',
          severity: 'error',
          status: 'pass',
          observed: '15 rows',
          observedValue: 15,
          threshold: '>= 10',
          failingKeys: null,
          message: '15 rows',
        },
        {
          name: 'salary_not_null',
          type: 'not_null',
          severity: 'error',
          status: 'fail',
          observed: '20% (3 of 15 rows)',
          observedValue: 20,
          threshold: '0%',
          failingKeys: [{ row_key: 'k1' }],
          message: '3 of 15 rows have no salary <b>',
        },
      ]);
    } finally {
      await w.close();
    }
    const other = await startConsole({ databases: [{ url: `sqlite:${copy}` }], temporal: false });
    try {
      const home = await (await fetch(new URL('/', other.url))).text();
      const row = /<tr><td><a href="[^"]*jobs-remote-typescript">[\s\S]*?<\/tr>/.exec(home)![0];
      expect(row).toContain('1 passed, 1 failed');
      expect(row).toContain('data-status="failed"');
      const page = await (await fetch(new URL(`/db/0/run/${encodeURIComponent(run.workflow_id)}`, other.url))).text();
      expect(page).toContain('<h2>Checks</h2>');
      expect(page).toContain('salary_not_null');
      expect(page).toContain('3 of 15 rows have no salary &#60;b&#62;');
      expect(page).toContain('20% (3 of 15 rows)');
      const heads = /<table class="checks">[\s\S]*?<\/thead>/.exec(page)![0];
      expect([...heads.matchAll(/<th>([^<]*)<\/th>/g)].map((m) => m[1])).toEqual([
        'Check',
        'Type',
        'Severity',
        'Status',
        'Observed',
        'Threshold',
        'Message',
        'Checked at',
      ]);
    } finally {
      await other.close();
    }
  });
});

describe('report', () => {
  it('one HTML file that opens from disk with no network request, its chart plotting the history rows', async () => {
    const out = path.join(fx.bed.dir, 'report.html');
    const r = await runCli(['report', 'marketplace-products', '--database', fx.dbUrl, '--out', out, '--since', '30d']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(out);
    const ctx = await browser.newContext({ offline: true });
    const p = await ctx.newPage();
    const requests: string[] = [];
    await ctx.route('**/*', (route) => {
      requests.push(route.request().url());
      return route.request().url() === `file://${out}` ? route.continue() : route.abort();
    });
    p.on('request', (req) => {
      if (req.url() !== `file://${out}`) requests.push(req.url());
    });
    try {
      await withScreenshotOnFailure(p, 'report', async () => {
        await p.goto(`file://${out}`);
        await p.waitForSelector('html[data-charts-ready]');
        expect(requests.filter((u) => u !== `file://${out}`)).toEqual([]);
        const runs = db
          .prepare('SELECT workflow_id FROM pipeline_runs WHERE pipeline = ? ORDER BY id DESC')
          .all('marketplace-products') as Array<{ workflow_id: string }>;
        const sections = await p.$$eval('section.run h1', (hs) => hs.map((h) => h.textContent));
        expect(sections).toEqual(runs.map((x) => `Run ${x.workflow_id}`));
        const plotted = await p.evaluate(() => {
          const charts = (
            globalThis as unknown as { __consoleCharts: Record<string, { data: Array<Array<number | null>> }> }
          ).__consoleCharts;
          return Object.fromEntries(
            Object.entries(charts)
              .filter(([k]) => k.startsWith('price-'))
              .map(([k, c]) => [
                k,
                c.data
                  .slice(1)
                  .flat()
                  .filter((v) => v !== null).length,
              ]),
          );
        });
        const counts = db
          .prepare(
            'SELECT shop_id, item_id, count(*) AS n FROM marketplace_price_history WHERE pipeline = ? GROUP BY shop_id, item_id',
          )
          .all('marketplace-products') as Array<{ shop_id: number; item_id: number; n: number }>;
        expect(plotted).toEqual(Object.fromEntries(counts.map((c) => [`price-${c.shop_id}-${c.item_id}`, c.n])));
      });
    } finally {
      await ctx.close();
    }
  });
});

describe('the command', () => {
  it('pipeline files: the console shows their pipelines, read from their destinations, and no other', async () => {
    const { consoleDatabases } = await import('../../../console/targets.js');
    const dbs = await consoleDatabases({ files: [path.join(fx.bed.dir, 'market-watch.yaml')] });
    expect(dbs).toEqual([{ url: fx.dbUrl, pipelines: [fx.partialPipeline] }]);
    await expect(
      consoleDatabases({ database: fx.dbUrl, files: [path.join(fx.bed.dir, 'market-watch.yaml')] }),
    ).rejects.toThrow(/either --database or pipeline files/);
    const only = await startConsole({ databases: dbs, temporal: false });
    try {
      const home = await (await fetch(new URL('/', only.url))).text();
      expect([...home.matchAll(/<tr><td><a href="\/db\/0\/p\/([^"]+)">/g)].map((m) => m[1])).toEqual([
        fx.partialPipeline,
      ]);
      expect((await fetch(new URL('/db/0/p/marketplace-products', only.url))).status).toBe(404);
      expect(
        (await fetch(new URL(`/db/0/run/${encodeURIComponent(lastRun('marketplace-products').workflow_id)}`, only.url)))
          .status,
      ).toBe(404);
    } finally {
      await only.close();
    }
  });

  it('scrape-etl console listens on 127.0.0.1 on a free port; another address needs --host, warns, and requires the printed token', async () => {
    const start = (args: string[]) =>
      new Promise<{ child: ReturnType<typeof spawn>; out: string; err: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [CLI, 'console', '--database', fx.dbUrl, '--no-temporal', ...args], {
          cwd: REPO_ROOT,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (/Ctrl-C/.test(out)) resolve({ child, out, err });
        });
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.on('exit', (code) => reject(new Error(`console exited ${code}: ${err}`)));
        setTimeout(() => reject(new Error(`console did not start: ${out} ${err}`)), 60_000).unref();
      });
    const local = await start([]);
    try {
      const u = /console: (http:\/\/127\.0\.0\.1:\d+\/)\n/.exec(local.out)![1]!;
      expect((await fetch(u)).status).toBe(200);
      expect(local.err).not.toMatch(/warning/);
    } finally {
      local.child.kill('SIGTERM');
    }
    const wide = await start(['--host', '127.0.0.2']);
    try {
      expect(wide.err).toMatch(/warning: the console listens on 127\.0\.0\.2/);
      const u = new URL(/console: (\S+)\n/.exec(wide.out)![1]!);
      const token = u.searchParams.get('token')!;
      expect(token.length).toBeGreaterThan(20);
      expect(wide.out).toContain(`access token: ${token}`);
      expect((await fetch(`${u.origin}/`)).status).toBe(401);
      expect((await fetch(`${u.origin}/?token=wrong${token.slice(5)}`)).status).toBe(401);
      const first = await fetch(u, { redirect: 'manual' });
      expect(first.status).toBe(303);
      const cookie = first.headers.get('set-cookie')!.split(';')[0]!;
      expect((await fetch(`${u.origin}/`, { headers: { cookie } })).status).toBe(200);
    } finally {
      wide.child.kill('SIGTERM');
    }
  });
});
