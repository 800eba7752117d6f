// An activity on a DuckDB file another program holds (an analyst's read-only session takes DuckDB's own lock; the
// file allows one process at a time) waits for it, and says it is alive while it waits, with the details a retry
// resumes from (activities/keep-alive.ts). Before, each sent nothing until its first progress, so a wait longer than
// the heartbeat timeout timed the attempt out: a run's exports (the DuckDB soak saw them retried to attempt 10 of 10,
// each "activity Heartbeat timeout"), then the three loads (a URL chunk, a scraping run's results, a results sync's
// pages) and a run's watches (the run's alerts share their path). Each case is a retry (attempt 2) with an earlier
// attempt's details, which the beats while it waits must carry unchanged: a bare beat would send the retry back to
// its start.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createActivities, createActivityDeps } from '../../../activities/index.js';
import type {
  ExportsHeartbeat,
  LoadRunHeartbeat,
  ResultsPagesHeartbeat,
  UrlChunkHeartbeat,
} from '../../../activities/types.js';
import { ScraperClient } from '../../../client/index.js';
import { openDatabase } from '../../../destinations/open.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { marketplaceSpec, pdfSpec, productUrl, resultsSpec } from '../../support/pipeline-specs.js';
import { pythonReadersEnv } from '../../support/python-readers.js';

