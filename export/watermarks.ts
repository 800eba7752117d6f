// The incremental-export watermark: per pipeline and table, the highest load id already written to a file.
// The table is defined in db/schema/{sqlite,pg}.ts (export_watermarks) and created by the migrations.
import type { ExportDatabase } from './database.js';
import { poolOf, sqliteOf } from './database.js';
import { duckQuery } from '../destinations/duckdb/export-reader.js';

/** Watermark key for exports that are not limited to one pipeline; pipeline names cannot contain '*'. */
export const ALL_PIPELINES = '*';

export async function readWatermark(db: ExportDatabase, pipeline: string, table: string): Promise<bigint | null> {
  if (db.dialect === 'sqlite') {
    const row = sqliteOf(db)
      .prepare('select last_load_id from export_watermarks where pipeline = ? and table_name = ?')
      .safeIntegers(true)
      .get(pipeline, table) as { last_load_id: bigint } | undefined;
    return row ? row.last_load_id : null;
  }
  if (db.dialect === 'duckdb') {
    const [row] = await duckQuery(db, 'select last_load_id from export_watermarks where pipeline = $1 and table_name = $2', [pipeline, table]);
    return row ? BigInt(row['last_load_id'] as bigint) : null;
  }
  const res = await poolOf(db).query<{ last_load_id: string }>(
    'select last_load_id::text as last_load_id from export_watermarks where pipeline = $1 and table_name = $2',
    [pipeline, table],
  );
  const row = res.rows[0];
  return row ? BigInt(row.last_load_id) : null;
}

/** The run and file that last moved a watermark, and how many rows the file holds. */
export interface LastExportedFile {
  run: string;
  file: string;
  rows: number;
}

export async function readLastExportedFile(db: ExportDatabase, pipeline: string, table: string): Promise<LastExportedFile | null> {
  const row =
    db.dialect === 'duckdb'
      ? ((await duckQuery(db, 'select last_run, last_file, cast(last_rows as varchar) as last_rows from export_watermarks where pipeline = $1 and table_name = $2', [pipeline, table]))[0] as
          | { last_run: string | null; last_file: string | null; last_rows: string | null }
          | undefined)
      : db.dialect === 'sqlite'
      ? (sqliteOf(db).prepare('select last_run, last_file, last_rows from export_watermarks where pipeline = ? and table_name = ?').get(pipeline, table) as
          | { last_run: string | null; last_file: string | null; last_rows: number | null }
          | undefined)
      : (
          await poolOf(db).query<{ last_run: string | null; last_file: string | null; last_rows: string | null }>(
            'select last_run, last_file, last_rows::text as last_rows from export_watermarks where pipeline = $1 and table_name = $2',
            [pipeline, table],
          )
        ).rows[0];
  if (!row || row.last_run === null || row.last_file === null) return null;
  return { run: row.last_run, file: row.last_file, rows: Number(row.last_rows ?? 0) };
}

/**
 * Moves the watermark to `lastLoadId` in one statement (its own transaction), recording the file written. It
 * never moves backwards, so two exports racing each other cannot re-open a range the other already wrote.
 */
export async function advanceWatermark(db: ExportDatabase, pipeline: string, table: string, lastLoadId: bigint, written?: LastExportedFile): Promise<void> {
  const run = written?.run ?? null;
  const file = written?.file ?? null;
  const rows = written?.rows ?? null;
  if (db.dialect === 'sqlite') {
    sqliteOf(db)
      .prepare(
        `insert into export_watermarks (pipeline, table_name, last_load_id, exported_at, last_run, last_file, last_rows) values (?, ?, ?, ?, ?, ?, ?)
         on conflict (pipeline, table_name) do update
           set last_load_id = max(export_watermarks.last_load_id, excluded.last_load_id), exported_at = excluded.exported_at,
               last_run = excluded.last_run, last_file = excluded.last_file, last_rows = excluded.last_rows`,
      )
      .run(pipeline, table, lastLoadId, new Date().toISOString(), run, file, rows);
    return;
  }
  if (db.dialect === 'duckdb') {
    await duckQuery(
      db,
      `insert into export_watermarks (pipeline, table_name, last_load_id, exported_at, last_run, last_file, last_rows) values ($1, $2, $3, now(), $4, $5, $6)
       on conflict (pipeline, table_name) do update
         set last_load_id = greatest(export_watermarks.last_load_id, excluded.last_load_id), exported_at = excluded.exported_at,
             last_run = excluded.last_run, last_file = excluded.last_file, last_rows = excluded.last_rows`,
      [pipeline, table, lastLoadId, run, file, rows],
    );
    return;
  }
  await poolOf(db).query(
    `insert into export_watermarks (pipeline, table_name, last_load_id, exported_at, last_run, last_file, last_rows) values ($1, $2, $3, now(), $4, $5, $6)
     on conflict (pipeline, table_name) do update
       set last_load_id = greatest(export_watermarks.last_load_id, excluded.last_load_id), exported_at = excluded.exported_at,
           last_run = excluded.last_run, last_file = excluded.last_file, last_rows = excluded.last_rows`,
    [pipeline, table, lastLoadId.toString(), run, file, rows],
  );
}
