// The one pipeline workflow. It holds ids, counts, cursors and status only; every byte of result data moves
// inside activities (activities/), which land it raw and load it in one transaction per batch.
//
//   async kinds (pdf, leads-*)  create-and-run -> per scraping run: wait until 'succeeded' -> load its results
//   url kinds (job-board, marketplace)  URL list in chunks -> each chunk one activity, p-limit inside
//   results  page /api/results newest first down to the last sync's watermark, continue-as-new every N pages
//   then exports, and the pipeline_runs row is finished with counts read from the database.
//
// Waiting uses Temporal's "retry an activity" polling pattern: the check activity looks once and throws a
// retryable failure while the run is still running, so the server schedules the retries (with the pipeline's
// initial interval, backoff and maximum interval) and history gains no events per poll, however long the run.
import {
  ActivityFailure,
  ApplicationFailure,
  ContinueAsNew,
  TimeoutFailure,
  continueAsNew,
  defineQuery,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { FailedUrl, RowCounts, RunTarget, WorkerTuning } from '../activities/types.js';
import type { PipelineSpec } from '../pipelines/spec.js';
import { pipelineWorkflowId } from '../temporal/workflow-id.js';

export interface ResultsCursor {
  nextPage: number;
  watermark: string | null;
  highestId: string | null;
}

/** Carried across continue-as-new (the results kind pages for as long as the list is). */
export interface PipelineResumeState {
  tuning: WorkerTuning;
  cursor: ResultsCursor;
  pagesLoaded: number;
  resultsLoaded: number;
  rowsLoaded: RowCounts;
  continuedAsNew: number;
}

export interface PipelineWorkflowInput {
  spec: PipelineSpec;
  runKey: string;
  resume?: PipelineResumeState;
}

export type PipelinePhase = 'starting' | 'creating' | 'waiting' | 'loading' | 'exporting' | 'finishing' | 'succeeded' | 'partial' | 'failed';

export interface PipelineProgress {
  workflowId: string;
  pipeline: string;
  kind: PipelineSpec['kind'];
  phase: PipelinePhase;
  runs: { total: number; waiting: number; loading: number; done: number; ids: string[] };
  urls: { total: number; done: number; failed: number };
  pagesLoaded: number;
  resultsLoaded: number;
  /** Rows loaded per table as reported by the activities (a retried batch may be counted twice here). */
  rowsLoaded: RowCounts;
  /** First failures (at most 100 listed; `urls.failed` has the count). */
  failedUrls: FailedUrl[];
  continuedAsNew: number;
  error: string | null;
}

export interface PipelineWorkflowResult {
  workflowId: string;
  pipeline: string;
  kind: PipelineSpec['kind'];
  status: 'succeeded' | 'partial';
  scrapingRunIds: string[];
  /** Rows written by this run per table, counted in the destination database at the end. */
  rowsByTable: RowCounts;
  failedUrls: FailedUrl[];
  failedUrlCount: number;
  pagesLoaded: number;
  resultsLoaded: number;
  exportedFiles: number;
}

export const progressQuery = defineQuery<PipelineProgress>('progress');

const MAX_LISTED_FAILURES = 100;

function addRows(into: RowCounts, rows: RowCounts): void {
  for (const [table, n] of Object.entries(rows)) into[table] = (into[table] ?? 0) + n;
}

function shortText(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A few tasks at a time; deterministic because workflow code runs single-threaded. */
async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  });
  await Promise.all(lanes);
}

function chunked<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function causeMessage(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause) return causeMessage(err.cause);
  return err instanceof Error ? err.message : String(err);
}

