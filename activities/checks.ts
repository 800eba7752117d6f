// The activities of checks and watches, called by the workflow after the load of a run (workflows/checks.ts):
// `evaluateRunChecks` records every check's outcome in check_results and tells the workflow whether an `error`
// check failed; `deliverRunWatches` sends each watch's event of the run (checks/watch.ts computes it once) to the
// webhooks subscribed to its type, with the same exactly-once bookkeeping as alerts (notify_deliveries: a retry
// after a worker was killed mid-delivery sends only what was not accepted yet).
//
// `evaluateFreshness` is the same evaluation without a run, for `scrape-etl up`'s scheduler side, a Temporal
// schedule or `scrape-etl check --freshness`: a pipeline that silently stopped running is caught by it.
import { deliverWebhook } from './webhook-post.js';
import { ApplicationFailure, Context, log } from '@temporalio/activity';
import type { Database } from '../db/connect.js';
import { recordDelivery, wasDelivered, type DeliveryKey } from '../db/notify-deliveries.js';
import { describeFailures, evaluateChecks, recordCheckResults, type CheckResult } from '../checks/evaluate.js';
import { evaluateWatches, type WatchEvent } from '../checks/watch.js';
import type { CheckSpec, NotifySpec, NotifyWebhookSpec, PipelineSpec } from '../pipelines/spec.js';
import type { RunCheckSummary } from '../temporal/contract.js';
import type { ActivityDeps } from './deps.js';
import type { Metrics } from './metrics.js';
import { webhookTarget } from './notify.js';
import { selectFailedChecks, type FailedCheckData } from '../checks/read.js';
import { withReadTransaction } from '../db/sql.js';
import { expandWebhookUrl, readNotifyConfig, type NotifyConfig } from './notify-config.js';
import { jsonMessage, slackMessage, type RunFacts } from './notify-messages.js';
import { watchJsonMessage, watchSlackMessage } from './watch-messages.js';

/** A check's outcome as the workflow result and history carry it (the full sample stays in check_results). */
export type CheckSummary = RunCheckSummary;

export interface RunChecksInput {
  workflowId: string;
  spec: PipelineSpec;
  /** Rows the run delivered per table (row_count, scope run). */
  rowsLoaded: Record<string, number>;
}

export interface RunChecksOutput {
  results: CheckSummary[];
  /** `error` checks that failed or could not be evaluated: the run ends failed_checks. */
  errorsFailed: number;
  warnsFailed: number;
  /** The failures in a few lines, for the run's error and the check_failed alert; null when none failed. */
  detail: string | null;
}

export function summarize(results: readonly CheckResult[]): RunChecksOutput {
  const bad = results.filter((r) => r.status === 'fail' || r.status === 'error');
  return {
    results: results.map((r) => ({ name: r.name, type: r.type, severity: r.severity, status: r.status, observed: r.observed, threshold: r.threshold, message: r.message.slice(0, 500) })),
    errorsFailed: bad.filter((r) => r.severity === 'error').length,
    warnsFailed: bad.filter((r) => r.severity === 'warn').length,
    detail: bad.length > 0 ? describeFailures(results).slice(0, 4000) : null,
  };
}

/** Evaluates checks, records them and counts failures in the metrics: what a run, `check` and freshness share. */
export async function evaluateAndRecord(
  db: Database,
  o: { pipeline: string; workflowId: string; checks: readonly CheckSpec[]; rowsLoaded?: Record<string, number>; metrics?: Metrics; now?: Date },
): Promise<RunChecksOutput & { full: CheckResult[] }> {
  const results = await evaluateChecks(db, {
    pipeline: o.pipeline,
    workflowId: o.workflowId,
    checks: o.checks,
    ...(o.rowsLoaded ? { rowsLoaded: o.rowsLoaded } : {}),
    ...(o.now ? { now: o.now } : {}),
  });
  await recordCheckResults(db, o.pipeline, o.workflowId, results, o.now);
  for (const r of results) if (r.status === 'fail' || r.status === 'error') o.metrics?.checkFailed({ pipeline: o.pipeline, check: r.name, severity: r.severity });
  return { ...summarize(results), full: results };
}

