// A lock between processes sharing a folder: a file created exclusively (O_EXCL), holding its owner's record (pid,
// process start time, host; lib/lock-owner.ts). Serialises the embedded dev server's start and stop, and the start
// of a pipeline's run (two `run`s started together must not start two workflows). A lock whose holder is gone (its
// pid dead, or reused by another process) is taken over at once; an empty or unreadable one (its holder died between
// creating and writing it, or the disk was full) after a bounded grace, with a message. The wait ends at once on
// SIGINT/SIGTERM or an abort signal.
import fs from 'node:fs';
import {
  describeOwner,
  isOwnRecord,
  ownerState,
  ownRecord,
  parseOwner,
  signalWatch,
  unreadableLockGraceMs,
} from './lock-owner.js';

export interface FileLockOptions {
  /** Gives up after this long with an error naming the holder (default 120 s). */
  timeoutMs?: number;
  signal?: AbortSignal | undefined;
  /** Where the takeover of an unreadable lock is reported (default stderr). */
  report?: (message: string) => void;
}

/** Takes `lockFile` (waiting as above) and returns its release. `what` names the lock in messages. */
export async function acquireLockFile(lockFile: string, what: string, opts: FileLockOptions = {}): Promise<() => void> {
  const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
  const report = opts.report ?? ((m: string) => process.stderr.write(`scrape-etl: ${m}\n`));
  const watch = signalWatch(what, opts.signal);
  // An unreadable file is judged by its content staying the same for the grace period, not by its age: a file
  // created long ago and rewritten just now is a live holder's.
  let unreadable: { text: string; since: number } | undefined;
  try {
    for (;;) {
      const stop = watch.aborted();
      if (stop) throw stop;
      try {
        fs.writeFileSync(lockFile, JSON.stringify(ownRecord()), { flag: 'wx', mode: 0o600 });
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      let text: string;
      try {
        text = fs.readFileSync(lockFile, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // released meanwhile
        throw err;
      }
      const owner = parseOwner(text);
      if (owner && ownerState(owner) === 'gone') {
        takeOver(lockFile, text);
        continue;
      }
      if (!owner) {
        if (unreadable?.text !== text) unreadable = { text, since: Date.now() };
        else if (Date.now() - unreadable.since >= unreadableLockGraceMs()) {
          report(
            `${lockFile}: the lock file is ${text.length === 0 ? 'empty' : 'unreadable'} and nobody wrote it for ${Math.round(unreadableLockGraceMs() / 1000)} s (left by a process that died, or a full disk); taking it over`,
          );
          takeOver(lockFile, text);
          unreadable = undefined;
          continue;
        }
      } else unreadable = undefined;
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what} ${lockFile} (held by ${describeOwner(owner)})`);
      await Promise.race([new Promise((r) => setTimeout(r, 100)), watch.promise]);
    }
  } finally {
    watch.dispose();
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    let mine = false;
    try {
      mine = isOwnRecord(parseOwner(fs.readFileSync(lockFile, 'utf8')));
    } catch {
      mine = false;
    }
    if (mine) fs.rmSync(lockFile, { force: true });
  };
}

/**
 * Removes a lock file found stale, unless someone replaced it meanwhile: two waiters may both judge it stale, and
 * rename is atomic, so only one moves it aside; a file moved aside that is no longer the stale one goes back.
 */
export function takeOver(lockFile: string, staleText: string): void {
  const aside = `${lockFile}.stale-${process.pid}`;
  try {
    fs.renameSync(lockFile, aside);
  } catch {
    return; // someone else moved it
  }
  let moved = '';
  try {
    moved = fs.readFileSync(aside, 'utf8');
  } catch {
    moved = staleText;
  }
  if (moved !== staleText) {
    try {
      fs.linkSync(aside, lockFile); // fails if another process has created a lock since: theirs stands
    } catch {
      // theirs stands
    }
  }
  fs.rmSync(aside, { force: true });
}

/** Runs `fn` holding `lockFile`. */
export async function withFileLock<T>(
  lockFile: string,
  what: string,
  fn: () => Promise<T>,
  opts: number | FileLockOptions = {},
): Promise<T> {
  const release = await acquireLockFile(lockFile, what, typeof opts === 'number' ? { timeoutMs: opts } : opts);
  try {
    return await fn();
  } finally {
    release();
  }
}
