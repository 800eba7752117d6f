// After the load of a run: its data checks (before the exports, which an `error` failure may skip) and, once the
// run's row is finished, its watches' events. Both behind patched() markers, and only for pipelines that have
// checks or watches, so histories of runs without them replay unchanged.
import { log, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { RunCheckSummary } from '../temporal/contract.js';
import type { PipelineSpec } from '../pipelines/spec.js';
import { causeMessage, withoutUrls } from './shared.js';

/** Keep the ids when changing this code (see ALERTS_PATCH in alerts.ts). */
export const CHECKS_PATCH = 'scrape-etl-checks-1';
export const WATCH_PATCH = 'scrape-etl-watch-1';

const checker = proxyActivities<Activities>({
  startToCloseTimeout: '10m',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 5 },
});

// As alerts: retried for ~15 min, and a heartbeat timeout so a worker killed mid-delivery is noticed in seconds.
const watcher = proxyActivities<Activities>({
  startToCloseTimeout: '5m',
  heartbeatTimeout: '20s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 20 },
});

export interface RunChecksOutcome {
  results: RunCheckSummary[];
  errorsFailed: number;
  warnsFailed: number;
  detail: string | null;
}

/** The run's checks, or undefined when it has none (or runs on a history from before checks). */
export async function runChecks(
  spec: PipelineSpec,
  workflowId: string,
  rowsLoaded: Record<string, number>,
  lean = false,
): Promise<RunChecksOutcome | undefined> {
  // A lean run (LEAN_PATCH) began after this step existed: no marker needed to know it.
  if ((spec.checks ?? []).length === 0 || !(lean || patched(CHECKS_PATCH))) return undefined;
  // A check that cannot be evaluated is a result of its own (status error); this fails only when the destination
  // cannot be read at all after the retries, and then the run fails: its checks were not run.
  return checker.evaluateRunChecks({ workflowId, spec: withoutUrls(spec), rowsLoaded });
}

/** The run's watch events, delivered; undefined when it has none. Delivery problems are logged, never the run's failure. */
export async function deliverWatches(
  spec: PipelineSpec,
  workflowId: string,
  lean = false,
): Promise<Array<{ watch: string; event: string; rows: number }> | undefined> {
  if ((spec.watch ?? []).length === 0 || !(lean || patched(WATCH_PATCH))) return undefined;
  try {
    const out = await watcher.deliverRunWatches({
      workflowId,
      runId: workflowInfo().firstExecutionRunId,
      spec: withoutUrls(spec),
    });
    return out.events;
  } catch (err) {
    log.warn('watch events of the run were not delivered', { error: causeMessage(err) });
    return undefined;
  }
}
