// Every pipeline kind end to end on a real Temporal dev server, a real worker and the simulator over HTTP, into
// each destination dialect (a SQLite file, a fresh Postgres database and a DuckDB file): the tables equal the simulator's ground
// truth, pipeline_runs is started and finished ('partial' when URLs failed), a failing URL is reported without
// losing the others, and the results sync resumes from its watermark (with continue-as-new).
import { scraperNameFor } from '../../../activities/scraping-runs.js';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marketplaceResponseSchema, type JobBoardResponse, type ResultRecord } from '../../../client/index.js';
import type { Database } from '../../../destinations/contract.js';
import { flattenJobBoard, flattenMarketplace, flattenResultRecords } from '../../../db/model/flatten/index.js';
import { getPipelineRun } from '../../../db/store/pipeline-runs.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { startPipelineRun } from '../../../temporal/start.js';
import type { PipelineProgress } from '../../../workflows/pipeline.js';
import { expectContentEqual, expectTablesEqual, mergeRows } from '../../support/pipeline-truth.js';
import { startDestinationBed, type DestinationBed } from '../../support/pipeline-bed.js';
import {
  JOB_SCHEMA,
  jobBoardSpec,
  leadsSearchSpec,
  leadsSocialSpec,
  marketplaceSpec,
  pdfSpec,
  productUrl,
  resultsSpec,
} from '../../support/pipeline-specs.js';
import { startTestTemporal, type TestTemporal } from '../../support/temporal.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
let temporal: TestTemporal;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-kinds-'));
  temporal = await startTestTemporal();
});

const WORKER_ENV = {
  SCRAPE_ETL_HEARTBEAT_TIMEOUT: '3s',
  // Small enough that the results sync below needs several activities and continues as new.
  SCRAPE_ETL_PAGES_PER_ACTIVITY: '2',
  SCRAPE_ETL_ACTIVITIES_PER_RUN: '2',
};

