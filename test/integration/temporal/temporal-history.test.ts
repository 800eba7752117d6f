// What a completed run leaves in Temporal: its history holds neither the API token nor result content, and its
// size does not grow with the size of the run (10,000 results). Then two worker processes on one task queue
// share twenty concurrent runs, every one exact.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultRecord } from '../../../client/index.js';
import type { Database } from '../../../destinations/contract.js';
import { flattenResultRecords } from '../../../db/model/flatten/index.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { startPipelineRun } from '../../../temporal/start.js';
import { expectContentEqual, expectTablesEqual } from '../../support/pipeline-truth.js';
import { leadsSocialSpec, pdfSpec } from '../../support/pipeline-specs.js';
import { historyText, spawnWorkerProcess, type TestTemporal, type WorkerProcess } from '../../support/temporal.js';
import { startPipelineBed, type PipelineBed } from '../../support/pipeline-bed.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const taskQueue = `history-${crypto.randomBytes(4).toString('hex')}`;
/** Events of a one-run pipeline, whatever the number of results (measured: see the log line). */
const EVENT_BOUND = 60;
let bed: PipelineBed;
let temporal: TestTemporal;
let sim: RunningSimulator;
let dbUrl: string;
let db: Database;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  bed = await startPipelineBed({ name: 'history', token: TOKEN, seed: 3, runDurationMs: 1500 });
  ({ dbUrl, db, temporal, sim } = bed);
  const env = {
    SCRAPER_BASE_URL: sim.baseUrl,
    SCRAPER_API_TOKEN: TOKEN,
    SCRAPE_ETL_HEARTBEAT_TIMEOUT: '5s',
    SCRAPE_ETL_LOAD_BATCH_SIZE: '1000',
  };
  workers.push(
    ...(await Promise.all([0, 1].map(() => spawnWorkerProcess({ address: temporal.address, taskQueue, env })))),
  );
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.kill('SIGTERM')));
  await bed?.close();
});

function runResults(runIds: string[]): ResultRecord[] {
  return runIds.flatMap((id) => sim.truth.runResults(Number(id)) as unknown as ResultRecord[]);
}

describe('history and scale', () => {
  it(`a 10,000-result run: history under ${EVENT_BOUND} events, no token, no result content`, async () => {
    const spec = leadsSocialSpec('big-run', dbUrl, 10_000);
    const started = Date.now();
    const handle = await startPipelineRun({ client: temporal.client, taskQueue }, spec, 'r1');
    const result = await handle.result();
    const ms = Date.now() - started;
    const records = runResults(result.scrapingRunIds);
    expect(records).toHaveLength(10_000);
    await expectTablesEqual(db, spec, flattenResultRecords(records, 'leads_results'), ['leads_results']);

    const history = await handle.fetchHistory();
    const events = history.events?.length ?? 0;
    const text = historyText(history);
    console.log(
      `10,000-result run: ${events} history events, ${text.length} bytes of history JSON, ${ms} ms end to end`,
    );
    expect(events).toBeLessThan(EVENT_BOUND);
    expect(text).not.toContain(TOKEN);
    // Result content (generated text) and even the results' URLs stay out of history.
    for (const r of [records[0]!, records[4999]!, records[9999]!]) {
      expect(text).not.toContain(r.scraped_url);
      expect(text).not.toContain(JSON.stringify(r.content).slice(1, 60));
    }
    expect(text).toContain('big-run');
  });

  it('two worker processes on one task queue share twenty concurrent runs, all exact', async () => {
    const specs = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0 ? leadsSocialSpec(`share-${i}`, dbUrl, 30 + i) : pdfSpec(`share-${i}`, dbUrl, 2, 10 + i),
    );
    const started = Date.now();
    const handles = await Promise.all(
      specs.map((s) => startPipelineRun({ client: temporal.client, taskQueue }, s, 'r1')),
    );
    const results = await Promise.all(handles.map((h) => h.result()));
    console.log(`20 concurrent runs on 2 worker processes: ${Date.now() - started} ms`);
    const identities = new Set<string>();
    for (const [i, spec] of specs.entries()) {
      const result = results[i]!;
      expect(result.status).toBe('succeeded');
      const records = runResults(result.scrapingRunIds);
      expect(records).toHaveLength(i % 2 === 0 ? 30 + i : 10 + i);
      const table = spec.kind === 'pdf' ? 'pdf_results' : 'leads_results';
      await expectTablesEqual(db, spec, flattenResultRecords(records, table), [table]);
      await expectContentEqual(db, spec, records);
      const history = await handles[i]!.fetchHistory();
      for (const e of history.events ?? []) {
        const identity = e.activityTaskStartedEventAttributes?.identity;
        if (identity) identities.add(identity);
      }
    }
    // Both processes took activities.
    expect([...identities].filter((id) => workers.some((w) => id.startsWith(`${w.pid}@`)))).toHaveLength(2);
  });
});
