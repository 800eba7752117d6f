// Mode 'url-list' (job-board, marketplace): the URL list in slices, each slice one activity that fans out with
// p-limit inside; a URL that fails for good is collected (the run ends 'partial') without losing the others.
// The list itself is read by reference (input.urlList, stored by the starter in the destination database), so a
// list of any length fits Temporal's payload limits; long lists continue-as-new so history stays bounded.
import {
  ActivityFailure,
  ApplicationFailure,
  continueAsNew,
  patched,
  proxyLocalActivities,
  sleep,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { parseDurationMs } from '../pipelines/duration.js';
import type { PipelineWorkflowInput, WorkerTuning } from '../temporal/contract.js';
import type { ModeContext, ModeRunner } from './shared.js';
import { MAX_LISTED_FAILURES, addRows, causeMessage, shortText, urlsOf, withoutUrls } from './shared.js';

/**
 * A service outage is waited out for the pipeline's polling.deadline (with its backoff) instead of failing every URL
 * after the activity's ~15 s of retries. Runs started before it replay without the wait. Keep the id.
 */
export const URL_OUTAGE_PATCH = 'scrape-etl-url-outage-1';
/** activities/url-lists.ts SERVICE_UNAVAILABLE (the workflow bundle imports no activity code). */
const SERVICE_UNAVAILABLE = 'ServiceUnavailable';

function isServiceUnavailable(err: unknown): boolean {
  // A regular activity's failure is an ActivityFailure caused by the activity's own; a local activity's (a short
  // list, LEAN_PATCH) reaches the workflow as the activity's ApplicationFailure itself.
  if (err instanceof ActivityFailure)
    return err.cause instanceof ApplicationFailure && err.cause.type === SERVICE_UNAVAILABLE;
  return err instanceof ApplicationFailure && err.type === SERVICE_UNAVAILABLE;
}

type ChunkCall = Parameters<ModeContext['loading']['loadUrlChunk']>[0];

/**
 * A list this short is loaded by a local activity (LEAN_PATCH): the whole run then fits in one workflow task, 3
 * billable actions and 11 history events instead of a regular activity's action, 3 events and a workflow task of 3
 * more. Longer lists keep regular activities: they heartbeat, and a local activity running past the workflow task
 * timeout costs a workflow task heartbeat (an action) every few seconds.
 */
export const LOCAL_URL_LIST_MAX = 3;
/** Chunks a long list is cut into at most (LEAN_PATCH), each no longer than MAX_CHUNK_URLS; never shorter than the worker's urlChunkSize. */
export const TARGET_CHUNKS = 8;
export const MAX_CHUNK_URLS = 250;

/**
 * URLs per chunk activity. Before LEAN_PATCH the worker's urlChunkSize (25): a 1,000-URL list was 40 activities,
 * each an action and 6 history events with its workflow task. Since, it grows with the list so a run has about
 * TARGET_CHUNKS of them (unless the operator set the size); a chunk resumes from its heartbeat after a crash, so a
 * longer one loses nothing more.
 */
export function chunkSizeFor(
  total: number,
  tuning: Pick<WorkerTuning, 'urlChunkSize' | 'urlChunkFixed'>,
  lean: boolean,
): number {
  const floor = Math.max(1, tuning.urlChunkSize);
  if (!lean || tuning.urlChunkFixed) return floor;
  return Math.max(floor, Math.min(MAX_CHUNK_URLS, Math.ceil(total / TARGET_CHUNKS)));
}

/**
 * One chunk, and while the service is down (every URL of an attempt failed for want of it) the same chunk again
 * after the polling backoff, until polling.deadline from the outage's start; the progress query says why it waits.
 */
async function loadChunkThroughOutages(ctx: ModeContext, call: ChunkCall, loader: ModeContext['loading']) {
  if (!ctx.lean && !patched(URL_OUTAGE_PATCH)) return loader.loadUrlChunk(call);
  const { polling } = ctx.spec;
  const deadlineMs = parseDurationMs(polling.deadline);
  let pause = parseDurationMs(polling.initial_interval);
  let since: number | undefined;
  let attempt = 1;
  for (;;) {
    try {
      const out = await loader.loadUrlChunk({
        ...call,
        outageRetry: true,
        ...(since !== undefined ? { afterOutage: true } : {}),
      });
      delete ctx.progress.waiting;
      return out;
    } catch (err) {
      if (!isServiceUnavailable(err)) throw err;
      since ??= Date.now();
      const reason = causeMessage(err);
      if (Date.now() - since + pause > deadlineMs) {
        delete ctx.progress.waiting;
        throw ApplicationFailure.nonRetryable(
          `the scraping service stayed unreachable for polling.deadline (${polling.deadline}): ${reason}`,
          SERVICE_UNAVAILABLE,
        );
      }
      attempt++;
      ctx.progress.waiting = {
        reason: shortText(reason, 300),
        attempt,
        nextAttemptAt: new Date(Date.now() + pause).toISOString(),
      };
      await sleep(pause);
      pause = Math.min(Math.round(pause * polling.backoff_coefficient), parseDurationMs(polling.max_interval));
    }
  }
}

export const runUrlList: ModeRunner = async (ctx) => {
  const { input, spec, workflowId, tuning, progress, failures, alerts } = ctx;
  const inline = input.urlList ? [] : urlsOf(spec);
  const total = input.urlList ? input.urlList.count : inline.length;
  const size = chunkSizeFor(total, tuning, ctx.lean);
  // The retry policy of the loading activities, without the heartbeat timeout local activities do not have.
  const loader =
    ctx.lean && total <= LOCAL_URL_LIST_MAX
      ? proxyLocalActivities<Activities>({
          startToCloseTimeout: '2m',
          retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10 },
        })
      : ctx.loading;
  let offset = input.resume?.urlOffset ?? 0;
  failures.count = input.resume?.failedUrlCount ?? 0;
  failures.listed.push(...(input.resume?.failedUrls ?? []));
  progress.urls = { total, done: offset, failed: failures.count };
  progress.failedUrls = failures.listed.slice(0, MAX_LISTED_FAILURES);
  progress.phase = 'loading';
  const bare = withoutUrls(spec);
  let activities = 0;
  while (offset < total) {
    if (activities >= tuning.activitiesPerRun) {
      const next: PipelineWorkflowInput = {
        spec,
        runKey: input.runKey,
        ...(input.urlList ? { urlList: input.urlList } : {}),
        ...(input.seal ? { seal: input.seal } : {}),
        resume: {
          tuning,
          urlOffset: offset,
          failedUrlCount: failures.count,
          failedUrls: failures.listed,
          pagesLoaded: progress.pagesLoaded,
          resultsLoaded: progress.resultsLoaded,
          rowsLoaded: progress.rowsLoaded,
          continuedAsNew: progress.continuedAsNew + 1,
          alerts,
        },
      };
      await continueAsNew(next);
    }
    const count = Math.min(size, total - offset);
    const out = await loadChunkThroughOutages(
      ctx,
      {
        workflowId,
        spec: bare,
        offset,
        ...(input.urlList
          ? { urls: [], list: { listId: input.urlList.listId, count } }
          : { urls: inline.slice(offset, offset + count) }),
      },
      loader,
    );
    activities += 1;
    if (out.budget) {
      // A limit was reached: no further chunk is started; the URLs it did not call are neither done nor failed.
      ctx.budgetStop = out.budget;
      progress.urls.done = offset + count - (out.budget.notCalled ?? 0);
      progress.urls.failed += out.failed.length;
      failures.count += out.failed.length;
      addRows(progress.rowsLoaded, out.rows);
      for (const f of out.failed.slice(0, Math.max(0, MAX_LISTED_FAILURES - failures.listed.length)))
        failures.listed.push({ url: f.url, error: shortText(f.error) });
      break;
    }
    offset += count;
    progress.urls.done = offset;
    progress.urls.failed += out.failed.length;
    failures.count += out.failed.length;
    addRows(progress.rowsLoaded, out.rows);
    for (const f of out.failed) {
      if (failures.listed.length >= MAX_LISTED_FAILURES) break;
      const short = { url: f.url, error: shortText(f.error) };
      failures.listed.push(short);
      progress.failedUrls.push(short);
    }
  }
  return { scrapingRunIds: [] };
};
