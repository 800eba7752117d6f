// The exporter needs only the raw drivers of an opened database, so it accepts any object shaped like the one
// `openDatabase()` in db/connect.ts returns; this keeps export/ independent of the table definitions.
import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import type { DuckDBConnection } from '@duckdb/node-api';

export interface ExportDatabase {
  dialect: 'sqlite' | 'postgres' | 'duckdb';
  sqlite?: BetterSqlite3.Database;
  pool?: pg.Pool;
  /** DuckDB: runs `fn` with the file open and locked (db/duckdb/database.ts). */
  session?: <T>(fn: (conn: DuckDBConnection) => Promise<T>) => Promise<T>;
}

/**
 * Which dialect's value forms the format writers receive: DuckDB rows are converted to Postgres's text forms
 * (export/duckdb.ts), so they are formatted exactly as Postgres rows are.
 */
export function valueDialect(db: ExportDatabase): 'sqlite' | 'postgres' {
  return db.dialect === 'sqlite' ? 'sqlite' : 'postgres';
}

export function sqliteOf(db: ExportDatabase): BetterSqlite3.Database {
  if (db.dialect !== 'sqlite' || !db.sqlite) throw new Error('export: database says dialect "sqlite" but has no better-sqlite3 handle');
  return db.sqlite;
}

export function poolOf(db: ExportDatabase): pg.Pool {
  if (db.dialect !== 'postgres' || !db.pool) throw new Error('export: database says dialect "postgres" but has no pg pool');
  return db.pool;
}

/** Double-quotes an identifier for any dialect (all three follow the SQL standard here). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
