// DuckDB opened for reading only (the console, the report): `access_mode: READ_ONLY`, and the project's cross-process
// file lock (file-lock.ts) taken like a worker's load does; a worker waiting for the file gets it after the page is
// read.
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { ReadOnlySource, Reader, Row } from '../contract.js';
import { mustExist, SourceError } from '../read-only-errors.js';
// The adapter this engine's handles carry (read at run time only, so the import cycle with index.ts is harmless).
import { duckdbDestination } from './index.js';

/** How long a DuckDB file stays open after a read (unless a worker waits for it). */
const DUCK_LINGER_MS = 1000;

export async function openDuckReadOnly(file: string, url: string): Promise<ReadOnlySource> {
  const full = mustExist(file, 'duckdb');
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const { acquireFileLock, otherProcessesWaiting, reportWait } = await import('./file-lock.js');
  // Opened and closed as the destination's own sessions are: never beside another instance of the file in this
  // process (`up --console` reads the file its workers write; instances.ts).
  const { awaitNoInstance, closeThenRelease } = await import('./instances.js');
  let queue: Promise<unknown> = Promise.resolve();
  let open: { instance: DuckDBInstance; conn: DuckDBConnection; release: () => void } | undefined;
  let linger: NodeJS.Timeout | undefined;
  const closeNow = () => {
    clearTimeout(linger);
    linger = undefined;
    const o = open;
    open = undefined;
    if (!o) return;
    closeThenRelease(full, o.instance, o.conn, reportWait, o.release);
  };
  // Opening costs tens of milliseconds, and a page's requests (and the next click) come in bursts: the file stays
  // open for LINGER_MS after a read, unless a worker is waiting for it (it leaves a marker): then it is closed at
  // once, and the worker's load goes first.
  const session = <T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> => {
    const run = queue
      .catch(() => {})
      .then(async () => {
        clearTimeout(linger);
        if (!open) {
          const release = await acquireFileLock(full);
          try {
            await awaitNoInstance(full);
            const instance = await DuckDBInstance.create(full, { access_mode: 'READ_ONLY', threads: '2' });
            open = { instance, conn: await instance.connect(), release };
          } catch (err) {
            release();
            throw err;
          }
        }
        try {
          return await fn(open.conn);
        } finally {
          if (otherProcessesWaiting(full)) closeNow();
          else linger = setTimeout(closeNow, DUCK_LINGER_MS).unref();
        }
      });
    queue = run;
    return run;
  };
  // A first session proves the file is a DuckDB database now rather than on the first page.
  try {
    await session(async (c) => c.run('SELECT 1'));
  } catch (err) {
    throw new SourceError(`cannot open DuckDB database ${full} read-only: ${(err as Error).message}`, { cause: err });
  }
  return {
    dialect: 'duckdb',
    adapter: duckdbDestination,
    url: url.trim(),
    read: (fn) =>
      session((conn) =>
        fn({
          dialect: 'duckdb',
          adapter: duckdbDestination,
          ph: (n) => `$${n}`,
          all: async (sql, params = []) => (await conn.runAndReadAll(sql, params as never)).getRowObjectsJS() as Row[],
        }),
      ),
    exportDatabase: () => ({ dialect: 'duckdb', adapter: duckdbDestination, session }),
    close: async () => {
      await queue.catch(() => {});
      closeNow();
    },
  };
}
