// SQLite declares Drizzle's boolean columns as plain INTEGER, so the database alone cannot tell a flag from a
// count. The Drizzle schema can: this reads it generically (no table names here) so booleans are written
// true/false in both dialects.
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as sqliteSchema from '../db/schema/sqlite.js';
import type { ColumnHints, ColumnKind } from './columns.js';

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
