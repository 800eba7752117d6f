// After a run: its retention (applyRunRetention) and its alerts.
//
// The run's alerts, sent once when it ends (after its pipeline_runs row is finished, so the message's figures are
// the row's): one notifyPipelineRun activity with the run's events. Its retries are Temporal's, so a worker that
// dies before or during the delivery hands it to another worker; notify_deliveries keeps a retry from sending
// what was already accepted (activities/notify.ts says where that stops). An alert that cannot be delivered never
// changes the run's outcome, and never holds the run: since ALERTS_BOUNDED_PATCH the deliveries, retries included,
// end within notify.deliver_within (default 2m) and what was not delivered is returned (the run's result), recorded
// (pipeline_runs.alert_status/alert_error, for `status` and `history`) and counted (a metric).
import { log, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { AlertOutcome, ExportStatus, NotifyEvent, RowCounts } from '../temporal/contract.js';
import { DEFAULT_DELIVER_WITHIN, type PipelineSpec } from '../pipelines/spec.js';
import { parseDurationMs } from '../pipelines/duration.js';
import { causeMessage, withoutUrls } from './shared.js';
import type { DataOutcome } from '../lib/run-states.js';

/**
 * Runs started before alerts existed replay without the activity: `patched` is false in their histories. Keep
 * the id when changing this code; deprecatePatch it once no such run can be open any more.
 */
export const ALERTS_PATCH = 'scrape-etl-alerts-1';

// Up to 20 attempts, 1 s growing to 1 min between them (~15 min in all): long enough for a receiver's restart
// or a worker's crash, bounded so a dead webhook does not keep a run open for days.
// The heartbeat timeout is what retries a delivery whose worker died mid-request (the activity heartbeats before
// each webhook, whose request times out after 10 s by default).
const notifier = proxyActivities<Activities>({
  startToCloseTimeout: '2m',
  heartbeatTimeout: '20s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 20 },
});

export interface RunEnd {
  spec: PipelineSpec;
  workflowId: string;
  status: DataOutcome;
  error: string | null;
  exportStatus?: ExportStatus;
  exportError?: string | null;
  rowsByTable?: RowCounts;
  seenByTable?: RowCounts;
  /** Events collected during the run (e.g. schema_changed), sent with the status event. */
  collected: NotifyEvent[];
  /** A run of LEAN_PATCH: bounded alerts without asking patched() (no marker events). */
  lean?: boolean;
}

/**
 * Bounded deliveries: runs started before it replay with the 20-attempt policy above (patched is false in their
 * histories). Keep the id; deprecatePatch it once no such run can be open any more.
 */
export const ALERTS_BOUNDED_PATCH = 'scrape-etl-alerts-bounded-1';

/** Records what the notify activity could not (it timed out): the alert outcome in pipeline_runs and the metric. */
const recorder = proxyActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', maximumAttempts: 3 },
});

/** How the run's alerts ended, or undefined for a run that replays without alerts at all. */
export async function sendRunAlerts(end: RunEnd): Promise<AlertOutcome | undefined> {
  if (!end.lean && !patched(ALERTS_PATCH)) return undefined;
  const info = workflowInfo();
  const finishedAt = new Date();
  const { spec } = end;
  const input = {
    workflowId: end.workflowId,
    pipeline: spec.name,
    kind: spec.kind,
    database: spec.destination.database,
    runId: info.firstExecutionRunId,
    ...(spec.notify ? { notify: spec.notify } : {}),
    ...(spec.budget || spec.project_budget
      ? {
          budgets: {
            ...(spec.budget ? { budget: spec.budget } : {}),
            ...(spec.project_budget ? { project_budget: spec.project_budget } : {}),
          },
        }
      : {}),
    // A run that failed its checks is told by its check_failed event (collected), not by a status event.
    events: [...(end.status === 'failed_checks' ? [] : [{ event: end.status }]), ...end.collected],
    status: end.status,
    error: end.error,
    ...(end.exportStatus && end.exportStatus !== 'none'
      ? { exportStatus: end.exportStatus, exportError: end.exportError ?? null }
      : {}),
    ...(end.rowsByTable ? { rowsByTable: end.rowsByTable } : {}),
    ...(end.seenByTable ? { seenByTable: end.seenByTable } : {}),
    startedAt: info.startTime.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: finishedAt.getTime() - info.startTime.getTime(),
  };
  if (end.lean || patched(ALERTS_BOUNDED_PATCH)) {
    const within = spec.notify?.deliver_within ?? DEFAULT_DELIVER_WITHIN;
    const withinMs = parseDurationMs(within);
    // The activity itself stops asking for attempts a few seconds before the bound and returns what it could not
    // deliver; the schedule-to-close timeout is the backstop (a worker that died mid-delivery past the bound).
    const bounded = proxyActivities<Activities>({
      scheduleToCloseTimeout: withinMs,
      heartbeatTimeout: '20s',
      retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' },
    });
    try {
      const out = await bounded.notifyPipelineRun({ ...input, deliverWithinMs: withinMs });
      if ((out.undelivered ?? []).length > 0)
        return { status: 'failed', error: out.error ?? out.undelivered!.join('; ') };
      return { status: out.sent + out.alreadySent > 0 ? 'delivered' : 'none', error: null };
    } catch (err) {
      const error = `alerts not delivered within ${within}: ${causeMessage(err)}`;
      log.warn('alerts of the run were not delivered', { error });
      try {
        await recorder.recordAlertFailure({ workflowId: end.workflowId, database: spec.destination.database, error });
      } catch (recordErr) {
        log.warn('the alert failure was not recorded', { error: causeMessage(recordErr) });
      }
      return { status: 'failed', error };
    }
  }
  try {
    await notifier.notifyPipelineRun(input);
    return { status: 'delivered', error: null };
  } catch (err) {
    log.warn('alerts of the run were not delivered', { error: causeMessage(err) });
    return { status: 'failed', error: causeMessage(err) };
  }
}

/** Same rule as ALERTS_PATCH: runs started before retention existed replay without it. */
export const RETENTION_PATCH = 'scrape-etl-retention-1';

const keeper = proxyActivities<Activities>({
  startToCloseTimeout: '10m',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 5 },
});

/** The pipeline's retention, after the run's bookkeeping; what it cannot do is logged, never the run's failure. */
export async function applyRunRetention(spec: PipelineSpec, lean = false): Promise<void> {
  if (!spec.retention || !(lean || patched(RETENTION_PATCH))) return;
  try {
    await keeper.applyPipelineRetention({ spec: withoutUrls(spec) });
  } catch (err) {
    log.warn('retention was not applied after the run', { error: causeMessage(err) });
  }
}
