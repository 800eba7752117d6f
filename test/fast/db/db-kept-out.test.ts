// Values kept out of their columns (issue 40) on a real SQLite file, read back by Python's sqlite3: a response whose
// results carry timestamps that are not ones is counted exactly (every value, not only the few it names), on its
// raw_responses row in its load's transaction; a run sums its responses, and a request fixed for the run that another
// attempt loads again is left (land-once), so it counts once; the run's figure reaches the metrics counter and the alert bodies,
// where the service's text is escaped like any other content.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scrapingRunResponseSchema } from '../../../client/schemas.js';
import { openDatabase, type Database } from '../../../destinations/open.js';
import { loadBatch, type LoadBatchOptions } from '../../../db/store/load.js';
import { keptOutOfRun } from '../../../db/store/pipeline-runs.js';
import { parseJson, stringifyJson } from '../../../lib/json.js';
import { KEPT_OUT_SAMPLE } from '../../../lib/kept-out.js';
import { jsonMessage, slackMessage } from '../../../alerts/notify-messages.js';
import { runFacts } from '../../support/run-facts.js';
import { createMetrics } from '../../../temporal/metrics.js';

let dir: string;
let db: Database;
let file: string;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'db-kept-out-'));
  file = path.join(dir, 'kept.sqlite');
  db = await openDatabase(`sqlite:${file}`);
});
afterAll(async () => {
  await db?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A scraping run's detail with `n` results, of which those in `bad` have a created_at that is not a timestamp. */
function runLoad(o: {
  runId: number;
  firstId: number;
  n: number;
  bad: (i: number) => string | null;
}): LoadBatchOptions {
  const results = Array.from({ length: o.n }, (_, i) => ({
    id: o.firstId + i,
    scraper_id: 5,
    scraping_run_id: o.runId,
    scraper_name: 'kept',
    scraped_url: 'Default',
    status: 'succeeded',
    content: { name: `n${i}` },
    created_at: o.bad(i) ?? '2026-01-01T00:00:00.000000Z',
    updated_at: '2026-01-01T00:00:00.000000Z',
  }));
  const raw = stringifyJson({
    data: { id: o.runId, scraper_id: 5, status: 'succeeded', created_at: '2026-01-01T00:00:00Z', results },
  });
  return {
    pipeline: 'kept',
    kind: 'scraping-run',
    endpoint: `GET /api/scraping-runs/${o.runId}`,
    requestKey: `scraping-run:${o.runId}`,
    scrapingRunId: o.runId,
    resultTable: 'leads_results',
    workflowId: 'kept--w1',
    // As activities/scraping-runs.ts loads a finished run's results: once per workflow (db/store/land-once.ts).
    landOnce: true,
    raw,
    data: scrapingRunResponseSchema.parse(parseJson(raw)),
  };
}

const py = (sql: string): unknown =>
  JSON.parse(
    execFileSync(
      'python3',
      [
        '-c',
        'import sqlite3,sys,json; print(json.dumps(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchall()))',
        file,
        sql,
      ],
      { encoding: 'utf8' },
    ),
  );

describe('values kept out of their columns', () => {
  it('a response counts every value it kept out, names the first few, and a run counts each response once', async () => {
    // 7 bad timestamps of 9 results: more than the sample names.
    const first = runLoad({ runId: 70, firstId: 100, n: 9, bad: (i) => (i < 7 ? `not a time ${i} \u0007` : null) });
    const out = await loadBatch(db, first);
    expect(out.keptOut?.count).toBe(7);
    expect(out.keptOut?.sample).toHaveLength(KEPT_OUT_SAMPLE);
    expect(out.warnings).toHaveLength(KEPT_OUT_SAMPLE);
    const [[cell]] = py(`SELECT kept_out FROM raw_responses WHERE id = ${out.loadId}`) as [[string]];
    const stored = JSON.parse(cell) as { count: number; sample: Array<Record<string, unknown>> };
    expect(stored.count).toBe(7);
    expect(stored.sample[0]).toEqual({
      table: 'leads_results',
      column: 'created_at',
      key: { id: 100 },
      value: 'not a time 0 \u0007',
    });
    expect(py(`SELECT count(*) FROM leads_results WHERE created_at IS NULL`)).toEqual([[7]]);

    // The same request loaded again by another attempt (a retry whose heartbeat was lost): left, counted once.
    const again = await loadBatch(db, first);
    expect(py(`SELECT count(*) FROM raw_responses WHERE request_key = 'scraping-run:70'`)).toEqual([[1]]);
    expect(again.keptOut).toBeUndefined();
    // Another response of the run: added.
    await loadBatch(db, runLoad({ runId: 71, firstId: 200, n: 3, bad: () => 'soon' }));
    // A response without any: no kept_out cell at all.
    const clean = await loadBatch(db, runLoad({ runId: 72, firstId: 300, n: 2, bad: () => null }));
    expect(clean.keptOut).toBeUndefined();
    expect(py(`SELECT kept_out FROM raw_responses WHERE id = ${clean.loadId}`)).toEqual([[null]]);

    const run = await keptOutOfRun(db, 'kept--w1');
    expect(run.count).toBe(10);
    expect(run.sample).toHaveLength(KEPT_OUT_SAMPLE);
    expect(run.sample.every((v) => v.rawResponseId === out.loadId)).toBe(true);
  });

  it('the metrics counter adds each finished run’s figure, by pipeline', async () => {
    const metrics = createMetrics();
    const finished = { pipeline: 'kept', kind: 'leads-search-engine', status: 'succeeded' as const, rowsByTable: {} };
    metrics.runFinished({ ...finished, tokenUsage: null, durationMs: 10, keptOut: 3 });
    metrics.runFinished({ ...finished, tokenUsage: null, durationMs: 10, keptOut: 4 });
    metrics.runFinished({ ...finished, pipeline: 'clean', tokenUsage: null, durationMs: 10 });
    const text = await metrics.registry.metrics();
    expect(text).toContain('scrape_etl_values_kept_out_total{pipeline="kept"} 7');
    // A pipeline that kept nothing out reads 0, not "no data".
    expect(text).toContain('scrape_etl_values_kept_out_total{pipeline="clean"} 0');
  });

  it('alerts carry the count and the first few; Slack escapes the service’s text', () => {
    const facts = runFacts({
      pipeline: 'kept',
      kind: 'leads-search-engine',
      workflowId: 'kept--w1',
      keptOut: 3,
      keptOutSample: [
        { table: 'leads_results', column: 'created_at', key: { id: 1 }, value: '<!channel> @here', rawResponseId: 9 },
      ],
    });
    const body = JSON.parse(JSON.stringify(jsonMessage(facts))) as Record<string, unknown>;
    expect(body['status']).toBe('succeeded');
    expect(body['values_kept_out']).toBe(3);
    expect(body['values_kept_out_sample']).toEqual(facts.keptOutSample);
    const slack = JSON.stringify(slackMessage(facts)['blocks']);
    expect(slack).toContain('· 3 values kept out');
    expect(slack).toContain(
      'kept out: leads_results.created_at (id 1): \\"&lt;!channel&gt; @\u2060here\\" (raw response 9)',
    );
    expect(slack).not.toContain('<!channel>');
  });
});
