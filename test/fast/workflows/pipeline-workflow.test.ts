// The pipeline workflow's own logic (workflows/), each run mode and step, with mocked activities on Temporal's
// time-skipping test server (test/support/workflow-env.ts): which activities it calls, in which order, with what,
// and what it makes of their answers and failures. Polling back-offs, outage waits and alert bounds are timers the
// server skips. The same workflow against the real activities, a dev server and the simulator is the integration
// tier's (test/integration/temporal/).
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKFLOW_FAILURE_TYPES, type PipelineProgress } from '../../../temporal/contract.js';
import type { ExportSpec, PipelineSpec } from '../../../pipelines/spec.js';
import { leadsSearchSpec, marketplaceSpec, productUrl, resultsSpec } from '../../support/pipeline-specs.js';
import {
  TUNING,
  defaultMocks,
  outcome,
  startTimeSkipping,
  withPipelineRun,
  type ActivityName,
} from '../../support/workflow-env.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startTimeSkipping();
}, 180_000);
afterAll(async () => {
  await env?.teardown();
});

const DB = 'sqlite:/nowhere/mocked.sqlite';
const urls = (n: number) => Array.from({ length: n }, (_, i) => productUrl(1000 + i));
const ok = (rows: number) => ({ succeeded: rows, failed: [], rows: { products: rows } });
/** The plan's begin of the run's row (LEAN_PATCH: planPipelineRun starts the pipeline_runs row, no beginPipelineRun). */
const begin = (pipeline: string, kind: string) => ({ workflowId: `${pipeline}--test`, pipeline, kind, database: DB });

const csvExport = (dir: string, on_failed_checks?: 'run' | 'skip'): ExportSpec => ({
  dir,
  format: 'csv',
  tables: [],
  mode: 'full',
  write_empty: false,
  delimiter: ',',
  bom: false,
  null_text: '',
  file_name: '{pipeline}_{table}.csv',
  neutralize_formulas: true,
  ...(on_failed_checks ? { on_failed_checks } : {}),
});

