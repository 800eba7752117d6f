// Who holds a lock file, and whether that holder still exists. A lock file holds an owner record (pid, the
// process's start time, host, since); a pid alone is not enough: after a crash and a reboot (or a long uptime) the
// pid is reused by an unrelated live process, and a lock naming it was honoured forever. The start time tells the
// original process from a later one with the same pid.
import fs from 'node:fs';
import os from 'node:os';
import { isProcessAlive } from './process-alive.js';
import { settingsFor } from '../settings/process.js';
import type { Env } from '../settings/settings.js';

export interface LockOwner {
  pid: number;
  host: string;
  /** When the lock was taken (ISO 8601). */
  since: string;
  /** The holder process's start time as the OS gives it (Linux: /proc/<pid>/stat field 22); absent elsewhere. */
  started?: string;
}

/** A process's start time (clock ticks since boot, as text) on Linux; undefined where /proc is not there. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may itself hold spaces and parentheses: count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19]; // field 22 overall: fields[0] here is field 3
  } catch {
    return undefined;
  }
}

/** A process's command line as one line (Linux: /proc/<pid>/cmdline), shortened; undefined where it cannot be read. */
export function processCommand(pid: number): string | undefined {
  try {
    const raw = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    // One line whatever the arguments hold (a `-e` script has newlines).
    const line = raw.split('\0').filter(Boolean).join(' ').replace(/\s+/g, ' ').trim();
    if (!line) return undefined;
    return line.length > 100 ? `${line.slice(0, 100)}…` : line;
  } catch {
    return undefined;
  }
}

/** When a process started (Linux: its start tick after boot, /proc/stat's btime and the clock's 100 ticks a second). */
export function processStartedAt(pid: number): Date | undefined {
  const ticks = processStartTime(pid);
  if (ticks === undefined) return undefined;
  try {
    const btime = /^btime (\d+)$/m.exec(fs.readFileSync('/proc/stat', 'utf8'))?.[1];
    if (!btime) return undefined;
    // USER_HZ is 100 on every Linux ABI Node runs on.
    return new Date((Number(btime) + Number(ticks) / 100) * 1000);
  } catch {
    return undefined;
  }
}

/** Whether a command line is a scrape-etl process (the command, or node running its entry point or a test of it). */
export function isScrapeEtlCommand(command: string): boolean {
  return /scrape-etl|[/\\]dist[/\\]cli[/\\]main\.js|vitest/.test(command);
}

/** `python3 -c … (pid 123, running since 2026-11-29T04:00:00Z)`: a process as a person can find it with ps. */
export function describeProcess(pid: number): string {
  const command = processCommand(pid);
  const started = processStartedAt(pid);
  return `${command ?? 'a process'} (pid ${pid}${started ? `, running since ${started.toISOString().slice(0, 19)}Z` : ''})`;
}

export function ownRecord(): LockOwner {
  const started = processStartTime(process.pid);
  return { pid: process.pid, host: os.hostname(), since: new Date().toISOString(), ...(started ? { started } : {}) };
}

/** The owner record in a lock file's text; undefined for an empty or garbled file (or the bare pid older versions wrote). */
export function parseOwner(text: string): LockOwner | undefined {
  try {
    const o = JSON.parse(text) as Partial<LockOwner>;
    if (
      typeof o.pid === 'number' &&
      Number.isInteger(o.pid) &&
      o.pid > 0 &&
      typeof o.host === 'string' &&
      typeof o.since === 'string'
    ) {
      return {
        pid: o.pid,
        host: o.host,
        since: o.since,
        ...(typeof o.started === 'string' ? { started: o.started } : {}),
      };
    }
  } catch {
    // not JSON
  }
  // Versions before the record wrote the bare pid: read it as a record without a start time.
  if (/^\d+$/.test(text.trim()))
    return { pid: Number(text.trim()), host: os.hostname(), since: new Date(0).toISOString() };
  return undefined;
}

export function isOwnRecord(o: LockOwner | undefined): boolean {
  return o !== undefined && o.pid === process.pid && o.host === os.hostname();
}