export async function pipelineWorkflow(input: PipelineWorkflowInput): Promise<PipelineWorkflowResult> {
  const { spec, runKey } = input;
  const workflowId = workflowInfo().workflowId;
  const expectedId = pipelineWorkflowId(spec.name, runKey);
  // A Schedule starts every action with the same arguments (run key 'scheduled') and appends the scheduled time to
  // the workflow id, so a scheduled run's id is '<name>--scheduled-<RFC 3339 time>' and still unique per run.
  const isScheduledRun = runKey === 'scheduled' && workflowId.startsWith(`${expectedId}-`);
  if (workflowId !== expectedId && !isScheduledRun) {
    throw ApplicationFailure.nonRetryable(`workflow id '${workflowId}' does not match pipeline '${spec.name}' and run key '${runKey}' (expected '${expectedId}')`, 'BadWorkflowId');
  }
  const ref = { workflowId, pipeline: spec.name, kind: spec.kind, database: spec.destination.database };

  const progress: PipelineProgress = {
    workflowId,
    pipeline: spec.name,
    kind: spec.kind,
    phase: 'starting',
    runs: { total: 0, waiting: 0, loading: 0, done: 0, ids: [] },
    urls: { total: 0, done: 0, failed: 0 },
    pagesLoaded: input.resume?.pagesLoaded ?? 0,
    resultsLoaded: input.resume?.resultsLoaded ?? 0,
    rowsLoaded: { ...(input.resume?.rowsLoaded ?? {}) },
    failedUrls: [],
    continuedAsNew: input.resume?.continuedAsNew ?? 0,
    error: null,
  };
  setHandler(progressQuery, () => progress);

  const tuning =
    input.resume?.tuning ?? (await proxyLocalActivities<Activities>({ startToCloseTimeout: '10s' }).workerTuning());

  const control = proxyActivities<Activities>({
    startToCloseTimeout: '1m',
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10 },
  });
  const loading = proxyActivities<Activities>({
    startToCloseTimeout: tuning.activityTimeout,
    heartbeatTimeout: tuning.heartbeatTimeout,
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10 },
  });

  if (!input.resume) await control.beginPipelineRun(ref);

  const failedUrls: FailedUrl[] = [];
  let scrapingRunIds: string[] = [];
  try {
    switch (spec.kind) {
      case 'pdf':
      case 'leads-search-engine':
      case 'leads-social':
        scrapingRunIds = await runAsyncKind(spec, workflowId, tuning, progress, loading);
        break;
      case 'job-board':
      case 'marketplace':
        await runUrlKind(spec, workflowId, tuning, progress, loading, failedUrls);
        break;
      case 'results':
        await runResultsKind(input, spec, workflowId, tuning, progress, loading);
        break;
    }

    const urlCount = progress.urls.total;
    if (urlCount > 0 && failedUrls.length === urlCount) {
      throw ApplicationFailure.nonRetryable(
        `all ${urlCount} URLs of pipeline '${spec.name}' failed; first: ${failedUrls[0]?.url}: ${failedUrls[0]?.error}`,
        'AllUrlsFailed',
      );
    }

    let exportedFiles = 0;
    if (spec.exports.length > 0) {
      progress.phase = 'exporting';
      const exported = await loading.runExports({ workflowId, spec: withoutUrls(spec) });
      exportedFiles = exported.files.length;
    }

    progress.phase = 'finishing';
    const status = failedUrls.length > 0 ? 'partial' : 'succeeded';
    const error =
      failedUrls.length > 0
        ? shortText(`${failedUrls.length} of ${urlCount} URLs failed: ${failedUrls.map((f) => `${f.url}: ${f.error}`).join(' | ')}`, 4000)
        : null;
    const finished = await control.finishPipelineRun({ ...ref, status, error });
    progress.phase = status;
    return {
      workflowId,
      pipeline: spec.name,
      kind: spec.kind,
      status,
      scrapingRunIds,
      rowsByTable: finished.rowsByTable,
      failedUrls: failedUrls.slice(0, MAX_LISTED_FAILURES),
      failedUrlCount: failedUrls.length,
      pagesLoaded: progress.pagesLoaded,
      resultsLoaded: progress.resultsLoaded,
      exportedFiles,
    };
  } catch (err) {
    // continue-as-new is delivered as a thrown value; it is not a failure.
    if (err instanceof ContinueAsNew) throw err;
    const message = causeMessage(err);
    progress.phase = 'failed';
    progress.error = message;
    await control.finishPipelineRun({ ...ref, status: 'failed', error: shortText(message, 4000) });
    if (err instanceof ApplicationFailure) throw err;
    throw ApplicationFailure.nonRetryable(`pipeline '${spec.name}' failed: ${message}`, 'PipelineFailed');
  }
}

/** Activities get the spec without its URL list: the chunk they work on travels separately, keeping history small. */
function withoutUrls(spec: PipelineSpec): PipelineSpec {
  if (spec.kind === 'job-board') return { ...spec, request: { ...spec.request, urls: [] } };
  if (spec.kind === 'marketplace') return { ...spec, request: { ...spec.request, urls: [] } };
  return spec;
}

type LoadingActivities = ReturnType<typeof proxyActivities<Activities>>;

async function runAsyncKind(
  spec: PipelineSpec,
  workflowId: string,
  tuning: WorkerTuning,
  progress: PipelineProgress,
  loading: LoadingActivities,
): Promise<string[]> {
  progress.phase = 'creating';
  const creating = proxyActivities<Activities>({
    startToCloseTimeout: '2m',
    retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 8 },
  });
  const created = await creating.createAndRun({ workflowId, spec });
  addRows(progress.rowsLoaded, created.rows);
  const runs = created.runs;
  progress.runs.total = runs.length;
  progress.runs.waiting = runs.length;
  progress.runs.ids = runs.map((r) => r.scrapingRunId);
  progress.phase = 'waiting';

  const polling = proxyActivities<Activities>({
    scheduleToCloseTimeout: spec.polling.deadline,
    startToCloseTimeout: '1m',
    heartbeatTimeout: tuning.heartbeatTimeout,
    retry: {
      initialInterval: spec.polling.initial_interval,
      backoffCoefficient: spec.polling.backoff_coefficient,
      maximumInterval: spec.polling.max_interval,
      nonRetryableErrorTypes: ['RunFailed', 'RunNotFound'],
    },
  });

  await forEachLimited(runs, Math.max(1, spec.concurrency), async (run) => {
    await waitForRun(polling, spec, run);
    progress.runs.waiting -= 1;
    progress.runs.loading += 1;
    progress.phase = 'loading';
    const out = await loading.loadRunResults({ workflowId, spec, run });
    progress.runs.loading -= 1;
    progress.runs.done += 1;
    progress.resultsLoaded += out.results;
    addRows(progress.rowsLoaded, out.rows);
  });
  return runs.map((r) => r.scrapingRunId);
}