describe('url-list mode (marketplace, job-board)', () => {
  it('loads the list in chunks of the worker tuning, in order, then finishes the run succeeded with the database counts', async () => {
    const spec = marketplaceSpec('wf-happy', DB, urls(5));
    await withPipelineRun(
      env,
      { spec, mocks: { ...defaultMocks('url-list'), loadUrlChunk: async (c) => ok(c.urls.length) } },
      async (handle, run) => {
        const out = await outcome(handle);
        expect(out).toHaveProperty('result');
        if (!('result' in out)) return;
        // No webhook anywhere (the plan says so): no alerts step. No beginPipelineRun: the plan begins the row.
        expect(run.names()).toEqual([
          'planPipelineRun',
          'loadUrlChunk',
          'loadUrlChunk',
          'loadUrlChunk',
          'finishPipelineRun',
        ]);
        // The plan checks the seal of the very input the run was started with, begins the row and is asked about alerts.
        expect(run.inputsOf('planPipelineRun')[0]).toMatchObject({
          kind: 'marketplace',
          sealed: { spec: { name: 'wf-happy' }, runKey: 'test' },
          begin: begin('wf-happy', 'marketplace'),
          askAlerts: true,
        });
        // Bookkeeping runs as local activities; a list longer than 3 URLs is loaded by regular (heartbeating) ones.
        expect(run.calls.filter((c) => c.info.isLocal).map((c) => c.name)).toEqual([
          'planPipelineRun',
          'finishPipelineRun',
        ]);
        expect(run.infoOf('loadUrlChunk').every((i) => i.heartbeatTimeoutMs === 2000)).toBe(true);
        // Chunks of urlChunkSize (2) from the inline list, each with its offset; the spec travels without its list.
        const chunks = run.inputsOf('loadUrlChunk');
        expect(chunks.map((c) => [c.offset, c.urls])).toEqual([
          [0, urls(5).slice(0, 2)],
          [2, urls(5).slice(2, 4)],
          [4, urls(5).slice(4, 5)],
        ]);
        expect(
          chunks.every(
            (c) =>
              c.outageRetry === true &&
              c.afterOutage === undefined &&
              (c.spec.request as { urls: string[] }).urls.length === 0,
          ),
        ).toBe(true);
        expect(run.inputsOf('finishPipelineRun')[0]).toEqual({
          workflowId: 'wf-happy--test',
          pipeline: 'wf-happy',
          kind: 'marketplace',
          database: DB,
          status: 'succeeded',
          error: null,
          exportStatus: 'none',
          exportError: null,
        });
        expect(out.result).toMatchObject({
          status: 'succeeded',
          rowsByTable: { scrapers: 1 },
          failedUrlCount: 0,
          failedUrls: [],
          exportStatus: 'none',
          exportedFiles: 0,
        });
        // The progress query answers after the end too, with the final phase and the counts the activities reported.
        const progress = await handle.query<PipelineProgress>('progress');
        expect(progress).toMatchObject({
          phase: 'succeeded',
          urls: { total: 5, done: 5, failed: 0 },
          rowsLoaded: { products: 5 },
        });
      },
    );
  });

  it('a URL that failed for good makes the run partial, listed in the row and the result; the others stay loaded', async () => {
    const spec = marketplaceSpec('wf-partial', DB, urls(4));
    const loadUrlChunk = async (c: { offset: number; urls: string[] }) =>
      c.offset === 2
        ? { succeeded: 1, failed: [{ url: c.urls[1]!, error: 'HTTP 404 from the service' }], rows: { products: 1 } }
        : ok(c.urls.length);
    await withPipelineRun(env, { spec, mocks: { ...defaultMocks('url-list'), loadUrlChunk } }, async (handle, run) => {
      const out = await outcome(handle);
      if (!('result' in out)) throw new Error(`expected a result, got ${JSON.stringify(out)}`);
      expect(out.result).toMatchObject({
        status: 'partial',
        failedUrlCount: 1,
        failedUrls: [{ url: urls(4)[3], error: 'HTTP 404 from the service' }],
      });
      const finish = run.inputsOf('finishPipelineRun');
      expect(finish).toHaveLength(1);
      expect(finish[0]).toMatchObject({
        status: 'partial',
        error: `1 of 4 URLs failed: ${urls(4)[3]}: HTTP 404 from the service`,
      });
    });
  });

  it('every URL failed: the run fails (AllUrlsFailed) naming the first, and its row is finished failed', async () => {
    const spec = marketplaceSpec('wf-allfail', DB, urls(3));
    const loadUrlChunk = async (c: { urls: string[] }) => ({
      succeeded: 0,
      failed: c.urls.map((url) => ({ url, error: 'HTTP 410 gone' })),
      rows: {},
    });
    await withPipelineRun(env, { spec, mocks: { ...defaultMocks('url-list'), loadUrlChunk } }, async (handle, run) => {
      const out = await outcome(handle);
      expect(out).toEqual({
        failure: {
          type: WORKFLOW_FAILURE_TYPES.allUrlsFailed,
          message: `all 3 URLs of pipeline 'wf-allfail' failed; first: ${urls(3)[0]}: HTTP 410 gone`,
        },
      });
      expect(run.inputsOf('finishPipelineRun')).toEqual([
        expect.objectContaining({ status: 'failed', error: expect.stringContaining('all 3 URLs') }),
      ]);
      // Nothing after the load ran as if the data were there: no checks, no exports.
      expect(run.names()).not.toContain('runExports');
    });
  });

  it('a service outage (ServiceUnavailable) is waited out with the polling back-off, and the chunk is tried again as after an outage', async () => {
    // 4 URLs in one fixed chunk: a regular activity (a list of up to 3 is a local activity's, scheduled in worker
    // time, which the server's skipping does not move), so its schedule times show the pauses.
    const spec = {
      ...marketplaceSpec('wf-outage', DB, urls(4)),
      polling: { initial_interval: '30s', backoff_coefficient: 2, max_interval: '2m', deadline: '30m' },
    };
    const tuning = { ...TUNING, urlChunkSize: 4, urlChunkFixed: true };
    let attempts = 0;
    const scheduledAt: number[] = [];
    const loadUrlChunk = async (c: { urls: string[] }) => {
      attempts += 1;
      // Server time, which the test server skips: when each try was scheduled says how long the workflow paused.
      scheduledAt.push(Context.current().info.scheduledTimestampMs);
      if (attempts <= 4)
        throw ApplicationFailure.nonRetryable(
          'service unreachable for 4 URL(s) of this chunk; first: ECONNREFUSED',
          'ServiceUnavailable',
        );
      return ok(c.urls.length);
    };
    await withPipelineRun(
      env,
      { spec, mocks: { ...defaultMocks('url-list', tuning), loadUrlChunk } },
      async (handle, run) => {
        const out = await outcome(handle);
        expect(out).toMatchObject({ result: { status: 'succeeded', failedUrlCount: 0 } });
        const chunks = run.inputsOf('loadUrlChunk');
        expect(chunks).toHaveLength(5);
        expect(chunks.map((c) => c.afterOutage ?? false)).toEqual([false, true, true, true, true]);
        expect(chunks.map((c) => [c.offset, c.urls.length])).toEqual(Array(5).fill([0, 4]));
        expect(run.infoOf('loadUrlChunk').every((i) => !i.isLocal)).toBe(true);
        // Pauses of 30 s, growing by backoff_coefficient up to max_interval (2m), in server time: skipped, not slept.
        const pauses = scheduledAt.slice(1).map((t, i) => t - scheduledAt[i]!);
        // Each pause also holds the real time the failed try took to come back (seconds on a loaded machine), so it
        // is at least the back-off and less than the next step of it.
        const expected = [30, 60, 120, 120];
        expect(
          pauses.map((p, i) => p >= expected[i]! * 1000 && p < expected[i]! * 1000 + 10_000),
          JSON.stringify(pauses),
        ).toEqual([true, true, true, true]);
        expect(await handle.query<PipelineProgress>('progress')).not.toHaveProperty('waiting');
      },
    );
  });

  it('an outage longer than polling.deadline fails the run as ServiceUnavailable, not as failed URLs', async () => {
    const spec = {
      ...marketplaceSpec('wf-outage-long', DB, urls(2)),
      polling: { initial_interval: '1m', backoff_coefficient: 2, max_interval: '5m', deadline: '10m' },
    };
    const loadUrlChunk = async () => {
      throw ApplicationFailure.nonRetryable(
        'service unreachable for 2 URL(s) of this chunk; first: HTTP 503',
        'ServiceUnavailable',
      );
    };
    await withPipelineRun(env, { spec, mocks: { ...defaultMocks('url-list'), loadUrlChunk } }, async (handle, run) => {
      const out = await outcome(handle);
      expect(out).toMatchObject({
        failure: {
          type: 'ServiceUnavailable',
          message: expect.stringMatching(
            /stayed unreachable for polling\.deadline \(10m\): service unreachable .*HTTP 503/,
          ),
        },
      });
      // 1 + 2 + 4 minutes of pauses fit in 10 minutes, the next 5 would not: four attempts. A list of 2 is a local
      // activity's, whose outage is waited out the same way (workflow timers).
      expect(run.inputsOf('loadUrlChunk')).toHaveLength(4);
      expect(run.inputsOf('loadUrlChunk').map((c) => c.afterOutage ?? false)).toEqual([false, true, true, true]);
      expect(run.infoOf('loadUrlChunk').every((i) => i.isLocal)).toBe(true);
      expect(run.inputsOf('finishPipelineRun')).toEqual([expect.objectContaining({ status: 'failed' })]);
    });
  });

  // A list longer than 3 has its chunks loaded by regular activities, whose failure arrives as an ActivityFailure; one
  // of 1-3 URLs by a local activity, whose failure reaches the workflow as the activity's own ApplicationFailure (it
  // was once passed on as it came, without the pipeline's name). Either way the pipeline is named and the type kept.
  it.each([
    { what: 'regular', name: 'wf-broken', count: 5, local: false },
    { what: 'local', name: 'wf-broken-short', count: 2, local: true },
  ])(
    'any other activity failure ($what activity) fails the run at once with its type kept, after its retries',
    async ({ name, count, local }) => {
      const spec = marketplaceSpec(name, DB, urls(count));
      const loadUrlChunk = async () => {
        throw ApplicationFailure.nonRetryable("table 'products' is locked by another writer", 'DestinationLocked');
      };
      await withPipelineRun(
        env,
        { spec, mocks: { ...defaultMocks('url-list'), loadUrlChunk } },
        async (handle, run) => {
          const out = await outcome(handle);
          expect(out).toEqual({
            failure: {
              type: 'DestinationLocked',
              message: `pipeline '${name}' failed: table 'products' is locked by another writer`,
            },
          });
          expect(run.inputsOf('loadUrlChunk')).toHaveLength(1);
          expect(run.infoOf('loadUrlChunk').map((i) => i.isLocal)).toEqual([local]);
          expect(run.inputsOf('finishPipelineRun')).toEqual([
            expect.objectContaining({ status: 'failed', error: "table 'products' is locked by another writer" }),
          ]);
        },
      );
    },
  );

  it('a long list continues as new after activitiesPerRun chunks, carrying offset, failures and counts', async () => {
    const spec = marketplaceSpec('wf-can', DB, urls(5));
    const tuning = { ...TUNING, urlChunkSize: 1, activitiesPerRun: 2 };
    const loadUrlChunk = async (c: { offset: number; urls: string[] }) =>
      c.offset === 1 ? { succeeded: 0, failed: [{ url: c.urls[0]!, error: 'bad' }], rows: {} } : ok(1);
    await withPipelineRun(
      env,
      { spec, mocks: { ...defaultMocks('url-list', tuning), loadUrlChunk } },
      async (handle, run) => {
        const out = await outcome(handle);
        if (!('result' in out)) throw new Error(`expected a result, got ${JSON.stringify(out)}`);
        expect(out.result).toMatchObject({ status: 'partial', failedUrlCount: 1 });
        expect(run.inputsOf('loadUrlChunk').map((c) => c.offset)).toEqual([0, 1, 2, 3, 4]);
        // The row is begun once (by the first run's plan) and finished once (the last); the plan runs in each of the
        // 3 runs, and only the first one's begins the row.
        const plans = run.inputsOf('planPipelineRun');
        expect(plans).toHaveLength(3);
        expect(plans.map((p) => p.begin ?? null)).toEqual([begin('wf-can', 'marketplace'), null, null]);
        expect(run.names()).not.toContain('beginPipelineRun');
        expect(run.inputsOf('finishPipelineRun')).toEqual([
          expect.objectContaining({ status: 'partial', error: `1 of 5 URLs failed: ${urls(5)[1]}: bad` }),
        ]);
        expect(await handle.query<PipelineProgress>('progress')).toMatchObject({
          continuedAsNew: 2,
          urls: { total: 5, done: 5, failed: 1 },
          rowsLoaded: { products: 4 },
        });
      },
    );
  });
});