/**
 * 'alive': the holder runs (same host: its pid lives and, when recorded, has the recorded start time); 'gone': it
 * does not; 'foreign': another host's, which cannot be checked from here.
 */
export function ownerState(o: LockOwner): 'alive' | 'gone' | 'foreign' {
  if (o.host !== os.hostname()) return 'foreign';
  if (o.pid === process.pid) return 'alive';
  if (!isProcessAlive(o.pid)) return 'gone';
  if (o.started !== undefined) {
    const now = processStartTime(o.pid);
    if (now !== undefined && now !== o.started) return 'gone'; // the pid now belongs to another process
    return 'alive';
  }
  // No start time (the bare pid older versions wrote, or a record without it): the pid alone proves nothing after a
  // reboot or a long uptime. The holder is taken for alive only while its pid runs scrape-etl.
  const command = processCommand(o.pid);
  if (command !== undefined && !isScrapeEtlCommand(command)) return 'gone';
  return 'alive';
}

/** The holder in words: its pid, host, since when, and on this host its command line, as `ps` would show it. */
export function describeOwner(o: LockOwner | undefined): string {
  if (!o) return 'another scrape-etl process';
  const command = o.host === os.hostname() ? processCommand(o.pid) : undefined;
  return `another scrape-etl process (pid ${o.pid} on ${o.host}, since ${o.since}${command ? `: ${command}` : ''})`;
}

/**
 * How long an empty or unreadable lock file is left alone before it is taken over: a holder writes its record right
 * after creating the file, so a file that stays empty this long was left by a process that died in between (or by
 * a full disk). SCRAPE_ETL_LOCK_UNREADABLE_MS, default 10 s.
 */
export function unreadableLockGraceMs(env?: Env): number {
  return settingsFor(env).lockUnreadableMs;
}

/**
 * Rejects with an error when SIGINT or SIGTERM arrives, for waits that must end at once on a signal. While a wait
 * runs it listens to both; a listener suppresses Node's default exit, so when nothing else in the process handles
 * the signal (a plain command) the signal is raised again after the wait has cleaned up, and the process ends as it
 * would have. Where something else handles it (a `run`'s trap, the Temporal worker's shutdown), that goes on.
 */
export class SignalDuringWait extends Error {
  constructor(
    readonly signal: NodeJS.Signals,
    what: string,
  ) {
    super(`${signal === 'SIGINT' ? 'interrupted' : 'terminated'} while waiting for ${what}`);
    this.name = 'SignalDuringWait';
  }
}

export function signalWatch(
  what: string,
  extra?: AbortSignal,
): { aborted(): Error | undefined; promise: Promise<never>; dispose(): void } {
  let caught: Error | undefined;
  let fail: (e: Error) => void = () => {};
  const promise = new Promise<never>((_, reject) => {
    fail = reject;
  });
  promise.catch(() => {});
  const handlers = new Map<NodeJS.Signals, () => void>();
  const others = new Map<NodeJS.Signals, number>();
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    others.set(sig, process.listenerCount(sig));
    const h = () => {
      caught ??= new SignalDuringWait(sig, what);
      fail(caught);
    };
    handlers.set(sig, h);
    process.on(sig, h);
  }
  const onAbort = () => {
    caught ??= Object.assign(new Error(`stopped while waiting for ${what}`), { name: 'AbortError' });
    fail(caught);
  };
  if (extra?.aborted) onAbort();
  extra?.addEventListener('abort', onAbort, { once: true });
  return {
    aborted: () => caught,
    promise,
    dispose() {
      for (const [sig, h] of handlers) process.off(sig, h);
      extra?.removeEventListener('abort', onAbort);
      // Nobody else would have handled it: end the process the way the signal would have without our listener.
      if (
        caught instanceof SignalDuringWait &&
        (others.get(caught.signal) ?? 0) === 0 &&
        process.listenerCount(caught.signal) === 0
      ) {
        process.kill(process.pid, caught.signal);
      }
    },
  };
}
