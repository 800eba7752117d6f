// The activities of checks and watches, called by the workflow after the load of a run (workflows/checks.ts):
// `evaluateRunChecks` records every check's outcome in check_results and tells the workflow whether an `error`
// check failed; `deliverRunWatches` sends each watch's event of the run (checks/watch.ts computes it once) to the
// webhooks subscribed to its type, with the same exactly-once bookkeeping as alerts (notify_deliveries: a retry
// after a worker was killed mid-delivery sends only what was not accepted yet).
// The evaluation itself is checks/run-checks.ts; the delivery is the one of every alert (alerts/deliver.ts).
import { ApplicationFailure, Context, log } from '@temporalio/activity';
import { alertWebhooks, deliverAlerts, webhookTarget, type Alert } from '../alerts/deliver.js';
import { watchJsonMessage, watchSlackMessage } from '../alerts/watch-messages.js';
import { evaluateAndRecord, type RunChecksOutput } from '../checks/run-checks.js';
import { evaluateWatches, type WatchEvent } from '../checks/watch.js';
import type { Database } from '../destinations/contract.js';
import type { PipelineSpec } from '../pipelines/spec.js';
import type { ActivityDeps } from './deps.js';
import { withProgressBeats } from './keep-alive.js';

export type { CheckSummary, RunChecksOutput } from '../checks/run-checks.js';

export interface RunChecksInput {
  workflowId: string;
  spec: PipelineSpec;
  /** Rows the run delivered per table (row_count, scope run). */
  rowsLoaded: Record<string, number>;
}

export interface RunWatchesInput {
  workflowId: string;
  /** First run id of the execution chain: with the workflow id, what makes a delivery unique. */
  runId: string;
  spec: PipelineSpec;
}

export interface RunWatchesOutput {
  events: Array<{ watch: string; event: string; rows: number }>;
  sent: number;
  alreadySent: number;
}

export function watchIdempotencyKey(workflowId: string, runId: string, watch: string): string {
  return `scrape-etl:${workflowId}:${runId}:watch:${watch}`;
}

/** Sends events to the webhooks subscribed to their type; what an earlier attempt delivered is skipped. */
export async function deliverWatchEvents(
  deps: Pick<ActivityDeps, 'notify' | 'metrics'>,
  db: Database,
  input: RunWatchesInput,
  events: readonly WatchEvent[],
  heartbeat: (i: number) => void = () => {},
  signal?: AbortSignal,
): Promise<RunWatchesOutput> {
  const cfg = deps.notify;
  const hooks = alertWebhooks(input.spec.notify, cfg);
  const alerts: Alert[] = [];
  for (const e of events) {
    if (e.rowCount === 0) continue;
    const spec = input.spec.watch?.find((w) => w.name === e.watch);
    for (const hook of hooks) {
      const { w, origin } = hook;
      if (!w.on.includes(e.event)) continue;
      const facts = {
        pipeline: input.spec.name,
        kind: input.spec.kind,
        workflowId: input.workflowId,
        runId: input.runId,
        watch: e.watch,
        event: e.event,
        rowCount: e.rowCount,
        rows: e.rows,
        top: spec?.top ?? 10,
        idempotencyKey: watchIdempotencyKey(input.workflowId, input.runId, e.watch),
      };
      alerts.push({
        hook,
        // notify_deliveries' event column names the watch: two watches of one type are two deliveries.
        key: {
          workflowId: input.workflowId,
          runId: input.runId,
          event: `watch:${e.watch}`,
          target: webhookTarget(w, origin),
        },
        event: e.event,
        idempotencyKey: facts.idempotencyKey,
        where: `webhook (${origin}, ${w.format}) for watch ${e.watch}`,
        body: () => JSON.stringify(w.format === 'slack' ? watchSlackMessage(facts) : watchJsonMessage(facts)),
      });
    }
  }
  const got = await deliverAlerts(alerts, { db, cfg, metrics: deps.metrics, heartbeat, ...(signal ? { signal } : {}) });
  const out: RunWatchesOutput = {
    events: events.map((e) => ({ watch: e.watch, event: e.event, rows: e.rowCount })),
    sent: got.sent,
    alreadySent: got.alreadySent,
  };
  const retryable = got.failures.filter((f) => f.retryable).map((f) => f.text);
  const permanent = got.failures.filter((f) => !f.retryable).map((f) => f.text);
  if (retryable.length > 0)
    throw ApplicationFailure.retryable(
      `watch events not delivered yet: ${[...retryable, ...permanent].join('; ')}`,
      'NotifyFailed',
    );
  if (permanent.length > 0)
    throw ApplicationFailure.nonRetryable(`watch events not delivered: ${permanent.join('; ')}`, 'NotifyConfigError');
  return out;
}

export function checkActivities(deps: ActivityDeps) {
  return {
    async evaluateRunChecks(input: RunChecksInput): Promise<RunChecksOutput> {
      const db = await deps.destination(input.spec.destination.database);
      const { full: _full, ...out } = await evaluateAndRecord(db, {
        pipeline: input.spec.name,
        workflowId: input.workflowId,
        checks: input.spec.checks ?? [],
        rowsLoaded: input.rowsLoaded,
        metrics: deps.metrics,
      });
      if (out.detail)
        log.warn('checks failed', { pipeline: input.spec.name, workflowId: input.workflowId, detail: out.detail });
      return out;
    },

    async deliverRunWatches(input: RunWatchesInput): Promise<RunWatchesOutput> {
      const ctx = Context.current();
      // Alive while it waits for its destination (a DuckDB file another process holds), not only at each webhook.
      return withProgressBeats<number, RunWatchesOutput>(ctx, async (beats) => {
        const db = await deps.destination(input.spec.destination.database);
        const events = await evaluateWatches(db, {
          pipeline: input.spec.name,
          workflowId: input.workflowId,
          watches: input.spec.watch ?? [],
        });
        return deliverWatchEvents(deps, db, input, events, (i) => beats.beat(i), ctx.cancellationSignal);
      });
    },
  };
}
