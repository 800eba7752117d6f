// A DuckDB destination file. DuckDB lets one process open a file at a time, so the file is never held for long:
// every transaction or read runs in a *session* that takes the file's lock (db/duckdb/file-lock.ts) and opens
// the file. Sessions queued in the same process reuse the open file (one open per burst instead of one per load,
// each open costly), and an idle file stays open for LINGER_MS, unless another process is waiting: then the file is
// closed and the lock released after the current session, and the waiting process gets it next. @duckdb/node-api is imported lazily so SQLite and Postgres users never load it.
import fs from 'node:fs';
import path from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { DuckDatabase } from '../contract.js';
import {
  acquireFileLock,
  markWaiting,
  otherProcessesWaiting,
  reportWait,
  unmarkWaiting,
  WAIT_REPORT_MS,
  waitMessage,
} from './file-lock.js';
import { describeProcess } from '../../lib/lock-owner.js';
import { awaitNoInstance, closeInstance, closeThenRelease } from './instances.js';
import { DuckDBEngineError, engineErrorKind } from './engine-errors.js';
import { baselineDdl, DUCKDB_SCHEMA_VERSION, SCHEMA_VERSION_TABLE, stepsAfter } from './ddl.js';
import { duckTransaction, forgetStatements } from './tx.js';
import { olderFormat, removeStaleCopy, rewriteInPlace } from './rewrite-format.js';
// The adapter this engine's handles carry (read at run time only, so the import cycle with index.ts is harmless).
import { duckdbDestination } from './index.js';
import { blockCounts, needsCompaction } from './compact.js';
import { CHECKPOINT_THRESHOLD, MEMORY_LIMIT, withMemoryLimitLifted } from './instance-settings.js';

interface OpenFile {
  instance: DuckDBInstance;
  connection: DuckDBConnection;
  release: () => void;
}

interface FileState {
  queue: Promise<unknown>;
  /** Sessions queued or running in this process. */
  pending: number;
  open?: OpenFile | undefined;
  /** Closes the idle file after LINGER_MS unless a session comes first. */
  linger?: NodeJS.Timeout | undefined;
  /** Set by an engine error (engine-errors.ts): sessions fail with it at once instead of using the file. */
  unusable?: Unusable | undefined;
  /** A close that compacts the file (compact.ts): the next session opens the file once it is done. */
  closing?: Promise<void> | undefined;
}

interface Unusable {
  error: DuckDBEngineError;
  /** The file as it was then (a damaged file is used again once it is replaced); undefined: never again here. */
  identity: string | undefined;
}

/**
 * How long an idle file stays open for this process's next session. Opening is costly, and a worker's loads
 * arrive one after another with short gaps (a scrape, then its load); a process waiting for the file (it leaves
 * a marker, see file-lock.ts) is checked for every LINGER_POLL_MS and gets the file at once.
 */
const LINGER_MS = 250;
const LINGER_POLL_MS = 25;

/**
 * On-disk format of a file this process creates (an existing file keeps the one it was made with). DuckDB writes new
 * files in its v1.0 format unless told otherwise, for readers as old as 1.0, and that format has no compression for
 * long strings (a raw response body is stored as it came: 25.6 MB of the 43.3 MB a 2,000-product load made) and
 * the older, larger ART index nodes. From v1.2.0 on DuckDB compresses long strings with ZSTD and stores the indexes
 * compactly: the same load is a file of about 19 MB (bench/duckdb-size.ts). Readers need DuckDB 1.2 or later
 * (January 2025); the formats after it (DICT_FSST from 1.3) chose FSST over ZSTD for the bodies and were larger.
 */
export const STORAGE_VERSION = 'v1.2.0';

/**
 * Block size of a file this process creates (DuckDB's default is 256 KB; an existing file keeps its own). Every ART
 * index (each primary key) keeps its nodes in buffers of one block per node kind, mostly part-filled in a table of
 * a few thousand rows, and a file has one such index per table and more: with 64 KB blocks the same 2,000-product
 * load took 11.7 MB instead of 16.5 MB (16 KB and 32 KB blocks: 12.8 MB, 128 KB: 12.9 MB; bench/duckdb-size.ts).
 */
export const BLOCK_SIZE = String(64 * 1024);

const files = new Map<string, FileState>();

/** How long closing a database waits for a session still running in DuckDB. */
const CLOSE_WAIT_MS = 10_000;
let exitHook = false;

/** A process that ends normally with a lingering file closes it and removes its lock file on the way out. */
function closeAllOnExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const [file, s] of files) {
      try {
        // Without compaction the close is synchronous (closeFile) and its promise already settled; an exit handler
        // could not wait for one anyway.
        void closeNow(file, s, false);
      } catch {
        // exiting anyway; a lock file left behind names a pid that no longer runs and is taken over
      }
    }
  });
}

