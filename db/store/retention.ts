// Retention of raw_responses: bodies older than a cutoff are deleted, except those that something still needs.
//
// Kept whatever their age:
// - a response that is the load_id of a current data row of its pipeline (any data table). Rows keep load_id as
//   their lineage; keeping those bodies means every current row can still be traced to, and rebuilt from, the
//   answer it came from. What goes are the bodies of superseded versions and of answers that changed nothing.
// - a response whose body another kept row points at through body_ref (a body stored once for identical
//   answers, possibly of another pipeline): deleting it would empty that row's body.
// - the responses of a run still in progress (pipeline_runs.status 'running'): a retried step reads the answer its
//   earlier attempt recorded (findRecordedBody) instead of paying for the call again.
import type { Database } from '../../destinations/contract.js';
import { quoteIdent, withTransaction } from './sql.js';
import { DATA_TABLES } from '../model/tables.js';

export interface RawRetentionResult {
  /** Responses of the pipeline older than the cutoff. */
  old: number;
  deleted: number;
  /** Old ones kept: current rows' lineage, bodies others reference, runs in progress. */
  kept: number;
}

export async function pruneRawResponses(
  db: Database,
  opts: { pipeline: string; olderThan: Date },
): Promise<RawRetentionResult> {
  return withTransaction(db, async (tx) => {
    const cutoff = opts.olderThan.toISOString();
    const [row] = await tx.all(
      `SELECT count(*) AS n FROM raw_responses WHERE pipeline = ${tx.ph(1)} AND loaded_at < ${tx.ph(2)}`,
      [opts.pipeline, cutoff],
    );
    const old = Number(row?.['n'] ?? 0);
    if (old === 0) return { old, deleted: 0, kept: 0 };
    const notCurrent = DATA_TABLES.map(
      (t) => `NOT EXISTS (SELECT 1 FROM ${quoteIdent(t)} d WHERE d.pipeline = r.pipeline AND d.load_id = r.id)`,
    ).join('\n        AND ');
    // Postgres compares loaded_at (timestamptz) with the ISO text as a time; SQLite compares the ISO texts, which sort as times.
    const deleted = await tx.run(
      `WITH doomed AS (
         SELECT r.id FROM raw_responses r
         WHERE r.pipeline = ${tx.ph(1)} AND r.loaded_at < ${tx.ph(2)}
           AND (r.workflow_id IS NULL OR r.workflow_id NOT IN (SELECT workflow_id FROM pipeline_runs WHERE status = 'running'))
           AND ${notCurrent}
       )
       DELETE FROM raw_responses
       WHERE id IN (SELECT id FROM doomed)
         AND id NOT IN (SELECT k.body_ref FROM raw_responses k WHERE k.body_ref IS NOT NULL AND k.id NOT IN (SELECT id FROM doomed))`,
      [opts.pipeline, cutoff],
    );
    return { old, deleted, kept: old - deleted };
  });
}
