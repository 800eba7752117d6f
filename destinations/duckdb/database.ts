// A DuckDB destination file. DuckDB lets one process open a file at a time, so the file is never held for long:
// every transaction or read runs in a *session* that takes the file's lock (db/duckdb/file-lock.ts) and opens
// the file. Sessions queued in the same process reuse the open file (one open per burst instead of one per load,
// ~70 ms each), and an idle file stays open for LINGER_MS, unless another process is waiting: then the file is
// closed and the lock released after the current session, and the waiting process gets it next. @duckdb/node-api is imported lazily so SQLite and Postgres users never load it.
import fs from 'node:fs';
import path from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { acquireFileLock, otherProcessesWaiting, reportWait, WAIT_REPORT_MS, waitMessage } from './file-lock.js';
import { baselineDdl, DUCKDB_SCHEMA_STEPS, DUCKDB_SCHEMA_VERSION, SCHEMA_VERSION_TABLE } from './ddl.js';
import { duckTransaction, forgetStatements } from './tx.js';

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
}

/**
 * How long an idle file stays open for this process's next session. Opening costs ~70 ms, and a worker's loads
 * arrive one after another with short gaps (a scrape, then its load); a process waiting for the file (it leaves
 * a marker, see file-lock.ts) is checked for every LINGER_POLL_MS and gets the file at once.
 */
const LINGER_MS = 250;
const LINGER_POLL_MS = 25;

/**
 * WAL size at which DuckDB checkpoints on its own (its default is 16 MB). Every checkpoint rewrites the tables'
 * last row groups and their ART indexes into new blocks and frees the old ones, and a DuckDB file never gives free
 * blocks back: a 2,000-product load checkpointed every 16 MB left 151 of its 329 blocks free (82.3 MB file, 43.8 MB
 * used; bench/duckdb-size.ts). With 128 MB the same load checkpoints once, when the file is closed, and the file is
 * its used blocks (43.8 MB, SQLite's 45.5 MB). The WAL's rows wait in memory until the checkpoint, so this is also
 * the most a load holds that way.
 */
const CHECKPOINT_THRESHOLD = '128MB';

const files = new Map<string, FileState>();
let exitHook = false;

/** A process that ends normally with a lingering file closes it and removes its lock file on the way out. */
function closeAllOnExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const s of files.values()) {
      try {
        closeNow(s);
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
  let reportedAt = 0;
  for (;;) {
    try {
      return await DuckDBInstance.create(file, { threads: '1', checkpoint_threshold: CHECKPOINT_THRESHOLD });
    } catch (err) {
      if (!LOCKED_BY_OTHER.test((err as Error).message)) throw err;
      if (Date.now() - reportedAt >= WAIT_REPORT_MS) {
        reportedAt = Date.now();
        reportWait(`${waitMessage(file, 'another program')} (${(err as Error).message.split('\n')[0]})`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
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
  await duckTransaction(conn, async (tx) => {
    if (version === 0) {
      await tx.run(`CREATE TABLE IF NOT EXISTS ${SCHEMA_VERSION_TABLE} (version integer PRIMARY KEY, applied_at timestamp with time zone NOT NULL)`, []);
      for (const sql of baselineDdl()) await tx.run(sql, []);
      // The baseline is the current definition: the steps below are for files made by older versions.
      await tx.run(`INSERT INTO ${SCHEMA_VERSION_TABLE} VALUES (${DUCKDB_SCHEMA_VERSION}, now())`, []);
      version = DUCKDB_SCHEMA_VERSION;
    }
    for (const step of DUCKDB_SCHEMA_STEPS) {
      if (step.version <= version) continue;
      for (const sql of step.sql()) await tx.run(sql, []);
      await tx.run(`INSERT INTO ${SCHEMA_VERSION_TABLE} VALUES (${step.version}, now())`, []);
    }
  });
}

async function openFile(file: string): Promise<OpenFile> {
  const release = await acquireFileLock(file);
  let instance: DuckDBInstance | undefined;
  try {
    instance = await openInstance(file);
    const connection = await instance.connect();
    try {
      await ensureSchema(connection);
    } catch (err) {
      connection.closeSync();
      throw err;
    }
    return { instance, connection, release };
  } catch (err) {
    instance?.closeSync();
    release();
    throw err;
  }
}

function closeFile(o: OpenFile): void {
  try {
    forgetStatements(o.connection);
    o.connection.closeSync();
    o.instance.closeSync();
  } finally {
    o.release();
  }
}

function closeNow(s: FileState): void {
  clearTimeout(s.linger);
  s.linger = undefined;
  const o = s.open;
  s.open = undefined;
  if (o) closeFile(o);
}

function lingerThenClose(file: string, s: FileState, until: number): void {
  // unref: a process with nothing else to do exits at once, closing the file on its way out (closeAllOnExit).
  s.linger = setTimeout(() => {
    s.linger = undefined;
    if (s.pending > 0 || !s.open) return;
    if (Date.now() >= until || otherProcessesWaiting(file)) closeNow(s);
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
        s.open ??= await openFile(file);
        return await fn(s.open.connection);
      } finally {
        s.pending--;
        if (s.open && otherProcessesWaiting(file)) closeNow(s);
        else if (s.open && s.pending === 0) lingerThenClose(file, s, Date.now() + LINGER_MS);
      }
    });
  s.queue = current;
  return current;
}

export interface DuckDatabase {
  dialect: 'duckdb';
  /** The URL it was opened with (no secrets in a file path). */
  url: string;
  /** Absolute path of the database file. */
  file: string;
  drizzle?: undefined;
  sqlite?: undefined;
  pool?: undefined;
  /** Runs `fn` with the file open (see duckSession); every read and write of this database goes through it. */
  session<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T>;
  close(): Promise<void>;
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
    url: url.trim(),
    file: full,
    session: (fn) => duckSession(full, fn),
    // Waits for queued sessions, then closes the file (and releases its lock) rather than let it linger.
    close: async () => {
      const s = stateOf(full);
      await s.queue.catch(() => {});
      if (s.pending === 0) closeNow(s);
    },
  };
}
