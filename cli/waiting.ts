// Why a run is not moving, as `run`'s progress says it: the last failure of an activity Temporal is retrying, in
// one line, with the attempt that comes next and when (`waiting: service unreachable (ECONNREFUSED), retry 4 in
// 30s`). Read from the describe() answer `run` already asks for at each look at the run (pending activities carry
// lastFailure, attempt and nextAttemptScheduleTime), so it costs no extra call. Before, an async run whose
// service was down showed `creating 0 rows` for minutes while Temporal held ECONNREFUSED.
import type { temporal } from '@temporalio/proto';
import { isDeadLocalWorker } from '../lib/process-alive.js';

export interface WaitingNote {
  /** One line: why the last attempt failed, or (attempt 0) why the attempt running now does not move. */
  reason: string;
  /** The attempt Temporal makes next; 0 for a wait inside the attempt running now (localWaitNote). */
  attempt: number;
  /** When it makes it (null: now, or unknown). */
  nextAttemptAt: number | null;
  /** An expected wait (a scraping run still running), not a failure. */
  expected: boolean;
}

const NETWORK_CODES =
  /\b(ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|EAI_AGAIN|EPIPE|UND_ERR_[A-Z_]+)\b/;

/** The innermost message of a failure chain (an activity's own error is the deepest cause). */
function deepest(
  f: temporal.api.failure.v1.IFailure | null | undefined,
): { message: string; type: string | undefined } | undefined {
  if (!f) return undefined;
  let cur = f;
  let type = f.applicationFailureInfo?.type ?? undefined;
  while (cur.cause && cur.cause.message) {
    cur = cur.cause;
    type = cur.applicationFailureInfo?.type ?? type;
  }
  return { message: cur.message ?? f.message ?? '', type };
}

/**
 * A failure message as one short line a person reads: the network code or HTTP status first, when there is one.
 * `subject` is who failed to answer: the scraping service, or (for the alerts' activity) a webhook.
 */