/**
 * Freshness checks of a pipeline evaluated now, without a run: for a scheduler to call periodically (`up`), a
 * Temporal schedule, or `scrape-etl check --freshness`. Results land in check_results under the id
 * `freshness:<ISO time>`; failures are counted in `metrics` when given. Returns the summary (no alerts are sent
 * here: the caller decides, e.g. with sendCheckAlert).
 */
export async function evaluateFreshness(db: Database, spec: PipelineSpec, o: { now?: Date; metrics?: Metrics } = {}): Promise<RunChecksOutput & { workflowId: string }> {
  const now = o.now ?? new Date();
  const checks = (spec.checks ?? []).filter((c) => c.type === 'freshness');
  const workflowId = `freshness:${now.toISOString()}`;
  const out = await evaluateAndRecord(db, { pipeline: spec.name, workflowId, checks, now, ...(o.metrics ? { metrics: o.metrics } : {}) });
  const { full: _full, ...summary } = out;
  return { ...summary, workflowId };
}

/**
 * Sends `check_failed` for checks evaluated without a run (freshness from a scheduler, `scrape-etl check
 * --notify`) to the pipeline's webhooks subscribed to it (else the environment's default webhook). One attempt per
 * webhook, with the Idempotency-Key `scrape-etl:<evaluation id>:check_failed`, under the shared answer policy
 * (webhook-post.ts: a 3xx is reported with its Location). With `db`, each accepted delivery is recorded in
 * notify_deliveries (keyed by the evaluation id) and one already recorded is not sent again, as run alerts do; with
 * `metrics`, attempts and failures are counted as run alerts' are. Returns what could not be sent.
 */