function stateOf(file: string): FileState {
  closeAllOnExit();
  let s = files.get(file);
  if (!s) files.set(file, (s = { queue: Promise.resolve(), pending: 0 }));
  return s;
}

const LOCKED_BY_OTHER = /Could not set lock on file/i;

/**
 * Opens the file, retrying while a process that does not use our lock file (the `duckdb` CLI, a notebook) holds
 * DuckDB's own lock on it.
 */
async function openInstance(file: string): Promise<DuckDBInstance> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  // Never a second instance of the file in this process (instances.ts).
  await awaitNoInstance(file);
  let reportedAt = 0;
  let waitingSince: number | undefined;
  try {
    for (;;) {
      try {
        return await DuckDBInstance.create(file, {
          threads: '1',
          checkpoint_threshold: CHECKPOINT_THRESHOLD,
          memory_limit: MEMORY_LIMIT,
          storage_compatibility_version: STORAGE_VERSION,
          default_block_size: BLOCK_SIZE,
        });
      } catch (err) {
        const message = (err as Error).message;
        if (!LOCKED_BY_OTHER.test(message)) throw err;
        if (Date.now() - reportedAt >= WAIT_REPORT_MS) {
          reportedAt = Date.now();
          waitingSince ??= reportedAt;
          // DuckDB names the holder: "Conflicting lock is held in /usr/bin/python3 (PID 1234)".
          const pid = Number(/\(PID (\d+)\)/.exec(message)?.[1]);
          const holder =
            Number.isInteger(pid) && pid > 0
              ? `${describeProcess(pid)}, another program (not scrape-etl),`
              : 'another program (not scrape-etl)';
          markWaiting(file, holder, waitingSince);
          reportWait(waitMessage(file, holder));
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    if (waitingSince !== undefined) unmarkWaiting(file);
  }
}

/** Creates the baseline schema in a new file, or brings an older one up to DUCKDB_SCHEMA_VERSION. */
async function ensureSchema(conn: DuckDBConnection): Promise<void> {
  const exists = await conn.runAndReadAll(
    `SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'main' AND table_name = '${SCHEMA_VERSION_TABLE}'`,
  );
  let version = 0;
  if (Number(exists.getRowObjectsJS()[0]?.['n']) > 0) {
    const v = await conn.runAndReadAll(`SELECT max(version) AS v FROM ${SCHEMA_VERSION_TABLE}`);
    version = Number(v.getRowObjectsJS()[0]?.['v'] ?? 0);
  }
  if (version >= DUCKDB_SCHEMA_VERSION) return;
  if (version === 0) {
    await duckTransaction(conn, async (tx) => {
      await tx.run(
        `CREATE TABLE IF NOT EXISTS ${SCHEMA_VERSION_TABLE} (version integer PRIMARY KEY, applied_at timestamp with time zone NOT NULL)`,
        [],
      );
      for (const sql of baselineDdl()) await tx.run(sql, []);
      // The baseline is the current definition: the steps below are for files made by older versions.
      await tx.run(`INSERT INTO ${SCHEMA_VERSION_TABLE} VALUES (${DUCKDB_SCHEMA_VERSION}, now())`, []);
    });
    return;
  }
  // A transaction per step: a step may need what the one before it did committed (ddl.ts, steps 9 and 10). Steps
  // build indexes over the file's existing rows, which DuckDB cannot do within the instance's memory limit.
  await withMemoryLimitLifted(conn, async () => {
    for (const step of stepsAfter(version)) {
      await duckTransaction(conn, async (tx) => {
        for (const sql of await step.sql((q) => tx.all(q, []))) await tx.run(sql, []);
        await tx.run(`INSERT INTO ${SCHEMA_VERSION_TABLE} VALUES (${step.version}, now())`, []);
      });
    }
  });
}

async function openFile(file: string): Promise<OpenFile> {
  const release = await acquireFileLock(file);
  // Also where a damaged file is first met: a checksum or deserialization error while the schema is read.
  let instance: DuckDBInstance | undefined;
  let connection: DuckDBConnection | undefined;
  try {
    // A copy left by a process killed while it rewrote the file (rewrite-format.ts): the file itself is whole.
    removeStaleCopy(file);
    instance = await openInstance(file);
    connection = await instance.connect();
    // DuckDB 1.4-1.5 defect (duckdb/duckdb#23788): opening replays a WAL left by a process that did not close the file
    // (killed, a power cut); the replayed index entries wait in indexes not used yet, and the checkpoint DuckDB makes
    // when the instance closes writes those indexes without them, so later lookups by those keys find nothing (a
    // run's own pipeline_runs row, by workflow id). A CHECKPOINT statement applies them first; on a file without a
    // WAL it costs well under a millisecond, so it is made on every open rather than guessed from the files.
    // Reproduced with DuckDB alone in test/fast/db/db-duckdb-wal-replay.test.ts.
    await connection.run('CHECKPOINT');
    await ensureSchema(connection);
    if (await inOlderFormat(connection)) {
      // Rewritten once in the current format (rewrite-format.ts), after a checkpoint so that no WAL is left.
      await connection.run('CHECKPOINT');
      const rewritten = await rewriteOnce(file, connection);
      if (rewritten) {
        // The instance holds the old file, now replaced: the new one is opened in its place.
        forgetStatements(connection);
        const closing = closeInstance(file, instance, connection, reportWait);
        instance = undefined;
        connection = undefined;
        if (closing) await closing;
        instance = await openInstance(file);
        connection = await instance.connect();
      }
    }
    return { instance, connection, release };
  } catch (err) {
    if (!instance || engineErrorKind(err) === 'instance') {
      // Not opened, or an instance DuckDB has invalidated: its lock is kept (by this process) until it ends.
      if (!instance) release();
      throw err;
    }
    if (connection) forgetStatements(connection);
    closeThenRelease(file, instance, connection, reportWait, release);
    throw err;
  }
}

async function inOlderFormat(conn: DuckDBConnection): Promise<boolean> {
  const tag = (
    await conn.runAndReadAll(
      `SELECT tags['storage_version'] AS v FROM duckdb_databases() WHERE database_name = current_database()`,
    )
  ).getRowObjectsJS()[0]?.['v'];
  return typeof tag === 'string' && olderFormat(tag, STORAGE_VERSION);
}

/**
 * Rewrites a file of an older format in the current one, saying so on stderr (it takes a moment once: 2.1 s for a
 * 71 MB file of 2,000 products, on a busy machine). A rewrite that fails leaves the file as it was, says why, and the
 * file is used as it is. Whether the file was replaced.
 */
async function rewriteOnce(file: string, conn: DuckDBConnection): Promise<boolean> {
  const t0 = Date.now();
  try {
    const { before, after } = await rewriteInPlace(conn, file, STORAGE_VERSION, BLOCK_SIZE);
    const mb = (n: number) => `${(n / 1048576).toFixed(1)} MB`;
    process.stderr.write(
      `scrape-etl: rewrote ${file} in DuckDB's ${STORAGE_VERSION} storage format with ${Number(BLOCK_SIZE) / 1024} KB blocks (once, ${((Date.now() - t0) / 1000).toFixed(1)} s): ${mb(before)} -> ${mb(after)}; DuckDB 1.2 or later reads it\n`,
    );
    return true;
  } catch (err) {
    process.stderr.write(
      `scrape-etl: could not rewrite ${file} in DuckDB's ${STORAGE_VERSION} storage format (${(err as Error).message.split('\n')[0]}); it is used as it is\n`,
    );
    return false;
  }
}

/**
 * Closes the file; its cross-process lock is released once DuckDB has let go of it (instances.ts), so no process,
 * this one or another, opens it while an instance of this one still holds it.
 */
function closeFile(file: string, o: OpenFile): void {
  forgetStatements(o.connection);
  closeThenRelease(file, o.instance, o.connection, reportWait, o.release);
}

/**
 * Closes the open file; with `compact` (all but a process's exit, which cannot wait) it is first checkpointed and
 * compacted when too many of its blocks are free (compact.ts). Never rejects: a compaction that fails is reported.
 */
function closeNow(file: string, s: FileState, compact = true): Promise<void> {
  clearTimeout(s.linger);
  s.linger = undefined;
  const o = s.open;
  s.open = undefined;
  if (!o) return s.closing ?? Promise.resolve();
  if (!compact) {
    closeFile(file, o);
    return Promise.resolve();
  }
  const closing = closeCompacting(file, o).finally(() => {
    if (s.closing === closing) s.closing = undefined;
  });
  s.closing = closing;
  return closing;
}

async function closeCompacting(file: string, o: OpenFile): Promise<void> {
  try {
    await o.connection.run('CHECKPOINT');
    if (needsCompaction(await blockCounts(o.connection))) await compactFile(file, o.connection);
  } catch {
    // Closed as it is; an engine error meets the next session at open.
  }
  forgetStatements(o.connection);
  // Compacted or not, the instance is closed before the lock is released: it held the file (the old one, once
  // replaced) until now, so nothing else wrote it while it was copied.
  const closing = closeInstance(file, o.instance, o.connection, reportWait);
  try {
    if (closing) await closing;
  } finally {
    o.release();
  }
}

/** Rewrites the open, checkpointed file without its free blocks; one that fails leaves the file as it was and says why. */
async function compactFile(file: string, conn: DuckDBConnection): Promise<void> {
  try {
    await rewriteInPlace(conn, file, STORAGE_VERSION, BLOCK_SIZE);
  } catch (err) {
    process.stderr.write(
      `scrape-etl: could not compact ${file} (${(err as Error).message.split('\n')[0]}); it is used as it is\n`,
    );
  }
}

/**
 * After an engine error: the file is not used by this process again (see engine-errors.ts). An instance DuckDB has
 * invalidated is abandoned with the file's lock held, so no other process opens the file under it; one that met a
 * damaged file is closed, and the file is tried again once it was replaced.
 */
function markUnusable(file: string, s: FileState, err: unknown): DuckDBEngineError {
  const kind = engineErrorKind(err)!;
  const error = err instanceof DuckDBEngineError ? err : new DuckDBEngineError(file, kind, err);
  clearTimeout(s.linger);
  s.linger = undefined;
  const o = s.open;
  s.open = undefined;
  if (o && kind === 'file') closeFile(file, o);
  s.unusable = { error, identity: kind === 'file' ? identityOf(file) : undefined };
  reportWait(error.message);
  return error;
}

function identityOf(file: string): string | undefined {
  try {
    const st = fs.statSync(file);
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

/** Throws the engine error that made the file unusable, unless the file has been replaced since. */
function checkUsable(file: string, s: FileState): void {
  const u = s.unusable;
  if (!u) return;
  if (u.identity !== undefined && identityOf(file) !== u.identity) {
    s.unusable = undefined;
    return;
  }
  throw u.error;
}

function lingerThenClose(file: string, s: FileState, until: number): void {
  // unref: a process with nothing else to do exits at once, closing the file on its way out (closeAllOnExit).
  s.linger = setTimeout(() => {
    s.linger = undefined;
    if (s.pending > 0 || !s.open) return;
    if (Date.now() >= until || otherProcessesWaiting(file)) void closeNow(file, s);
    else lingerThenClose(file, s, until);
  }, LINGER_POLL_MS);
  s.linger.unref();
}

/**
 * Runs `fn` with the file open and this process its only user. Sessions of one process run one at a time, in
 * order; the file stays open from one to the next while more are queued and no other process waits for it.
 */
export function duckSession<T>(file: string, fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
  const s = stateOf(file);
  s.pending++;
  const current = s.queue
    .catch(() => {})
    .then(async () => {
      clearTimeout(s.linger);
      s.linger = undefined;
      try {
        checkUsable(file, s);
        if (s.closing) await s.closing;
        s.open ??= await openFile(file);
        return await fn(s.open.connection);
      } catch (err) {
        if (engineErrorKind(err) !== undefined && err !== s.unusable?.error) throw markUnusable(file, s, err);
        throw err;
      } finally {
        s.pending--;
        if (s.open && otherProcessesWaiting(file)) void closeNow(file, s);
        else if (s.open && s.pending === 0) lingerThenClose(file, s, Date.now() + LINGER_MS);
      }
    });
  s.queue = current;
  return current;
}

/**
 * Opens (creating when missing, with its folder) a DuckDB destination and brings its schema up to date; the file
 * is closed again before this returns (see the module comment).
 */
export async function openDuckDatabase(file: string, url: string): Promise<DuckDatabase> {
  const full = path.resolve(file);
  try {
    fs.mkdirSync(path.dirname(full), { recursive: true });
  } catch (err) {
    throw new Error(`cannot create the folder of DuckDB database '${file}': ${(err as Error).message}`, { cause: err });
  }
  try {
    await duckSession(full, async () => undefined);
  } catch (err) {
    throw new Error(`cannot prepare DuckDB database '${file}': ${(err as Error).message}`, { cause: err });
  }
  return {
    dialect: 'duckdb',
    adapter: duckdbDestination,
    url: url.trim(),
    file: full,
    session: (fn) => duckSession(full, fn),
    // Waits for queued sessions, then closes the file (and releases its lock) rather than let it linger. A session
    // stuck in DuckDB is not waited for past CLOSE_WAIT_MS: a worker must stop within its grace period, and the
    // file's WAL is replayed by the next open.
    close: async () => {
      const s = stateOf(full);
      let timer: NodeJS.Timeout | undefined;
      const settled = await Promise.race([
        s.queue.then(
          () => true,
          () => true,
        ),
        new Promise<false>((r) => (timer = setTimeout(() => r(false), CLOSE_WAIT_MS).unref())),
      ]);
      clearTimeout(timer);
      if (!settled) {
        reportWait(
          `${full}: a DuckDB statement did not finish within ${CLOSE_WAIT_MS / 1000} s of closing; not waiting for it (DuckDB replays the file's WAL when it is next opened)`,
        );
        return;
      }
      if (s.pending === 0) await closeNow(full, s);
    },
  };
}
