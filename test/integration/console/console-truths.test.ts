// What the console says is true (issue 36), in headless Chromium over a destination written by the product's own
// code: a run with no check results shows "no checks", not a green "passed"; rows seen beside rows changed and
// tokens the service never reported said as unknown, not a dash; check columns have headers a person
// reads; an empty Cost page says no spend is recorded yet, with no empty tables or internal names; prices are drawn
// as steps between observations; a chart of one run is its value said plainly, not a lone bar; a data table shows
// its data columns first and the lineage columns last, and a key of digit strings in numeric order (1, 2, 10).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole, type RunningConsole } from '../../../console/server.js';
import { openDatabase } from '../../../destinations/open.js';
import { finishPipelineRun, startPipelineRun } from '../../../db/store/pipeline-runs.js';
import { recordCheckResults } from '../../../checks/evaluate.js';
import { launchBrowser, withScreenshotOnFailure } from '../../support/browser.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-console-truths-'));
const dbFile = path.join(dir, 'dest.sqlite');
let con: RunningConsole;
let browser: Browser;
let page: Page;

const NO_CHECKS = 'lonely-shop';
const CHECKED = 'checked-shop';
const checkedRun = `${CHECKED}--2026-11-27T10:00:00Z`;

beforeAll(async () => {
  const db = await openDatabase(`sqlite:${dbFile}`);
  try {
    // One run of a pipeline without checks (and no token usage anywhere: nothing spent).
    await startPipelineRun(db, {
      workflowId: `${NO_CHECKS}--run1`,
      pipeline: NO_CHECKS,
      kind: 'marketplace',
      startedAt: new Date('2026-11-27T09:00:00Z'),
    });
    // It fetched 5 products and 2 of them changed: rows seen beside rows changed.
    await finishPipelineRun(db, {
      workflowId: `${NO_CHECKS}--run1`,
      status: 'succeeded',
      rowsByTable: { marketplace_products: 2 },
      seenByTable: { marketplace_products: 5 },
      finishedAt: new Date('2026-11-27T09:00:05Z'),
    });
    for (const [i, at] of ['2026-11-26T10:00:00Z', '2026-11-27T10:00:00Z'].entries()) {
      const id = i === 1 ? checkedRun : `${CHECKED}--run${i}`;
      await startPipelineRun(db, { workflowId: id, pipeline: CHECKED, kind: 'marketplace', startedAt: new Date(at) });
      await finishPipelineRun(db, {
        workflowId: id,
        status: 'succeeded',
        rowsByTable: { marketplace_products: 3 + i },
        finishedAt: new Date(Date.parse(at) + 4000),
      });
    }
    await recordCheckResults(db, CHECKED, checkedRun, [
      {
        name: 'enough_rows',
        type: 'row_count',
        severity: 'error',
        status: 'pass',
        observed: '4 rows',
        observedValue: 4,
        threshold: '>= 1',
        failingKeys: null,
        message: '4 rows',
      },
    ]);
  } finally {
    await db.close();
  }
  // A product's price observed three times (12.00, 15.00, then 9.50), and a data table with lineage columns, as
  // the loader lays them out (lineage first in the file).
  const raw = new BetterSqlite3(dbFile);
  const insert = raw.prepare(
    `INSERT INTO marketplace_price_history (shop_id, item_id, model_id, price, price_major, currency, pipeline, load_id, loaded_at, row_hash) VALUES (1, 7, NULL, ?, ?, 'EUR', ?, ?, ?, ?)`,
  );
  [
    [1200, 12, '2026-11-25T10:00:00Z'],
    [1500, 15, '2026-11-26T10:00:00Z'],
    [950, 9.5, '2026-11-27T10:00:00Z'],
  ].forEach(([p, major, at], i) => insert.run(p, major, CHECKED, i + 1, at, `h${i}`));
  raw.exec(
    `CREATE TABLE shop_notes (pipeline TEXT NOT NULL, load_id INTEGER, loaded_at TEXT, row_hash TEXT, row_key TEXT NOT NULL, note TEXT, PRIMARY KEY (pipeline, row_key))`,
  );
  const note = raw.prepare(`INSERT INTO shop_notes VALUES (?, NULL, '2026-11-27T10:00:00Z', 'x', ?, ?)`);
  for (const k of ['10', '2', '1', '21', '3']) note.run(CHECKED, k, `note ${k}`);
  raw.close();
  con = await startConsole({ databases: [{ url: `sqlite:${dbFile}` }], temporal: false });
  browser = await launchBrowser();
  page = await browser.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await con?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function visit(p: string): Promise<void> {
  const res = await page.goto(new URL(p, con.url).toString());
  expect(res?.status(), p).toBe(200);
  await page.waitForSelector('html[data-charts-ready]');
}

describe('the console says only what is true', () => {
  it('a pipeline with no checks reads "no checks", not a green passed pill', async () => {
    await withScreenshotOnFailure(page, 'truths-no-checks', async () => {
      await visit('/');
      const rows = await page.$$eval('table tbody tr', (trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.innerText.trim())),
      );
      const head = await page.$$eval('table thead th', (ths) => ths.map((th) => th.textContent!.trim()));
      const checks = head.indexOf('Checks');
      const lonely = rows.find((r) => r[0] === NO_CHECKS)!;
      const checked = rows.find((r) => r[0] === CHECKED)!;
      expect(lonely[checks]).toBe('no checks');
      expect(checked[checks]).toMatch(/^passed\s+1 passed, 0 failed$/);
      const pills = await page.$$eval('table tbody tr', (trs) =>
        trs.map((tr) => [
          tr.querySelector('td')!.textContent!.trim(),
          tr.querySelectorAll('[data-status="passed"]').length,
        ]),
      );
      expect(Object.fromEntries(pills)).toEqual({ [NO_CHECKS]: 0, [CHECKED]: 1 });
    });
  });

  it('rows seen beside rows changed, and tokens unknown (never a dash) when the service reported none', async () => {
    await withScreenshotOnFailure(page, 'truths-rows-seen', async () => {
      await visit('/');
      const rows = await page.$$eval('table tbody tr', (trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.innerText.trim())),
      );
      const head = await page.$$eval('table thead th', (ths) => ths.map((th) => th.textContent!.trim()));
      const lonely = rows.find((r) => r[0] === NO_CHECKS)!;
      const checked = rows.find((r) => r[0] === CHECKED)!;
      expect([
        lonely[head.indexOf('Rows seen')],
        lonely[head.indexOf('Rows changed')],
        lonely[head.indexOf('Tokens')],
      ]).toEqual(['5', '2', 'unknown']);
      // A run recorded before rows seen were counted: not known, so not a number.
      expect([checked[head.indexOf('Rows seen')], checked[head.indexOf('Rows changed')]]).toEqual(['—', '4']);
      await visit(`/db/0/run/${encodeURIComponent(`${NO_CHECKS}--run1`)}`);
      expect(await page.innerText('td.rows-seen')).toMatch(/^5\b/);
      expect(await page.innerText('td.rows-changed')).toMatch(/^2\b/);
      expect(await page.innerText('td.tokens')).toBe('unknown');
    });
  });

  it("a run's checks have headers a person reads, not column names", async () => {
    await withScreenshotOnFailure(page, 'truths-check-headers', async () => {
      await visit(`/db/0/run/${encodeURIComponent(checkedRun)}`);
      const head = await page.$$eval('table.checks thead th', (ths) => ths.map((th) => th.textContent!.trim()));
      expect(head).toEqual(['Check', 'Type', 'Severity', 'Status', 'Observed', 'Threshold', 'Message', 'Checked at']);
      expect(head.join(' ')).not.toMatch(/_/);
    });
  });

  it('an empty Cost page says there is no spend yet: no empty table, no internal names', async () => {
    await withScreenshotOnFailure(page, 'truths-cost', async () => {
      await visit('/cost');
      const text = await page.innerText('main');
      expect(text).toContain('No spend recorded yet');
      expect(await page.$$('main table')).toHaveLength(0);
      expect(text).not.toMatch(/token_usage|tokenUsage|pipeline_runs/);
    });
  });

  it('prices are drawn as steps between observations, not slopes', async () => {
    await withScreenshotOnFailure(page, 'truths-price-steps', async () => {
      await visit(`/db/0/p/${CHECKED}/prices?item=1:7`);
      const paths = await page.evaluate(() => {
        const w = globalThis as unknown as {
          __consoleCharts: Record<string, { series: Array<{ paths?: unknown }>; data: unknown[][] }>;
          uPlot: { paths: { stepped(o: { align: number }): unknown } };
        };
        const c = w.__consoleCharts['price-1-7']!;
        return {
          paths: String(c.series[1]!.paths),
          stepped: String(w.uPlot.paths.stepped({ align: 1 })),
          points: c.data[1],
        };
      });
      expect(paths.points).toEqual([12, 15, 9.5]);
      expect(paths.paths).toBe(paths.stepped);
    });
  });

  it('a chart of one run is its value said plainly, not a lone bar', async () => {
    await withScreenshotOnFailure(page, 'truths-one-run', async () => {
      await visit(`/db/0/p/${NO_CHECKS}`);
      expect(await page.$$('.chart-box')).toHaveLength(0);
      expect(await page.innerText('figure.single-value')).toMatch(
        /Rows per run\s+2 rows \(11-27 09:00; one run so far\)/,
      );
      // Two runs still make a chart.
      await visit(`/db/0/p/${CHECKED}`);
      expect(await page.$$('.chart-box canvas')).toHaveLength(1);
    });
  });

  it('a data table shows its data columns first and the lineage columns last, and numeric keys in numeric order', async () => {
    await withScreenshotOnFailure(page, 'truths-data-columns', async () => {
      await visit(`/db/0/p/${CHECKED}/data/shop_notes`);
      const cols = await page.$$eval('#data-table thead th a', (as) => as.map((a) => a.getAttribute('data-column')));
      expect(cols).toEqual(['row_key', 'note', 'pipeline', 'load_id', 'loaded_at', 'row_hash']);
      const first = await page.$$eval('#data-table tbody tr:first-child td', (tds) =>
        tds.map((td) => td.textContent!.trim()),
      );
      expect(first.slice(0, 2)).toEqual(['1', 'note 1']);
      // Every row once, in numeric order, across keyset pages of two rows, ascending and descending.
      for (const [q, expected] of [
        ['limit=2', ['1', '2', '3', '10', '21']],
        ['limit=2&sort=row_key&desc=1', ['21', '10', '3', '2', '1']],
      ] as const) {
        const seen: string[] = [];
        await visit(`/db/0/p/${CHECKED}/data/shop_notes?${q}`);
        for (let i = 0; i < 5; i++) {
          seen.push(
            ...(await page.$$eval('#data-table tbody tr td:first-child', (tds) =>
              tds.map((td) => td.textContent!.trim()),
            )),
          );
          const next = await page.$('a[data-next]');
          if (!next) break;
          await Promise.all([page.waitForLoadState('load'), next.click()]);
          await page.waitForSelector('#data-table');
        }
        expect(seen, q).toEqual(expected);
      }
    });
  });
});