export function oneLineReason(message: string, type?: string, subject = 'service'): string {
  if (type === 'RunStillRunning') return message.split('\n')[0]!.slice(0, 120);
  const code = NETWORK_CODES.exec(message)?.[1];
  if (code) {
    // The client names the address it used (client/client.ts): the wrong address is the usual cause, so it is said.
    const at = subject === 'service' ? /\(service at (\S+), SCRAPER_BASE_URL\)/.exec(message)?.[1] : undefined;
    return `${subject} unreachable (${code})${at ? ` at ${at} (SCRAPER_BASE_URL)` : ''}`;
  }
  if (/no answer within|timed out|timeout/i.test(message) && (subject !== 'service' || /\b(GET|POST) \//.test(message)))
    return `${subject} did not answer in time`;
  const status = /\b(?:HTTP|status) (\d{3})\b/.exec(message)?.[1];
  if (status) return `${subject} answered HTTP ${status}`;
  const first = message.split('\n')[0]!.trim();
  return first.length > 120 ? `${first.slice(0, 120)}…` : first;
}

function tsMs(ts: { seconds?: unknown; nanos?: number | null } | null | undefined): number | null {
  if (!ts || ts.seconds === undefined || ts.seconds === null) return null;
  const s = ts.seconds as number | { toNumber(): number };
  return (typeof s === 'object' ? s.toNumber() : Number(s)) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6);
}

/** A clock time as the line shows it: local, to the second (`12:04:10`). */
export function clockTime(ms: number): string {
  return new Date(ms).toTimeString().slice(0, 8);
}

// PendingActivityState STARTED, and TimeoutType HEARTBEAT (temporal/api/enums/v1), by value: this module loads no SDK.
const STARTED = 2;
const HEARTBEAT_TIMEOUT = 4;
/** Past 80% of its heartbeat timeout (the SDK's throttle) and this margin (or a tenth of the timeout), a live worker has heartbeated. */
const SILENCE_MARGIN_MS = 5_000;

/**
 * An attempt running on a worker that is gone: the server hands it to another worker only once its heartbeat
 * timeout passes since the last heartbeat, so the line says so and when (`the previous worker (pid 4242) stopped;
 * taken over by 12:04:10`). A worker of this machine whose process is gone is known dead; any other worker is
 * suspected once it has been silent past the SDK's heartbeat throttle.
 */
export function deadWorkerOf(
  p: temporal.api.workflow.v1.IPendingActivityInfo,
  now = Date.now(),
): WaitingNote | undefined {
  if (p.state !== STARTED) return undefined;
  const identity = p.lastWorkerIdentity ?? '';
  // A Duration has a Timestamp's shape.
  const timeoutMs = tsMs(p.activityOptions?.heartbeatTimeout as never);
  const since = tsMs(p.lastHeartbeatTime as never) ?? tsMs(p.lastStartedTime as never);
  const takeoverAt = timeoutMs !== null && timeoutMs > 0 && since !== null ? since + timeoutMs : null;
  const until =
    takeoverAt === null ? 'taken over once its heartbeat timeout passes' : `taken over by ${clockTime(takeoverAt)}`;
  if (identity && isDeadLocalWorker(identity)) {
    return {
      reason: `the previous worker (pid ${identity.split('@')[0]}) stopped; ${until}`,
      attempt: 0,
      nextAttemptAt: takeoverAt,
      expected: false,
    };
  }
  const timeout = takeoverAt === null || since === null ? 0 : takeoverAt - since;
  if (
    takeoverAt === null ||
    since === null ||
    now - since <= 0.8 * timeout + Math.max(SILENCE_MARGIN_MS, 0.1 * timeout)
  )
    return undefined;
  return {
    reason: `no heartbeat from worker ${identity || '(unknown)'} since ${clockTime(since)}; ${until} if it stays silent`,
    attempt: 0,
    nextAttemptAt: takeoverAt,
    expected: false,
  };
}

/**
 * The pending activity worth saying something about: one whose worker is gone (deadWorkerOf), else one being
 * retried after a failure (the latest to retry next).
 */
export function waitingOf(
  pending: readonly temporal.api.workflow.v1.IPendingActivityInfo[] | null | undefined,
  now = Date.now(),
): WaitingNote | undefined {
  let best: WaitingNote | undefined;
  for (const p of pending ?? []) {
    const dead = deadWorkerOf(p, now);
    if (dead) return dead;
  }
  for (const p of pending ?? []) {
    const attempt = p.attempt ?? 1;
    const failure = deepest(p.lastFailure);
    if (attempt < 2 || !failure || !failure.message) continue;
    const workerLost = p.lastFailure?.timeoutFailureInfo?.timeoutType === HEARTBEAT_TIMEOUT;
    // A lost worker's attempt that another worker runs now: taken over, nothing to wait for.
    if (workerLost && p.state === STARTED) continue;
    if (workerLost) failure.message = 'the previous worker stopped (no heartbeat within its timeout)';
    const subject = p.activityType?.name === 'notifyPipelineRun' ? 'alert webhook' : 'service';
    const note: WaitingNote = {
      reason: oneLineReason(failure.message, failure.type, subject),
      attempt,
      nextAttemptAt: tsMs(p.nextAttemptScheduleTime as never),
      expected: failure.type === 'RunStillRunning',
    };
    // A real failure is said before an expected wait; among equals, the one retrying first.
    if (
      !best ||
      (best.expected && !note.expected) ||
      (best.expected === note.expected && (note.nextAttemptAt ?? 0) < (best.nextAttemptAt ?? 0))
    )
      best = note;
  }
  return best;
}

/**
 * A wait the worker is in right now, seen beside the destination rather than in Temporal (a DuckDB file another
 * process holds: destinations/index.ts destinationWaitNote). No attempt failed, so it carries no retry.
 */
export function localWaitNote(reason: string | undefined): WaitingNote | undefined {
  return reason === undefined ? undefined : { reason, attempt: 0, nextAttemptAt: null, expected: false };
}

/** `waiting: <reason>, retry <n> in <s>s` (or `next look` for an expected wait; `waiting: <reason>` for a local one). */
export function describeWaiting(w: WaitingNote, now = Date.now()): string {
  if (w.attempt === 0) return `waiting: ${w.reason}`;
  const inS = w.nextAttemptAt === null ? null : Math.max(0, Math.round((w.nextAttemptAt - now) / 1000));
  const when = inS === null || inS === 0 ? 'now' : `in ${inS}s`;
  return w.expected ? `${w.reason}, next look ${when}` : `waiting: ${w.reason}, retry ${w.attempt} ${when}`;
}
