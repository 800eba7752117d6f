// The `sql:` escape hatch of checks: a user's query, run so that it cannot write and cannot run for ever.
// How is each destination's (destinations/<name>/read-only-query.ts): SQLite a read-only connection in a worker
// thread terminated at the timeout, Postgres a READ ONLY transaction with a statement_timeout, DuckDB a rolled-back
// transaction interrupted at the timeout.
// The query is wrapped as a subquery with LIMIT, so at most `limit` rows come back whatever it selects.
import type { Database } from '../destinations/contract.js';

export interface ReadOnlyResult {
  rows: Array<Record<string, unknown>>;
}

function wrapped(sql: string, limit: number): string {
  // A trailing semicolon would end the subquery early; several statements are refused by every driver here.
  const body = sql.trim().replace(/;\s*$/, '');
  return `SELECT * FROM (${body}) AS scrape_etl_check LIMIT ${Math.max(1, Math.floor(limit))}`;
}

export async function runReadOnlyQuery(
  db: Database,
  sql: string,
  o: { limit: number; timeoutMs: number },
): Promise<ReadOnlyResult> {
  return db.adapter.readOnlyQuery(db, wrapped(sql, o.limit), o);
}
