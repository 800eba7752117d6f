// Opening and closing DuckDB instances of a file in this process, so that a process never holds two at once.
//
// Why (issue #41): DuckDB's lock on a file is a POSIX record lock, which is per process: a second DuckDB instance on
// the same file in the same process is not refused. And closing an instance does not end it while anything still
// holds its client context: a streaming result that was not read to its end keeps the whole database alive, file
// handle, WAL and all, until JavaScript's garbage collector frees the result. A long-lived worker that closed the
// file and opened it again for its next session could so have two instances of one file; when the first was
// finally freed it checkpointed its stale state over the file. Committed rows vanished, or the file could no longer
// be read (test/integration/cli/cli-up-duckdb.test.ts reproduces it through `up`; test/fast/db/db-duckdb-instances.test.ts
// with DuckDB alone).
//
// So every instance of a destination file is opened and closed here. Closing checks, through /proc/self/fd, that
// DuckDB really let go of the file; when it did not, a garbage collection is forced (the only thing that frees such
// a result) and the file counts as still held until it is let go. Opening waits for that, and refuses to open a
// file this process still has open by other means, rather than risk a second instance.
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';

/** Files closed by this process that DuckDB has not let go of yet: resolves when it has. */
const releasing = new Map<string, Promise<void>>();

const FD_DIR = '/proc/self/fd';

/**
 * Whether this process has `file` (or its WAL) open, from /proc/self/fd; undefined where that is not available
 * (not Linux), and the guard then rests on the results being closed (export-reader.ts) alone.
 */
export function heldByThisProcess(file: string): boolean | undefined {
  let names: string[];
  try {
    names = fs.readdirSync(FD_DIR);
  } catch {
    return undefined;
  }
  let real: string;
  try {
    real = fs.realpathSync(file);
  } catch {
    return false; // no such file: nothing can hold it
  }
  const wal = `${real}.wal`;
  for (const n of names) {
    let target: string;
    try {
      target = fs.readlinkSync(path.join(FD_DIR, n));
    } catch {
      continue; // closed meanwhile
    }
    if (target === real || target === wal) return true;
  }
  return false;
}

let gcFunction: (() => void) | undefined;

/**
 * A full garbage collection. Node exposes `gc` only under --expose-gc, which the worker is not started with; the
 * flag can be set at run time, and a new context then has the function. Used only when a closed DuckDB instance is
 * still held, which no code path of the product should leave.
 */
export function collectGarbage(): void {
  if (!gcFunction) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (exposed) gcFunction = exposed;
    else {
      v8.setFlagsFromString('--expose-gc');
      gcFunction = vm.runInNewContext('gc') as () => void;
    }
  }
  gcFunction();
}

/** How long a closed instance may hold on before the process says so (it keeps waiting: opening again is worse). */
export const RELEASE_REPORT_MS = 5_000;
const RELEASE_POLL_MS = 50;

/**
 * Closes `connection` and `instance` of `file`. Returns undefined when DuckDB let go of the file; otherwise forces
 * garbage collections until it does, and until then this process does not open the file again (openInstance waits)
 * and the caller keeps its cross-process lock, so another process does not find DuckDB's own lock in its way
 * either. `report` hears once, after RELEASE_REPORT_MS, that the file is still held.
 */
export function closeInstance(
  file: string,
  instance: DuckDBInstance,
  connection: DuckDBConnection | undefined,
  report: (message: string) => void,
): Promise<void> | undefined {
  try {
    connection?.closeSync();
  } finally {
    instance.closeSync();
  }
  // Let go of now: said synchronously, so a process closing its files on exit releases their locks before it ends.
  if (heldByThisProcess(file) !== true) return undefined;
  const started = Date.now();
  const wait = (async () => {
    let reported = false;
    for (;;) {
      collectGarbage();
      // Finalizers of native objects run after the collection, on the event loop.
      await new Promise((r) => setTimeout(r, RELEASE_POLL_MS));
      if (heldByThisProcess(file) !== true) return;
      if (!reported && Date.now() - started >= RELEASE_REPORT_MS) {
        reported = true;
        report(
          `${file}: DuckDB still holds the file ${Math.round((Date.now() - started) / 1000)} s after this process closed it (a result of an earlier statement was not freed); it is not opened again, by this process or another, until DuckDB lets it go`,
        );
      }
    }
  })();
  releasing.set(file, wait);
  void wait.finally(() => {
    if (releasing.get(file) === wait) releasing.delete(file);
  });
  return wait;
}

/**
 * closeInstance, then `release` (the file's cross-process lock) once DuckDB has let go of the file: at once when it
 * has, so a process closing its files on exit releases their locks before it ends; also when closing throws.
 */
export function closeThenRelease(
  file: string,
  instance: DuckDBInstance,
  connection: DuckDBConnection | undefined,
  report: (message: string) => void,
  release: () => void,
): void {
  let closing: Promise<void> | undefined;
  try {
    closing = closeInstance(file, instance, connection, report);
  } catch (err) {
    release();
    throw err;
  }
  if (closing) void closing.then(release);
  else release();
}

/** How long opening waits for a file this process holds by means it did not close here (then it refuses). */
export const FOREIGN_HOLD_MS = 10_000;

/**
 * Waits until no instance of this process holds `file`, so the caller may open one. A file held although no close
 * here is pending (something of this process opened it by other means) is given FOREIGN_HOLD_MS, with garbage
 * collections, then refused: two instances of one file in one process is how it was damaged.
 */
export async function awaitNoInstance(file: string, holdMs = FOREIGN_HOLD_MS): Promise<void> {
  const pending = releasing.get(file);
  if (pending) await pending;
  if (heldByThisProcess(file) !== true) return;
  const deadline = Date.now() + holdMs;
  while (heldByThisProcess(file) === true) {
    if (Date.now() > deadline) {
      throw new Error(
        `${file} is already open in this process (pid ${process.pid}) outside scrape-etl's DuckDB sessions; opening it a second time in one process can overwrite committed rows, so it is not opened`,
      );
    }
    collectGarbage();
    await new Promise((r) => setTimeout(r, RELEASE_POLL_MS));
  }
}