describe('create-and-wait mode (pdf, leads-*)', () => {
  const target = (id: string) => ({ scrapingRunId: id, scraperName: 'wf-leads-scraper', label: 'Default' });

  it('creates once, waits for each run with one polling activity (the pipeline back-off, heartbeats), then loads it', async () => {
    const spec = {
      ...leadsSearchSpec('wf-leads', DB),
      polling: { initial_interval: '10s', backoff_coefficient: 2, max_interval: '4m', deadline: '1h' },
    };
    const waited: string[] = [];
    await withPipelineRun(
      env,
      {
        spec,
        mocks: {
          ...defaultMocks('create-and-wait'),
          createAndRun: async () => ({
            runs: [target('9007199254740993'), target('7')],
            reused: false,
            rows: { scrapers: 1 },
          }),
          // The polling itself (looks, back-off, heartbeats) is the activity's: activities/scraping-runs.ts.
          waitForScrapingRun: async ({ run }) => {
            waited.push(run.scrapingRunId);
            return { status: 'succeeded', looks: 3 };
          },
          loadRunResults: async ({ run }) => ({
            results: 10,
            batches: 1,
            fromResultsList: 0,
            rows: { [`leads_${run.scrapingRunId}`]: 10 },
          }),
        },
      },
      async (handle, run) => {
        const out = await outcome(handle);
        if (!('result' in out)) throw new Error(`expected a result, got ${JSON.stringify(out)}`);
        expect(out.result).toMatchObject({ status: 'succeeded', scrapingRunIds: ['9007199254740993', '7'] });
        expect(run.names().filter((n) => n === 'createAndRun')).toHaveLength(1);
        expect(waited.sort()).toEqual(['7', '9007199254740993']);
        // No check per look (each a billed attempt): one wait per run, never a beginPipelineRun, no alerts step.
        const names = run.names();
        expect(names).not.toContain('checkRunStatus');
        expect(names.slice(0, 2)).toEqual(['planPipelineRun', 'createAndRun']);
        expect(names.at(-1)).toBe('finishPipelineRun');
        expect(names.filter((n) => n === 'waitForScrapingRun')).toHaveLength(2);
        // A run is loaded only after its own wait ended.
        for (const id of ['7', '9007199254740993']) {
          const waitAt = run.calls.findIndex(
            (c) => c.name === 'waitForScrapingRun' && c.input.run.scrapingRunId === id,
          );
          const loadAt = run.calls.findIndex((c) => c.name === 'loadRunResults' && c.input.run.scrapingRunId === id);
          expect(waitAt).toBeGreaterThan(0);
          expect(loadAt).toBeGreaterThan(waitAt);
        }
        // The pipeline's polling goes to the activity; its deadline bounds the activity, and its heartbeat timeout is
        // at least twice max_interval (4m here) and never below WAIT_HEARTBEAT_TIMEOUT_MS (5m).
        expect(run.inputsOf('waitForScrapingRun')).toContainEqual({
          run: target('9007199254740993'),
          pipeline: 'wf-leads',
          polling: spec.polling,
        });
        expect(run.infoOf('waitForScrapingRun')[0]).toMatchObject({
          isLocal: false,
          scheduleToCloseTimeoutMs: 3_600_000,
          heartbeatTimeoutMs: 8 * 60_000,
        });
        expect(await handle.query<PipelineProgress>('progress')).toMatchObject({
          runs: { total: 2, waiting: 0, loading: 0, done: 2 },
          resultsLoaded: 20,
          rowsLoaded: { scrapers: 1, leads_7: 10, leads_9007199254740993: 10 },
        });
      },
    );
  });

  it('a wait whose worker failed (a retryable error) is tried again and goes on to load the run', async () => {
    const spec = {
      ...leadsSearchSpec('wf-leads-retry', DB),
      polling: { initial_interval: '1s', backoff_coefficient: 2, max_interval: '10s', deadline: '1h' },
    };
    await withPipelineRun(
      env,
      {
        spec,
        mocks: {
          ...defaultMocks('create-and-wait'),
          createAndRun: async () => ({ runs: [target('8')], reused: false, rows: {} }),
          waitForScrapingRun: async () => {
            if (Context.current().info.attempt === 1)
              throw ApplicationFailure.retryable('connect ECONNRESET (the worker lost its connection)', 'WorkerError');
            return { status: 'succeeded', looks: 1 };
          },
          loadRunResults: async () => ({ results: 2, batches: 1, fromResultsList: 0, rows: { leads_8: 2 } }),
        },
      },
      async (handle, run) => {
        expect(await outcome(handle)).toMatchObject({ result: { status: 'succeeded', resultsLoaded: 2 } });
        expect(run.infoOf('waitForScrapingRun').map((i) => i.attempt)).toEqual([1, 2]);
        // Polling at 10 s at most: the heartbeat timeout is the 5-minute floor.
        expect(run.infoOf('waitForScrapingRun')[0]!.heartbeatTimeoutMs).toBe(5 * 60_000);
        expect(run.inputsOf('loadRunResults')).toHaveLength(1);
      },
    );
  });

  it('a run the service says failed (RunFailed) fails the pipeline run with that type, and nothing of it is loaded', async () => {
    const spec = leadsSearchSpec('wf-runfailed', DB);
    await withPipelineRun(
      env,
      {
        spec,
        mocks: {
          ...defaultMocks('create-and-wait'),
          createAndRun: async () => ({ runs: [target('5')], reused: false, rows: {} }),
          waitForScrapingRun: async () => {
            throw ApplicationFailure.nonRetryable("scraping run 5 ended 'failed': quota exhausted", 'RunFailed');
          },
        },
      },
      async (handle, run) => {
        expect(await outcome(handle)).toEqual({
          failure: { type: 'RunFailed', message: "scraping run 5 ended 'failed': quota exhausted" },
        });
        expect(run.inputsOf('waitForScrapingRun')).toHaveLength(1);
        expect(run.names()).not.toContain('loadRunResults');
        expect(run.inputsOf('finishPipelineRun')).toEqual([
          expect.objectContaining({ status: 'failed', error: "scraping run 5 ended 'failed': quota exhausted" }),
        ]);
      },
    );
  });

  it('a run still running at polling.deadline fails as RunDeadlineExceeded, naming the deadline, what to do and the last check', async () => {
    const spec = {
      ...leadsSearchSpec('wf-deadline', DB),
      polling: { initial_interval: '1m', backoff_coefficient: 2, max_interval: '10m', deadline: '1h' },
    };
    await withPipelineRun(
      env,
      {
        spec,
        mocks: {
          ...defaultMocks('create-and-wait'),
          createAndRun: async () => ({ runs: [target('6')], reused: false, rows: {} }),
          // As the activity says its deadline passed: non-retryable RunStillRunning, the last look's error as detail.
          waitForScrapingRun: async () => {
            throw ApplicationFailure.create({
              message: 'scraping run 6 is still not answering at the polling deadline; last check: HTTP 503',
              type: 'RunStillRunning',
              nonRetryable: true,
              details: ['HTTP 503 from /api/scraping-runs/6'],
            });
          },
        },
      },
      async (handle, run) => {
        const out = await outcome(handle);
        expect(out).toMatchObject({
          failure: {
            type: WORKFLOW_FAILURE_TYPES.runDeadlineExceeded,
            message: expect.stringContaining(
              "scraping run 6 of scraper 'wf-leads-scraper' (Default) was still not 'succeeded' when the polling deadline of 1h passed",
            ),
          },
        });
        if (!('failure' in out)) return;
        expect(out.failure.message).toContain('raise polling.deadline');
        expect(out.failure.message).toMatch(/; last check: HTTP 503 from \/api\/scraping-runs\/6$/);
        // Not retried: the deadline is the activity's to tell, once.
        expect(run.inputsOf('waitForScrapingRun')).toHaveLength(1);
        expect(run.names()).not.toContain('loadRunResults');
        expect(run.inputsOf('finishPipelineRun')).toEqual([
          expect.objectContaining({ status: 'failed', error: expect.stringContaining('polling deadline of 1h') }),
        ]);
      },
    );
  });
});

