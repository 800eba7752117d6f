// Mode 'create-and-wait' (pdf, leads-*): create-and-run once, then per scraping run wait until 'succeeded' and
// load its results. Waiting uses Temporal's "retry an activity" polling pattern: the check activity looks once
// and throws a retryable failure while the run is still running, so the server schedules the retries (with the
// pipeline's initial interval, backoff and maximum interval) and history gains no events per poll.
import { ActivityFailure, ApplicationFailure, TimeoutFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { RunCheckHeartbeat, RunTarget } from '../activities/types.js';
import type { PipelineSpec } from '../pipelines/spec.js';
import { WORKFLOW_FAILURE_TYPES } from '../temporal/contract.js';
import { parseDurationMs } from '../pipelines/duration.js';
import { addRows, forEachLimited, type ActivityProxies, type ModeRunner } from './shared.js';

/** The heartbeat timeout of waitForScrapingRun when the worker's tuning names none (see runCreateAndWait). */
export const WAIT_HEARTBEAT_TIMEOUT_MS = 5 * 60_000;

/** What a run-status check ends with for good: the run failed, does not exist, or its answers are garbage. */
const FINAL_CHECK_FAILURES = ['RunFailed', 'RunNotFound', 'MalformedRunStatus'];

export const runCreateAndWait: ModeRunner = async (ctx) => {
  const { spec, workflowId, tuning, progress, loading } = ctx;
  progress.phase = 'creating';
  // The create beats on a clock (activities/keep-alive.ts), so a worker killed inside it is retried within the
  // heartbeat timeout; start-to-close still bounds an attempt that looks for an ambiguous create's scraper.
  const creating = proxyActivities<Activities>({
    startToCloseTimeout: '2m',
    heartbeatTimeout: tuning.heartbeatTimeout,
    retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 8 },
  });
  const created = await creating.createAndRun({ workflowId, spec });
  if (created.budget) {
    // A limit refused the create: nothing was created, nothing is waited for.
    ctx.budgetStop = created.budget;
    return { scrapingRunIds: [] };
  }
  addRows(progress.rowsLoaded, created.rows);
  let runs = created.runs;
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
      nonRetryableErrorTypes: FINAL_CHECK_FAILURES,
    },
  });

  if (created.adopted) {
    // The create's answer was lost but its scraper was found by name: its runs are found once they are listed.
    progress.runs.total = created.adopted.expectedRuns;
    progress.runs.waiting = created.adopted.expectedRuns;
    runs = await polling.findAdoptedRuns({ pipeline: spec.name, scraper: created.adopted });
    progress.runs.ids = runs.map((r) => r.scrapingRunId);
  }

  // Since LEAN_PATCH one activity per scraping run polls it with the pipeline's backoff, heartbeating (Temporal
  // Cloud bills each attempt of the retried check above, and its heartbeat: ~120 actions for a 10-minute run looked
  // at every 10 s). Its heartbeat timeout is at least two of its longest pauses, so a pause never looks like a dead
  // worker, and otherwise the worker's waitHeartbeatTimeout (SCRAPE_ETL_WAIT_HEARTBEAT_TIMEOUT, 5m): the SDK's
  // throttle (80% of it, capped by the worker's maxHeartbeatThrottleInterval, temporal/worker.ts) then lets one
  // heartbeat in 4 minutes reach the server. A worker that dies while waiting is noticed within that timeout; the
  // next attempt polls on to the same deadline.
  const maxIntervalMs = parseDurationMs(spec.polling.max_interval);
  const waiting = ctx.lean
    ? proxyActivities<Activities>({
        scheduleToCloseTimeout: spec.polling.deadline,
        heartbeatTimeout: Math.max(
          2 * maxIntervalMs,
          tuning.waitHeartbeatTimeout ? parseDurationMs(tuning.waitHeartbeatTimeout) : WAIT_HEARTBEAT_TIMEOUT_MS,
        ),
        // Retries are for a worker that died (heartbeat timeout) or an error of the worker itself; a policy's
        // maximum interval may not be below its initial one, whatever max_interval the pipeline has (100ms in tests).
        retry: {
          initialInterval: '1s',
          backoffCoefficient: 2,
          maximumInterval: Math.max(1000, maxIntervalMs),
          nonRetryableErrorTypes: [...FINAL_CHECK_FAILURES, 'RunStillRunning'],
        },
      })
    : undefined;

  await forEachLimited(runs, Math.max(1, spec.concurrency), async (run) => {
    await waitForRun(polling, spec, run, waiting);
    progress.runs.waiting -= 1;
    progress.runs.loading += 1;
    progress.phase = 'loading';
    const out = await loading.loadRunResults({ workflowId, spec, run });
    progress.runs.loading -= 1;
    progress.runs.done += 1;
    progress.resultsLoaded += out.results;
    addRows(progress.rowsLoaded, out.rows);
  });
  return { scrapingRunIds: runs.map((r) => r.scrapingRunId) };
};

async function waitForRun(
  polling: ActivityProxies,
  spec: PipelineSpec,
  run: RunTarget,
  waiting: ActivityProxies | undefined,
): Promise<void> {
  try {
    if (waiting) await waiting.waitForScrapingRun({ run, pipeline: spec.name, polling: spec.polling });
    else await polling.checkRunStatus({ run, pipeline: spec.name });
  } catch (err) {
    if (err instanceof ActivityFailure) {
      if (err.cause instanceof ApplicationFailure && err.cause.type && FINAL_CHECK_FAILURES.includes(err.cause.type)) {
        throw ApplicationFailure.nonRetryable(err.cause.message, err.cause.type);
      }
      // Past the deadline Temporal reports a timeout, or, when the next retry would start after the deadline, the
      // last attempt's own failure ('still running', a 5xx, ...): both mean the deadline passed.
      const stillRunning = err.cause instanceof ApplicationFailure && err.cause.type === 'RunStillRunning';
      const timedOut = err.cause instanceof TimeoutFailure;
      if (stillRunning || timedOut || err.retryState === 'TIMEOUT') {
        // The last check's own error (a 5xx, a timeout, ...) says more than "still not succeeded" alone.
        const last = timedOut
          ? (err.cause.lastHeartbeatDetails as RunCheckHeartbeat | undefined)?.lastError
          : stillRunning
            ? waiting
              ? ((err.cause as ApplicationFailure).details?.[0] as string | null | undefined)
              : null
            : err.cause?.message;
        throw ApplicationFailure.nonRetryable(
          `scraping run ${run.scrapingRunId} of scraper '${run.scraperName}' (${run.label}) was still not 'succeeded' when the polling deadline of ${spec.polling.deadline} passed (pipeline '${spec.name}'); raise polling.deadline or check the run in the service console${last ? `; last check: ${last}` : ''}`,
          WORKFLOW_FAILURE_TYPES.runDeadlineExceeded,
        );
      }
    }
    throw err;
  }
}
