// The pg pool of an export database (light: no driver import).
import type pg from 'pg';
import type { ExportDatabase } from '../../export/database.js';

export function poolOf(db: ExportDatabase): pg.Pool {
  if (db.dialect !== 'postgres' || !db.pool)
    throw new Error('export: database says dialect "postgres" but has no pg pool');
  return db.pool;
}