export async function sendCheckAlert(
  spec: PipelineSpec,
  out: RunChecksOutput & { workflowId: string },
  o: { env?: NodeJS.ProcessEnv; now?: Date; db?: Database; metrics?: Pick<Metrics, 'webhook' | 'alertUndelivered'> } = {},
): Promise<{ sent: number; alreadySent: number; problems: string[] }> {
  const problems: string[] = [];
  if (!out.detail) return { sent: 0, alreadySent: 0, problems };
  const cfg = readNotifyConfig(o.env ?? process.env);
  const now = (o.now ?? new Date()).toISOString();
  // The failed checks as data: from check_results with their failing keys when the database is given, else from the
  // evaluation's own summary.
  const failedChecks: FailedCheckData[] = o.db
    ? await withReadTransaction(o.db, (tx) => selectFailedChecks(tx, out.workflowId))
    : out.results
        .filter((r) => r.status === 'fail' || r.status === 'error')
        .map((r) => ({ name: r.name, type: r.type, severity: r.severity, status: r.status, observed: r.observed, threshold: r.threshold, failing_keys: null, message: r.message }));
  let sent = 0;
  let alreadySent = 0;
  for (const { w, origin } of webhooksOf(spec.notify, cfg)) {
    if (!w.on.includes('check_failed')) continue;
    const key: DeliveryKey = { workflowId: out.workflowId, runId: out.workflowId, event: 'check_failed', target: webhookTarget(w, origin) };
    if (o.db && (await wasDelivered(o.db, key))) {
      alreadySent++;
      continue;
    }
    const expanded = expandWebhookUrl(w.url, cfg.env);
    if ('problem' in expanded) {
      problems.push(expanded.problem);
      o.metrics?.alertUndelivered('check_failed', 'config');
      continue;
    }
    const facts: RunFacts = {
      event: 'check_failed',
      detail: out.detail,
      pipeline: spec.name,
      kind: spec.kind,
      workflowId: out.workflowId,
      runId: out.workflowId,
      status: out.errorsFailed > 0 ? 'failed_checks' : 'succeeded',
      error: null,
      exportStatus: null,
      exportError: null,
      rowsByTable: {},
      seenByTable: null,
      startedAt: now,
      finishedAt: now,
      durationMs: 0,
      tokenUsage: null,
      webUiUrl: null,
      idempotencyKey: `scrape-etl:${out.workflowId}:check_failed`,
      failedChecks,
    };
    const body = JSON.stringify(w.format === 'slack' ? slackMessage(facts) : jsonMessage(facts));
    const got = await deliverWebhook({ url: expanded.url, event: 'check_failed', idempotencyKey: facts.idempotencyKey, body, timeoutMs: cfg.timeoutMs });
    o.metrics?.webhook('check_failed', got.ok ? String(got.status) : got.status);
    if (got.ok) {
      sent++;
      if (o.db) await recordDelivery(o.db, { ...key, httpStatus: got.status });
      continue;
    }
    problems.push(`webhook ${expanded.url.host}: ${got.text}`);
    o.metrics?.alertUndelivered('check_failed', got.reason);
  }
  return { sent, alreadySent, problems };
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

function webhooksOf(notify: NotifySpec | undefined, cfg: NotifyConfig): Array<{ w: NotifyWebhookSpec; origin: 'pipeline' | 'worker' }> {
  const fromPipeline = (notify?.webhooks ?? []).length > 0;
  return fromPipeline ? notify!.webhooks.map((w) => ({ w, origin: 'pipeline' as const })) : cfg.defaultWebhooks.map((w) => ({ w, origin: 'worker' as const }));
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
  const hooks = webhooksOf(input.spec.notify, cfg);
  const out: RunWatchesOutput = { events: events.map((e) => ({ watch: e.watch, event: e.event, rows: e.rowCount })), sent: 0, alreadySent: 0 };
  const retryable: string[] = [];
  const permanent: string[] = [];
  let i = 0;
  for (const e of events) {
    if (e.rowCount === 0) continue;
    const spec = input.spec.watch?.find((w) => w.name === e.watch);
    for (const { w, origin } of hooks) {
      if (!w.on.includes(e.event)) continue;
      // notify_deliveries' event column names the watch: two watches of one type are two deliveries.
      const key: DeliveryKey = { workflowId: input.workflowId, runId: input.runId, event: `watch:${e.watch}`, target: webhookTarget(w, origin) };
      const where = `webhook (${origin}, ${w.format}) for watch ${e.watch}`;
      if (await wasDelivered(db, key)) {
        out.alreadySent++;
        continue;
      }
      heartbeat(i++);
      const expanded = expandWebhookUrl(w.url, cfg.env);
      if ('problem' in expanded) {
        permanent.push(`${where}: ${expanded.problem}`);
        continue;
      }
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
      const body = JSON.stringify(w.format === 'slack' ? watchSlackMessage(facts) : watchJsonMessage(facts));
      // The shared policy (webhook-post.ts): a 3xx is reported with its Location, never followed nor retried.
      const got = await deliverWebhook({ url: expanded.url, event: e.event, idempotencyKey: facts.idempotencyKey, body, timeoutMs: cfg.timeoutMs, signal });
      deps.metrics.webhook(e.event, got.ok ? String(got.status) : got.status);
      if (got.ok) {
        out.sent++;
        await recordDelivery(db, { ...key, httpStatus: got.status });
        continue;
      }
      (got.retryable ? retryable : permanent).push(`${where} to ${expanded.url.host}: ${got.text}`);
    }
  }
  if (retryable.length > 0) throw ApplicationFailure.retryable(`watch events not delivered yet: ${[...retryable, ...permanent].join('; ')}`, 'NotifyFailed');
  if (permanent.length > 0) throw ApplicationFailure.nonRetryable(`watch events not delivered: ${permanent.join('; ')}`, 'NotifyConfigError');
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
      if (out.detail) log.warn('checks failed', { pipeline: input.spec.name, workflowId: input.workflowId, detail: out.detail });
      return out;
    },

    async deliverRunWatches(input: RunWatchesInput): Promise<RunWatchesOutput> {
      const db = await deps.destination(input.spec.destination.database);
      const events = await evaluateWatches(db, { pipeline: input.spec.name, workflowId: input.workflowId, watches: input.spec.watch ?? [] });
      const ctx = Context.current();
      return deliverWatchEvents(deps, db, input, events, (i) => ctx.heartbeat(i), ctx.cancellationSignal);
    },
  };
}