afterAll(async () => {
  await temporal?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

// Each destination gets its own simulator (the results kind syncs everything the service holds, so the two
// suites must not see each other's runs), worker and task queue; the Temporal server is shared.
describe.each(['sqlite', 'postgres', 'duckdb'] as const)('pipeline workflow, each kind, into %s', (destination) => {
  const taskQueue = `kinds-${destination}-${crypto.randomBytes(4).toString('hex')}`;
  let bed: DestinationBed;
  let sim: RunningSimulator;
  let dbUrl: string;
  let db: Database;

  beforeAll(async () => {
    bed = await startDestinationBed({
      destination,
      dir,
      temporal,
      taskQueue,
      token: TOKEN,
      seed: 11,
      runDurationMs: 1000,
      env: WORKER_ENV,
    });
    ({ sim, dbUrl, db } = bed);
  }, 60_000);

  afterAll(async () => bed?.close());

  const conn = () => ({ client: temporal.client, taskQueue });
  // Workflow ids (pipeline--runKey) share the server's namespace with the other destination's suite.
  const key = (runKey: string) => `${destination}-${runKey}`;

  function runResults(runIds: string[]): ResultRecord[] {
    return runIds.flatMap((id) => sim.truth.runResults(Number(id)) as unknown as ResultRecord[]);
  }

  it('pdf: one run per keyword, waited for and loaded exactly', async () => {
    const exportDir = path.join(dir, destination, 'exports');
    const spec = {
      ...pdfSpec('pdf-kind', dbUrl, 3, 10),
      exports: [
        {
          dir: exportDir,
          format: 'csv' as const,
          tables: ['pdf_results'],
          mode: 'full' as const,
          write_empty: false,
          delimiter: ',',
          bom: false,
          null_text: '',
          file_name: '{pipeline}_{table}.csv',
          neutralize_formulas: true,
        },
      ],
    };
    const handle = await startPipelineRun(conn(), spec, key('r1'));
    const result = await handle.result();
    expect(result.status).toBe('succeeded');
    expect(result.scrapingRunIds).toHaveLength(3);
    const truthRuns = sim.truth.runs().filter((r) => r.scraper_name === scraperNameFor(spec, handle.workflowId));
    expect(result.scrapingRunIds.sort()).toEqual(truthRuns.map((r) => String(r.id)).sort());
    const records = runResults(result.scrapingRunIds);
    expect(records).toHaveLength(10);
    await expectTablesEqual(db, spec, flattenResultRecords(records, 'pdf_results'), ['pdf_results']);
    await expectContentEqual(db, spec, records);
    expect(result.rowsByTable['pdf_results']).toBe(10);
    expect(result.rowsByTable['run_records']).toBe(3);
    expect(result.rowsByTable['scraping_runs']).toBe(3);
    expect(result.exportedFiles).toBe(1);
    const csv = fs.readFileSync(path.join(exportDir, 'pdf-kind_pdf_results.csv'), 'utf8').trim().split(/\r\n/);
    expect(csv).toHaveLength(1 + 10);

    const row = await getPipelineRun(db, handle.workflowId);
    expect(row?.status).toBe('succeeded');
    expect(row?.error).toBeNull();
    expect(row?.rowsByTable?.['pdf_results']).toBe(10);
    const progress = await handle.query<PipelineProgress>('progress');
    expect(progress.phase).toBe('succeeded');
    expect(progress.runs).toMatchObject({ total: 3, waiting: 0, loading: 0, done: 3 });
    expect(progress.resultsLoaded).toBe(10);
  });

  it('leads search-engine and social: results land in leads_results', async () => {
    const se = leadsSearchSpec('leads-se-kind', dbUrl, 4);
    const social = leadsSocialSpec('leads-social-kind', dbUrl, 37);
    const [a, b] = await Promise.all([
      startPipelineRun(conn(), se, key('r1')),
      startPipelineRun(conn(), social, key('r1')),
    ]);
    const [ra, rb] = await Promise.all([a.result(), b.result()]);
    const recA = runResults(ra.scrapingRunIds);
    const recB = runResults(rb.scrapingRunIds);
    expect(recA).toHaveLength(40);
    expect(recB).toHaveLength(37);
    await expectTablesEqual(db, se, flattenResultRecords(recA, 'leads_results'), ['leads_results']);
    await expectContentEqual(db, se, recA);
    await expectTablesEqual(db, social, flattenResultRecords(recB, 'leads_results'), ['leads_results']);
    await expectContentEqual(db, social, recB);
  });

  it('job-board: every URL scraped and loaded on its own', async () => {
    const urls = Array.from({ length: 7 }, (_, i) => `https://weworkremotely.com/remote-jobs/search?term=ts${i}`);
    const spec = jobBoardSpec('jobs-kind', dbUrl, urls);
    const result = await (await startPipelineRun(conn(), spec, key('r1'))).result();
    expect(result.status).toBe('succeeded');
    expect(result.failedUrlCount).toBe(0);
    const expected = mergeRows(
      urls.map((u) =>
        flattenJobBoard({
          result: sim.truth.jobs(u, JOB_SCHEMA, 2, 6),
          tokenUsage: 0,
          totalDone: 0,
        } as unknown as JobBoardResponse),
      ),
    );
    expect(expected.job_records?.length).toBeGreaterThan(7);
    await expectTablesEqual(db, spec, expected, ['job_records']);
  });

  it('marketplace: a failing URL is reported in the result, pipeline_runs and progress; the others load', async () => {
    const good = [productUrl(4420309814), productUrl(1234567890), productUrl(777, 42), productUrl(778, 42)];
    const bad = 'https://shopee.tw/api/v2/item/get?shopid=10115139';
    const spec = { ...marketplaceSpec('market-kind', dbUrl, [good[0]!, bad, ...good.slice(1)]), concurrency: 2 };
    const handle = await startPipelineRun(conn(), spec, key('r1'));
    const result = await handle.result();
    expect(result.status).toBe('partial');
    expect(result.failedUrlCount).toBe(1);
    expect(result.failedUrls[0]?.url).toBe(bad);
    expect(result.failedUrls[0]?.error).toMatch(/itemid/);
    const progress = await handle.query<PipelineProgress>('progress');
    expect(progress.urls).toEqual({ total: 5, done: 5, failed: 1 });
    expect(progress.failedUrls.map((f) => f.url)).toEqual([bad]);
    const row = await getPipelineRun(db, handle.workflowId);
    expect(row?.status).toBe('partial');
    expect(row?.error).toContain(bad);
    expect(row?.error).toMatch(/^1 of 5 URLs failed/);
    expect(row?.rowsByTable?.['marketplace_products']).toBe(4);
    // Parsed with the client's schema, as the loaded responses were (it fixes the key order of `extra`).
    const expected = mergeRows(
      good.map((u) => flattenMarketplace(marketplaceResponseSchema.parse(sim.truth.product(u)))),
    );
    await expectTablesEqual(db, spec, expected, [
      'marketplace_products',
      'marketplace_shops',
      'marketplace_product_models',
      'marketplace_model_stocks',
      'marketplace_product_attributes',
      'marketplace_product_categories',
      'marketplace_product_images',
      'marketplace_product_tier_variations',
      'marketplace_product_tier_variation_options',
    ]);
  });

  it('results: a full sync with continue-as-new, then an incremental one from the watermark', async () => {
    const spec = resultsSpec('results-kind', dbUrl, 10);
    const all = sim.truth.allResults() as unknown as ResultRecord[];
    expect(all.length).toBe(10 + 40 + 37);
    const first = await startPipelineRun(conn(), spec, key('r1'));
    const r1 = await first.result();
    expect(r1.resultsLoaded).toBe(all.length);
    expect((await first.query<PipelineProgress>('progress')).continuedAsNew).toBeGreaterThanOrEqual(2);
    await expectTablesEqual(db, spec, flattenResultRecords(all, 'scraper_results'), ['scraper_results']);
    await expectContentEqual(db, spec, all);

    const more = await (await startPipelineRun(conn(), leadsSocialSpec('leads-more', dbUrl, 13), key('r1'))).result();
    expect(more.resultsLoaded).toBe(13);
    const second = await (await startPipelineRun(conn(), spec, key('r2'))).result();
    expect(second.resultsLoaded).toBe(13);
    expect(second.pagesLoaded).toBe(2);
    const now = sim.truth.allResults() as unknown as ResultRecord[];
    await expectTablesEqual(db, spec, flattenResultRecords(now, 'scraper_results'), ['scraper_results']);
    await expectContentEqual(db, spec, now);
  });
});
