// One process at a time per DuckDB file. DuckDB itself refuses a second process outright ("Could not set lock on
// file"), even read-only, so scrape-etl takes its own lock first and *waits* instead of failing: in one process a
// promise queue per file, across processes a lock file `<db>.lock` created exclusively (O_EXCL) that holds the
// owner's record (pid, process start time, host; lib/lock-owner.ts). Node has no flock, so a lock whose holder is gone
// (same host: pid dead, or reused by another process) is taken over at once, one older than STALE_FOREIGN_MS
// (another host sharing the folder) too, and an empty or unreadable one (a holder that died mid-write, a full disk)
// after a bounded grace with a message. The wait ends at once on SIGINT/SIGTERM and leaves no marker behind. While it waits, the process says who it
// waits for, once and then every WAIT_REPORT_MS. It does not heartbeat a Temporal activity while waiting: a
// heartbeat without details would replace the details the activity resumes from (a results sync's next page).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { takeOver } from '../../lib/file-lock.js';
import {
  describeOwner,
  ownerState,
  ownRecord,
  parseOwner,
  signalWatch,
  unreadableLockGraceMs,
  type LockOwner,
} from '../../lib/lock-owner.js';
import { isProcessAlive } from '../../lib/process-alive.js';

export type { LockOwner };

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

function isStale(o: LockOwner): boolean {
  const state = ownerState(o);
  if (state === 'foreign') return Date.now() - Date.parse(o.since) > STALE_FOREIGN_MS;
  return state === 'gone';
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

/** What a waiting marker holds: who the waiting process found holding the file, and since when it waits. */
interface WaitNote {
  holder: string;
  waitingSince: string;
}

/**
 * Writes (or rewrites) this process's waiting marker with who holds the file. The marker tells the holder to hand
 * the file over; its content tells a `run` watching the pipeline why its run does not move (fileWaitNote).
 */
export function markWaiting(dbFile: string, holder: string, since: number): void {
  const note: WaitNote = { holder, waitingSince: new Date(since).toISOString() };
  fs.writeFileSync(markerPath(dbFile), JSON.stringify(note), { mode: 0o600 });
}

export function unmarkWaiting(dbFile: string): void {
  fs.rmSync(markerPath(dbFile), { force: true });
}

/**
 * Why a process of this host waits for the file, in one line, from the waiting markers of live processes (what a
 * `run` shows while its worker waits): undefined when nobody waits.
 */
export function fileWaitNote(dbFile: string): string | undefined {
  const lockPath = lockPathOf(dbFile);
  const prefix = `${path.basename(lockPath)}.waiting-${os.hostname()}-`;
  let names: string[];
  try {
    names = fs.readdirSync(path.dirname(lockPath));
  } catch {
    return undefined;
  }
  for (const f of names) {
    if (!f.startsWith(prefix)) continue;
    const pid = Number(f.slice(prefix.length));
    if (!Number.isInteger(pid) || !isProcessAlive(pid)) continue;
    try {
      const note = JSON.parse(fs.readFileSync(path.join(path.dirname(lockPath), f), 'utf8')) as Partial<WaitNote>;
      if (typeof note.holder !== 'string' || typeof note.waitingSince !== 'string') continue;
      // Stable while the wait lasts (no running count): a progress line that is not a terminal prints it once.
      return `the worker (pid ${pid}) waits since ${note.waitingSince.slice(11, 19)}Z for ${path.resolve(dbFile)}: ${note.holder} is using it (DuckDB allows one process per file)`;
    } catch {
      // written right now, or removed: the next look reads it
    }
  }
  return undefined;
}

/**
 * Whether another process has left a waiting marker for this file. A marker of a process of this host that is
 * gone (killed while it waited) is removed here: one left behind made every holder close the file after each
 * session, for good (runs 2.5x slower).
 */
export function otherProcessesWaiting(dbFile: string): boolean {
  const lockPath = lockPathOf(dbFile);
  const prefix = `${path.basename(lockPath)}.waiting-`;
  const own = path.basename(markerPath(dbFile));
  const host = os.hostname();
  let names: string[];
  try {
    names = fs.readdirSync(path.dirname(lockPath));
  } catch {
    return false;
  }
  let waiting = false;
  for (const f of names) {
    if (!f.startsWith(prefix) || f === own) continue;
    const rest = f.slice(prefix.length);
    const dash = rest.lastIndexOf('-');
    const pid = Number(rest.slice(dash + 1));
    if (rest.slice(0, dash) === host && Number.isInteger(pid) && pid > 0 && !isProcessAlive(pid)) {
      fs.rmSync(path.join(path.dirname(lockPath), f), { force: true });
      continue;
    }
    waiting = true;
  }
  return waiting;
}

/** Takes the cross-process lock of `dbFile`, waiting as long as another live process holds it. */
export async function acquireFileLock(dbFile: string, opts: { signal?: AbortSignal } = {}): Promise<() => void> {
  const lockPath = lockPathOf(dbFile);
  fs.mkdirSync(path.dirname(lockPath), { recursive: true });
  let reportedAt = 0;
  let marked = false;
  const watch = signalWatch(`the DuckDB file ${path.resolve(dbFile)}`, opts.signal);
  let unreadable: { text: string; since: number } | undefined;
  const waitingSince = Date.now();
  try {
    // Just closed the file for a waiting process: give it the first chance at the lock, or this process (whose next
    // session is already queued) would win the race every time and starve it.
    if (otherProcessesWaiting(dbFile)) {
      const until = Date.now() + HAND_OVER_MS;
      while (Date.now() < until && !fs.existsSync(lockPath) && !watch.aborted())
        await new Promise((r) => setTimeout(r, 10));
    }
    for (;;) {
      const stop = watch.aborted();
      if (stop) throw stop;
      try {
        fs.writeFileSync(lockPath, JSON.stringify(ownRecord()), { flag: 'wx', mode: 0o600 });
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      let text: string;
      try {
        text = fs.readFileSync(lockPath, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      const owner = parseOwner(text);
      if (owner && isStale(owner)) {
        takeOver(lockPath, text);
        continue;
      }
      const now = Date.now();
      if (!owner) {
        if (unreadable?.text !== text) unreadable = { text, since: now };
        else if (now - unreadable.since >= unreadableLockGraceMs()) {
          reporter(
            `${lockPath}: the lock file is ${text.length === 0 ? 'empty' : 'unreadable'} and nobody wrote it for ${Math.round(unreadableLockGraceMs() / 1000)} s (left by a process that died, or a full disk); taking it over`,
          );
          takeOver(lockPath, text);
          unreadable = undefined;
          continue;
        }
      } else unreadable = undefined;
      if (!marked || now - reportedAt >= WAIT_REPORT_MS) {
        const holder = owner ? describeOwner(owner) : `a lock file nobody has written yet (${lockPath})`;
        markWaiting(dbFile, holder, waitingSince);
        marked = true;
        if (now - reportedAt >= WAIT_REPORT_MS) {
          reportedAt = now;
          reporter(waitMessage(dbFile, holder));
        }
      }
      await Promise.race([new Promise((r) => setTimeout(r, POLL_MS + Math.random() * POLL_MS)), watch.promise]);
    }
  } finally {
    if (marked) unmarkWaiting(dbFile);
    watch.dispose();
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    let o: LockOwner | undefined;
    try {
      o = parseOwner(fs.readFileSync(lockPath, 'utf8'));
    } catch {
      o = undefined;
    }
    if (o && o.pid === process.pid && o.host === os.hostname()) fs.rmSync(lockPath, { force: true });
  };
}
