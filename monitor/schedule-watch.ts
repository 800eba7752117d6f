// What `scrape-etl up` watches of the schedules on its task queue:
//  - at start, each scheduled pipeline's last succeeded run from its destination's pipeline_runs, which seeds
//    scrape_etl_pipeline_last_success_timestamp_seconds (runs finishing on the workers move it on), so the gauge
//    is right after a restart too, not absent until the next success; the destination is opened once for that
//    and the first freshness evaluation together;
//  - every SCRAPE_ETL_UP_WATCH_SECONDS (30), whether each active schedule's fire times came with an action: one that
//    did not (skipped by its overlap policy behind a run still open, missed while the server or `up` was down past
//    the catch-up window) is said on up's output and sent as `did_not_run` to the pipeline's webhooks, once per
//    missed fire, also across restarts (./missed-fires.ts);
//  - the `freshness` checks of the scheduled pipelines (./freshness-watch.ts);
//  - each action a schedule took since the last look, said in one line with the run it started and the next fire.
import fs from 'node:fs';
import path from 'node:path';
import type { Metrics } from '../temporal/metrics.js';
import { settingsFor } from '../settings/process.js';
import type { Env } from '../settings/settings.js';
import { FreshnessWatch } from './freshness-watch.js';
import { MissedFires, fireTimeText, missedCause, sendDidNotRun, type ScheduleView } from './missed-fires.js';
import type { PipelineSpec } from '../pipelines/spec.js';
import type { TemporalSettings } from '../temporal/settings.js';
import type { Database } from '../destinations/contract.js';

export interface ScheduleWatch {
  /** One line for up's screen: how many schedules on this task queue, and the next fire time. */
  summary(): string;
  close(): void;
}

interface Watched {
  id: string;
  spec: PipelineSpec | undefined;
  paused: boolean;
  /** The fire times Temporal announced at the last look (the first may already have passed since). */
  next: Date[];
}

/** The first of `times` still to come: Temporal lists a time until its action is taken, a moment after it passed. */
export function nextFireAfter(times: readonly Date[], now = Date.now()): Date | undefined {
  return times.find((t) => t.getTime() > now);
}

/** A duration of Temporal's policies (ms) as the pipeline file writes it. */
function msText(ms: number): string {
  return ms % 3_600_000 === 0
    ? `${ms / 3_600_000}h`
    : ms % 60_000 === 0
      ? `${ms / 60_000}m`
      : `${Math.round(ms / 1000)}s`;
}

