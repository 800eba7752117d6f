// Alerts: the `notifyPipelineRun` activity, called once when a run ends (after its pipeline_runs row is
// finished), with the run's events. It sends each event to every webhook subscribed to it, with an
// Idempotency-Key header, and records each accepted delivery (2xx) in the destination's notify_deliveries.
//
// Delivery guarantee, honestly: Temporal runs this activity until it completes, so no alert is lost while its
// retries last (a crashed worker's attempt is retried by another worker). Before sending, the activity looks
// for the delivery in notify_deliveries and skips what an earlier attempt already delivered, so a retry after a
// crash does not send again. The one window left is a crash after the receiver answered 2xx and before the row
// committed (milliseconds); that delivery is sent again with the same Idempotency-Key, for receivers that
// dedupe on it. Where the destination database cannot be used (the run failed because of it), the deliveries
// are not recorded and the guarantee is at-least-once with that key. Nothing here can be exactly-once against
// a receiver that ignores the key: that needs the receiver's cooperation.
import { ApplicationFailure, Context, log } from '@temporalio/activity';
import { alertWebhooks, deliverAlerts, delayAfterAttempt, webhookTarget, type Alert } from '../alerts/deliver.js';
import { getPipelineRun, recordAlertOutcome } from '../db/store/pipeline-runs.js';
import { schemaChangesOfRun, type SchemaColumn } from '../db/store/evolve/registry.js';
import type { Database } from '../destinations/contract.js';
import { parseDurationMs } from '../pipelines/duration.js';
import type { NotifyEventName } from '../pipelines/spec.js';
import type { ActivityDeps } from './deps.js';
import { withProgressBeats, type ProgressBeats } from './keep-alive.js';
import { jsonMessage, slackMessage, type RunFacts } from '../alerts/notify-messages.js';
import type { NotifyRunInput, NotifyRunOutput } from './types.js';
import { selectFailedChecks, type FailedCheckData } from '../checks/read.js';
import { withReadTransaction } from '../db/store/sql.js';
import { budgetAlertsOf, type BudgetAlertData } from '../budget/alerts.js';
import type { NotifyEvent } from '../temporal/contract.js';

/** An event the activity sends: the run's, or a budget alert delivered once per limit and period (`once`). */
type SentEvent = NotifyEvent & { once?: string; budget?: BudgetAlertData };

export { NOTIFY_RETRY, webhookTarget } from '../alerts/deliver.js';

export function idempotencyKey(workflowId: string, runId: string, event: NotifyEventName): string {
  return `scrape-etl:${workflowId}:${runId}:${event}`;
}

/** The part of a time budget the activity keeps for itself to record the outcome before the workflow's timeout. */
const RECORD_MARGIN_MS = 3000;

/** One line for the alert: tables created, then columns added and variants, the first few of each named. */
export function describeSchemaChanges(changes: readonly SchemaColumn[], max = 10): string {
  const created = [...new Set(changes.filter((c) => c.change === 'create_table').map((c) => c.table))];
  const columns = changes.filter((c) => c.change !== 'create_table' && !created.includes(c.table));
  const named = (items: string[]) =>
    items.length > max ? `${items.slice(0, max).join(', ')} and ${items.length - max} more` : items.join(', ');
  const parts: string[] = [];
  if (created.length > 0) parts.push(`new table${created.length > 1 ? 's' : ''} ${named(created)}`);
  const added = columns.filter((c) => c.change === 'add_column').map((c) => `${c.table}.${c.column} (${c.type})`);
  if (added.length > 0) parts.push(`new column${added.length > 1 ? 's' : ''} ${named(added)}`);
  const variants = columns
    .filter((c) => c.change === 'add_variant')
    .map((c) => `${c.table}.${c.column} (${c.type}, variant of ${c.variantOf ?? '?'})`);
  if (variants.length > 0) parts.push(`type change${variants.length > 1 ? 's' : ''} ${named(variants)}`);
  return parts.join('; ');
}

