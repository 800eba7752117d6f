// The destination URL of a test that runs on each dialect: a file in `dir` for SQLite and DuckDB, a fresh
// Postgres database otherwise.
import path from 'node:path';
import { testPostgresUrl } from './postgres.js';

export type TestDialect = 'sqlite' | 'postgres' | 'duckdb';

export async function testDatabaseUrl(dialect: TestDialect, dir: string, name: string): Promise<string> {
  if (dialect === 'sqlite') return `sqlite:${path.join(dir, `${name}.sqlite`)}`;
  if (dialect === 'duckdb') return `duckdb:${path.join(dir, `${name}.duckdb`)}`;
  return testPostgresUrl();
}