describe('results-sync mode (results)', () => {
  it('pages from the watermark until done, then commits the highest id seen as the new watermark', async () => {
    const spec = resultsSpec('wf-results', DB);
    let call = 0;
    await withPipelineRun(
      env,
      {
        spec,
        mocks: {
          ...defaultMocks('results-sync'),
          readResultsWatermark: async () => '100',
          loadResultsPages: async (p) => {
            call += 1;
            const done = call === 2;
            return {
              nextPage: p.startPage + 2,
              done,
              pagesLoaded: 2,
              resultsLoaded: 5,
              highestId: call === 1 ? '9007199254740999' : '150',
              lowestId: '120',
              stalledPages: 0,
              lastPageKey: `k${call}`,
              rows: { results_items: 5 },
            };
          },
          commitResultsWatermark: async () => {},
        },
      },
      async (handle, run) => {
        const out = await outcome(handle);
        expect(out).toMatchObject({ result: { status: 'succeeded', pagesLoaded: 4, resultsLoaded: 10 } });
        expect(run.names()).toEqual([
          'planPipelineRun',
          'readResultsWatermark',
          'loadResultsPages',
          'loadResultsPages',
          'commitResultsWatermark',
          'finishPipelineRun',
        ]);
        // The watermark's reads and writes are bookkeeping: local activities, as the plan and the finish.
        expect(run.calls.filter((c) => c.info.isLocal).map((c) => c.name)).toEqual([
          'planPipelineRun',
          'readResultsWatermark',
          'commitResultsWatermark',
          'finishPipelineRun',
        ]);
        expect(
          run.inputsOf('loadResultsPages').map((p) => [p.startPage, p.watermark, p.maxPages, p.lastPageKey]),
        ).toEqual([
          [1, '100', TUNING.pagesPerActivity, null],
          [3, '100', TUNING.pagesPerActivity, 'k1'],
        ]);
        // Ids beyond 2^53 compare as the decimal strings they are.
        expect(run.inputsOf('commitResultsWatermark')).toEqual([
          { database: DB, pipeline: 'wf-results', watermark: '9007199254740999' },
        ]);
      },
    );
  });

  it('a pass cut short by max_pages does not move the watermark', async () => {
    const spec = { ...resultsSpec('wf-results-max', DB), request: { per_page: 50, max_pages: 2 } } as PipelineSpec;
    await withPipelineRun(
      env,
      {
        spec,
        mocks: {
          ...defaultMocks('results-sync'),
          readResultsWatermark: async () => null,
          loadResultsPages: async (p) => ({
            nextPage: p.startPage + p.maxPages,
            done: false,
            pagesLoaded: p.maxPages,
            resultsLoaded: 3,
            highestId: '50',
            lowestId: '40',
            stalledPages: 0,
            lastPageKey: 'k',
            rows: {},
          }),
        },
      },
      async (handle, run) => {
        expect(await outcome(handle)).toMatchObject({ result: { status: 'succeeded', pagesLoaded: 2 } });
        expect(run.inputsOf('loadResultsPages')).toHaveLength(1);
        expect(run.names()).not.toContain('commitResultsWatermark');
      },
    );
  });
});

