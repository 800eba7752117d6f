// What scrape-etl creates is its user's alone: the data folder (0700), the embedded server's state (temporal.db,
// its log), databases, exports, logs and key files (0600). A process-wide umask 077 covers every file the tool and
// the processes it spawns create; files from older versions are narrowed where the tool meets them (the embedded
// server's folder at its start). SCRAPE_ETL_UMASK (octal, e.g. 027) widens it for folders shared on purpose.
import fs from 'node:fs';
import { defaultOf } from '../settings/definition.js';
import { settingsFor } from '../settings/process.js';
import type { Env } from '../settings/settings.js';

export const PRIVATE_UMASK: number = defaultOf('umask');

/**
 * The umask the commands run under: SCRAPE_ETL_UMASK when set and valid octal, else 077. It may share reading,
 * never writing: a folder the group could write would be refused at the next command (lib/owned-path.ts).
 */
export function wantedUmask(env?: Env): number {
  return settingsFor(env).umask;
}

/** Sets the process's umask (main thread only; worker threads share it). */
export function applyUmask(env?: Env): void {
  process.umask(wantedUmask(env));
}

/** Runs `fn` (a spawn) under the private umask, so the child's files are private whatever this process's is. */
export function withPrivateUmask<T>(fn: () => T, env?: Env): T {
  const previous = process.umask(wantedUmask(env));
  try {
    return fn();
  } finally {
    process.umask(previous);
  }
}

/** Creates `dir` 0700, and narrows an existing one this user owns to 0700. */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  narrow(dir, 0o700);
}

/** Narrows an existing file this user owns to 0600 (a temporal.db made world-readable by an older version). */
export function narrowToOwner(file: string): void {
  narrow(file, 0o600);
}

function narrow(p: string, mode: number): void {
  try {
    const st = fs.statSync(p);
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return;
    if ((st.mode & 0o777 & ~mode) !== 0) fs.chmodSync(p, st.mode & 0o777 & mode);
  } catch {
    // missing: created private later
  }
}