const TOKEN = 'destination-waits-token';
let sim: RunningSimulator;
let dir: string;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, token: TOKEN, seed: 61, runDurationMs: 0 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'destination-waits-'));
});
afterAll(async () => {
  await sim.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

// Python's duckdb holds the file read-only (DuckDB's own lock) for argv[2] ms after saying so.
const PY_HOLD = `
import duckdb, sys, time
c = duckdb.connect(sys.argv[1], read_only=True)
print('holding', flush=True)
time.sleep(float(sys.argv[2]) / 1000)
c.close()
`;
const HOLD_MS = 2500;

type Activities = ReturnType<typeof createActivities>;

/** Runs `run` as attempt 2 with `previous` as its details while Python holds `file`; the beats and when it let go. */
async function whileHeld(
  file: string,
  previous: unknown,
  run: (env: MockActivityEnvironment, a: Activities) => Promise<unknown>,
) {
  // The file exists, migrated, and closed again.
  await (await openDatabase(`duckdb:${file}`)).close();
  const python = spawn('python3', ['-c', PY_HOLD, file, String(HOLD_MS)], {
    env: pythonReadersEnv(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const released = new Promise<number>((resolve) => python.once('exit', () => resolve(Date.now())));
  await new Promise<void>((resolve) => python.stdout!.once('data', () => resolve()));
  const holdingSince = Date.now();
  const deps = createActivityDeps({
    env: { SCRAPER_BASE_URL: sim.baseUrl, SCRAPER_API_TOKEN: TOKEN, SCRAPE_ETL_LOAD_BATCH_SIZE: '3' },
  });
  const beats: Array<{ at: number; details: unknown }> = [];
  let out: unknown;
  try {
    const env = new MockActivityEnvironment({ attempt: 2, heartbeatTimeoutMs: 1000, heartbeatDetails: previous });
    // A copy, as the SDK serializes details when they are sent: the activity goes on changing its own objects.
    env.on('heartbeat', (d: unknown) => beats.push({ at: Date.now(), details: structuredClone(d) }));
    out = await run(env, createActivities(deps));
  } finally {
    await deps.close();
  }
  const releasedAt = await released;
  // The file was busy for over a heartbeat timeout, and the activity beat within every second of it.
  expect(releasedAt - holdingSince).toBeGreaterThan(2000);
  // Python lets go HOLD_MS after it said it holds the file; the activity may have it moments before the exit is seen.
  const surelyHeldUntil = holdingSince + HOLD_MS - 300;
  const held = beats.filter((b) => b.at < surelyHeldUntil);
  expect(held.length).toBeGreaterThan(0);
  expect(held[0]!.at - holdingSince).toBeLessThan(1000);
  for (let i = 1; i < held.length; i++) expect(held[i]!.at - held[i - 1]!.at).toBeLessThan(1000);
  // The earlier attempt's details, never a bare heartbeat.
  for (const b of held) expect(b.details).toEqual(previous);
  return out;
}

it('a URL chunk waiting for its DuckDB file beats the earlier attempt’s progress while it waits', async () => {
  const file = path.join(dir, 'chunk.duckdb');
  const urls = [productUrl(9_400_000), productUrl(9_400_001)];
  // URL 0 is done by the earlier attempt, which failed none and loaded a product.
  const previous: UrlChunkHeartbeat = { done: [0], failed: [], rows: { marketplace_products: 1 } };
  const out = await whileHeld(file, previous, (env, a) =>
    env.run(a.loadUrlChunk, {
      workflowId: 'chunk--r1',
      spec: marketplaceSpec('chunk', `duckdb:${file}`, urls),
      offset: 0,
      urls,
    }),
  );
  expect(out).toMatchObject({ succeeded: 2, failed: [] });
});

it('a scraping run’s results waiting for their DuckDB file beat the earlier attempt’s slice while they wait', async () => {
  const file = path.join(dir, 'run.duckdb');
  const spec = pdfSpec('slices', `duckdb:${file}`, 1, 7);
  const created = await new ScraperClient({ baseUrl: sim.baseUrl, token: TOKEN }).createPdfScraper(spec.request);
  const record = created.data.results[0]!;
  const run = { scrapingRunId: String(record.scraping_run_id), scraperName: record.scraper_name, label: 'r' };
  // The earlier attempt landed the first slice of 3.
  const previous: LoadRunHeartbeat = { nextIndex: 3, batches: 1, rows: {} };
  const out = await whileHeld(file, previous, (env, a) =>
    env.run(a.loadRunResults, { workflowId: 'slices--r1', spec, run }),
  );
  expect(out).toMatchObject({ results: 7, batches: 3 });
});

it('a results sync waiting for its DuckDB file beats the earlier attempt’s cursor while it waits', async () => {
  const file = path.join(dir, 'results.duckdb');
  const previous: ResultsPagesHeartbeat = {
    nextPage: 2,
    pagesLoaded: 1,
    resultsLoaded: 5,
    highestId: null,
    lowestId: null,
    stalledPages: 0,
    lastPageKey: null,
    rows: {},
  };
  const out = await whileHeld(file, previous, (env, a) =>
    env.run(a.loadResultsPages, {
      workflowId: 'results--r1',
      spec: resultsSpec('results', `duckdb:${file}`, 5),
      startPage: 1,
      watermark: null,
      maxPages: 2,
      lowestId: null,
      stalledPages: 0,
      lastPageKey: null,
    }),
  );
  expect(out).toMatchObject({ pagesLoaded: 2 });
});

it('a run’s watches waiting for their DuckDB file beat while they wait (they resume from nothing)', async () => {
  const file = path.join(dir, 'watches.duckdb');
  const spec = marketplaceSpec('watched', `duckdb:${file}`, [productUrl(9_400_100)]);
  const out = await whileHeld(file, undefined, (env, a) =>
    env.run(a.deliverRunWatches, { workflowId: 'watched--r1', runId: 'r1', spec }),
  );
  expect(out).toMatchObject({ events: [], sent: 0 });
});

it('a run’s exports waiting for their DuckDB file beat the entries they have done while they wait', async () => {
  const file = path.join(dir, 'exports.duckdb');
  const spec = {
    ...marketplaceSpec('waits', `duckdb:${file}`, [productUrl(9_300_000)]),
    exports: [
      {
        dir: path.join(dir, 'out'),
        tables: [],
        format: 'csv' as const,
        mode: 'full' as const,
        write_empty: true,
        delimiter: ',',
        bom: false,
        null_text: '',
        file_name: '{pipeline}_{table}_{timestamp}.csv',
        neutralize_formulas: true,
      },
    ],
  };
  // No entry done yet by the earlier attempt.
  const previous: ExportsHeartbeat = { done: [] };
  const out = await whileHeld(file, previous, (env, a) =>
    env.run(a.runExports, { workflowId: 'waits--r1', spec, startedAt: new Date().toISOString() }),
  );
  // The pipeline has no rows: a full export of them writes no file, once the file could be read.
  expect(out).toEqual({ files: [], unchanged: [] });
});
