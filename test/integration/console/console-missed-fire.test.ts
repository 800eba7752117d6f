// A schedule's missed fire (did_not_run) in the console, in headless Chromium: an event with its fire time, no
// duration, no "started" step and no link to a Temporal workflow that never existed; a real run beside it keeps its
// duration and its Web UI link.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole, type RunningConsole } from '../../../console/server.js';
import { launchBrowser, withScreenshotOnFailure } from '../../support/browser.js';
import { MISSED_ID, MISSED_PIPELINE, RUN_ID, seedMissedFire } from '../../support/missed-fire.js';

let seeded: Awaited<ReturnType<typeof seedMissedFire>>;
let con: RunningConsole;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  seeded = await seedMissedFire('console-missed-fire');
  // A Web UI address is known, so a real run's page links to it.
  con = await startConsole({
    databases: [{ url: seeded.dbUrl }],
    temporal: false,
    temporalUiUrl: 'http://127.0.0.1:8233',
  });
  browser = await launchBrowser();
  page = await browser.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await con?.close();
  seeded?.close();
});

async function visit(p: string): Promise<void> {
  const res = await page.goto(new URL(p, con.url).toString());
  expect(res?.status(), p).toBe(200);
}

describe('a missed fire in the console', () => {
  it("the pipeline's runs: the fire time said as a missed fire, no duration", async () => {
    await withScreenshotOnFailure(page, 'missed-fire-runs', async () => {
      await visit(`/db/0/p/${MISSED_PIPELINE}`);
      const rows = await page.$$eval('table.runs tbody tr', (trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!.trim())),
      );
      const missed = rows.find((r) => r.some((c) => c.includes(MISSED_ID)))!;
      const run = rows.find((r) => r.some((c) => c.includes(RUN_ID)))!;
      expect(missed, JSON.stringify(rows)).toBeDefined();
      expect(missed[0]).toBe('missed fire 2026-11-26 12:00:00Z');
      // Started, status, rows seen, rows changed, duration (issue 36's columns).
      expect(missed[4]).toBe('—');
      expect(missed.join(' ')).not.toMatch(/97\.3|1m 37/);
      expect(run[4]).toBe('4.0 s');
    });
  });

  it('its own page: an event with its fire time and why, no duration, no started step, no Temporal link', async () => {
    await withScreenshotOnFailure(page, 'missed-fire-page', async () => {
      await visit(`/db/0/run/${encodeURIComponent(MISSED_ID)}`);
      const body = await page.innerText('main, body');
      expect(await page.innerText('h1')).toBe(`Missed fire of ${MISSED_PIPELINE}`);
      expect(body).toContain('2026-11-26 12:00:00Z');
      expect(body).toContain('skipped by its overlap policy (skip)');
      expect(body).not.toMatch(/Duration|97\.3|Temporal Web UI/);
      expect(
        await page.$$eval('table.timeline tbody tr td:first-child', (tds) => tds.map((td) => td.textContent)),
      ).toEqual(['fired', 'noticed missed']);
      expect(await page.$$('a[href*="8233"]')).toHaveLength(0);
      // The run beside it keeps its link and its timeline.
      await visit(`/db/0/run/${encodeURIComponent(RUN_ID)}`);
      expect(await page.$$('a[href*="8233"]')).toHaveLength(1);
      expect(await page.innerText('body')).toContain('Duration');
    });
  });
});
