// One process at a time per DuckDB file. DuckDB itself refuses a second process outright ("Could not set lock on
// file"), even read-only, so scrape-etl takes its own lock first and *waits* instead of failing: in one process a
// promise queue per file, across processes a lock file `<db>.lock` created exclusively (O_EXCL) that holds the
// owner's pid, host and start time. Node has no flock, so a lock whose pid is gone (same host) or that is older
// than STALE_FOREIGN_MS (another host sharing the folder) is taken over. While it waits, the process says who it
// waits for, once and then every WAIT_REPORT_MS. It does not heartbeat a Temporal activity while waiting: a
// heartbeat without details would replace the details the activity resumes from (a results sync's next page).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isProcessAlive } from '../../lib/process-alive.js';

export interface LockOwner {
  pid: number;
  host: string;
  since: string;
}

export const WAIT_REPORT_MS = 10_000;
/** A lock of another host cannot be checked for liveness; past this age it is treated as left behind by a crash. */
export const STALE_FOREIGN_MS = 10 * 60_000;
const POLL_MS = 25;
/** How long a process that just released the file waits for a waiting process to take it. */
const HAND_OVER_MS = 250;

/** Called with the wait message (default: one line on stderr, which is where worker logs go). */
export type WaitReporter = (message: string) => void;

let reporter: WaitReporter = (message) => process.stderr.write(`scrape-etl: ${message}\n`);
/** Replaces where wait messages go (the worker's logger, a test). Returns the previous reporter. */
export function setWaitReporter(r: WaitReporter): WaitReporter {
  const previous = reporter;
  reporter = r;
  return previous;
}

export function lockPathOf(dbFile: string): string {
  return `${path.resolve(dbFile)}.lock`;
}

function readOwner(lockPath: string): LockOwner | undefined {
  try {
    const o = JSON.parse(fs.readFileSync(lockPath, 'utf8')) as Partial<LockOwner>;
    if (typeof o.pid === 'number' && typeof o.host === 'string' && typeof o.since === 'string') return o as LockOwner;
  } catch {
    // being written, or removed meanwhile: treat as held and look again
  }
  return undefined;
}

function isStale(o: LockOwner): boolean {
  if (o.host === os.hostname()) return o.pid !== process.pid && !isProcessAlive(o.pid);
  return Date.now() - Date.parse(o.since) > STALE_FOREIGN_MS;
}

function tryCreate(lockPath: string): boolean {
  const owner: LockOwner = { pid: process.pid, host: os.hostname(), since: new Date().toISOString() };
  try {
    fs.writeFileSync(lockPath, JSON.stringify(owner), { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

function describeOwner(o: LockOwner | undefined): string {
  if (!o) return 'another scrape-etl process';
  return `another scrape-etl process (pid ${o.pid} on ${o.host}, since ${o.since})`;
}

/** `who`: the holder as describeOwner words it, or what else holds the file. */
export function waitMessage(dbFile: string, who: string): string {
  return `waiting for ${path.resolve(dbFile)}: ${who} is using it; DuckDB allows one process per file, so loads into it run one at a time`;
}

export function reportWait(message: string): void {
  reporter(message);
}

/**
 * A process waiting for the file leaves a marker beside it, `<db>.lock.waiting-<host>-<pid>`, so the holder knows
 * to close the file after its current session instead of keeping it open for its own next one.
 */
function markerPath(dbFile: string): string {
  return `${lockPathOf(dbFile)}.waiting-${os.hostname()}-${process.pid}`;
}

/** Whether another process has left a waiting marker for this file. */
export function otherProcessesWaiting(dbFile: string): boolean {
  const lockPath = lockPathOf(dbFile);
  const prefix = `${path.basename(lockPath)}.waiting-`;
  const own = path.basename(markerPath(dbFile));
  try {
    return fs.readdirSync(path.dirname(lockPath)).some((f) => f.startsWith(prefix) && f !== own);
  } catch {
    return false;
  }
}

/** Takes the cross-process lock of `dbFile`, waiting as long as another live process holds it. */
export async function acquireFileLock(dbFile: string): Promise<() => void> {
  const lockPath = lockPathOf(dbFile);
  fs.mkdirSync(path.dirname(lockPath), { recursive: true });
  let reportedAt = 0;
  let marked = false;
  // Just closed the file for a waiting process: give it the first chance at the lock, or this process (whose next
  // session is already queued) would win the race every time and starve it.
  if (otherProcessesWaiting(dbFile)) {
    const until = Date.now() + HAND_OVER_MS;
    while (Date.now() < until && !fs.existsSync(lockPath)) await new Promise((r) => setTimeout(r, 10));
  }
  try {
    for (;;) {
      if (tryCreate(lockPath)) break;
      if (!marked) {
        fs.writeFileSync(markerPath(dbFile), '');
        marked = true;
      }
      const owner = readOwner(lockPath);
      if (owner && isStale(owner)) {
        // Two waiters may both find it stale; rename is atomic, so only one removes the stale file itself.
        const aside = `${lockPath}.stale-${process.pid}`;
        try {
          fs.renameSync(lockPath, aside);
          const moved = readOwner(aside);
          // If the file renamed away is no longer the stale one, someone took the lock meanwhile: put it back.
          if (moved && (moved.pid !== owner.pid || moved.since !== owner.since)) fs.renameSync(aside, lockPath);
          else fs.rmSync(aside, { force: true });
        } catch {
          // someone else cleaned it up
        }
        continue;
      }
      const now = Date.now();
      if (now - reportedAt >= WAIT_REPORT_MS) {
        reportedAt = now;
        reporter(waitMessage(dbFile, describeOwner(owner)));
      }
      await new Promise((r) => setTimeout(r, POLL_MS + Math.random() * POLL_MS));
    }
  } finally {
    if (marked) fs.rmSync(markerPath(dbFile), { force: true });
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const o = readOwner(lockPath);
    if (o && o.pid === process.pid && o.host === os.hostname()) fs.rmSync(lockPath, { force: true });
  };
}

