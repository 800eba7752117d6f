// Failures the service can produce, on a real Temporal dev server and worker: a run that ends 'failed' fails
// the workflow with a readable reason, a run that never finishes fails it at the polling deadline, and 5xx/429
// answers on a fifth of all requests still give exact tables.
import { scraperNameFor } from '../../../activities/scraping-runs.js';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marketplaceResponseSchema, type ResultRecord } from '../../../client/index.js';
import type { Database } from '../../../destinations/contract.js';
import { flattenMarketplace, flattenResultRecords } from '../../../db/model/flatten/index.js';
import { getPipelineRun } from '../../../db/store/pipeline-runs.js';
import { withTransaction } from '../../../db/store/sql.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { INLINE_URL_LIST_MAX, startPipelineRun } from '../../../temporal/start.js';
import { expectContentEqual, expectTablesEqual, mergeRows } from '../../support/pipeline-truth.js';
import {
  leadsSearchSpec,
  leadsSocialSpec,
  marketplaceSpec,
  pdfSpec,
  productUrl,
  resultsSpec,
} from '../../support/pipeline-specs.js';
import { startInProcessWorker, type InProcessWorker, type TestTemporal } from '../../support/temporal.js';
import { startPipelineBed, type PipelineBed } from '../../support/pipeline-bed.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const taskQueue = `faults-${crypto.randomBytes(4).toString('hex')}`;
let bed: PipelineBed;
let temporal: TestTemporal;
let sim: RunningSimulator;
let worker: InProcessWorker;
let dbUrl: string;
let db: Database;

beforeAll(async () => {
  bed = await startPipelineBed({ name: 'faults', token: TOKEN, seed: 5, runDurationMs: 1000 });
  ({ dbUrl, db, temporal, sim } = bed);
  worker = await startInProcessWorker({
    address: temporal.address,
    taskQueue,
    // A create answered 503 is ambiguous: the activity looks for the scraper by name for the service's create
    // timeout (SCRAPE_ETL_CREATE_LOOKUP_SECONDS, default 120) before sending it again. The simulator processes a
    // create at once, so 5 s is as good a look here and keeps the 503 case within the test's timeout
    // (temporal-slow-create.test.ts covers the long look-up).
    env: {
      SCRAPER_BASE_URL: sim.baseUrl,
      SCRAPER_API_TOKEN: TOKEN,
      SCRAPE_ETL_HEARTBEAT_TIMEOUT: '3s',
      SCRAPE_ETL_CREATE_LOOKUP_SECONDS: '5',
    },
  });
});

afterAll(async () => {
  await worker?.stop();
  await bed?.close();
});

const conn = () => ({ client: temporal.client, taskQueue });

async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const cause = (err as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  return cause as ApplicationFailure;
}

/** A result record as the service lists it (spec: Result record), for scripted /api/results pages. */
function resultRecord(id: number): Record<string, unknown> {
  return {
    id,
    scraper_id: 77,
    scraping_run_id: 7_700,
    scraper_name: 'scripted',
    scraped_url: `https://example.com/results/${id}`,
    status: 'succeeded',
    content: { title: `result ${id}`, tags: ['a', 'b'] },
    created_at: '2026-11-23T10:00:00.000000Z',
    updated_at: '2026-11-23T10:00:00.000000Z',
  };
}

