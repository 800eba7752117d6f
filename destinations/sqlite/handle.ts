// The better-sqlite3 handle of an export database (light: no driver import).
import type BetterSqlite3 from 'better-sqlite3';
import type { ExportDatabase } from '../../export/database.js';

export function sqliteOf(db: ExportDatabase): BetterSqlite3.Database {
  if (db.dialect !== 'sqlite' || !db.sqlite)
    throw new Error('export: database says dialect "sqlite" but has no better-sqlite3 handle');
  return db.sqlite;
}
