// A scraping run's results loaded in slices (loadBatchSize), each slice landed with its rows and the activity's
// heartbeat recording how far it got. A worker killed after a slice's commit and before the server recorded that
// heartbeat (the SDK throttles them) leaves a retry that starts from an earlier slice: it must leave the slices its
// run landed already, or raw_responses holds them twice and the run's rows seen (summed from raw_responses) count
// their results twice (db/store/land-once.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities, createActivityDeps } from '../../../activities/index.js';
import type { LoadRunHeartbeat, LoadRunResultsOutput } from '../../../activities/types.js';
import { ScraperClient } from '../../../client/index.js';
import { seenRowsOfRun } from '../../../db/store/pipeline-runs.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { pdfSpec } from '../../support/pipeline-specs.js';
import { pythonReadersEnv } from '../../support/python-readers.js';

const TOKEN = 'run-results-retry-token';
let sim: RunningSimulator;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, token: TOKEN, seed: 53, runDurationMs: 0 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'run-results-retry-'));
});
afterAll(async () => {
  await sim.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

// Python's sqlite3 or duckdb, not scrape-etl's reader: raw_responses rows per request key of the run.
const PY_LANDINGS = `
import json, sys
dialect, where, workflow = sys.argv[1:4]
if dialect == 'duckdb':
    import duckdb
    c = duckdb.connect(where, read_only=True)
else:
    import sqlite3
    c = sqlite3.connect('file:%s?mode=ro' % where, uri=True)
rows = c.execute('select request_key, count(*) from raw_responses where workflow_id = ? group by request_key', [workflow]).fetchall()
print(json.dumps({k: n for k, n in rows}))
`;

/**
 * Loads a new PDF run's 7 results as attempt 1, then again as attempt 2 with `secondDetails` (what the server had of
 * attempt 1's heartbeats); the two outputs, the run's rows seen, and its raw_responses rows per request key as
 * Python reads them.
 */
async function twoAttempts(o: {
  sim: RunningSimulator;
  dialect: 'sqlite' | 'duckdb';
  name: string;
  env?: Record<string, string>;
  secondDetails?: LoadRunHeartbeat;
}) {
  const file = path.join(dir, `${o.name}.${o.dialect}`);
  const spec = pdfSpec(o.name, `${o.dialect}:${file}`, 1, 7);
  const client = new ScraperClient({ baseUrl: o.sim.baseUrl, token: TOKEN });
  const record = (await client.createPdfScraper(spec.request)).data.results[0]!;
  const run = { scrapingRunId: String(record.scraping_run_id), scraperName: record.scraper_name, label: 'r' };
  const deps = createActivityDeps({
    env: { SCRAPER_BASE_URL: o.sim.baseUrl, SCRAPER_API_TOKEN: TOKEN, ...o.env },
  });
  const workflowId = `${o.name}--r1`;
  let outputs: { first: LoadRunResultsOutput; second: LoadRunResultsOutput; seen: Record<string, number> };
  try {
    const { loadRunResults } = createActivities(deps);
    const input = { workflowId, spec, run };
    const first = (await new MockActivityEnvironment({ attempt: 1 }).run(
      loadRunResults,
      input,
    )) as LoadRunResultsOutput;
    const second = (await new MockActivityEnvironment({
      attempt: 2,
      ...(o.secondDetails ? { heartbeatDetails: o.secondDetails } : {}),
    }).run(loadRunResults, input)) as LoadRunResultsOutput;
    const seen = await seenRowsOfRun(await deps.destination(spec.destination.database), workflowId, {});
    outputs = { first, second, seen };
  } finally {
    // Closed before Python reads it: a DuckDB file allows one process at a time.
    await deps.close();
  }
  const landings = JSON.parse(
    execFileSync('python3', ['-c', PY_LANDINGS, o.dialect, file, workflowId], {
      env: pythonReadersEnv(),
      encoding: 'utf8',
    }),
  ) as Record<string, number>;
  return { run, ...outputs, landings };
}

describe("a retried load of a run's results that lost its last heartbeat", () => {
  for (const dialect of ['sqlite', 'duckdb'] as const) {
    it(`${dialect}: leaves the slices landed already, so each result is seen once`, async () => {
      // Slices of 3: the run's 7 results are landed as 3 + 3 + 1. Attempt 2 with no heartbeat details: the worker
      // died before the server recorded any.
      const { run, first, second, seen, landings } = await twoAttempts({
        sim,
        dialect,
        name: 'slices',
        env: { SCRAPE_ETL_LOAD_BATCH_SIZE: '3' },
      });
      expect(first).toMatchObject({ results: 7, batches: 3 });
      expect(second.results).toBe(7);
      const id = run.scrapingRunId;
      expect(landings).toEqual({
        [`scraping-run:${id}:results[0..3)`]: 1,
        [`scraping-run:${id}:results[3..6)`]: 1,
        [`scraping-run:${id}:results[6..7)`]: 1,
      });
      expect(seen['pdf_results']).toBe(7);
    });
  }
});

describe("a retried load of a run's results from /api/results that lost its heartbeat", () => {
  let listSim: RunningSimulator;
  beforeAll(async () => {
    // The run's detail carries 2 of its 7 results: the other 5 come from the results list.
    listSim = await startSimulator({ port: 0, token: TOKEN, seed: 54, runDurationMs: 0, runDetailResultsLimit: 2 });
  });
  afterAll(async () => {
    await listSim.close();
  });

  for (const dialect of ['sqlite', 'duckdb'] as const) {
    it(`${dialect}: leaves the results it stored from the list, so each is seen once`, async () => {
      // Attempt 2 from the detail's last heartbeat: the worker died while the list's pages were loaded.
      const { first, second, seen, landings } = await twoAttempts({
        sim: listSim,
        dialect,
        name: 'listed',
        secondDetails: { nextIndex: 2, batches: 1, rows: {} },
      });
      expect(first).toMatchObject({ results: 7, fromResultsList: 5 });
      expect(second).toMatchObject({ results: 7, fromResultsList: 5 });
      // The detail once, and the list's pages of the first attempt once each.
      expect(Object.values(landings).every((n) => n === 1)).toBe(true);
      expect(seen['pdf_results']).toBe(7);
    });
  }
});
