// Fire times of a schedule that passed with no run started, found by `scrape-etl up`'s schedule watch, and the
// `did_not_run` alert each one gets (issue 26: schedules that cannot silently stall).
//
// What counts as missed: every fire time Temporal announced (a schedule's nextActionTimes) is remembered; once it is
// SCRAPE_ETL_UP_MISSED_GRACE_SECONDS (60) in the past, and as long after this `up` started (so the server has had its
// chance to catch up after a restart), it is looked for among the schedule's recent actions. Not there: no run was
// started for it (skipped by the overlap policy behind a run still open, or missed while the server or `up` was down
// past the catch-up window). Temporal keeps the last 10 actions only: a time older than all of a full list cannot be
// told, and is dropped rather than alerted. A schedule changed since a time was announced (lastUpdatedAt moved) or
// paused forgets its announced times: they are no longer due.
//
// Once per missed fire, also across restarts of `up`: the remembered times and the fires already handled live in
// <data>/up-missed-fires.json (written whole or not at all), and each missed fire is a pipeline_runs row of its own
// (status did_not_run, created once) in the pipeline's destination, whose webhook deliveries are recorded in
// notify_deliveries as run alerts' are. A fire whose row and deliveries exist is not sent again, whatever the file says.
import type { Metrics } from '../temporal/metrics.js';
import { readJsonFile, writeJsonAtomic } from '../lib/state-file.js';
import type { PipelineSpec } from '../pipelines/spec.js';

/** What the watch saw of one schedule at one look. */
export interface ScheduleView {
  id: string;
  spec: PipelineSpec | undefined;
  paused: boolean;
  /** lastUpdatedAt (or createdAt): announced times of an older version of the schedule are not due. */
  version: string | null;
  next: Date[];
  /** scheduledAt of the recent actions Temporal keeps (at most RECENT_ACTIONS). */
  recent: Date[];
  /** Workflow ids of the runs of this schedule still open. */
  running: string[];
  overlap: string;
  catchupWindow: string;
}

export interface MissedFire {
  scheduleId: string;
  spec: PipelineSpec | undefined;
  at: Date;
  /** Why no run started, as far as the watch can tell (a clause: "skipped by ..."). */
  cause: string;
}

/** Attempts of each did_not_run delivery when the receiver may answer differently later (a 5xx, a timeout). */
const DID_NOT_RUN_ATTEMPTS = 3;
/** Temporal's schedules keep this many recent actions (server default). */
const RECENT_ACTIONS = 10;
/** Fires already handled, remembered at most (oldest dropped): enough for days of a busy schedule's misses. */
const MAX_HANDLED = 2000;

interface StateFile {
  version: 1;
  schedules: Record<string, { version: string | null; expected: string[] }>;
  handled: string[];
}