describe('after the load: checks, exports, alerts', () => {
  const webhook = {
    url: '${WF_TEST_WEBHOOK}',
    format: 'json' as const,
    on: ['succeeded' as const, 'failed' as const, 'check_failed' as const],
  };

  it('a failed error check makes the run failed_checks: exports marked skip are left out, and the alert is check_failed, not a status', async () => {
    const spec: PipelineSpec = {
      ...marketplaceSpec('wf-checks', DB, urls(1)),
      checks: [{ name: 'enough rows', type: 'row_count', table: 'products', scope: 'run', min: 10, severity: 'error' }],
      exports: [csvExport('/out/kept'), csvExport('/out/skipped', 'skip')],
      notify: { webhooks: [webhook] },
    };
    const detail = 'check enough rows failed: 1 row, at least 10 expected';
    await withPipelineRun(
      env,
      {
        spec,
        mocks: {
          ...defaultMocks('url-list'),
          loadUrlChunk: async () => ok(1),
          evaluateRunChecks: async () => ({
            results: [
              {
                name: 'enough rows',
                type: 'row_count',
                severity: 'error',
                status: 'fail',
                observed: '1',
                threshold: '>= 10',
                message: detail,
              },
            ],
            errorsFailed: 1,
            warnsFailed: 0,
            detail,
          }),
          runExports: async (e) => ({
            files: e.spec.exports.map((x) => ({ table: 'products', file: `${x.dir}/p.csv`, rows: 1 })),
            unchanged: [],
          }),
        },
      },
      async (handle, run) => {
        const out = await outcome(handle);
        if (!('result' in out)) throw new Error(`expected a result, got ${JSON.stringify(out)}`);
        expect(out.result).toMatchObject({
          status: 'failed_checks',
          exportStatus: 'succeeded',
          exportedFiles: 1,
          checks: [{ name: 'enough rows', status: 'fail' }],
        });
        // A webhook: the plan says so, and the alerts step runs after the row is finished.
        expect(run.names()).toEqual([
          'planPipelineRun',
          'loadUrlChunk',
          'evaluateRunChecks',
          'runExports',
          'finishPipelineRun',
          'notifyPipelineRun',
        ]);
        expect(run.inputsOf('evaluateRunChecks')[0]).toMatchObject({
          workflowId: 'wf-checks--test',
          rowsLoaded: { products: 1 },
        });
        expect(run.inputsOf('runExports')[0]!.spec.exports.map((e) => e.dir)).toEqual(['/out/kept']);
        expect(run.inputsOf('finishPipelineRun')[0]).toMatchObject({
          status: 'failed_checks',
          error: detail,
          exportStatus: 'succeeded',
        });
        expect(run.inputsOf('notifyPipelineRun')[0]).toMatchObject({
          status: 'failed_checks',
          events: [{ event: 'check_failed', detail }],
          notify: { webhooks: [webhook] },
        });
        // The webhook is checked by the plan, before anything runs.
        expect(run.inputsOf('planPipelineRun')[0]).toMatchObject({ notify: { webhooks: [webhook] } });
      },
    );
  });

  it('exports that fail for good are reported beside the data outcome, which stays succeeded', async () => {
    const spec: PipelineSpec = { ...marketplaceSpec('wf-export-fail', DB, urls(1)), exports: [csvExport('/out/x')] };
    await withPipelineRun(
      env,
      {
        spec,
        mocks: {
          ...defaultMocks('url-list'),
          loadUrlChunk: async () => ok(1),
          runExports: async () => {
            throw ApplicationFailure.nonRetryable('EACCES: permission denied, open /out/x/p.csv', 'ExportFailed');
          },
        },
      },
      async (handle, run) => {
        expect(await outcome(handle)).toMatchObject({
          result: {
            status: 'succeeded',
            exportStatus: 'failed',
            exportError: 'EACCES: permission denied, open /out/x/p.csv',
          },
        });
        expect(run.inputsOf('runExports')).toHaveLength(1);
        expect(run.inputsOf('finishPipelineRun')[0]).toMatchObject({
          status: 'succeeded',
          exportStatus: 'failed',
          exportError: 'EACCES: permission denied, open /out/x/p.csv',
        });
      },
    );
  });

  it('alerts come after the row is finished, with its figures; undelivered ones are the result, never the run outcome', async () => {
    const spec: PipelineSpec = {
      ...marketplaceSpec('wf-alerts', DB, urls(1)),
      notify: { webhooks: [webhook], deliver_within: '5m' },
    };
    await withPipelineRun(
      env,
      {
        spec,
        mocks: {
          ...defaultMocks('url-list'),
          loadUrlChunk: async () => ok(1),
          notifyPipelineRun: async () => ({
            sent: 0,
            alreadySent: 0,
            events: ['succeeded'],
            undelivered: ['webhook 1: HTTP 500'],
            error: 'webhook 1: HTTP 500',
          }),
        },
      },
      async (handle, run) => {
        const out = await outcome(handle);
        expect(out).toMatchObject({
          result: { status: 'succeeded', alerts: { status: 'failed', error: 'webhook 1: HTTP 500' } },
        });
        expect(run.names().slice(-2)).toEqual(['finishPipelineRun', 'notifyPipelineRun']);
        expect(run.inputsOf('notifyPipelineRun')[0]).toMatchObject({
          status: 'succeeded',
          events: [{ event: 'succeeded' }],
          rowsByTable: { scrapers: 1 },
          deliverWithinMs: 300_000,
          runId: expect.any(String),
        });
      },
    );
  });

  it('alerts whose activity never answers are given up after deliver_within, recorded, and the run still succeeds', async () => {
    const spec: PipelineSpec = {
      ...marketplaceSpec('wf-alerts-dead', DB, urls(1)),
      notify: { webhooks: [webhook], deliver_within: '3m' },
    };
    const attemptsAt: number[] = [];
    await withPipelineRun(
      env,
      {
        spec,
        mocks: {
          ...defaultMocks('url-list'),
          loadUrlChunk: async () => ok(1),
          notifyPipelineRun: async () => {
            attemptsAt.push(Context.current().info.currentAttemptScheduledTimestampMs);
            throw ApplicationFailure.retryable('connect ECONNREFUSED 127.0.0.1:9', 'WebhookUnreachable');
          },
          recordAlertFailure: async () => {},
        },
      },
      async (handle, run) => {
        const out = await outcome(handle);
        expect(out).toMatchObject({
          result: {
            status: 'succeeded',
            alerts: { status: 'failed', error: expect.stringContaining('alerts not delivered within 3m') },
          },
        });
        // Retried with its back-off (1 s doubling to 30 s) for as long as the bound allows, and no longer.
        expect(attemptsAt.length).toBeGreaterThan(4);
        const span = attemptsAt.at(-1)! - attemptsAt[0]!;
        expect(span).toBeGreaterThan(60_000);
        expect(span).toBeLessThanOrEqual(180_000);
        expect(run.inputsOf('recordAlertFailure')).toEqual([
          {
            workflowId: 'wf-alerts-dead--test',
            database: DB,
            error: expect.stringContaining('alerts not delivered within 3m'),
          },
        ]);
      },
    );
  });

  it('retention runs last, and its failure is logged, never the run’s', async () => {
    const spec: PipelineSpec = { ...marketplaceSpec('wf-retention', DB, urls(1)), retention: { raw_responses: '30d' } };
    await withPipelineRun(
      env,
      {
        spec,
        mocks: {
          ...defaultMocks('url-list'),
          loadUrlChunk: async () => ok(1),
          applyPipelineRetention: async () => {
            throw ApplicationFailure.nonRetryable('database is locked', 'RetentionFailed');
          },
        },
      },
      async (handle, run) => {
        expect(await outcome(handle)).toMatchObject({ result: { status: 'succeeded' } });
        expect(run.names().at(-1)).toBe('applyPipelineRetention');
        expect(run.inputsOf('applyPipelineRetention')[0]!.spec.retention).toEqual({ raw_responses: '30d' });
      },
    );
  });
});

