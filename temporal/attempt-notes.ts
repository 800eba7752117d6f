// Why a run's local activity keeps failing, where `run` can read it. A local activity (the plan that starts a run's
// row, the bookkeeping of lean runs: workflows/pipeline.ts) is retried inside the worker, and Temporal records none
// of its attempts: describe() lists no pending activity and no failure, so `run` showed `starting 0 rows` for
// minutes while every attempt failed with `database or disk is full` (issue #37). The worker's activity interceptor
// (temporal/worker.ts) writes the last failed attempt of a run's local activity to `<data folder>/attempts/`, and
// removes it when an attempt succeeds; `run` reads it for its waiting line. It reaches a `run` that shares the
// worker's data folder (its own worker, or `up` on the same machine); a worker elsewhere is not seen this way.
import fs from 'node:fs';
import path from 'node:path';

export interface AttemptNote {
  activity: string;
  attempt: number;
  /** The failure's message, first line. */
  reason: string;
  /** When the attempt failed (ISO 8601). */
  at: string;
}

const attemptsDir = (dataDir: string) => path.join(dataDir, 'attempts');
/** A workflow id as a file name: ids are the product's own (`<pipeline>--<time>-<hex>`), but a schedule's or a user's may hold anything. */
const noteFile = (dataDir: string, workflowId: string) =>
  path.join(attemptsDir(dataDir), `${encodeURIComponent(workflowId)}.json`);

/** Records a failed attempt. Never throws: a note that cannot be written only leaves `run` less informed. */
export function recordAttemptFailure(dataDir: string, workflowId: string, note: AttemptNote): void {
  try {
    fs.mkdirSync(attemptsDir(dataDir), { recursive: true, mode: 0o700 });
    const file = noteFile(dataDir, workflowId);
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(note), { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch {
    // a full disk (the very failure being noted, sometimes) or a read-only data folder
  }
}

/** Forgets the run's failed attempt once one succeeded. */
export function clearAttemptFailure(dataDir: string, workflowId: string): void {
  try {
    fs.rmSync(noteFile(dataDir, workflowId), { force: true });
  } catch {
    // nothing to forget
  }
}

/** The last failed attempt of the run's local activity, if one failed within `maxAgeMs` and none succeeded since. */
export function readAttemptFailure(
  dataDir: string,
  workflowId: string,
  maxAgeMs = 120_000,
  now = Date.now(),
): AttemptNote | undefined {
  try {
    const note = JSON.parse(fs.readFileSync(noteFile(dataDir, workflowId), 'utf8')) as Partial<AttemptNote>;
    if (
      typeof note.activity !== 'string' ||
      typeof note.attempt !== 'number' ||
      typeof note.reason !== 'string' ||
      typeof note.at !== 'string'
    )
      return undefined;
    if (now - Date.parse(note.at) > maxAgeMs) return undefined;
    return note as AttemptNote;
  } catch {
    return undefined;
  }
}

/** `planPipelineRun attempt 3 failed (04:58:10Z): database or disk is full`, the line `run` shows. */
export function describeAttemptFailure(n: AttemptNote): string {
  return `${n.activity} attempt ${n.attempt} failed (${n.at.slice(11, 19)}Z): ${n.reason}`;
}
