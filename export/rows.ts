// Streams the rows of one query, in batches, straight from the raw driver: memory holds one batch, whatever
// the table size, and the next batch is read only when the CSV writer asks for it.
import BetterSqlite3 from 'better-sqlite3';
import QueryStream from 'pg-query-stream';
import type { ExportDatabase } from './database.js';
import { poolOf, quoteIdent, sqliteOf } from './database.js';
import { duckBatches } from '../destinations/duckdb/export-reader.js';
import { sqliteRowidPages } from './sqlite-pages.js';

export type RawRow = unknown[];

// Every Postgres value stays the server's text: int8 and numeric exact, json/jsonb as written, timestamps with
// their microseconds. cells.ts formats that text per column kind.
const SERVER_TEXT = { getTypeParser: () => (value: string) => value };

const PG_FETCH_ROWS = 2000;

/**
 * The rows of one table (or of a query over one table): `select <columns> from <table> [where <where>]`. From a
 * SQLite file whose table has rowids, the rows are read in pages (keyset on rowid, see sqliteTableBatches); otherwise in
 * one streamed statement.
 */
export interface TableQuery {
  table: string;
  /** Select expressions, already quoted. */
  columns: string[];
  /** Conditions joined with `and`; the placeholders match `params`. */
  where: string[];
  params: unknown[];
}

export function rowBatches(db: ExportDatabase, query: TableQuery | string, params: unknown[], batchSize: number): AsyncGenerator<RawRow[]> {
  if (typeof query !== 'string' && db.dialect === 'sqlite') return sqliteTableBatches(db, query, batchSize);
  const sql = typeof query === 'string' ? query : selectSql(query);
  if (db.dialect === 'duckdb') return duckBatches(db, sql, params, batchSize);
  return db.dialect === 'sqlite' ? sqliteBatches(db, sql, params, batchSize) : postgresBatches(db, sql, params, batchSize);
}

function selectSql(q: TableQuery, extraWhere?: string): string {
  const where = extraWhere ? [...q.where, extraWhere] : q.where;
  return `select ${q.columns.join(', ')} from ${quoteIdent(q.table)}${where.length > 0 ? ` where ${where.join(' and ')}` : ''}`;
}

/** A read-only connection of its own for an export, and whether it is one (an in-memory database has only `main`). */
function readerOf(db: ExportDatabase): { reader: BetterSqlite3.Database; own: boolean } {
  const main = sqliteOf(db);
  // A separate read-only connection: better-sqlite3 refuses other statements on a connection while an iterator
  // is open, and an export pausing for disk back-pressure must not block the loads that share `main`.
  if (main.memory) return { reader: main, own: false };
  const reader = new BetterSqlite3(main.name, { readonly: true, fileMustExist: true });
  reader.pragma('busy_timeout = 15000');
  return { reader, own: true };
}

async function* sqliteBatches(db: ExportDatabase, sql: string, params: unknown[], batchSize: number): AsyncGenerator<RawRow[]> {
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

export function hasRowids(db: BetterSqlite3.Database, table: string): boolean {
  const info = db.prepare('select type, wr from pragma_table_list where name = ?').get(table) as { type: string; wr: number } | undefined;
  return info !== undefined && info.type === 'table' && info.wr === 0;
}

async function* postgresBatches(db: ExportDatabase, sql: string, params: unknown[], batchSize: number): AsyncGenerator<RawRow[]> {
  const client = await poolOf(db).connect();
  // The pool only listens for errors on idle clients. While this one is checked out, a dropped connection is an
  // 'error' event here, and the stream may never end on its own, so the read loop races it.
  let connectionError: Error | undefined;
  let connectionLost!: (err: Error) => void;
  const lost = new Promise<never>((_resolve, reject) => (connectionLost = reject));
  lost.catch(() => {});
  const onError = (err: Error) => {
    connectionError ??= err;
    connectionLost(err);
  };
  client.on('error', onError);
  let finished = false;
  try {
    // One snapshot for the whole table, and session settings that make the server's text ISO 8601 in UTC.
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await client.query(`SET LOCAL TIME ZONE 'UTC'`);
    await client.query(`SET LOCAL datestyle = 'ISO, YMD'`);
    await client.query(`SET LOCAL intervalstyle = 'iso_8601'`);
    // The cursor fetches at least PG_FETCH_ROWS rows per round trip, however small the batches handed to the writer
    // (export.ts sizes those by cells, 72 rows for a 57-column table): a round trip per batch would cost more than
    // the rows.
    const fetchRows = Math.max(batchSize, PG_FETCH_ROWS);
    const stream = client.query(new QueryStream(sql, params, { rowMode: 'array', batchSize: fetchRows, highWaterMark: fetchRows, types: SERVER_TEXT }));
    const rows = (stream as AsyncIterable<RawRow>)[Symbol.asyncIterator]();
    try {
      let batch: RawRow[] = [];
      for (;;) {
        const next = rows.next();
        next.catch(() => {}); // when the connection is lost first, this one settles later and unobserved
        const r = await Promise.race([next, lost]);
        if (r.done) break;
        batch.push(r.value);
        if (batch.length >= batchSize) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    } finally {
      // Closing the cursor waits for the server's answer, which a lost connection never gives.
      if (!connectionError) stream.destroy();
    }
    await client.query('COMMIT');
    finished = true;
  } finally {
    if (!finished && !connectionError) {
      // Stopped early (error or abort): end the transaction, or drop the connection if even that fails.
      try {
        await client.query('ROLLBACK');
      } catch (err) {
        connectionError = err as Error;
      }
    }
    if (!connectionError) client.off('error', onError);
    client.release(connectionError);
  }
}