export function notifyActivities(deps: ActivityDeps) {
  async function destination(url: string): Promise<Database | undefined> {
    try {
      return await deps.destination(url);
    } catch (err) {
      // The run may have failed because of its destination: the alert goes out anyway, unrecorded.
      log.warn('alerts: destination database not usable, deliveries are not recorded (at-least-once)', {
        error: (err as Error).message,
      });
      return undefined;
    }
  }

  // Alive while it waits for its destination (a DuckDB file another process holds) under a short heartbeat timeout,
  // not only at each webhook.
  async function notifyPipelineRun(input: NotifyRunInput): Promise<NotifyRunOutput> {
    return withProgressBeats<number, NotifyRunOutput>(Context.current(), (beats) => notifyRun(input, beats));
  }

  async function notifyRun(input: NotifyRunInput, beats: ProgressBeats<number>): Promise<NotifyRunOutput> {
    const cfg = deps.notify;
    const webhooks = alertWebhooks(input.notify, cfg);
    const events: SentEvent[] = [...input.events];
    const limit = input.notify?.duration_over ?? cfg.defaultDurationOver;
    if (
      limit !== undefined &&
      input.durationMs > parseDurationMs(limit) &&
      !events.some((e) => e.event === 'duration_over')
    ) {
      events.push({
        event: 'duration_over',
        detail: `ran ${Math.round(input.durationMs / 1000)} s, over the limit of ${limit}`,
      });
    }
    // The data loaded, the files did not: its own event, so that the default `on:` list reaches someone (the status
    // event says the data's outcome, often 'succeeded', which few subscribe to).
    if (input.exportStatus === 'failed' && !events.some((e) => e.event === 'export_failed')) {
      events.push({ event: 'export_failed', detail: input.exportError ?? null });
    }
    const subscribed = (event: NotifyEventName) => webhooks.some(({ w }) => w.on.includes(event));
    const db = webhooks.length > 0 ? await destination(input.database) : undefined;
    if (db && subscribed('schema_changed') && !events.some((e) => e.event === 'schema_changed')) {
      const changes = await schemaChangesOfRun(db, input.workflowId).catch((err: unknown) => {
        log.warn('alerts: schema changes of the run not read', { error: (err as Error).message });
        return [];
      });
      if (changes.length > 0) events.push({ event: 'schema_changed', detail: describeSchemaChanges(changes) });
    }
    if (db && input.budgets && (subscribed('budget_warning') || subscribed('budget_exhausted'))) {
      const spec = { name: input.pipeline, ...input.budgets };
      const found = await budgetAlertsOf(db, spec, input.workflowId).catch((err: unknown) => {
        log.warn('alerts: budgets not read', { error: (err as Error).message });
        return [];
      });
      for (const b of found) events.push({ event: b.event, detail: b.detail, once: b.once, budget: b.budget });
    }
    const wanted = events.flatMap((e) => webhooks.filter(({ w }) => w.on.includes(e.event)).map((t) => ({ ...t, e })));
    const out: NotifyRunOutput = { sent: 0, alreadySent: 0, events: events.map((e) => e.event), undelivered: [] };
    if (wanted.length === 0) return out;

    const run = db ? await getPipelineRun(db, input.workflowId).catch(() => undefined) : undefined;
    // check_failed carries the failed checks as data, read from check_results (the sentence alone before).
    const failedChecks: FailedCheckData[] | undefined =
      db && events.some((e) => e.event === 'check_failed')
        ? await withReadTransaction(db, (tx) => selectFailedChecks(tx, input.workflowId)).catch((err: unknown) => {
            log.warn('alerts: failed checks not read', { error: (err as Error).message });
            return undefined;
          })
        : undefined;
    const info = Context.current().info;
    // Bounded deliveries (workflows/alerts.ts gives deliverWithinMs): the whole of them, retries included, ends by
    // this time, when the activity records what was not delivered and returns instead of asking for another attempt.
    const deadline =
      input.deliverWithinMs !== undefined
        ? info.scheduledTimestampMs + input.deliverWithinMs - RECORD_MARGIN_MS
        : undefined;
    // The link opens the run that ended (the last of a continue-as-new chain), where its failure is.
    const lastRunId = info.workflowExecution?.runId ?? input.runId;
    const webUiUrl = cfg.webUiUrl
      ? `${cfg.webUiUrl.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(info.namespace)}/workflows/${encodeURIComponent(input.workflowId)}/${encodeURIComponent(lastRunId)}/history`
      : null;

    const alerts: Alert[] = wanted.map(({ w, n, origin, e }) => {
      const facts: RunFacts = {
        event: e.event,
        detail: e.detail ?? null,
        pipeline: input.pipeline,
        kind: input.kind,
        workflowId: input.workflowId,
        runId: input.runId,
        status: input.status,
        error: input.error,
        exportStatus: input.exportStatus ?? run?.exportStatus ?? null,
        exportError: input.exportError ?? run?.exportError ?? null,
        rowsByTable: input.rowsByTable ?? run?.rowsByTable ?? {},
        seenByTable: input.seenByTable ?? run?.seenByTable ?? null,
        startedAt: input.startedAt,
        finishedAt: input.finishedAt,
        durationMs: input.durationMs,
        tokenUsage: run?.tokenUsage ?? null,
        keptOut: run?.keptOut ?? null,
        keptOutSample: run?.keptOutSample ?? [],
        webUiUrl,
        idempotencyKey: e.once
          ? `scrape-etl:${e.once}:${e.event}`
          : idempotencyKey(input.workflowId, input.runId, e.event),
        ...(e.event === 'check_failed' && failedChecks ? { failedChecks } : {}),
        ...(e.budget ? { budget: e.budget } : {}),
      };
      return {
        hook: { w, n, origin },
        // A budget alert is recorded under its limit and period, so whichever run sees it first sends it, once.
        key: e.once
          ? { workflowId: e.once, runId: 'budget', event: e.event, target: webhookTarget(w, origin) }
          : { workflowId: input.workflowId, runId: input.runId, event: e.event, target: webhookTarget(w, origin) },
        event: e.event,
        idempotencyKey: facts.idempotencyKey,
        where: `webhook #${n} (${origin}, ${w.format}, event ${e.event})`,
        body: () => JSON.stringify(w.format === 'slack' ? slackMessage(facts) : jsonMessage(facts)),
      };
    });
    const ctx = Context.current();
    const got = await deliverAlerts(alerts, {
      db,
      cfg,
      metrics: deps.metrics,
      ...(deadline !== undefined ? { deadline } : {}),
      // Keeps the heartbeat timeout (workflows/alerts.ts) short: a worker killed mid-delivery is noticed in seconds.
      heartbeat: (i) => beats.beat(i),
      signal: ctx.cancellationSignal,
      onBookkeepingError: (what, err) =>
        log.warn(what === 'read' ? 'alerts: earlier deliveries not read' : 'alerts: delivery not recorded', {
          error: err.message,
        }),
    });
    out.sent = got.sent;
    out.alreadySent = got.alreadySent;
    const retryable = got.failures
      .filter((f) => f.retryable)
      .map((f) => ({ text: f.text, event: f.alert.event as NotifyEventName, reason: f.reason }));
    const permanent = got.failures
      .filter((f) => !f.retryable)
      .map((f) => ({ text: f.text, event: f.alert.event as NotifyEventName, reason: f.reason }));
    const failed = [...retryable, ...permanent];
    if (deadline === undefined) {
      // A run started by an older workflow (no bound): its policy retries; the old rule stands.
      if (retryable.length > 0)
        throw ApplicationFailure.retryable(
          `alerts not delivered yet: ${failed.map((f) => f.text).join('; ')}`,
          'NotifyFailed',
        );
      if (permanent.length > 0)
        throw ApplicationFailure.nonRetryable(
          `alerts not delivered: ${permanent.map((f) => f.text).join('; ')}`,
          'NotifyConfigError',
        );
      return out;
    }
    // Delivered ones are recorded: the next attempt sends only what is still missing. Another attempt only when a
    // retryable failure has time left for it after the policy's pause.
    const next = Date.now() + delayAfterAttempt(info.attempt) + 1000;
    if (retryable.length > 0 && next < deadline) {
      throw ApplicationFailure.retryable(
        `alerts not delivered yet: ${failed.map((f) => f.text).join('; ')}`,
        'NotifyFailed',
      );
    }
    out.undelivered = failed.map((f) => f.text);
    const attempts =
      info.attempt > 1
        ? ` (after ${info.attempt} attempts in ${Math.round((Date.now() - info.scheduledTimestampMs) / 1000)} s)`
        : '';
    const error =
      failed.length > 0
        ? `${failed.length} of ${wanted.length} alert(s) not delivered${attempts}: ${out.undelivered.join('; ')}`
        : null;
    for (const f of failed) deps.metrics.alertUndelivered(f.event, f.reason);
    out.error = error;
    if (db) {
      await recordAlertOutcome(db, input.workflowId, {
        status: failed.length > 0 ? 'failed' : 'delivered',
        error,
      }).catch((err: unknown) => log.warn('alerts: outcome not recorded', { error: (err as Error).message }));
    }
    return out;
  }

  /**
   * The workflow's record of an alert outcome the notify activity could not record itself (it timed out, or its
   * worker died past the bound): into pipeline_runs and the failure metric, where `status` and monitoring look.
   */
  async function recordAlertFailure(input: { workflowId: string; database: string; error: string }): Promise<void> {
    deps.metrics.alertUndelivered('unknown', 'timeout');
    const db = await destination(input.database);
    if (db) await recordAlertOutcome(db, input.workflowId, { status: 'failed', error: input.error });
  }

  return { notifyPipelineRun, recordAlertFailure };
}
