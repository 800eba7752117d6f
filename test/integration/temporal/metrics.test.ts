// The worker's Prometheus endpoint after real runs: a compiled worker process (`scrape-etl worker` with
// SCRAPE_ETL_METRICS_PORT) serves its product metrics and the Temporal SDK runtime's in one text, which parses as
// Prometheus exposition; the counters equal what the runs loaded (pipeline_runs), called (the simulator's own
// count) and cost (tokenUsage). Runs bin/scrape-etl.js: `npm run build` first.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPipelineRun } from '../../../db/store/pipeline-runs.js';
import { startPipelineRun } from '../../../temporal/start.js';
import { startPipelineBed, type PipelineBed } from '../../support/pipeline-bed.js';
import { jobBoardSpec, pdfSpec } from '../../support/pipeline-specs.js';
import { spawnWorkerProcess, type WorkerProcess } from '../../support/temporal.js';
import { freePortSet } from '../../../lib/free-port.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const taskQueue = `metrics-${crypto.randomBytes(4).toString('hex')}`;
let bed: PipelineBed;
let worker: WorkerProcess;
let metricsPort: number;

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text exposition (0.0.4): comment lines, then `name{label="value",...} number [timestamp]`. */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, '$1');
    const value = m[3] === '+Inf' ? Infinity : Number(m[3]);
    if (Number.isNaN(value)) throw new Error(`not a number in: ${line}`);
    samples.push({ name: m[1]!, labels, value });
  }
  return { samples, types };
}

function value(samples: Sample[], name: string, labels: Record<string, string>): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

beforeAll(async () => {
  bed = await startPipelineBed({ name: 'metrics', token: TOKEN, seed: 21, runDurationMs: 300 });
  metricsPort = await freePortSet();
  worker = await spawnWorkerProcess({
    address: bed.temporal.address,
    taskQueue,
    env: {
      SCRAPER_BASE_URL: bed.sim.baseUrl,
      SCRAPER_API_TOKEN: TOKEN,
      SCRAPE_ETL_METRICS_PORT: String(metricsPort),
      SCRAPE_ETL_SDK_METRICS_PORT: String(await freePortSet()),
    },
  });
}, 120_000);

afterAll(async () => {
  await worker?.kill('SIGTERM');
  await bed?.close();
});