async function waitForRun(polling: LoadingActivities, spec: PipelineSpec, run: RunTarget): Promise<void> {
  try {
    await polling.checkRunStatus({ run, pipeline: spec.name });
  } catch (err) {
    if (err instanceof ActivityFailure) {
      if (err.cause instanceof ApplicationFailure && (err.cause.type === 'RunFailed' || err.cause.type === 'RunNotFound')) {
        throw ApplicationFailure.nonRetryable(err.cause.message, err.cause.type);
      }
      if (err.cause instanceof TimeoutFailure) {
        throw ApplicationFailure.nonRetryable(
          `scraping run ${run.scrapingRunId} of scraper '${run.scraperName}' (${run.label}) was still not 'succeeded' when the polling deadline of ${spec.polling.deadline} passed (pipeline '${spec.name}'); raise polling.deadline or check the run in the service console`,
          'RunDeadlineExceeded',
        );
      }
    }
    throw err;
  }
}

async function runUrlKind(
  spec: PipelineSpec & { kind: 'job-board' | 'marketplace' },
  workflowId: string,
  tuning: WorkerTuning,
  progress: PipelineProgress,
  loading: LoadingActivities,
  failedUrls: FailedUrl[],
): Promise<void> {
  const urls = spec.request.urls;
  progress.urls.total = urls.length;
  progress.phase = 'loading';
  const bare = withoutUrls(spec);
  let offset = 0;
  for (const chunk of chunked(urls, Math.max(1, tuning.urlChunkSize))) {
    const out = await loading.loadUrlChunk({ workflowId, spec: bare, offset, urls: chunk });
    offset += chunk.length;
    progress.urls.done += chunk.length;
    progress.urls.failed += out.failed.length;
    addRows(progress.rowsLoaded, out.rows);
    for (const f of out.failed) {
      const short = { url: f.url, error: shortText(f.error) };
      failedUrls.push(short);
      if (progress.failedUrls.length < MAX_LISTED_FAILURES) progress.failedUrls.push(short);
    }
  }
}

async function runResultsKind(
  input: PipelineWorkflowInput,
  spec: PipelineSpec & { kind: 'results' },
  workflowId: string,
  tuning: WorkerTuning,
  progress: PipelineProgress,
  loading: LoadingActivities,
): Promise<void> {
  progress.phase = 'loading';
  let cursor: ResultsCursor;
  if (input.resume) {
    cursor = input.resume.cursor;
  } else {
    const control = proxyActivities<Activities>({ startToCloseTimeout: '1m', retry: { maximumAttempts: 10 } });
    const watermark = await control.readResultsWatermark({ database: spec.destination.database, pipeline: spec.name });
    cursor = { nextPage: 1, watermark, highestId: null };
  }
  const maxPages = spec.request.max_pages;
  let activities = 0;
  let reachedEnd = false;
  for (;;) {
    const pagesLeft = maxPages === undefined ? Infinity : maxPages - progress.pagesLoaded;
    if (pagesLeft <= 0) break;
    const out = await loading.loadResultsPages({
      workflowId,
      spec,
      startPage: cursor.nextPage,
      watermark: cursor.watermark,
      maxPages: Math.min(tuning.pagesPerActivity, pagesLeft),
    });
    activities += 1;
    progress.pagesLoaded += out.pagesLoaded;
    progress.resultsLoaded += out.resultsLoaded;
    addRows(progress.rowsLoaded, out.rows);
    cursor = { ...cursor, nextPage: out.nextPage, highestId: maxId(cursor.highestId, out.highestId) };
    if (out.done) {
      reachedEnd = true;
      break;
    }
    if (activities >= tuning.activitiesPerRun) {
      await continueAsNew<typeof pipelineWorkflow>({
        spec,
        runKey: input.runKey,
        resume: {
          tuning,
          cursor,
          pagesLoaded: progress.pagesLoaded,
          resultsLoaded: progress.resultsLoaded,
          rowsLoaded: progress.rowsLoaded,
          continuedAsNew: progress.continuedAsNew + 1,
        },
      });
    }
  }
  // The watermark moves only after a complete pass, so an interrupted sync never leaves a gap below it.
  // A pass cut short by max_pages is not complete: the next sync starts over from the newest page.
  if (reachedEnd && cursor.highestId !== null) {
    const control = proxyActivities<Activities>({ startToCloseTimeout: '1m', retry: { maximumAttempts: 10 } });
    await control.commitResultsWatermark({ database: spec.destination.database, pipeline: spec.name, watermark: cursor.highestId });
  }
}

function maxId(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return BigInt(a) >= BigInt(b) ? a : b;
}
