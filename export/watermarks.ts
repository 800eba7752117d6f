// The incremental-export watermark: per pipeline and table, the highest load id already written to a file.
// The table is defined in db/model/schema/definition.ts (export_watermarks) and created by the migrations; each
// destination's statements are its export reader's (destinations/<name>/).
import type { ExportDatabase } from './database.js';

/** Watermark key for exports that are not limited to one pipeline; pipeline names cannot contain '*'. */
export const ALL_PIPELINES = '*';

export async function readWatermark(db: ExportDatabase, pipeline: string, table: string): Promise<bigint | null> {
  return db.adapter.exportReader.readWatermark(db, pipeline, table);
}

/** The run and file that last moved a watermark, and how many rows the file holds. */
export interface LastExportedFile {
  run: string;
  file: string;
  rows: number;
}

export async function readLastExportedFile(
  db: ExportDatabase,
  pipeline: string,
  table: string,
): Promise<LastExportedFile | null> {
  return db.adapter.exportReader.readLastExportedFile(db, pipeline, table);
}

/**
 * Moves the watermark to `lastLoadId` in one statement (its own transaction), recording the file written. It
 * never moves backwards, so two exports racing each other cannot re-open a range the other already wrote.
 */
export async function advanceWatermark(
  db: ExportDatabase,
  pipeline: string,
  table: string,
  lastLoadId: bigint,
  written?: LastExportedFile,
): Promise<void> {
  await db.adapter.exportReader.advanceWatermark(db, pipeline, table, lastLoadId, {
    run: written?.run ?? null,
    file: written?.file ?? null,
    rows: written?.rows ?? null,
  });
}
