// The bounded read-only `sql:` check on SQLite (checks/sql-readonly.ts): a separate read-only connection in a
// worker thread, terminated at the timeout (better-sqlite3 is synchronous and has no interrupt, so a runaway query
// would otherwise freeze the worker's event loop).
import { Worker } from 'node:worker_threads';
import type { SqliteDatabase } from '../contract.js';

const SQLITE_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
try {
  db.pragma('query_only = ON');
  const stmt = db.prepare(workerData.sql);
  stmt.safeIntegers(true);
  const rows = stmt.all().map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? (Number.isSafeInteger(Number(v)) ? Number(v) : v.toString()) : v])));
  parentPort.postMessage({ rows });
} catch (err) {
  parentPort.postMessage({ error: err && err.message ? err.message : String(err) });
} finally {
  db.close();
}
`;

export async function readOnlyQuery(
  db: SqliteDatabase,
  query: string,
  o: { timeoutMs: number },
): Promise<{ rows: Array<Record<string, unknown>> }> {
  const { createRequire } = await import('node:module');
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(SQLITE_WORKER, { eval: true, workerData: { driver, file: db.sqlite.name, sql: query } });
  return new Promise<{ rows: Array<Record<string, unknown>> }>((resolve, reject) => {
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new Error(`the query ran longer than ${o.timeoutMs} ms and was stopped`));
    }, o.timeoutMs);
    worker.once('message', (m: { rows?: Array<Record<string, unknown>>; error?: string }) => {
      clearTimeout(timer);
      void worker.terminate();
      if (m.error !== undefined) reject(new Error(m.error));
      else resolve({ rows: m.rows ?? [] });
    });
    worker.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}
