// The export's reads from an SQLite destination (moved from export/rows.ts, export/watermarks.ts, export/columns.ts):
// rows in batches on a read-only connection of their own, catalog queries, and the incremental-export watermark.
import BetterSqlite3 from 'better-sqlite3';
import type { ExportDatabase } from '../../export/database.js';
import { selectSql, type RawRow, type TableQuery } from '../../export/rows.js';
import { EXPORT_READER_CACHE, sqliteRowidPages } from './pages.js';
import { sqliteOf } from './handle.js';
import { hasRowids } from './rowids.js';
import { waitForLocks } from './connection-settings.js';

export function rowBatches(
  db: ExportDatabase,
  query: TableQuery | string,
  params: unknown[],
  batchSize: number,
): AsyncGenerator<RawRow[]> {
  if (typeof query !== 'string') return sqliteTableBatches(db, query, batchSize);
  return sqliteBatches(db, query, params, batchSize);
}

/** Rows as objects, integers as bigint (exact). */
export async function query(
  db: ExportDatabase,
  sql: string,
  params: readonly unknown[] = [],
): Promise<Array<Record<string, unknown>>> {
  const stmt = sqliteOf(db).prepare(sql);
  if (!stmt.reader) {
    stmt.run(...(params as unknown[]));
    return [];
  }
  return stmt.safeIntegers(true).all(...(params as unknown[])) as Array<Record<string, unknown>>;
}

export async function readWatermark(db: ExportDatabase, pipeline: string, table: string): Promise<bigint | null> {
  const row = sqliteOf(db)
    .prepare('select last_load_id from export_watermarks where pipeline = ? and table_name = ?')
    .safeIntegers(true)
    .get(pipeline, table) as { last_load_id: bigint } | undefined;
  return row ? row.last_load_id : null;
}

export async function readLastExportedFile(
  db: ExportDatabase,
  pipeline: string,
  table: string,
): Promise<{ run: string; file: string; rows: number } | null> {
  const row = sqliteOf(db)
    .prepare('select last_run, last_file, last_rows from export_watermarks where pipeline = ? and table_name = ?')
    .get(pipeline, table) as
    { last_run: string | null; last_file: string | null; last_rows: number | null } | undefined;
  if (!row || row.last_run === null || row.last_file === null) return null;
  return { run: row.last_run, file: row.last_file, rows: Number(row.last_rows ?? 0) };
}

export async function advanceWatermark(
  db: ExportDatabase,
  pipeline: string,
  table: string,
  lastLoadId: bigint,
  w: { run: string | null; file: string | null; rows: number | null },
): Promise<void> {
  sqliteOf(db)
    .prepare(
      `insert into export_watermarks (pipeline, table_name, last_load_id, exported_at, last_run, last_file, last_rows) values (?, ?, ?, ?, ?, ?, ?)
       on conflict (pipeline, table_name) do update
         set last_load_id = max(export_watermarks.last_load_id, excluded.last_load_id), exported_at = excluded.exported_at,
             last_run = excluded.last_run, last_file = excluded.last_file, last_rows = excluded.last_rows`,
    )
    .run(pipeline, table, lastLoadId, new Date().toISOString(), w.run, w.file, w.rows);
}

/** A read-only connection of its own for an export, and whether it is one (an in-memory database has only `main`). */
export function readerOf(db: ExportDatabase): { reader: BetterSqlite3.Database; own: boolean } {
  const main = sqliteOf(db);
  // A separate read-only connection: better-sqlite3 refuses other statements on a connection while an iterator
  // is open, and an export pausing for disk back-pressure must not block the loads that share `main`.
  if (main.memory) return { reader: main, own: false };
  const reader = new BetterSqlite3(main.name, { readonly: true, fileMustExist: true });
  waitForLocks(reader);
  reader.pragma(`cache_size = ${EXPORT_READER_CACHE}`);
  return { reader, own: true };
}

async function* sqliteBatches(
  db: ExportDatabase,
  sql: string,
  params: unknown[],
  batchSize: number,
): AsyncGenerator<RawRow[]> {
  const { reader, own } = readerOf(db);
  try {
    // The one SELECT reads a single consistent snapshot (WAL) for its whole run.
    const stmt = reader.prepare(sql).raw(true).safeIntegers(true);
    let batch: RawRow[] = [];
    for (const row of stmt.iterate(...params) as IterableIterator<RawRow>) {
      batch.push(row);
      if (batch.length >= batchSize) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  } finally {
    if (own) reader.close();
  }
}

/**
 * A table read page by page (sqliteRowidPages): `... and rowid > ? order by rowid limit <batchSize>`, each page one `all()` call.
 * Stepping a statement through better-sqlite3's iterator costs a call from JavaScript into the addon and an
 * iterator result per row; a page costs one call per batch. The pages are read in one read transaction on the
 * export's own connection, so they see the single snapshot that one statement would. Rows come in rowid order, the
 * order of a full-table scan. A table without rowids, or an in-memory database (whose only connection the loads
 * share, so it cannot hold a transaction open), is read by one streamed statement, integers as bigints.
 */
async function* sqliteTableBatches(db: ExportDatabase, q: TableQuery, batchSize: number): AsyncGenerator<RawRow[]> {
  if (sqliteOf(db).memory || !hasRowids(sqliteOf(db), q.table)) {
    yield* sqliteBatches(db, selectSql(q), q.params, batchSize);
    return;
  }
  const { reader, own } = readerOf(db);
  try {
    reader.exec('BEGIN');
    try {
      yield* sqliteRowidPages(reader, q, batchSize, null, null);
    } finally {
      if (reader.inTransaction) reader.exec('COMMIT');
    }
  } finally {
    if (own) reader.close();
  }
}
