// The `sql:` escape hatch of checks: a user's query, run so that it cannot write and cannot run for ever.
// - SQLite: a separate read-only connection in a worker thread, terminated at the timeout (better-sqlite3 is
//   synchronous and has no interrupt, so a runaway query would otherwise freeze the worker's event loop).
// - Postgres: a transaction with SET TRANSACTION READ ONLY and a local statement_timeout, always rolled back.
// - DuckDB: a transaction that is always rolled back, interrupted at the timeout.
// The query is wrapped as a subquery with LIMIT, so at most `limit` rows come back whatever it selects.
import { Worker } from 'node:worker_threads';
import type { Database } from '../db/connect.js';

export interface ReadOnlyResult {
  rows: Array<Record<string, unknown>>;
}

function wrapped(sql: string, limit: number): string {
  // A trailing semicolon would end the subquery early; several statements are refused by every driver here.
  const body = sql.trim().replace(/;\s*$/, '');
  return `SELECT * FROM (${body}) AS scrape_etl_check LIMIT ${Math.max(1, Math.floor(limit))}`;
}

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

export async function runReadOnlyQuery(db: Database, sql: string, o: { limit: number; timeoutMs: number }): Promise<ReadOnlyResult> {
  const query = wrapped(sql, o.limit);
  if (db.dialect === 'sqlite') {
    const { createRequire } = await import('node:module');
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(SQLITE_WORKER, { eval: true, workerData: { driver, file: db.sqlite.name, sql: query } });
    return new Promise<ReadOnlyResult>((resolve, reject) => {
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
  if (db.dialect === 'postgres') {
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET TRANSACTION READ ONLY');
      await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(o.timeoutMs))}`);
      const res = await client.query(query);
      return { rows: res.rows as Array<Record<string, unknown>> };
    } finally {
      await client.query('ROLLBACK').catch(() => {});
      client.release();
    }
  }
  return db.session(async (conn) => {
    await conn.run('BEGIN TRANSACTION');
    const timer = setTimeout(() => conn.interrupt(), o.timeoutMs);
    try {
      const reader = await conn.runAndReadAll(query);
      return { rows: reader.getRowObjectsJS() as Array<Record<string, unknown>> };
    } catch (err) {
      throw new Error((err as Error).message.includes('INTERRUPT') ? `the query ran longer than ${o.timeoutMs} ms and was stopped` : (err as Error).message);
    } finally {
      clearTimeout(timer);
      await conn.run('ROLLBACK').catch(() => {});
    }
  });
}