export async function watchSchedules(o: {
  settings: TemporalSettings;
  metrics: Metrics;
  log(m: string): void;
  env?: Env;
}): Promise<ScheduleWatch> {
  const { connectTemporal } = await import('../temporal/connect.js');
  const conn = await connectTemporal({ settings: o.settings });
  const client = conn.client;
  const s = settingsFor(o.env);
  const startedAt = new Date();
  const intervalMs = s.upWatchSeconds * 1000;
  // A late action is not a missing one: the server takes an action within seconds of its time.
  const graceMs = s.upMissedGraceSeconds * 1000;
  const missed = new MissedFires({ file: path.join(o.settings.dataDir, 'up-missed-fires.json'), graceMs, startedAt });
  const freshness = new FreshnessWatch({ metrics: o.metrics, log: o.log, everyMs: s.upFreshnessSeconds * 1000 });
  /** Per schedule, the workflow ids of the actions already seen (said once each). */
  const fired = new Map<string, Set<string>>();
  const specsOf = (list: Watched[]) => list.flatMap((w) => (w.spec && !w.paused ? [w.spec] : []));

  async function pollersNow(): Promise<number | undefined> {
    try {
      const { livePollers } = await import('../temporal/pollers.js');
      return (await livePollers(client, o.settings.namespace, o.settings.taskQueue)).length;
    } catch {
      return undefined;
    }
  }

  async function schedulesOfQueue(): Promise<Watched[]> {
    const out: Watched[] = [];
    const found: Array<Parameters<typeof sendDidNotRun>[0]> = [];
    let pollers: number | undefined | null = null;
    for await (const s of client.schedule.list()) {
      const d = await client.schedule.getHandle(s.scheduleId).describe();
      if (d.action.type !== 'startWorkflow' || d.action.taskQueue !== o.settings.taskQueue) continue;
      const arg = d.action.args?.[0] as { spec?: PipelineSpec } | undefined;
      const watched: Watched = {
        id: s.scheduleId,
        spec: arg?.spec,
        paused: d.state.paused,
        next: d.info.nextActionTimes,
      };
      // Actions taken since the last look (the first look only remembers what was there before this `up`).
      // Of those before it, the runs still open are said too: this `up`'s workers are the ones to run them.
      const known = fired.get(s.scheduleId);
      const open = new Set(d.info.runningActions.map((a) => a.workflow.workflowId));
      const taken = new Set<string>();
      for (const a of d.info.recentActions) {
        const key = a.action.workflow.workflowId;
        taken.add(key);
        if (known ? known.has(key) : !open.has(key)) continue;
        const next = nextFireAfter(d.info.nextActionTimes);
        o.log(
          `schedule ${s.scheduleId} fired at ${fireTimeText(a.scheduledAt)}: run ${key}${known ? '' : ' (before this up started, still open)'}` +
            `${next && !d.state.paused ? `; next fire at ${fireTimeText(next)}` : ''}`,
        );
      }
      fired.set(s.scheduleId, taken);
      const view: ScheduleView = {
        id: s.scheduleId,
        spec: arg?.spec,
        paused: d.state.paused,
        version: (d.info.lastUpdatedAt ?? d.info.createdAt).toISOString(),
        next: d.info.nextActionTimes,
        recent: d.info.recentActions.map((a) => a.scheduledAt),
        running: d.info.runningActions.map((a) => a.workflow.workflowId),
        overlap: arg?.spec?.schedule?.overlap ?? String(d.policies.overlap).toLowerCase(),
        catchupWindow: arg?.spec?.schedule?.catchup_window ?? msText(d.policies.catchupWindow),
      };
      for (const m of missed.observe(view)) {
        if (pollers === null) pollers = await pollersNow();
        const cause = missedCause({
          at: m.at,
          running: m.running,
          overlap: view.overlap,
          catchupWindow: view.catchupWindow,
          upStartedAt: startedAt,
          taskQueue: o.settings.taskQueue,
          pollers,
        });
        found.push({ scheduleId: m.scheduleId, spec: m.spec, at: m.at, cause });
      }
      out.push(watched);
    }
    missed.retain(new Set(out.map((w) => w.id)));
    missed.save();
    for (const fire of found) {
      const at = fire.at.toISOString();
      const message =
        `schedule ${fire.scheduleId}${fire.spec ? ` of pipeline ${fire.spec.name}` : ''} did not run at ${at}: ${fire.cause}; ` +
        `\`scrape-etl schedule describe ${fire.scheduleId}\` shows its recent actions`;
      let said = '';
      try {
        const sent = await sendDidNotRun(fire, { metrics: o.metrics, env: s.env, message, log: o.log });
        said =
          sent.status === 'delivered'
            ? ' (did_not_run alert delivered)'
            : sent.status === 'failed'
              ? ` (did_not_run alert not delivered: ${sent.error})`
              : sent.status === 'already'
                ? ''
                : fire.spec
                  ? ' (no webhook subscribes to did_not_run)'
                  : ' (the schedule carries no pipeline: no alert sent)';
        if (sent.status === 'already') {
          missed.markHandled(fire.scheduleId, fire.at);
          continue;
        }
      } catch (err) {
        said = ` (did_not_run alert not sent: ${(err as Error).message})`;
      }
      o.log(`warning: ${message}${said}`);
      missed.markHandled(fire.scheduleId, fire.at);
      missed.save();
    }
    return out;
  }

  let schedules: Watched[] = [];
  try {
    schedules = await schedulesOfQueue();
    // One opening of each destination for the gauge's start value and the first freshness evaluation.
    await atStart(
      schedules.flatMap((w) => (w.spec ? [{ spec: w.spec, paused: w.paused }] : [])),
      o.metrics,
      o.log,
      freshness,
    );
  } catch (err) {
    o.log(`warning: could not read the schedules: ${(err as Error).message}`);
  }
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    schedulesOfQueue()
      .then(async (s) => {
        schedules = s;
        await freshness.maybeEvaluate(specsOf(s));
      })
      .catch((err: unknown) => o.log(`warning: could not read the schedules: ${(err as Error).message}`))
      .finally(() => (busy = false));
  }, intervalMs);
  timer.unref();
  return {
    summary() {
      const active = schedules.filter((s) => !s.paused);
      if (schedules.length === 0) return `none on this task queue (\`scrape-etl schedule apply <file>\` adds one)`;
      const now = Date.now();
      const next = active
        .map((s) => ({ id: s.id, at: nextFireAfter(s.next, now) }))
        .filter((s): s is { id: string; at: Date } => s.at !== undefined)
        .sort((a, b) => a.at.getTime() - b.at.getTime())[0];
      return `${schedules.length} on this task queue (${active.length} active)${next ? `; next: ${next.id} at ${next.at.toISOString()}` : ''}`;
    },
    close() {
      clearInterval(timer);
      void conn.connection.close().catch(() => undefined);
    },
  };
}

