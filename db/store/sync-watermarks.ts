// Where incremental syncs of /api/results resume: the highest result id of the last COMPLETE sync, per pipeline,
// kept in the destination database next to the data it describes (so a new machine or worker resumes correctly).
// The table (sync_watermarks) is part of the Drizzle schema and created by the migrations.
import type { Database } from '../../destinations/contract.js';
import { withTransaction } from './sql.js';

export async function readSyncWatermark(db: Database, pipeline: string, stream: string): Promise<string | null> {
  const rows = await withTransaction(db, (tx) =>
    tx.all(`SELECT watermark FROM sync_watermarks WHERE pipeline = ${tx.ph(1)} AND stream = ${tx.ph(2)}`, [
      pipeline,
      stream,
    ]),
  );
  const w = rows[0]?.['watermark'];
  return typeof w === 'string' ? w : null;
}

/** Moves the watermark forward only (ids are compared as integers; they may exceed 2^53). */
export async function commitSyncWatermark(
  db: Database,
  pipeline: string,
  stream: string,
  watermark: string,
): Promise<void> {
  if (!/^\d+$/.test(watermark)) throw new Error(`sync watermark must be a non-negative integer, got '${watermark}'`);
  await withTransaction(db, async (tx) => {
    // One statement, compared where the conflicting row is locked: two workers committing at once cannot move
    // the watermark back (a read-then-write would let the lower one land last).
    const num = tx.adapter.sql.exactInteger;
    await tx.run(
      `INSERT INTO sync_watermarks (pipeline, stream, watermark, updated_at) VALUES (${tx.ph(1)}, ${tx.ph(2)}, ${tx.ph(3)}, ${tx.ph(4)})
       ON CONFLICT (pipeline, stream) DO UPDATE SET watermark = excluded.watermark, updated_at = excluded.updated_at
       WHERE ${num('sync_watermarks.watermark')} < ${num('excluded.watermark')}`,
      [pipeline, stream, watermark, new Date().toISOString()],
    );
  });
}
