// Where incremental syncs of /api/results resume: the highest result id of the last COMPLETE sync, per pipeline,
// kept in the destination database next to the data it describes (so a new machine or worker resumes correctly).
// The table is created here on first use because it belongs to the sync, not to the exported data model.
import type { Database } from '../db/connect.js';
import { withTransaction } from '../db/sql.js';

const CREATE = `CREATE TABLE IF NOT EXISTS sync_watermarks (
  pipeline text NOT NULL,
  stream text NOT NULL,
  watermark text NOT NULL,
  updated_at text NOT NULL,
  PRIMARY KEY (pipeline, stream)
)`;

const created = new WeakSet<Database>();

async function ensureTable(db: Database): Promise<void> {
  if (created.has(db)) return;
  await withTransaction(db, (tx) => tx.run(CREATE, []));
  created.add(db);
}

export async function readSyncWatermark(db: Database, pipeline: string, stream: string): Promise<string | null> {
  await ensureTable(db);
  const rows = await withTransaction(db, (tx) =>
    tx.all(`SELECT watermark FROM sync_watermarks WHERE pipeline = ${tx.ph(1)} AND stream = ${tx.ph(2)}`, [pipeline, stream]),
  );
  const w = rows[0]?.['watermark'];
  return typeof w === 'string' ? w : null;
}

/** Moves the watermark forward only (ids are compared as integers; they may exceed 2^53). */
export async function commitSyncWatermark(db: Database, pipeline: string, stream: string, watermark: string): Promise<void> {
  if (!/^\d+$/.test(watermark)) throw new Error(`sync watermark must be a non-negative integer, got '${watermark}'`);
  await ensureTable(db);
  await withTransaction(db, async (tx) => {
    const [row] = await tx.all(`SELECT watermark FROM sync_watermarks WHERE pipeline = ${tx.ph(1)} AND stream = ${tx.ph(2)}`, [pipeline, stream]);
    const current = row?.['watermark'];
    if (typeof current === 'string' && BigInt(current) >= BigInt(watermark)) return;
    const now = new Date().toISOString();
    await tx.run(
      `INSERT INTO sync_watermarks (pipeline, stream, watermark, updated_at) VALUES (${tx.ph(1)}, ${tx.ph(2)}, ${tx.ph(3)}, ${tx.ph(4)})
       ON CONFLICT (pipeline, stream) DO UPDATE SET watermark = excluded.watermark, updated_at = excluded.updated_at`,
      [pipeline, stream, watermark, now],
    );
  });
}
