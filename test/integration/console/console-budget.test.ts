// The console's Cost page shows spend against each budget (issue #40), in headless Chromium: a pipeline file with a
// budget and a project file with one, spend recorded by the product's own metering (db/store/spend.ts) in a real SQLite file,
// and the page's Budgets table read as a person reads it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole, type RunningConsole } from '../../../console/server.js';
import { consoleDatabases } from '../../../console/targets.js';
import { openDatabase } from '../../../destinations/open.js';
import { recordCallTokens, reserveCall, spendCallKey } from '../../../db/store/spend.js';
import { launchBrowser, withScreenshotOnFailure } from '../../support/browser.js';

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-console-budget-')));
const dbFile = path.join(dir, 'dest.sqlite');
const pipelineFile = path.join(dir, 'pipelines', 'shop.yaml');
let con: RunningConsole;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  fs.mkdirSync(path.dirname(pipelineFile));
  fs.writeFileSync(path.join(dir, 'scrape-etl.yaml'), 'budget:\n  tokens: { month: 10000 }\n');
  fs.writeFileSync(
    pipelineFile,
    [
      'name: shop',
      'kind: marketplace',
      "request: { urls: ['https://s.example/api?itemid=1&shopid=2'] }",
      `destination: { database: "sqlite:${dbFile}" }`,
      'budget:',
      '  calls: { run: 10, day: 4 }',
      "  warn_at: '50%'",
    ].join('\n'),
  );
  const db = await openDatabase(`sqlite:${dbFile}`);
  try {
    for (const i of [1, 2, 3]) {
      const callKey = spendCallKey({
        workflowId: 'shop--r1',
        activityId: '1',
        activityAttempt: 1,
        requestKey: `u${i}`,
        clientAttempt: 1,
      });
      const refused = await reserveCall(
        db,
        {
          callKey,
          pipeline: 'shop',
          project: path.join(dir, 'scrape-etl.yaml'),
          workflowId: 'shop--r1',
          endpoint: 'POST /api/marketplace/sync',
          requestKey: `u${i}`,
          createsScraper: false,
          calledAt: new Date(),
        },
        [],
      );
      expect(refused).toBeUndefined();
      await recordCallTokens(db, callKey, 1500);
    }
  } finally {
    await db.close();
  }
  con = await startConsole({ databases: await consoleDatabases({ files: [pipelineFile] }), temporal: false });
  browser = await launchBrowser();
  page = await browser.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await con?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('Cost page: spend against each budget', () => {
  it('lists every limit of the pipeline and its project with what its period spent and how much of it is used', async () => {
    await withScreenshotOnFailure(page, 'cost-budgets', async () => {
      const res = await page.goto(new URL('/cost', con.url).toString());
      expect(res?.status()).toBe(200);
      await page.waitForSelector('html[data-charts-ready]');
      const head = await page.$$eval('table.cost-budgets thead th', (ths) => ths.map((th) => th.textContent!.trim()));
      expect(head).toEqual(['Pipeline', 'Budget', 'Period', 'Spent', 'Limit', 'Used']);
      const rows = await page.$$eval('table.cost-budgets tbody tr', (trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.innerText.trim())),
      );
      const now = new Date().toISOString();
      expect(rows).toEqual([
        ['shop', 'service calls per run', 'last run shop--r1', '3', '10', '30%'],
        ['shop', 'service calls per day', now.slice(0, 10), '3', '4', '75% (warning)'],
        ['shop', 'project tokens per month', now.slice(0, 7), '4,500', '10,000', '45%'],
      ]);
      // No spend in pipeline_runs yet: the page still says so beneath the budgets.
      expect(await page.innerText('main')).toContain('No spend recorded yet');
    });
  });
});
