// Long URL lists on a real dev server, worker, simulator and SQLite file. A 40,000-URL marketplace pipeline (its
// list alone is ~2.7 MB, over Temporal's 2 MB payload limit) starts, stores its list once in the destination and
// carries only a reference in its input (before, its start failed with "Failed to start Workflow" and no reason);
// it is stopped once it loads, because the whole run takes minutes here (the closing figures of the issue come
// from a full run). A 3,000-URL run goes to the end through two continue-as-new and loads every product once.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../../db/store/sql.js';
import { URL_LIST_CHUNK, urlListId } from '../../../db/store/url-lists.js';
import { startPipelineRun } from '../../../temporal/start.js';
import type { PipelineProgress } from '../../../workflows/pipeline.js';
import { startPipelineBed, type PipelineBed } from '../../support/pipeline-bed.js';
import { marketplaceSpec, productUrl } from '../../support/pipeline-specs.js';
import { startInProcessWorker, type InProcessWorker } from '../../support/temporal.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const taskQueue = `url-lists-${crypto.randomBytes(4).toString('hex')}`;
const URLS = 40_000;
let bed: PipelineBed;
let worker: InProcessWorker;

beforeAll(async () => {
  bed = await startPipelineBed({ name: 'url-lists', token: TOKEN, seed: 41, runDurationMs: 500 });
  worker = await startInProcessWorker({
    address: bed.temporal.address,
    taskQueue,
    maxActivities: 8,
    env: {
      SCRAPER_BASE_URL: bed.sim.baseUrl,
      SCRAPER_API_TOKEN: TOKEN,
      SCRAPE_ETL_URL_CHUNK_SIZE: '100',
      // Ten slices of 100 URLs per workflow run: 3,000 URLs take two continue-as-new.
      SCRAPE_ETL_ACTIVITIES_PER_RUN: '10',
    },
  });
});

afterAll(async () => {
  await worker?.stop();
  await bed?.close();
});

async function scalar(sql: string, params: Array<string | number> = []): Promise<number> {
  const [row] = await withTransaction(bed.db, (tx) => tx.all(sql, params));
  return Number(Object.values(row ?? {})[0]);
}

describe('long URL lists', () => {
  it('a 40,000-URL pipeline starts with its list stored by reference and a small input, and loads', async () => {
    const urls = Array.from({ length: 40_000 }, (_, i) => productUrl(100_000 + i, 500 + (i % 7)));
    const spec = { ...marketplaceSpec('forty-thousand', bed.dbUrl, urls), concurrency: 16 };
    expect(Buffer.byteLength(JSON.stringify(spec))).toBeGreaterThan(2 * 1024 * 1024);

    const handle = await startPipelineRun({ client: bed.temporal.client, taskQueue }, spec, 'r1');
    // The list is in the destination, once, under its hash; the workflow's input holds only the reference.
    expect(await scalar(`SELECT count(*) AS n FROM url_lists WHERE list_id = ?`, [urlListId(urls)])).toBe(
      40_000 / URL_LIST_CHUNK,
    );
    const history = await handle.fetchHistory();
    const startEvent = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    const inputBytes = (startEvent?.input?.payloads ?? []).reduce((n, p) => n + (p.data?.length ?? 0), 0);
    console.log(`40,000-URL pipeline: workflow input ${inputBytes} bytes`);
    expect(inputBytes).toBeGreaterThan(0);
    expect(inputBytes).toBeLessThan(20_000);

    let progress: PipelineProgress | undefined;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
      progress = await handle.query<PipelineProgress>('progress').catch(() => undefined);
      if ((progress?.urls.done ?? 0) >= 300) break;
    }
    expect(progress?.urls.total).toBe(40_000);
    expect(progress?.urls.done).toBeGreaterThanOrEqual(300);
    await handle.terminate('the test has seen enough of it');
    expect(
      await scalar(`SELECT count(*) AS n FROM marketplace_products WHERE pipeline = 'forty-thousand'`),
    ).toBeGreaterThanOrEqual(300);
  });

  it('a 3,000-URL pipeline read by reference goes through continue-as-new and loads every product once', async () => {
    const urls = Array.from({ length: 3_000 }, (_, i) => productUrl(500_000 + i, 900 + (i % 5)));
    const spec = { ...marketplaceSpec('three-thousand', bed.dbUrl, urls), concurrency: 16 };
    const started = Date.now();
    const handle = await startPipelineRun({ client: bed.temporal.client, taskQueue }, spec, 'r1');
    const result = await handle.result();
    const seconds = (Date.now() - started) / 1000;
    console.log(`3,000 URLs: ${seconds.toFixed(1)} s (${Math.round(3000 / seconds)} URLs/s)`);
    expect(result.status).toBe('succeeded');
    expect(result.failedUrlCount).toBe(0);
    expect(await scalar(`SELECT count(*) AS n FROM marketplace_products WHERE pipeline = 'three-thousand'`)).toBe(
      3_000,
    );
    expect(await scalar(`SELECT count(*) AS n FROM raw_responses WHERE pipeline = 'three-thousand'`)).toBe(3_000);
    expect(result.rowsByTable['marketplace_products']).toBe(3_000);
    const progress = await handle.query<PipelineProgress>('progress');
    expect(progress.urls).toEqual({ total: 3_000, done: 3_000, failed: 0 });
    expect(progress.continuedAsNew).toBe(2);
  });
});
