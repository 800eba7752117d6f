// What the soak says when runs are still open at its finish deadline: which runs, what Temporal knows of each (its
// status, pending activities with their attempts and last failures, a pending workflow task) and the tails of the
// worker logs, so that a stuck run is told from a slow one by the report alone, instead of a test that times out
// with nothing but "waiting for them to finish".
import fs from 'node:fs';
import path from 'node:path';
import { decodePendingActivityState, type Client } from '@temporalio/client';
import proto from '@temporalio/proto';

/** A run the soak started and did not see finish. */
export interface OpenRun {
  workflowId: string;
  startedAt: number;
}

/** What waiting for a run's result by a deadline came to. */
export type Outcome<T> = { result: T } | { error: unknown } | { open: true; lastError: unknown };

/**
 * The run's result, its failure (`isFinal` says which errors are the run's own outcome), or `open` when it has not
 * finished by `by` (epoch ms). handle.result() long-polls until the run closes and returns nothing before, so the
 * wait is cut off by an abort signal that reaches the poll in flight; any other error (the server restarting) is
 * waited out and asked again until the deadline.
 */
export async function resultBy<T>(
  client: Client,
  workflowId: string,
  by: number,
  isFinal: (err: unknown) => boolean,
): Promise<Outcome<T>> {
  for (;;) {
    const left = by - Date.now();
    let lastError: unknown = new Error('the deadline passed before the first wait');
    if (left > 0) {
      try {
        return {
          result: (await client.withAbortSignal(AbortSignal.timeout(left), () =>
            client.workflow.getHandle(workflowId).result(),
          )) as T,
        };
      } catch (err) {
        if (isFinal(err)) return { error: err };
        lastError = err;
      }
    }
    if (Date.now() >= by) return { open: true, lastError };
    await new Promise((r) => setTimeout(r, Math.min(1000, by - Date.now())));
  }
}

/** A worker's log: the live ones' output so far, the exited ones' files. */
export interface WorkerLog {
  name: string;
  text: string;
}

/** How long one describe may take: the server may be what is stuck. */
const DESCRIBE_WITHIN_MS = 10_000;
const LOG_TAIL_LINES = 25;
const LOGS_SHOWN = 6;
/** The newest history events shown: whether the run still moves, and where it stands. */
const EVENTS_SHOWN = 4;

interface Timestamp {
  seconds?: { toString(): string } | number | null;
  nanos?: number | null;
}

function isoOf(t: Timestamp | null | undefined): string {
  if (!t?.seconds) return '-';
  return new Date(Number(t.seconds.toString()) * 1000 + Math.floor((t.nanos ?? 0) / 1e6)).toISOString();
}

/** Temporal's view of one open run, a few lines, or why it could not be had. */
export async function describeOpenRun(client: Client, run: OpenRun, now = Date.now()): Promise<string[]> {
  const head = `${run.workflowId}: open ${Math.round((now - run.startedAt) / 1000)} s after its start`;
  try {
    const withinDescribe = <T>(fn: () => Promise<T>) =>
      client.withAbortSignal(AbortSignal.timeout(DESCRIBE_WITHIN_MS), fn);
    const d = await withinDescribe(() => client.workflow.getHandle(run.workflowId).describe());
    const lines = [`${head}; status ${d.status.name}, run ${d.runId}, ${d.historyLength} history events`];
    const task = d.raw.pendingWorkflowTask;
    if (task) lines.push(`  workflow task: attempt ${task.attempt ?? 1}, scheduled ${isoOf(task.scheduledTime)}`);
    const activities = d.raw.pendingActivities ?? [];
    if (activities.length === 0) lines.push('  no pending activity');
    for (const a of activities) {
      const failure = a.lastFailure?.message ? `; last failure: ${a.lastFailure.message.split('\n')[0]}` : '';
      lines.push(
        `  activity ${a.activityType?.name ?? '?'} (id ${a.activityId}): ${decodePendingActivityState(a.state) ?? a.state}, attempt ${a.attempt ?? 1}` +
          ` of ${a.maximumAttempts || 'unlimited'}, last started ${isoOf(a.lastStartedTime)}, last heartbeat ${isoOf(a.lastHeartbeatTime)}` +
          `, worker ${a.lastWorkerIdentity || '-'}${failure}`,
      );
    }
    const events = (await withinDescribe(() => client.workflow.getHandle(run.workflowId).fetchHistory())).events ?? [];
    for (const e of events.slice(-EVENTS_SHOWN)) {
      const type = proto.temporal.api.enums.v1.EventType[e.eventType ?? 0] ?? String(e.eventType);
      lines.push(`  event ${String(e.eventId)} at ${isoOf(e.eventTime)}: ${type.replace(/^EVENT_TYPE_/, '')}`);
    }
    return lines;
  } catch (err) {
    return [`${head}; describe failed: ${err instanceof Error ? err.message : String(err)}`];
  }
}

/** The last lines of the newest worker logs. */
export function workerLogTails(logs: readonly WorkerLog[]): string[] {
  return logs.slice(-LOGS_SHOWN).flatMap((l) => {
    const lines = l.text.trimEnd().split('\n');
    return [
      `--- ${l.name} (last ${Math.min(LOG_TAIL_LINES, lines.length)} of ${lines.length} lines)`,
      ...lines.slice(-LOG_TAIL_LINES),
    ];
  });
}

/** The exited workers' logs in a folder (soak.ts writes worker-<slot>-<n>-pid<pid>.log), oldest first. */
export function exitedWorkerLogs(dir: string): WorkerLog[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .map((name) => ({ name, at: fs.statSync(path.join(dir, name)).mtimeMs }))
    .sort((a, b) => a.at - b.at)
    .map(({ name }) => ({ name, text: fs.readFileSync(path.join(dir, name), 'utf8') }));
}

/** The whole report: one describe per open run (together), then the workers' log tails. */
export async function openRunsReport(
  client: Client,
  open: readonly OpenRun[],
  logs: readonly WorkerLog[],
  deadline: string,
): Promise<string> {
  const described = await Promise.all(open.map((r) => describeOpenRun(client, r)));
  return [
    `${open.length} run(s) still open at the soak's finish deadline (${deadline}):`,
    ...described.flat(),
    'worker logs:',
    ...workerLogTails(logs),
  ].join('\n');
}

/** The soak's failure when runs are still open at its finish deadline; the message is the report. */
export class SoakRunsOpen extends Error {
  constructor(
    report: string,
    readonly workflowIds: readonly string[],
  ) {
    super(report);
    this.name = 'SoakRunsOpen';
  }
}
