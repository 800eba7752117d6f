// Whether a worker polls a task queue NOW: a run started where none does stays RUNNING without a word, so `run`
// asks before choosing between starting the workflow only (a worker is there) and running a worker in its own
// process, and `run --detach`, `schedule apply` and `schedule trigger` warn. The server lists every poller seen in
// the last few minutes, including workers that have exited since, so two filters make "now" mean now: the poller's
// last poll is recent (a live idle worker long-polls again at least every minute), and a poller of this machine
// (the identity starts `<pid>@<hostname>`) whose process is gone does not count.
// A poller is a long-lived worker only if it says so: `up` and `worker` give their workers an identity that names
// their role (workerIdentity); `run`'s own worker names itself per-run, as it leaves when its run ends. A `run` that
// took another run's worker for a long-lived one only started its workflow, and waited with no poller once that
// worker left (issue 37).
import os from 'node:os';
import type { Client } from '@temporalio/client';
// A CommonJS module: named ESM imports of it fail in Node, so the namespace comes from its default export.
import proto from '@temporalio/proto';
import { isDeadLocalWorker } from '../lib/process-alive.js';

const { TaskQueueKind, TaskQueueType } = proto.temporal.api.enums.v1;

/** A long poll lasts up to a minute on the server (then the worker polls again): 70 s covers one with margin. */
export const POLLED_WITHIN_MS = 70_000;

export interface LivePoller {
  identity: string;
  lastAccess: Date;
  /** The worker says it is long-lived (`up`, `worker`): it stays when any one run ends. */
  longLived: boolean;
}

/** Who runs a worker: `up` and `worker` keep polling; `run` (and `demo`) poll for their own run only. */
export type WorkerRole = 'up' | 'worker' | 'run';

const LONG_LIVED: ReadonlySet<string> = new Set<WorkerRole>(['up', 'worker']);

/** The identity a worker polls with: the SDK's `<pid>@<hostname>`, then its role. */
export function workerIdentity(role: WorkerRole, pid = process.pid, hostname = os.hostname()): string {
  return `${pid}@${hostname} scrape-etl:${role}`;
}

function parseIdentity(identity: string): { pid: number; hostname: string; role: string | undefined } | undefined {
  const m = /^(\d+)@(\S+)(?: scrape-etl:(\S+))?$/.exec(identity);
  return m ? { pid: Number(m[1]), hostname: m[2]!, role: m[3] } : undefined;
}

/** The workers polling the queue's workflow tasks now (see the file's comment for what "now" means). */
export async function livePollers(
  client: Client,
  namespace: string,
  taskQueue: string,
  now = Date.now(),
): Promise<LivePoller[]> {
  const res = await client.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  const live: LivePoller[] = [];
  for (const p of res.pollers ?? []) {
    const seconds = Number(p.lastAccessTime?.seconds ?? 0);
    const lastAccess = new Date(seconds * 1000 + Math.floor((p.lastAccessTime?.nanos ?? 0) / 1e6));
    const identity = p.identity ?? '';
    if (now - lastAccess.getTime() > POLLED_WITHIN_MS || isDeadLocalWorker(identity)) continue;
    const role = parseIdentity(identity)?.role;
    live.push({ identity, lastAccess, longLived: role !== undefined && LONG_LIVED.has(role) });
  }
  return live;
}

/** The command that starts a long-lived worker, for messages: `up` on one machine, `worker` beside a cluster. */
export function startWorkerHint(embedded: boolean): string {
  return embedded
    ? '`scrape-etl up` (or `scrape-etl up --detach` to leave it running in the background)'
    : '`scrape-etl up` or `scrape-etl worker` (same TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and TEMPORAL_TASK_QUEUE)';
}

/** The warning to print when no long-lived worker polls the queue now, or undefined when one does (or the question fails). */
export async function noWorkerWarning(
  client: Client,
  namespace: string,
  taskQueue: string,
  opts: { embedded: boolean; what?: string } = { embedded: false },
): Promise<string | undefined> {
  try {
    // Another run's worker leaves when its run ends: it does not count.
    if ((await livePollers(client, namespace, taskQueue)).some((p) => p.longLived)) return undefined;
  } catch {
    // Describing the queue is a courtesy: a server that refuses it must not fail the start.
    return undefined;
  }
  return (
    `warning: no worker polls task queue '${taskQueue}' (namespace '${namespace}') now: ${opts.what ?? 'the run stays RUNNING until one does'}; ` +
    `start one with ${startWorkerHint(opts.embedded)}`
  );
}