describe('worker metrics', () => {
  it('after two runs: product and SDK metrics in one endpoint, counters equal rows loaded, calls made and tokens used', async () => {
    expect(worker.output()).toContain(`metrics on http://127.0.0.1:${metricsPort}/metrics`);
    bed.sim.resetStats();
    const urls = Array.from({ length: 4 }, (_, i) => `https://weworkremotely.com/remote-jobs/search?term=metrics${i}`);
    const jobs = await (
      await startPipelineRun(
        { client: bed.temporal.client, taskQueue },
        jobBoardSpec('metrics-jobs', bed.dbUrl, urls),
        'r1',
      )
    ).result();
    const pdf = await (
      await startPipelineRun({ client: bed.temporal.client, taskQueue }, pdfSpec('metrics-pdf', bed.dbUrl, 2, 6), 'r1')
    ).result();
    expect([jobs.status, pdf.status]).toEqual(['succeeded', 'succeeded']);

    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const { samples, types } = parseExposition(await res.text());
    const names = new Set(samples.map((s) => s.name));

    // Product metrics, with their types.
    for (const [name, type] of [
      ['scrape_etl_api_calls_total', 'counter'],
      ['scrape_etl_api_retries_total', 'counter'],
      ['scrape_etl_rows_loaded_total', 'counter'],
      ['scrape_etl_rows_seen_total', 'counter'],
      ['scrape_etl_token_usage_total', 'counter'],
      ['scrape_etl_pipeline_runs_total', 'counter'],
      ['scrape_etl_pipeline_run_duration_seconds', 'histogram'],
      ['scrape_etl_load_duration_seconds', 'histogram'],
      ['scrape_etl_export_duration_seconds', 'histogram'],
      ['scrape_etl_webhooks_total', 'counter'],
    ] as const) {
      expect(types.get(name), name).toBe(type);
    }
    // The SDK runtime's own metrics came through the same endpoint.
    const sdk = [...names].filter((n) => n.startsWith('temporal_'));
    console.log(
      `metrics: ${names.size} series names, ${sdk.length} from the Temporal SDK (e.g. ${sdk.slice(0, 4).join(', ')})`,
    );
    expect(sdk.length).toBeGreaterThan(5);
    expect(names).toContain('temporal_activity_execution_latency_bucket');
    expect(names).toContain('temporal_workflow_completed');

    // Rows: exactly each run's pipeline_runs.rows_by_table.
    for (const [pipeline, result] of [
      ['metrics-jobs', jobs],
      ['metrics-pdf', pdf],
    ] as const) {
      const row = await getPipelineRun(bed.db, result.workflowId);
      expect(Object.keys(row!.rowsByTable!).length).toBeGreaterThan(0);
      for (const [table, n] of Object.entries(row!.rowsByTable!))
        expect(value(samples, 'scrape_etl_rows_loaded_total', { pipeline, table }), `${pipeline}.${table}`).toBe(n);
      // Rows seen: exactly each run's pipeline_runs.seen_by_table, never below the rows changed.
      expect(Object.keys(row!.seenByTable!).length).toBeGreaterThan(0);
      for (const [table, n] of Object.entries(row!.seenByTable!)) {
        expect(value(samples, 'scrape_etl_rows_seen_total', { pipeline, table }), `seen ${pipeline}.${table}`).toBe(n);
        expect(n).toBeGreaterThanOrEqual(row!.rowsByTable![table] ?? 0);
      }
      expect(value(samples, 'scrape_etl_pipeline_runs_total', { pipeline, status: 'succeeded' })).toBe(1);
      expect(value(samples, 'scrape_etl_pipeline_run_duration_seconds_count', { pipeline, status: 'succeeded' })).toBe(
        1,
      );
    }
    // Cost: the job-board run's tokens, as stored; the PDF answers carry none.
    const jobsRow = await getPipelineRun(bed.db, jobs.workflowId);
    expect(jobsRow?.tokenUsage).toBeGreaterThan(0);
    expect(value(samples, 'scrape_etl_token_usage_total', { pipeline: 'metrics-jobs' })).toBe(jobsRow?.tokenUsage);
    expect(value(samples, 'scrape_etl_token_usage_total', { pipeline: 'metrics-pdf' })).toBe(0);
    // Calls: what the simulator counted, per endpoint template.
    const stats = bed.sim.stats().byEndpoint;
    expect(
      value(samples, 'scrape_etl_api_calls_total', { endpoint: 'POST /api/job-board-scrape', status: '200' }),
    ).toBe(stats['POST /api/job-board-scrape']);
    expect(
      value(samples, 'scrape_etl_api_calls_total', {
        endpoint: 'POST /api/scrapers/pdf/create-and-run',
        status: '200',
      }),
    ).toBe(1);
    const polls = samples
      .filter((s) => s.name === 'scrape_etl_api_calls_total' && s.labels['endpoint'] === 'GET /api/scraping-runs/:id')
      .reduce((a, s) => a + s.value, 0);
    expect(polls).toBe(stats['GET /api/scraping-runs/:id']);
    // Load durations were observed for the loading activities of both modes.
    expect(
      value(samples, 'scrape_etl_load_duration_seconds_count', {
        activity: 'loadUrlChunk',
        pipeline: 'metrics-jobs',
        outcome: 'ok',
      }),
    ).toBe(1);
    expect(
      value(samples, 'scrape_etl_load_duration_seconds_count', {
        activity: 'loadRunResults',
        pipeline: 'metrics-pdf',
        outcome: 'ok',
      }),
    ).toBe(2);
  });
});
