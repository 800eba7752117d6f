// The console's table pages say what each table and column means (issue #40): the table's description and kind,
// and a Columns section with each column's type, whether it is fixed (the model's, or an inferred table's own keys
// and lineage) or inferred from the content, its key role and its description, the same text the database's own
// comment catalog carries (SQLite's scrape_etl_comments, read here by Python's sqlite3). A real SQLite file loaded
// from a real marketplace answer and a results page whose content schema evolution turned into tables, and headless
// Chromium reading the pages.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole, type RunningConsole } from '../../../console/server.js';
import { openDatabase } from '../../../destinations/open.js';
import { loadBatch } from '../../../db/store/load.js';
import { contentTableName } from '../../../db/model/evolve/names.js';
import { parseJson } from '../../../lib/json.js';
import { marketplaceResponseSchema } from '../../../client/schemas.js';
import { TABLES } from '../../../db/model/schema/definition.js';
import { launchBrowser, withScreenshotOnFailure } from '../../support/browser.js';
import { REAL_FIXTURES } from '../../support/fixtures.js';

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-console-columns-')));
const dbFile = path.join(dir, 'dest.sqlite');
let con: RunningConsole;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  const db = await openDatabase(`sqlite:${dbFile}`);
  try {
    const raw = fs.readFileSync(path.join(REAL_FIXTURES, 'shopee-sync-response-1.json'), 'utf8');
    await loadBatch(db, {
      pipeline: 'shop',
      kind: 'marketplace',
      endpoint: 'POST /api/marketplace/sync',
      requestKey: 'u',
      raw,
      data: marketplaceResponseSchema.parse(parseJson(raw)),
    });
    const data = {
      data: [5, 6].map((id) => ({
        id,
        scraper_id: 7,
        scraping_run_id: 70,
        scraper_name: 'leads',
        scraped_url: 'Default',
        status: 'succeeded',
        content: { company: `Co ${id}`, employees: id * 10 },
        created_at: '2026-01-01T00:00:00.000000Z',
        updated_at: '2026-01-01T00:00:00.000000Z',
      })),
    };
    await loadBatch(db, {
      pipeline: 'sync',
      endpoint: 'GET /api/results',
      requestKey: '1',
      raw: JSON.stringify(data),
      kind: 'results',
      data: data as never,
      resultTable: 'scraper_results',
      content: { table: contentTableName('sync'), mode: 'evolve' },
    });
  } finally {
    await db.close();
  }
  con = await startConsole({ databases: [{ url: `sqlite:${dbFile}` }], temporal: false });
  browser = await launchBrowser();
  page = await browser.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await con?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The database's comments, `table.column` ('' for the table's own), read by Python's sqlite3. */
function comments(): Map<string, string> {
  const rows = JSON.parse(
    execFileSync(
      'python3',
      [
        '-c',
        'import json,sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(json.dumps(c.execute("SELECT table_name, column_name, comment FROM scrape_etl_comments").fetchall()))',
        dbFile,
      ],
      { encoding: 'utf8' },
    ),
  ) as Array<[string, string, string]>;
  return new Map(rows.map(([t, c, d]) => [`${t}.${c}`, d]));
}

async function columnsOf(pipeline: string, table: string): Promise<{ doc: string; rows: string[][] }> {
  const res = await page.goto(new URL(`/db/0/p/${pipeline}/data/${table}`, con.url).toString());
  expect(res?.status()).toBe(200);
  const head = await page.$$eval('table.columns thead th', (ths) => ths.map((th) => th.textContent!.trim()));
  expect(head).toEqual(['Column', 'Type', 'Kind', 'Key', 'Description']);
  const rows = await page.$$eval('table.columns tbody tr', (trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.innerText.trim())),
  );
  return { doc: await page.innerText('p.table-doc'), rows };
}

describe('table pages: what each column means', () => {
  it('a model table: its description and natural key, its columns fixed and those its loads added inferred, each with its key role and the comment the database carries', async () => {
    await withScreenshotOnFailure(page, 'columns-model', async () => {
      const got = comments();
      const { doc, rows } = await columnsOf('shop', 'marketplace_products');
      expect(doc).toBe(
        `Model table (fixed columns; natural key pipeline, shop_id, item_id). ${got.get('marketplace_products.')}`,
      );
      const defined = Object.keys(TABLES.marketplace_products.columns);
      // Every column of the model, then the ones its loads added to it (the answer's fields beyond the model's).
      expect(
        rows
          .map((r) => r[0])
          .filter((c) => defined.includes(c!))
          .sort(),
      ).toEqual([...defined].sort());
      const added = rows.filter((r) => !defined.includes(r[0]!));
      expect(added.length).toBeGreaterThan(0);
      for (const [column, , kind, key, description] of rows) {
        expect(kind, column).toBe(defined.includes(column!) ? 'fixed' : 'inferred');
        expect(key, column).toBe(
          ['pipeline', 'shop_id', 'item_id'].includes(column!)
            ? 'natural key'
            : ['load_id', 'loaded_at', 'row_hash'].includes(column!)
              ? 'lineage'
              : '',
        );
        expect(description, column).toBe(got.get(`marketplace_products.${column}`));
      }
      // The header of each data column carries the same text, for a glance.
      expect(await page.getAttribute('#data-table th:has(a[data-column="price"])', 'title')).toBe(
        got.get('marketplace_products.price'),
      );
    });
  });

  it('an inferred table: its own keys and lineage fixed, the content columns inferred, each with the comment schema evolution wrote', async () => {
    await withScreenshotOnFailure(page, 'columns-inferred', async () => {
      const got = comments();
      const table = contentTableName('sync');
      const { doc, rows } = await columnsOf('sync', table);
      expect(doc).toMatch(
        /^Inferred table, created by loads from the result content \(natural key pipeline, row_key\)\. /,
      );
      const byName = new Map(rows.map((r) => [r[0]!, r]));
      expect(byName.get('row_key')!.slice(2, 4)).toEqual(['fixed', 'natural key']);
      expect(byName.get('load_id')!.slice(2, 4)).toEqual(['fixed', 'lineage']);
      for (const column of ['company', 'employees']) {
        const row = byName.get(column)!;
        expect(row.slice(2, 4), column).toEqual(['inferred', '']);
        expect(row[4], column).toBe(got.get(`${table}.${column}`));
        expect(row[4], column).toContain('Added by schema evolution');
      }
    });
  });
});
