// What `scrape-etl up` watches of the schedules on its task queue:
//  - at start, each scheduled pipeline's last succeeded run from its destination's pipeline_runs, which seeds
//    scrape_etl_pipeline_last_success_timestamp_seconds (runs finishing on the workers move it on), so the gauge
//    is right after a restart too, not absent until the next success;
//  - every SCRAPE_ETL_UP_WATCH_SECONDS (30), whether each active schedule's expected fire time came with an action:
//    one that did not (skipped by its overlap policy behind a stuck run, missed its catch-up window while the server
//    was down) is said on up's output as `schedule <id> did not run at <time>`, once;
//  - the `freshness` checks of the scheduled pipelines (./freshness-watch.ts).
import fs from 'node:fs';
import type { Metrics } from '../../activities/metrics.js';
import { positiveIntFromEnv } from '../../lib/env-int.js';
import { FreshnessWatch } from './freshness-watch.js';
import type { PipelineSpec } from '../../pipelines/spec.js';
import type { TemporalSettings } from '../../temporal/settings.js';

export interface ScheduleWatch {
  /** One line for up's screen: how many schedules on this task queue, and the next fire time. */
  summary(): string;
  close(): void;
}

interface Watched {
  id: string;
  spec: PipelineSpec | undefined;
  paused: boolean;
  next: Date | undefined;
}


export async function watchSchedules(o: { settings: TemporalSettings; metrics: Metrics; log(m: string): void }): Promise<ScheduleWatch> {
  const { connectTemporal } = await import('../../temporal/connect.js');
  const conn = await connectTemporal({ settings: o.settings });
  const client = conn.client;
  const intervalMs = positiveIntFromEnv(process.env, 'SCRAPE_ETL_UP_WATCH_SECONDS', 30) * 1000;
  // A late action is not a missing one: the server takes an action within seconds of its time.
  const graceMs = positiveIntFromEnv(process.env, 'SCRAPE_ETL_UP_MISSED_GRACE_SECONDS', 60) * 1000;
  /** Fire times expected and not yet seen taken, by schedule id. */
  const expected = new Map<string, Date>();
  const reported = new Set<string>();
  const freshness = new FreshnessWatch({ metrics: o.metrics, log: o.log, everyMs: positiveIntFromEnv(process.env, 'SCRAPE_ETL_UP_FRESHNESS_SECONDS', 300) * 1000 });
  const specsOf = (list: Watched[]) => list.flatMap((w) => (w.spec && !w.paused ? [w.spec] : []));

  async function schedulesOfQueue(): Promise<Watched[]> {
    const out: Watched[] = [];
    for await (const s of client.schedule.list()) {
      const d = await client.schedule.getHandle(s.scheduleId).describe();
      if (d.action.type !== 'startWorkflow' || d.action.taskQueue !== o.settings.taskQueue) continue;
      const arg = d.action.args?.[0] as { spec?: PipelineSpec } | undefined;
      const watched: Watched = { id: s.scheduleId, spec: arg?.spec, paused: d.state.paused, next: d.info.nextActionTimes[0] };
      const due = expected.get(s.scheduleId);
      if (due && Date.now() > due.getTime() + graceMs) {
        const taken = d.info.recentActions.some((a) => Math.abs(a.scheduledAt.getTime() - due.getTime()) < 1000);
        const key = `${s.scheduleId}@${due.toISOString()}`;
        if (!taken && !d.state.paused && !reported.has(key)) {
          reported.add(key);
          o.log(
            `warning: schedule ${s.scheduleId} did not run at ${due.toISOString()} (no action taken: skipped by its overlap policy behind a run still open, ` +
              `or missed while the server was down); \`scrape-etl schedule describe ${s.scheduleId}\` shows its recent actions`,
          );
        }
        expected.delete(s.scheduleId);
      }
      if (!d.state.paused && watched.next && !expected.has(s.scheduleId)) expected.set(s.scheduleId, watched.next);
      out.push(watched);
    }
    return out;
  }

  let schedules: Watched[] = [];
  try {
    schedules = await schedulesOfQueue();
    await seedLastSuccess(schedules, o.metrics, o.log);
    await freshness.maybeEvaluate(specsOf(schedules));
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
      const next = active.filter((s) => s.next).sort((a, b) => a.next!.getTime() - b.next!.getTime())[0];
      return `${schedules.length} on this task queue (${active.length} active)${next ? `; next: ${next.id} at ${next.next!.toISOString()}` : ''}`;
    },
    close() {
      clearInterval(timer);
      void conn.connection.close().catch(() => undefined);
    },
  };
}

/** The gauge's start value: each scheduled pipeline's last succeeded run in its destination (read, never created). */
async function seedLastSuccess(schedules: Watched[], metrics: Metrics, log: (m: string) => void): Promise<void> {
  const { databaseFileOf, openDatabase, parseDatabaseUrl, redactDatabaseUrl } = await import('../../db/connect.js');
  const { listPipelineRuns } = await import('../../db/pipeline-runs.js');
  for (const { spec } of schedules) {
    if (!spec) continue;
    const url = spec.destination.database;
    try {
      const file = databaseFileOf(parseDatabaseUrl(url));
      // A destination no run has written yet holds no success; opening it would create the file.
      if (file !== undefined && !fs.existsSync(file)) continue;
      const db = await openDatabase(url);
      try {
        const runs = await listPipelineRuns(db, { limit: 200, pipeline: spec.name });
        const last = runs.find((r) => r.status === 'succeeded' && r.finishedAt);
        if (last?.finishedAt) metrics.lastSuccess(spec.name, new Date(last.finishedAt));
      } finally {
        await db.close();
      }
    } catch (err) {
      log(`warning: the last success of ${spec.name} could not be read from ${redactDatabaseUrl(url)}: ${(err as Error).message}`);
    }
  }
}
