// Reads from a DuckDB destination in tests, through its session (the file is only open, and locked, inside one).
import type { Database } from '../../destinations/contract.js';
import { duckQuery } from '../../destinations/duckdb/export-reader.js';

/** Rows as JavaScript values (BIGINT as bigint, TIMESTAMPTZ as Date); `$1` placeholders. */
export async function duckSelect(
  db: Database,
  sql: string,
  params: unknown[] = [],
): Promise<Array<Record<string, unknown>>> {
  if (db.dialect !== 'duckdb') throw new Error(`duckSelect: not a DuckDB database (${db.dialect})`);
  return duckQuery(db, sql, params);
}

/** The pool of a Postgres database, for test code written for SQLite and Postgres only (fails clearly otherwise). */
export function pgPool(db: Database): import('pg').Pool {
  if (db.dialect !== 'postgres') throw new Error(`expected a Postgres database, got ${db.dialect}`);
  return db.pool;
}
