// The incremental-export watermark in a DuckDB destination (moved from export/watermarks.ts).
import type { ExportDatabase } from '../../export/database.js';
import { duckQuery } from './export-reader.js';

export async function readWatermark(db: ExportDatabase, pipeline: string, table: string): Promise<bigint | null> {
  const [row] = await duckQuery(
    db,
    'select last_load_id from export_watermarks where pipeline = $1 and table_name = $2',
    [pipeline, table],
  );
  return row ? BigInt(row['last_load_id'] as bigint) : null;
}

export async function readLastExportedFile(
  db: ExportDatabase,
  pipeline: string,
  table: string,
): Promise<{ run: string; file: string; rows: number } | null> {
  const row = (
    await duckQuery(
      db,
      'select last_run, last_file, cast(last_rows as varchar) as last_rows from export_watermarks where pipeline = $1 and table_name = $2',
      [pipeline, table],
    )
  )[0] as { last_run: string | null; last_file: string | null; last_rows: string | null } | undefined;
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
  await duckQuery(
    db,
    `insert into export_watermarks (pipeline, table_name, last_load_id, exported_at, last_run, last_file, last_rows) values ($1, $2, $3, now(), $4, $5, $6)
     on conflict (pipeline, table_name) do update
       set last_load_id = greatest(export_watermarks.last_load_id, excluded.last_load_id), exported_at = excluded.exported_at,
           last_run = excluded.last_run, last_file = excluded.last_file, last_rows = excluded.last_rows`,
    [pipeline, table, lastLoadId, w.run, w.file, w.rows],
  );
}
