// The console's "Next scheduled" belongs to the pipeline of this database only (issue 36): a schedule's id is just
// its pipeline's name, so two projects with a pipeline of the same name share it; the console shows a schedule
// beside a pipeline only when the runs it starts write to the database shown. A real Temporal dev server, a
// schedule applied as `schedule apply` does, and headless Chromium.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole, type RunningConsole } from '../../../console/server.js';
import { openDatabase } from '../../../destinations/open.js';
import { finishPipelineRun, startPipelineRun } from '../../../db/store/pipeline-runs.js';
import { loadPipelineFile } from '../../../pipelines/loader.js';
import { applyScheduleChanges } from '../../../cli/schedules.js';
import { launchBrowser, withScreenshotOnFailure } from '../../support/browser.js';
import { REPO_ROOT } from '../../support/cli.js';
import { startTestTemporal, type TestTemporal } from '../../support/temporal.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-console-schedules-'));
const scheduledDb = `sqlite:${path.join(dir, 'project-a.sqlite')}`;
const otherDb = `sqlite:${path.join(dir, 'project-b.sqlite')}`;
let temporal: TestTemporal;
let con: RunningConsole;
let browser: Browser;
let page: Page;
let pipeline: string;

beforeAll(async () => {
  temporal = await startTestTemporal();
  // Project A schedules the example (its runs write to project-a.sqlite); project B has a pipeline of the same name
  // that is not scheduled at all.
  const file = path.join(REPO_ROOT, 'pipelines', 'examples', 'leads-search-engine.yaml');
  const spec = await loadPipelineFile(file, { env: { ...process.env, DATABASE_URL: scheduledDb } });
  pipeline = spec.name;
  await applyScheduleChanges(
    temporal.client,
    { ...spec, schedule: { ...spec.schedule!, paused: false } },
    file,
    'console-schedules',
    false,
  );
  for (const url of [scheduledDb, otherDb]) {
    const db = await openDatabase(url);
    try {
      await startPipelineRun(db, {
        workflowId: `${pipeline}--run`,
        pipeline,
        kind: spec.kind,
        startedAt: new Date('2026-11-27T09:00:00Z'),
      });
      await finishPipelineRun(db, {
        workflowId: `${pipeline}--run`,
        status: 'succeeded',
        rowsByTable: {},
        finishedAt: new Date('2026-11-27T09:00:05Z'),
      });
    } finally {
      await db.close();
    }
  }
  con = await startConsole({
    databases: [{ url: scheduledDb }, { url: otherDb }],
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

describe("the console's next scheduled time", () => {
  it("shows a schedule beside the pipeline of the database its runs write to, and not beside another project's pipeline of the same name", async () => {
    await withScreenshotOnFailure(page, 'schedules-across-projects', async () => {
      let cells: string[][] = [];
      // A page waits at most 2 s for Temporal and says "unknown" meanwhile: reloaded until Temporal answered.
      for (let i = 0; i < 30; i++) {
        await page.goto(con.url);
        const head = await page.$$eval('table thead th', (ths) => ths.map((th) => th.textContent!.trim()));
        const at = head.indexOf('Next scheduled');
        const db = head.indexOf('Database');
        cells = await page.$$eval(
          'table tbody tr',
          (trs, ix) => trs.map((tr) => ix.map((i) => tr.querySelectorAll('td')[i]!.textContent!.trim())),
          [db, at],
        );
        if (cells.length === 2 && cells.every((c) => c[1] !== 'unknown')) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      const byDb = Object.fromEntries(cells);
      expect(byDb[scheduledDb], JSON.stringify(cells)).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d/);
      expect(byDb[otherDb], JSON.stringify(cells)).toBe('not scheduled');
    });
  }, 60_000);
});
