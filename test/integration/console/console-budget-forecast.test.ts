// The Cost page shows, beside the budgets, the forecast of each budgeted pipeline's next scheduled run (issue #40):
// when its Temporal Schedule fires next, the calls, scrapers and tokens that run is forecast to spend from the
// pipeline's own history, and whether a limit would refuse it (the plan `run --plan` prints and the worker holds a
// scheduled run to, budget/plan.ts). A real Temporal dev server with a schedule applied as `schedule apply` does, spend
// recorded by the product's own metering in a real SQLite file, and headless Chromium reading the page.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole, type RunningConsole } from '../../../console/server.js';
import { consoleDatabases } from '../../../console/targets.js';
import { openDatabase } from '../../../destinations/open.js';
import { recordCallTokens, reserveCall, spendCallKey } from '../../../db/store/spend.js';
import { loadPipelineFile } from '../../../pipelines/loader.js';
import { applyScheduleChanges } from '../../../cli/schedules.js';
import { launchBrowser, withScreenshotOnFailure } from '../../support/browser.js';
import { startTestTemporal, type TestTemporal } from '../../support/temporal.js';

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-console-forecast-')));
const dbFile = path.join(dir, 'dest.sqlite');
const jobsFile = path.join(dir, 'jobs.yaml');
const shopFile = path.join(dir, 'shop.yaml');
let temporal: TestTemporal;
let con: RunningConsole;
let browser: Browser;
let page: Page;
let nextFire: string;

const url = (i: number) => `https://remoteok.com/remote-jobs-${i}`;

beforeAll(async () => {
  temporal = await startTestTemporal();
  fs.writeFileSync(
    jobsFile,
    [
      'name: jobs',
      'kind: job-board',
      'request:',
      '  urls:',
      ...[1, 2, 3, 4].map((i) => `    - ${url(i)}`),
      '  min: 1',
      '  max: 3',
      '  timeout: 60',
      '  schema: { type: array, items: { type: object, properties: { t: { type: string } } } }',
      `destination: { database: "sqlite:${dbFile}" }`,
      "schedule: { cron: '0 6 * * *', timezone: UTC }",
      'budget:',
      '  calls: { day: 8 }',
      '  tokens: { month: 100000 }',
    ].join('\n'),
  );
  fs.writeFileSync(
    shopFile,
    [
      'name: shop',
      'kind: marketplace',
      "request: { urls: ['https://s.example/api?itemid=1&shopid=2'] }",
      `destination: { database: "sqlite:${dbFile}" }`,
      'budget:',
      '  calls: { run: 5 }',
    ].join('\n'),
  );
  // The jobs pipeline's last run today: 2 URLs, 3 calls (one retried), 1,000 tokens per answered URL.
  const db = await openDatabase(`sqlite:${dbFile}`);
  try {
    const calls: Array<[string, number, number | null]> = [
      [url(1), 1, null],
      [url(1), 2, 1000],
      [url(2), 1, 1000],
    ];
    for (const [requestKey, clientAttempt, tokens] of calls) {
      const callKey = spendCallKey({
        workflowId: 'jobs--r1',
        activityId: '1',
        activityAttempt: 1,
        requestKey,
        clientAttempt,
      });
      const refused = await reserveCall(
        db,
        {
          callKey,
          pipeline: 'jobs',
          project: null,
          workflowId: 'jobs--r1',
          endpoint: 'POST /api/job-board-scrape',
          requestKey,
          createsScraper: false,
          calledAt: new Date(),
        },
        [],
      );
      expect(refused).toBeUndefined();
      if (tokens !== null) await recordCallTokens(db, callKey, tokens);
    }
  } finally {
    await db.close();
  }
  const spec = await loadPipelineFile(jobsFile);
  await applyScheduleChanges(temporal.client, spec, jobsFile, 'console-forecast', false);
  const described = await temporal.client.schedule.getHandle('jobs').describe();
  nextFire = described.info.nextActionTimes[0]!.toISOString();
  con = await startConsole({
    databases: await consoleDatabases({ files: [jobsFile, shopFile] }),
    temporalEnv: { ...process.env, TEMPORAL_ADDRESS: temporal.address },
  });
  browser = await launchBrowser();
  page = await browser.newPage();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await con?.close();
  await temporal?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('Cost page: the forecast of the next scheduled run beside the budgets', () => {
  it("shows each budgeted pipeline's next fire, its forecast from history and the limit that would refuse it", async () => {
    await withScreenshotOnFailure(page, 'cost-forecast', async () => {
      let rows: string[][] = [];
      // A page waits at most 2 s for Temporal and says "unknown" meanwhile: reloaded until Temporal answered.
      for (let i = 0; i < 30; i++) {
        const res = await page.goto(new URL('/cost', con.url).toString());
        expect(res?.status()).toBe(200);
        rows = await page.$$eval('table.cost-forecast tbody tr', (trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.innerText.trim())),
        );
        if (rows.length > 0 && rows[0]![1] !== 'unknown') break;
        await new Promise((r) => setTimeout(r, 500));
      }
      const head = await page.$$eval('table.cost-forecast thead th', (ths) => ths.map((th) => th.textContent!.trim()));
      expect(head).toEqual(['Pipeline', 'Next run', 'Service calls', 'Scrapers', 'Tokens', 'Forecast from', 'Budget']);
      // jobs: 4 URLs x 1.5 calls per URL = 6 calls on top of 3 spent today, over calls.day 8; 4 x 1,000 tokens.
      expect(rows).toEqual([
        [
          'jobs',
          nextFire.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
          '6',
          '0',
          '4,000',
          "4 URLs x 1.50 calls per URL (the pipeline's last 1 run)",
          'refused by budget.calls.day',
        ],
        [
          'shop',
          'not scheduled',
          '1',
          '0',
          'unknown',
          '1 URL x 1 calls per URL (no history yet: one call each)',
          'within every limit',
        ],
      ]);
      // The refusal's sentence is the one `run` prints, on the cell.
      expect(await page.getAttribute('table.cost-forecast tbody tr:first-child td:last-child span', 'title')).toBe(
        `pipeline jobs was not started: its forecast of 6 service calls on top of 3 service calls spent today (UTC) exceeds budget.calls.day of pipeline jobs, 8; raise budget.calls.day, give the run fewer URLs, or wait for the next day`,
      );
      // Beside the budgets, which read the same spend.
      const budgets = await page.$$eval('table.cost-budgets tbody tr', (trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.innerText.trim())),
      );
      const now = new Date().toISOString();
      expect(budgets).toEqual([
        ['jobs', 'service calls per day', now.slice(0, 10), '3', '8', '38%'],
        ['jobs', 'tokens per month', now.slice(0, 7), '2,000', '100,000', '2%'],
        ['shop', 'service calls per run', 'no run yet', '0', '5', '0%'],
      ]);
    });
  }, 60_000);
});
