// Writes a file so that readers only ever see the complete file under its final name: the data goes to a
// `.partial` file in the same directory (same file system, so rename is atomic), is fsynced, then renamed, and the
// directory is fsynced so the rename survives a power loss.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { open, readdir, rename, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { isProcessAlive } from '../lib/process-alive.js';

// .<final name>~<host>~<pid>~<random>.partial — host and pid let a later export tell an abandoned file from one
// that another live export is still writing.
const PARTIAL = /^\.(.+)~([^~]+)~(\d+)~([0-9a-f]+)\.partial$/;

function safeHost(): string {
  return hostname().replace(/[^A-Za-z0-9.-]/g, '_') || 'host';
}

export function partialPathFor(finalPath: string): string {
  return join(
    dirname(finalPath),
    `.${basename(finalPath)}~${safeHost()}~${process.pid}~${randomBytes(4).toString('hex')}.partial`,
  );
}

export async function fsyncPath(path: string): Promise<void> {
  const fh = await open(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Runs `write(tempPath)`, then makes its output durable and visible under `finalPath` in one rename. On any
 * failure the temporary file is removed and the final name is left as it was.
 */
export async function writeAtomically<T>(finalPath: string, write: (tempPath: string) => Promise<T>): Promise<T> {
  const temp = partialPathFor(finalPath);
  const forget = trackPartial(temp);
  try {
    const result = await write(temp);
    await fsyncPath(temp);
    await rename(temp, finalPath);
    await fsyncPath(dirname(finalPath));
    return result;
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  } finally {
    forget();
  }
}

// The `.partial` files being written by this process. Ctrl-C or SIGTERM of an export ended the process before its
// catch could run, leaving a hidden file of up to the whole export's size that only a later export in
// the same folder swept. While any is open in a process where nothing else handles the signal (a plain `export`), a
// signal removes them first, then is raised again so the process ends as it would have.
const openPartials = new Set<string>();
const onSignal = (sig: NodeJS.Signals) => {
  // Someone else handles it (a `run`'s trap, the worker's shutdown): the write goes on or is cancelled, and its own
  // catch removes the file.
  if (process.listenerCount(sig) > 1) return;
  for (const f of openPartials) rmSync(f, { force: true });
  openPartials.clear();
  detach();
  process.kill(process.pid, sig);
};
const handlers = { SIGINT: () => onSignal('SIGINT'), SIGTERM: () => onSignal('SIGTERM') };
let attached = false;

function detach(): void {
  if (!attached) return;
  attached = false;
  process.off('SIGINT', handlers.SIGINT);
  process.off('SIGTERM', handlers.SIGTERM);
}

function trackPartial(file: string): () => void {
  // Signals reach the main thread only; an export thread's files are the main thread's to track.
  if (!isMainThread) return () => {};
  openPartials.add(file);
  if (!attached) {
    attached = true;
    process.on('SIGINT', handlers.SIGINT);
    process.on('SIGTERM', handlers.SIGTERM);
  }
  return () => {
    openPartials.delete(file);
    if (openPartials.size === 0) detach();
  };
}

/**
 * Removes `.partial` files left in `dir` by exports on this host that died mid-write (killed, crashed, power
 * loss). Files of live processes and of other hosts sharing the directory are left alone. Returns what it removed.
 */
export async function removeAbandonedPartials(dir: string): Promise<string[]> {
  const host = safeHost();
  const removed: string[] = [];
  for (const name of await readdir(dir)) {
    const m = PARTIAL.exec(name);
    if (!m || m[2] !== host) continue;
    const pid = Number(m[3]);
    if (pid === process.pid || isProcessAlive(pid)) continue;
    // recursive: a Parquet export's spill folder is named like its partial file (formats/parquet.ts).
    await rm(join(dir, name), { force: true, recursive: true });
    removed.push(name);
  }
  return removed;
}