/**
 * At start, each scheduled pipeline's destination opened once (never created: one no run has written holds no
 * success, and the freshness watch says so without it): the gauge's start value (paused schedules too: their
 * pipelines' last success is still a fact), and the first freshness evaluation (active schedules only).
 * `open` is for tests (counting the openings); the default is destinations/open.ts openDatabase.
 */
export async function atStart(
  scheduled: ReadonlyArray<{ spec: PipelineSpec; paused: boolean }>,
  metrics: Pick<Metrics, 'lastSuccess'>,
  log: (m: string) => void,
  freshness: Pick<FreshnessWatch, 'evaluateOne' | 'markEvaluated'>,
  open?: (url: string) => Promise<Database>,
): Promise<void> {
  const { databaseFileOf, openDatabase, parseDatabaseUrl, redactDatabaseUrl } = await import('../destinations/open.js');
  const opener = open ?? openDatabase;
  // Pipelines sharing a destination share its one opening.
  const byUrl = new Map<string, Array<{ spec: PipelineSpec; paused: boolean }>>();
  for (const s of scheduled)
    byUrl.set(s.spec.destination.database, [...(byUrl.get(s.spec.destination.database) ?? []), s]);
  for (const [url, pipelines] of byUrl) {
    let db: Database | undefined;
    try {
      const file = databaseFileOf(parseDatabaseUrl(url));
      if (file === undefined || fs.existsSync(file)) db = await opener(url);
    } catch (err) {
      log(
        `warning: the destination of ${pipelines.map((p) => p.spec.name).join(', ')} could not be opened (${redactDatabaseUrl(url)}): ${(err as Error).message}`,
      );
      continue;
    }
    try {
      for (const { spec, paused } of pipelines) {
        if (db) await seedLastSuccess(spec, db, metrics, log);
        if (!paused) await freshness.evaluateOne(spec, db);
      }
    } finally {
      await db?.close();
    }
  }
  freshness.markEvaluated();
}

/** The gauge's start value: the pipeline's last succeeded run in its destination. */
async function seedLastSuccess(
  spec: PipelineSpec,
  db: Database,
  metrics: Pick<Metrics, 'lastSuccess'>,
  log: (m: string) => void,
): Promise<void> {
  const { listPipelineRuns } = await import('../db/store/pipeline-runs.js');
  try {
    const runs = await listPipelineRuns(db, { limit: 200, pipeline: spec.name });
    const last = runs.find((r) => r.status === 'succeeded' && r.finishedAt);
    if (last?.finishedAt) metrics.lastSuccess(spec.name, new Date(last.finishedAt));
  } catch (err) {
    log(`warning: the last success of ${spec.name} could not be read: ${(err as Error).message}`);
  }
}
