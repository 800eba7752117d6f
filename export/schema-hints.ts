// SQLite declares Drizzle's boolean columns as plain INTEGER, so the database alone cannot tell a flag from a
// count. The Drizzle schema can: this reads it generically (no table names here) so booleans are written
// true/false in both dialects.
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as sqliteSchema from '../destinations/sqlite/schema.js';
import type { ColumnHints, ColumnKind } from './columns.js';
import type { ExportDatabase } from './database.js';
import { destinationOf } from '../destinations/index.js';

function kindFromDrizzle(columnType: string, mode: unknown): ColumnKind | undefined {
  if (columnType === 'SQLiteBoolean') return 'boolean';
  if (columnType === 'SQLiteTimestamp') return mode === 'timestamp_ms' ? 'timestamp_ms' : 'timestamp_s';
  if (columnType === 'SQLiteTextJson' || columnType === 'SQLiteBlobJson') return 'json';
  return undefined;
}

export function hintsFromSqliteSchema(schema: Record<string, unknown>): ColumnHints {
  const hints: ColumnHints = {};
  for (const value of Object.values(schema)) {
    if (!(value instanceof SQLiteTable)) continue;
    const cfg = getTableConfig(value);
    for (const col of cfg.columns) {
      const kind = kindFromDrizzle(col.columnType, (col as { mode?: unknown }).mode);
      if (kind) (hints[cfg.name] ??= {})[col.name] = kind;
    }
  }
  return hints;
}

let cached: ColumnHints | undefined;
export function projectSqliteHints(): ColumnHints {
  cached ??= hintsFromSqliteSchema(sqliteSchema);
  return cached;
}

/**
 * Kinds of the columns the loader inferred at run time (db/evolve/), from schema_history's logical types. The SQL
 * types lose them in SQLite (a bool is an INTEGER 0/1, a timestamp or JSON is TEXT) and for JSON in Postgres and
 * DuckDB (text): without this, one pipeline's export said BIGINT 0/1 from SQLite where DuckDB said BOOLEAN.
 * A database without schema_history (not the project's) has no inferred columns.
 */
export async function inferredColumnHints(db: ExportDatabase): Promise<ColumnHints> {
  const sql = 'select table_name, column_name, data_type from schema_history';
  let rows: Array<{ table_name: string; column_name: string; data_type: string }>;
  try {
    rows = (await destinationOf(db).exportReader.query(db, sql)) as typeof rows;
  } catch (err) {
    if (/no such table|does not exist/i.test((err as Error).message)) return {};
    throw err;
  }
  const hints: ColumnHints = {};
  const typed = destinationOf(db).capabilities.typedColumns;
  for (const r of rows) {
    const kind = INFERRED_KINDS[r.data_type]?.[typed ? 'typed' : 'sqlite'];
    if (kind) (hints[r.table_name] ??= {})[r.column_name] = kind;
  }
  return hints;
}

/** Per logical type (db/evolve/types.ts): the kind in SQLite, and in the typed databases (where only JSON needs it). */
const INFERRED_KINDS: Record<string, { sqlite: ColumnKind; typed?: ColumnKind }> = {
  bool: { sqlite: 'boolean' },
  json: { sqlite: 'json', typed: 'json' },
  timestamp: { sqlite: 'timestamp' },
  bigint: { sqlite: 'integer' },
  double: { sqlite: 'number' },
};
