// The incremental-export watermark: per pipeline and table, the highest load id already written to a file.
// The table is defined in db/schema/{sqlite,pg}.ts (export_watermarks) and created by the migrations.
import type { ExportDatabase } from './database.js';
import { poolOf, sqliteOf } from './database.js';

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
  const res = await poolOf(db).query<{ last_load_id: string }>(
    'select last_load_id::text as last_load_id from export_watermarks where pipeline = $1 and table_name = $2',
    [pipeline, table],
  );
  const row = res.rows[0];
  return row ? BigInt(row.last_load_id) : null;
}

/**
 * Moves the watermark to `lastLoadId` in one statement (its own transaction). It never moves backwards, so two
 * exports racing each other cannot re-open a range the other already wrote.
 */
export async function advanceWatermark(db: ExportDatabase, pipeline: string, table: string, lastLoadId: bigint): Promise<void> {
  if (db.dialect === 'sqlite') {
    sqliteOf(db)
      .prepare(
        `insert into export_watermarks (pipeline, table_name, last_load_id, exported_at) values (?, ?, ?, ?)
         on conflict (pipeline, table_name) do update
           set last_load_id = max(export_watermarks.last_load_id, excluded.last_load_id), exported_at = excluded.exported_at`,
      )
      .run(pipeline, table, lastLoadId, new Date().toISOString());
    return;
  }
  await poolOf(db).query(
    `insert into export_watermarks (pipeline, table_name, last_load_id, exported_at) values ($1, $2, $3, now())
     on conflict (pipeline, table_name) do update
       set last_load_id = greatest(export_watermarks.last_load_id, excluded.last_load_id), exported_at = excluded.exported_at`,
    [pipeline, table, lastLoadId.toString()],
  );
}
