// The export's reads from a Postgres destination (moved from export/rows.ts and export/watermarks.ts): rows in
// batches through a cursor in one REPEATABLE READ snapshot, as the server's text; queries; the watermark.
import QueryStream from 'pg-query-stream';
import type { ExportDatabase } from '../../export/database.js';
import { selectSql, type RawRow, type TableQuery } from '../../export/rows.js';
import { poolOf } from './handle.js';
import { openExportSnapshot } from './export-snapshot.js';

// Every Postgres value stays the server's text: int8 and numeric exact, json/jsonb as written, timestamps with
// their microseconds. cells.ts formats that text per column kind.
const SERVER_TEXT = { getTypeParser: () => (value: string) => value };

const PG_FETCH_ROWS = 2000;

/** Parameters as node-postgres takes them: a bigint (a watermark, an id beyond 2^53) as its decimal text. */
function pgValues(params: readonly unknown[]): unknown[] {
  return params.map((p) => (typeof p === 'bigint' ? p.toString() : p));
}

export function rowBatches(
  db: ExportDatabase,
  query: TableQuery | string,
  params: unknown[],
  batchSize: number,
): AsyncGenerator<RawRow[]> {
  return postgresBatches(db, typeof query === 'string' ? query : selectSql(query), pgValues(params), batchSize);
}

export async function query(
  db: ExportDatabase,
  sql: string,
  params: readonly unknown[] = [],
): Promise<Array<Record<string, unknown>>> {
  return (await poolOf(db).query(sql, pgValues(params))).rows as Array<Record<string, unknown>>;
}

export async function readWatermark(db: ExportDatabase, pipeline: string, table: string): Promise<bigint | null> {
  const res = await poolOf(db).query<{ last_load_id: string }>(
    'select last_load_id::text as last_load_id from export_watermarks where pipeline = $1 and table_name = $2',
    [pipeline, table],
  );
  const row = res.rows[0];
  return row ? BigInt(row.last_load_id) : null;
}

export async function readLastExportedFile(
  db: ExportDatabase,
  pipeline: string,
  table: string,
): Promise<{ run: string; file: string; rows: number } | null> {
  const row = (
    await poolOf(db).query<{ last_run: string | null; last_file: string | null; last_rows: string | null }>(
      'select last_run, last_file, last_rows::text as last_rows from export_watermarks where pipeline = $1 and table_name = $2',
      [pipeline, table],
    )
  ).rows[0];
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
  await poolOf(db).query(
    `insert into export_watermarks (pipeline, table_name, last_load_id, exported_at, last_run, last_file, last_rows) values ($1, $2, $3, now(), $4, $5, $6)
     on conflict (pipeline, table_name) do update
       set last_load_id = greatest(export_watermarks.last_load_id, excluded.last_load_id), exported_at = excluded.exported_at,
           last_run = excluded.last_run, last_file = excluded.last_file, last_rows = excluded.last_rows`,
    [pipeline, table, lastLoadId.toString(), w.run, w.file, w.rows],
  );
}

async function* postgresBatches(
  db: ExportDatabase,
  sql: string,
  params: unknown[],
  batchSize: number,
): AsyncGenerator<RawRow[]> {
  const session = await openExportSnapshot(db);
  try {
    // The cursor fetches at least PG_FETCH_ROWS rows per round trip, however small the batches handed to the writer
    // (export.ts sizes those by cells, 72 rows for a 57-column table): a round trip per batch would cost more than
    // the rows.
    const fetchRows = Math.max(batchSize, PG_FETCH_ROWS);
    const stream = session.client.query(
      new QueryStream(sql, params, {
        rowMode: 'array',
        batchSize: fetchRows,
        highWaterMark: fetchRows,
        types: SERVER_TEXT,
      }),
    );
    const rows = (stream as AsyncIterable<RawRow>)[Symbol.asyncIterator]();
    try {
      let batch: RawRow[] = [];
      for (;;) {
        const next = rows.next();
        next.catch(() => {}); // when the connection is lost first, this one settles later and unobserved
        const r = await Promise.race([next, session.lost]);
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
      if (!session.error()) stream.destroy();
    }
    await session.commit();
  } finally {
    await session.release();
  }
}