/** `2026-11-26T06:00:00Z`: the form Temporal appends to scheduled workflow ids. */
export function fireTimeText(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The pipeline_runs row of a missed fire: `<pipeline>--did-not-run-<fire time>`, beside `<pipeline>--scheduled-<time>`. */
export function didNotRunWorkflowId(pipeline: string, at: Date): string {
  return `${pipeline}--did-not-run-${fireTimeText(at)}`;
}

export class MissedFires {
  private readonly state: StateFile;

  constructor(private readonly o: { file: string; graceMs: number; startedAt: Date }) {
    const read = readJsonFile<StateFile>(o.file);
    this.state =
      read && read.version === 1 && typeof read.schedules === 'object' && Array.isArray(read.handled)
        ? read
        : { version: 1, schedules: {}, handled: [] };
  }

  /** The fires of `view` found missed at `now`; remembers its announced times. Call save() after a look. */
  observe(view: ScheduleView, now = Date.now()): Array<Omit<MissedFire, 'cause'> & { running: string[] }> {
    let entry = this.state.schedules[view.id];
    if (!entry || entry.version !== view.version) entry = { version: view.version, expected: [] };
    this.state.schedules[view.id] = entry;
    if (view.paused) {
      entry.expected = [];
      return [];
    }
    // Judged only once the server had the grace after this `up` started, to catch up on what passed while it was down.
    const judgeBefore = now - this.o.graceMs;
    const canJudge = this.o.startedAt.getTime() <= judgeBefore;
    const oldestRecent =
      view.recent.length >= RECENT_ACTIONS ? Math.min(...view.recent.map((d) => d.getTime())) : -Infinity;
    const missed: Array<Omit<MissedFire, 'cause'> & { running: string[] }> = [];
    const keep: string[] = [];
    for (const iso of entry.expected) {
      const t = Date.parse(iso);
      if (!Number.isFinite(t)) continue;
      if (!canJudge || t > judgeBefore) {
        keep.push(iso);
        continue;
      }
      const taken = view.recent.some((r) => Math.abs(r.getTime() - t) < 1000);
      // Older than every action of a full list: Temporal no longer says whether it was taken.
      if (taken || t < oldestRecent - 1000) continue;
      if (!this.handled(view.id, iso))
        missed.push({ scheduleId: view.id, spec: view.spec, at: new Date(t), running: view.running });
    }
    const known = new Set(keep);
    for (const d of view.next) {
      const iso = d.toISOString();
      if (!known.has(iso)) keep.push(iso);
      known.add(iso);
    }
    entry.expected = keep.sort();
    return missed;
  }

  /** Schedules no longer on the task queue: their times are forgotten. */
  retain(ids: ReadonlySet<string>): void {
    for (const id of Object.keys(this.state.schedules)) if (!ids.has(id)) delete this.state.schedules[id];
  }

  handled(scheduleId: string, iso: string): boolean {
    return this.state.handled.includes(`${scheduleId}@${iso}`);
  }

  markHandled(scheduleId: string, at: Date): void {
    this.state.handled.push(`${scheduleId}@${at.toISOString()}`);
    if (this.state.handled.length > MAX_HANDLED) this.state.handled.splice(0, this.state.handled.length - MAX_HANDLED);
  }

  save(): void {
    writeJsonAtomic(this.o.file, this.state);
  }
}

/** Why a fire passed with no run, from what is known when it is found. */
export function missedCause(o: {
  at: Date;
  running: string[];
  overlap: string;
  catchupWindow: string;
  upStartedAt: Date;
  taskQueue: string;
  /** Workers polling the task queue now; undefined when that could not be asked. */
  pollers: number | undefined;
}): string {
  const upDown =
    o.at < o.upStartedAt
      ? `; \`scrape-etl up\` (the worker) was not running at that time: this one started at ${o.upStartedAt.toISOString()}`
      : '';
  if (o.running.length > 0) {
    const worker =
      o.pollers === 0
        ? `, and no worker polls task queue '${o.taskQueue}' now, so that run cannot go on: start one with \`scrape-etl up\``
        : o.at < o.upStartedAt
          ? ''
          : `; a worker polls task queue '${o.taskQueue}', so that run is slow or stuck: \`scrape-etl status\` shows what it waits for`;
    return `skipped by its overlap policy (${o.overlap}) while the run ${o.running[0]} was still open${worker}${upDown}`;
  }
  return `no run was started: the Temporal server was not running at that time, or came back after the schedule's catch-up window (${o.catchupWindow})${upDown}`;
}

export interface DidNotRunOutcome {
  /** 'delivered' | 'failed' | 'none' (no webhook subscribed) | 'already' (handled before). */
  status: 'delivered' | 'failed' | 'none' | 'already';
  error: string | null;
  recorded: boolean;
}

/**
 * Records a missed fire in its pipeline's destination (pipeline_runs, status did_not_run) and sends `did_not_run` to
 * the pipeline's webhooks subscribed to it (else the worker-wide SCRAPE_ETL_NOTIFY_URL of up's environment) through
 * the one alert delivery (alerts/deliver.ts), each accepted delivery recorded in notify_deliveries; a retryable
 * failure is tried again (DID_NOT_RUN_ATTEMPTS, NOTIFY_RETRY apart). The outcome lands in the row's alert_status / alert_error, where `status` and `history` show it, and
 * failures in scrape_etl_alert_delivery_failures_total{event="did_not_run"}.
 */
export async function sendDidNotRun(
  fire: MissedFire,
  o: {
    metrics: Pick<Metrics, 'webhook' | 'alertUndelivered'>;
    env: NodeJS.ProcessEnv;
    message: string;
    log(m: string): void;
    now?: Date;
  },
): Promise<DidNotRunOutcome> {
  const spec = fire.spec;
  if (!spec) return { status: 'none', error: null, recorded: false };
  const { readNotifyConfig } = await import('../alerts/notify-config.js');
  const { alertWebhooks, deliverAlerts, webhookTarget } = await import('../alerts/deliver.js');
  const { jsonMessage, slackMessage } = await import('../alerts/notify-messages.js');
  const { openDatabase, redactDatabaseUrl } = await import('../destinations/open.js');
  const { getPipelineRun, recordAlertOutcome, recordDidNotRun } = await import('../db/store/pipeline-runs.js');

  const cfg = readNotifyConfig(o.env);
  const hooks = alertWebhooks(spec.notify, cfg).filter(({ w }) => w.on.includes('did_not_run'));

  const workflowId = didNotRunWorkflowId(spec.name, fire.at);
  const runId = fireTimeText(fire.at);
  const now = o.now ?? new Date();
  let db: Awaited<ReturnType<typeof openDatabase>> | undefined;
  try {
    db = await openDatabase(spec.destination.database);
  } catch (err) {
    o.log(
      `warning: the missed fire of ${spec.name} is not recorded in ${redactDatabaseUrl(spec.destination.database)}: ${(err as Error).message}; its alert goes out unrecorded`,
    );
  }
  try {
    if (db) {
      const created = await recordDidNotRun(db, {
        workflowId,
        pipeline: spec.name,
        kind: spec.kind,
        scheduledAt: fire.at,
        error: o.message,
        now,
      });
      // Handled before (an earlier `up` recorded it and its alert's outcome): not sent again.
      if (!created && (await getPipelineRun(db, workflowId))?.alertStatus)
        return { status: 'already', error: null, recorded: true };
    }
    if (hooks.length === 0) return { status: 'none', error: null, recorded: db !== undefined };
    const idempotencyKey = `scrape-etl:${workflowId}:did_not_run`;
    const facts = {
      event: 'did_not_run' as const,
      detail: o.message,
      pipeline: spec.name,
      kind: spec.kind,
      workflowId,
      runId,
      status: 'did_not_run' as const,
      error: null,
      exportStatus: null,
      exportError: null,
      rowsByTable: {},
      seenByTable: null,
      startedAt: fire.at.toISOString(),
      finishedAt: now.toISOString(),
      durationMs: 0,
      tokenUsage: null,
      webUiUrl: null,
      idempotencyKey,
    };
    // The one delivery of every alert (alerts/deliver.ts), with its bookkeeping in notify_deliveries; `up` has no
    // Temporal retries around it, so the delivery makes its attempts itself, NOTIFY_RETRY apart.
    const got = await deliverAlerts(
      hooks.map((hook) => ({
        hook,
        key: { workflowId, runId, event: 'did_not_run', target: webhookTarget(hook.w, hook.origin) },
        event: 'did_not_run',
        idempotencyKey,
        where: `webhook #${hook.n} (${hook.origin}, ${hook.w.format}, event did_not_run)`,
        body: () =>
          JSON.stringify(
            hook.w.format === 'slack'
              ? slackMessage(facts)
              : {
                  ...jsonMessage(facts),
                  schedule_id: fire.scheduleId,
                  scheduled_at: fire.at.toISOString(),
                  cause: fire.cause,
                },
          ),
      })),
      { db, cfg, metrics: o.metrics, attempts: DID_NOT_RUN_ATTEMPTS },
    );
    const failures = got.failures;
    const attemptsMax = got.attemptsMax;
    for (const f of failures) o.metrics.alertUndelivered('did_not_run', f.reason);
    const error =
      failures.length > 0
        ? `${failures.length} of ${hooks.length} alert(s) not delivered${attemptsMax > 1 ? ` (after ${attemptsMax} attempts)` : ''}: ${failures.map((f) => f.text).join('; ')}`
        : null;
    if (db) await recordAlertOutcome(db, workflowId, { status: error ? 'failed' : 'delivered', error });
    return { status: error ? 'failed' : 'delivered', error, recorded: db !== undefined };
  } finally {
    await db?.close();
  }
}