describe('refusals and cancellation', () => {
  it('a workflow id that is not the pipeline’s run fails at once (BadWorkflowId) without calling anything', async () => {
    const spec = marketplaceSpec('wf-id', DB, urls(1));
    await withPipelineRun(
      env,
      { spec, mocks: defaultMocks('url-list'), workflowId: 'someone-else--test' },
      async (handle, run) => {
        expect(await outcome(handle)).toMatchObject({ failure: { type: WORKFLOW_FAILURE_TYPES.badWorkflowId } });
        expect(run.calls).toEqual([]);
      },
    );
  });

  it('a plan that refuses the input (unsigned, unknown kind) fails the run with its type before anything is written', async () => {
    const spec = marketplaceSpec('wf-unsigned', DB, urls(1));
    const planPipelineRun = async () => {
      throw ApplicationFailure.nonRetryable(
        "refused: this workflow's input was not started by a holder of this worker's secret key",
        WORKFLOW_FAILURE_TYPES.unsignedInput,
      );
    };
    await withPipelineRun(
      env,
      { spec, mocks: { ...defaultMocks('url-list'), planPipelineRun } },
      async (handle, run) => {
        expect(await outcome(handle)).toMatchObject({
          failure: { type: WORKFLOW_FAILURE_TYPES.unsignedInput, message: expect.stringContaining('refused') },
        });
        expect(run.names()).not.toContain('beginPipelineRun');
        expect(run.names()).not.toContain('loadUrlChunk');
      },
    );
  });

  it('a run whose forecast the plan refuses by its budget calls nothing and ends partial with the reason budget and its alerts', async () => {
    const webhook = { url: 'https://hooks.example/x', format: 'json' as const, on: ['partial' as const] };
    const spec: PipelineSpec = {
      ...marketplaceSpec('wf-budget', DB, urls(3)),
      budget: { calls: { day: 2 } },
      exports: [csvExport('/nowhere/exports')],
      notify: { webhooks: [webhook] },
    };
    const detail =
      'pipeline wf-budget was not started: its forecast of 3 service calls exceeds budget.calls.day of pipeline wf-budget, 2; raise budget.calls.day, give the run fewer URLs, or wait for the next day';
    const mocks = defaultMocks('url-list');
    const planPipelineRun: typeof mocks.planPipelineRun = async (input) => ({
      ...(await mocks.planPipelineRun!(input)),
      budgetRefusal: { limit: 'budget.calls.day', detail, beforeStart: true },
    });
    await withPipelineRun(env, { spec, mocks: { ...mocks, planPipelineRun } }, async (handle, run) => {
      const out = await outcome(handle);
      if (!('result' in out)) throw new Error(`expected a result, got ${JSON.stringify(out)}`);
      expect(out.result).toMatchObject({
        status: 'partial',
        reason: 'budget',
        budget: { limit: 'budget.calls.day', detail },
        exportedFiles: 0,
      });
      // The plan was asked with the run's budget and URL count; nothing but the bookkeeping and alerts ran.
      expect(run.inputsOf('planPipelineRun')[0]).toMatchObject({
        begin: begin('wf-budget', 'marketplace'),
        budget: { budget: { calls: { day: 2 } }, urlCount: 3 },
      });
      expect(run.names()).toEqual(['planPipelineRun', 'finishPipelineRun', 'notifyPipelineRun']);
      expect(run.inputsOf('finishPipelineRun')[0]).toMatchObject({
        status: 'partial',
        statusReason: 'budget',
        error: detail,
      });
      expect(run.inputsOf('notifyPipelineRun')[0]).toMatchObject({
        status: 'partial',
        error: detail,
        events: [{ event: 'partial' }],
      });
    });
  });

  it('a pipeline without a budget asks the plan for no forecast', async () => {
    const spec = marketplaceSpec('wf-no-budget', DB, urls(1));
    await withPipelineRun(
      env,
      { spec, mocks: { ...defaultMocks('url-list'), loadUrlChunk: async () => ok(1) } },
      async (handle, run) => {
        expect(await outcome(handle)).toMatchObject({ result: { status: 'succeeded' } });
        expect(run.inputsOf('planPipelineRun')[0]).not.toHaveProperty('budget');
      },
    );
  });

  // A cancel (the Web UI's, `temporal workflow cancel`, or a schedule's overlap policy cancel_other) cancels the
  // workflow's scope; since CANCEL_PATCH the run's row is still finished, as 'cancelled', and the workflow ends
  // CANCELLED (before, the row stayed 'running' and the workflow failed with an empty message).
  it('a cancelled run stops its load, finishes its row as cancelled, sends no alert and ends CANCELLED', async () => {
    const webhook = {
      url: '${WF_TEST_WEBHOOK}',
      format: 'json' as const,
      on: ['succeeded' as const, 'failed' as const],
    };
    const spec: PipelineSpec = {
      ...marketplaceSpec('wf-cancel', DB, urls(4)),
      exports: [csvExport('/out/c')],
      notify: { webhooks: [webhook] },
    };
    let release!: () => void;
    const started = new Promise<void>((resolve) => (release = resolve));
    const loadUrlChunk = async () => {
      release();
      // A loading activity heartbeats, which is how it hears of the cancellation.
      const ctx = Context.current();
      for (;;) {
        ctx.heartbeat();
        await Promise.race([ctx.sleep(200), ctx.cancelled]);
      }
    };
    await withPipelineRun(env, { spec, mocks: { ...defaultMocks('url-list'), loadUrlChunk } }, async (handle, run) => {
      await started;
      await handle.cancel();
      await expect(handle.result()).rejects.toThrow(/cancel/i);
      const description = await handle.describe();
      expect(description.status.name).toBe('CANCELLED');
      expect(run.inputsOf('loadUrlChunk')).toHaveLength(1);
      expect(run.names()).not.toContain('runExports');
      // The row is finished once, as cancelled, saying while what; nothing is sent to the webhook for it.
      expect(run.inputsOf('finishPipelineRun')).toEqual([
        {
          workflowId: 'wf-cancel--test',
          pipeline: 'wf-cancel',
          kind: 'marketplace',
          database: DB,
          status: 'cancelled',
          error: expect.stringMatching(/^the run was cancelled while loading /),
        },
      ]);
      expect(run.names()).not.toContain('notifyPipelineRun');
      expect(run.names()).not.toContain('recordAlertFailure');
      expect(await handle.query<PipelineProgress>('progress')).toMatchObject({
        phase: 'cancelled',
        error: 'cancelled while loading',
      });
    });
  });

  it('a run cancelled while its plan runs ends CANCELLED, not as a failed plan, and its row is finished as cancelled', async () => {
    const spec = marketplaceSpec('wf-cancel-plan', DB, urls(2));
    let release!: () => void;
    const planning = new Promise<void>((resolve) => (release = resolve));
    // A plan that takes its time (a slow destination probe); the cancel reaches the local activity through its context.
    const planPipelineRun = async () => {
      release();
      const ctx = Context.current();
      await Promise.race([ctx.sleep(60_000), ctx.cancelled]);
      throw new Error('the plan was expected to be cancelled');
    };
    await withPipelineRun(
      env,
      { spec, mocks: { ...defaultMocks('url-list'), planPipelineRun } },
      async (handle, run) => {
        await planning;
        await handle.cancel();
        await expect(handle.result()).rejects.toThrow(/cancel/i);
        expect((await handle.describe()).status.name).toBe('CANCELLED');
        expect(run.names()).not.toContain('loadUrlChunk');
        expect(run.inputsOf('finishPipelineRun')).toEqual([
          {
            workflowId: 'wf-cancel-plan--test',
            pipeline: 'wf-cancel-plan',
            kind: 'marketplace',
            database: DB,
            status: 'cancelled',
            error: expect.stringMatching(/^the run was cancelled before it started/),
          },
        ]);
      },
    );
  });

  it('a run cancelled during an outage wait (a workflow timer) finishes its row as cancelled too', async () => {
    const spec = {
      ...marketplaceSpec('wf-cancel-wait', DB, urls(2)),
      polling: { initial_interval: '10m', backoff_coefficient: 2, max_interval: '10m', deadline: '2h' },
    };
    let release!: () => void;
    const failedOnce = new Promise<void>((resolve) => (release = resolve));
    const loadUrlChunk = async () => {
      release();
      throw ApplicationFailure.nonRetryable(
        'service unreachable for 2 URL(s) of this chunk; first: ECONNREFUSED',
        'ServiceUnavailable',
      );
    };
    await withPipelineRun(env, { spec, mocks: { ...defaultMocks('url-list'), loadUrlChunk } }, async (handle, run) => {
      await failedOnce;
      // The workflow is waiting out the outage once the progress says so.
      for (let i = 0; i < 200 && !(await handle.query<PipelineProgress>('progress')).waiting; i++)
        await new Promise((r) => setTimeout(r, 50));
      await handle.cancel();
      await expect(handle.result()).rejects.toThrow(/cancel/i);
      expect((await handle.describe()).status.name).toBe('CANCELLED');
      expect(run.inputsOf('finishPipelineRun')).toEqual([expect.objectContaining({ status: 'cancelled' })]);
    });
  });
});