describe('service faults', () => {
  it("a run that ends 'failed' fails the workflow with the status, run id and scraper name", async () => {
    sim.setFaults({ runFailureRate: 1 });
    try {
      const spec = leadsSearchSpec('fails-run', dbUrl, 2);
      const handle = await startPipelineRun(conn(), spec, 'r1');
      const failure = await failureOf(handle.result());
      const run = sim.truth.runs().find((r) => r.scraper_name === scraperNameFor(spec, handle.workflowId));
      expect(run?.status).toBe('failed');
      expect(failure.type).toBe('RunFailed');
      expect(failure.message).toContain(`scraping run ${run?.id}`);
      expect(failure.message).toContain("scraper 'fails-run--r1'");
      expect(failure.message).toContain("status 'failed'");
      const row = await getPipelineRun(db, handle.workflowId);
      expect(row?.status).toBe('failed');
      expect(row?.error).toContain("status 'failed'");
    } finally {
      sim.setFaults({ runFailureRate: 0 });
    }
  });

  it('a deadline that falls between two checks is still reported as the polling deadline, not as "still running"', async () => {
    // The second check (after 2 s) is still running and the third would start after the 3 s deadline: Temporal
    // then ends the activity with the last attempt's own failure instead of a timeout.
    sim.setFaults({ runHangRate: 1 });
    try {
      const spec = {
        ...leadsSearchSpec('hangs-between', dbUrl, 1),
        polling: { initial_interval: '2s', backoff_coefficient: 2, max_interval: '10s', deadline: '3s' },
      };
      const failure = await failureOf((await startPipelineRun(conn(), spec, 'r1')).result());
      expect(failure.type).toBe('RunDeadlineExceeded');
      expect(failure.message).toMatch(/scraping run \d+ of scraper 'hangs-between--r1'.*polling deadline of 3s/);
    } finally {
      sim.setFaults({ runHangRate: 0 });
    }
  });

  it('a run that never finishes fails the workflow when the polling deadline passes', async () => {
    sim.setFaults({ runHangRate: 1 });
    try {
      const spec = {
        ...leadsSearchSpec('hangs-run', dbUrl, 1),
        polling: { initial_interval: '200ms', backoff_coefficient: 2, max_interval: '1s', deadline: '3s' },
      };
      const started = Date.now();
      const failure = await failureOf((await startPipelineRun(conn(), spec, 'r1')).result());
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(failure.type).toBe('RunDeadlineExceeded');
      expect(failure.message).toMatch(/scraping run \d+ of scraper 'hangs-run--r1'.*polling deadline of 3s/);
    } finally {
      sim.setFaults({ runHangRate: 0 });
    }
  });

  it('5xx and 429 on 20% of requests: pdf, marketplace and results pipelines still load exact tables', async () => {
    sim.setFaults({ errorRate: 0.1, rateLimitRate: 0.1, retryAfterSeconds: 0 });
    sim.resetStats();
    try {
      const pdf = pdfSpec('faulty-pdf', dbUrl, 4, 40);
      const urls = Array.from({ length: 12 }, (_, i) => productUrl(9000 + i, 77));
      const market = marketplaceSpec('faulty-market', dbUrl, urls);
      const [p, m] = await Promise.all([startPipelineRun(conn(), pdf, 'r1'), startPipelineRun(conn(), market, 'r1')]);
      const [pr, mr] = await Promise.all([p.result(), m.result()]);
      expect(pr.status).toBe('succeeded');
      expect(mr.status).toBe('succeeded');
      expect(mr.failedUrlCount).toBe(0);
      const records = pr.scrapingRunIds.flatMap((id) => sim.truth.runResults(Number(id)) as unknown as ResultRecord[]);
      expect(records).toHaveLength(40);
      await expectTablesEqual(db, pdf, flattenResultRecords(records, 'pdf_results'), ['pdf_results']);
      await expectContentEqual(db, pdf, records);
      await expectTablesEqual(
        db,
        market,
        mergeRows(urls.map((u) => flattenMarketplace(marketplaceResponseSchema.parse(sim.truth.product(u))))),
        [
          'marketplace_products',
          'marketplace_product_models',
          'marketplace_model_stocks',
          'marketplace_product_attributes',
        ],
      );
      const results = resultsSpec('faulty-results', dbUrl, 15);
      const rr = await (await startPipelineRun(conn(), results, 'r1')).result();
      const all = sim.truth.allResults() as unknown as ResultRecord[];
      expect(rr.resultsLoaded).toBe(all.length);
      await expectTablesEqual(db, results, flattenResultRecords(all, 'scraper_results'), ['scraper_results']);
      await expectContentEqual(db, results, all);
      const stats = sim.stats();
      const faulty = Object.entries(stats.byStatus)
        .filter(([s]) => s === '429' || s.startsWith('5'))
        .reduce((n, [, c]) => n + c, 0);
      console.log(`faults: ${faulty} of ${stats.total} requests answered 5xx/429`);
      expect(faulty).toBeGreaterThan(0);
    } finally {
      sim.clearFaults();
    }
  });

  it('a results list that serves the same page forever fails the sync after three pages, landing that page once', async () => {
    const page = { data: [resultRecord(800_002), resultRecord(800_001)] };
    // Every later request for a results page answers this same page, as a service stuck on one page would.
    sim.queueFaults(
      Array.from({ length: 200 }, () => ({ status: 200, body: page })),
      { path: '/api/results', method: 'GET' },
    );
    try {
      const spec = resultsSpec('repeating-page', dbUrl, 2);
      const started = Date.now();
      const failure = await failureOf((await startPipelineRun(conn(), spec, 'r1')).result());
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(failure.type).toBe('ResultsPagingStuck');
      expect(failure.message).toMatch(
        /GET \/api\/results\?page=4&per_page=2: 3 pages in a row repeated the page before \(no result older than id \d+\)/,
      );
      const [row] = await withTransaction(db, (tx) =>
        tx.all(`SELECT count(*) AS n FROM raw_responses WHERE pipeline = ${tx.ph(1)}`, ['repeating-page']),
      );
      expect(Number(row?.['n'])).toBe(1);
    } finally {
      sim.clearFaults();
    }
  });

  it('a run-status check answered with garbage every time fails after five checks with that cause, not at the deadline', async () => {
    // Every status check gets a body cut short (the client's own two attempts included), as an empty, truncated or
    // endlessly nested answer would be; the deadline is far away, so only the malformed-answer rule can end this.
    sim.queueFaults(
      Array.from({ length: 100 }, () => ({ kind: 'truncated' as const })),
      { path: '/api/scraping-runs', method: 'GET' },
    );
    try {
      const spec = {
        ...leadsSearchSpec('garbage-status', dbUrl, 1),
        polling: { initial_interval: '100ms', backoff_coefficient: 1, max_interval: '100ms', deadline: '1h' },
      };
      const started = Date.now();
      const failure = await failureOf((await startPipelineRun(conn(), spec, 'r1')).result());
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(failure.type).toBe('MalformedRunStatus');
      expect(failure.message).toMatch(
        /GET \/api\/scraping-runs\/\d+ answered 5 run-status checks in a row with a malformed body \(scraping run \d+, pipeline 'garbage-status'\); last: /,
      );
    } finally {
      sim.clearFaults();
    }
  });

  it('a destination that is not a database fails the run in seconds with the cause, without retrying', async () => {
    const notADatabase = path.join(bed.dir, 'not-a-database.sqlite');
    fs.writeFileSync(notADatabase, 'this is a text file, not an SQLite database\n'.repeat(200));
    // A long URL list does not even start: its starter stores the list in the destination and says why not.
    const longList = Array.from({ length: INLINE_URL_LIST_MAX.urls + 1 }, (_, i) => productUrl(4242 + i, 77));
    const market = marketplaceSpec('bad-destination', `sqlite:${notADatabase}`, longList);
    await expect(startPipelineRun(conn(), market, 'r1')).rejects.toThrow(
      /not-a-database\.sqlite.*file is not a database/,
    );
    // A short one travels inline in the workflow input (the starter needs no database): the run starts, and fails
    // in its first activity with the same cause, not retried.
    sim.resetStats();
    const shortMarket = marketplaceSpec('bad-destination-short', `sqlite:${notADatabase}`, [productUrl(4242, 77)]);
    const shortFailure = await failureOf((await startPipelineRun(conn(), shortMarket, 'r1')).result());
    expect(shortFailure.type).toBe('DestinationConfigError');
    expect(shortFailure.message).toMatch(/not-a-database\.sqlite.*file is not a database/);
    expect(sim.stats().total).toBe(0);
    const spec = resultsSpec('bad-destination', `sqlite:${notADatabase}`);
    sim.resetStats();
    const started = Date.now();
    const failure = await failureOf((await startPipelineRun(conn(), spec, 'r1')).result());
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(failure.type).toBe('DestinationConfigError');
    expect(failure.message).toMatch(/not-a-database\.sqlite.*file is not a database/);
    // Nothing was scraped for a run that could never have been loaded.
    expect(sim.stats().total).toBe(0);
  });

  it.each([
    ['truncated', 'the service created it: adopted by its name, its runs found in the results list'],
    ['dropped', 'the connection dropped mid-answer: adopted by its name'],
    ['503', 'not processed: no scraper of that name, so the create is sent again'],
  ] as const)('a create-and-run answered %s: exactly one scraper, exact results (%s)', async (fault, _why) => {
    const path = '/api/scrapers/leads-generator/social/create-and-run';
    sim.queueFaults([fault === '503' ? { status: 503 } : { kind: fault }], { path, method: 'POST' });
    try {
      const spec = leadsSocialSpec(`ambiguous-${fault}`, dbUrl, 7);
      const handle = await startPipelineRun(conn(), spec, 'r1');
      const result = await handle.result();
      expect(result.status).toBe('succeeded');
      const name = scraperNameFor(spec, handle.workflowId);
      expect(sim.truth.scrapers().filter((x) => x['name'] === name)).toHaveLength(1);
      const runs = sim.truth.runs().filter((r) => r.scraper_name === name);
      expect(runs).toHaveLength(1);
      expect(result.scrapingRunIds).toEqual(runs.map((r) => String(r.id)));
      const records = sim.truth.runResults(Number(runs[0]!.id)) as unknown as ResultRecord[];
      expect(records).toHaveLength(7);
      await expectTablesEqual(db, spec, flattenResultRecords(records, 'leads_results'), ['leads_results']);
      await expectContentEqual(db, spec, records);
      // The scraper is in the scrapers table whichever way it was learnt (create answer, or its list entry).
      const scrapers = await withTransaction(db, (tx) =>
        tx.all(`SELECT name FROM scrapers WHERE pipeline = ${tx.ph(1)}`, [spec.name]),
      );
      expect(scrapers.map((r) => r['name'])).toEqual([name]);
    } finally {
      sim.clearFaults();
    }
  });

  it('results arriving during a sync push seen ones down: the pages that add nothing are passed over and the sync completes', async () => {
    const ids = (from: number, to: number) => Array.from({ length: from - to + 1 }, (_, i) => from - i);
    const page = (list: number[]) => ({ status: 200, body: { data: list.map((id) => resultRecord(id)) } });
    // 30 results, then 30 more arrive after the first page was read: the next three pages add nothing to this pass
    // (two hold the new results, above this pass; one holds page 1 again, shifted), then the scan goes on down.
    sim.queueFaults(
      [
        page(ids(900_030, 900_021)),
        page(ids(900_050, 900_041)),
        page(ids(900_040, 900_031)),
        page(ids(900_030, 900_021)),
        page(ids(900_020, 900_011)),
        page(ids(900_010, 900_001)),
        page([]),
      ],
      { path: '/api/results', method: 'GET' },
    );
    try {
      const spec = resultsSpec('arrivals', dbUrl, 10);
      const result = await (await startPipelineRun(conn(), spec, 'r1')).result();
      expect(result.status).toBe('succeeded');
      expect(result.resultsLoaded).toBe(30);
      const rows = await withTransaction(db, (tx) =>
        tx.all(`SELECT id FROM scraper_results WHERE pipeline = ${tx.ph(1)} ORDER BY id`, ['arrivals']),
      );
      expect(rows.map((r) => Number(r['id']))).toEqual(ids(900_030, 900_001).reverse());
      // The watermark is the highest id of this pass: the 30 that arrived during it are the next sync's.
      const [wm] = await withTransaction(db, (tx) =>
        tx.all(`SELECT watermark FROM sync_watermarks WHERE pipeline = ${tx.ph(1)}`, ['arrivals']),
      );
      expect(wm?.['watermark']).toBe('900030');
    } finally {
      sim.clearFaults();
    }
  });
});
