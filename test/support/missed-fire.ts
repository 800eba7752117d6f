// A destination holding one finished run and one missed schedule fire of the same pipeline, written by the code
// `scrape-etl up` and the workflow use (recordDidNotRun, startPipelineRun/finishPipelineRun): what `status`,
// `history` and the console show of a missed fire is checked against it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../destinations/open.js';
import { finishPipelineRun, recordDidNotRun, startPipelineRun } from '../../db/store/pipeline-runs.js';

export const MISSED_PIPELINE = 'missed-shop';
/** The fire time, and when `up` found it missed: 97.3 s later, the "duration" a missed fire must not show. */
export const FIRE_AT = new Date('2026-11-26T12:00:00.000Z');
export const FOUND_AT = new Date('2026-11-26T12:01:37.300Z');
export const MISSED_ID = `${MISSED_PIPELINE}--did-not-run-2026-11-26T12:00:00Z`;
export const RUN_ID = `${MISSED_PIPELINE}--scheduled-2026-11-26T11:00:00Z`;

export async function seedMissedFire(
  name: string,
): Promise<{ dir: string; dbFile: string; dbUrl: string; close(): void }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `scrape-etl-${name}-`));
  const dbFile = path.join(dir, 'runs.sqlite');
  const dbUrl = `sqlite:${dbFile}`;
  const db = await openDatabase(dbUrl);
  try {
    await startPipelineRun(db, {
      workflowId: RUN_ID,
      pipeline: MISSED_PIPELINE,
      kind: 'marketplace',
      startedAt: new Date('2026-11-26T11:00:00.000Z'),
      scheduledAt: new Date('2026-11-26T11:00:00.000Z'),
    });
    await finishPipelineRun(db, {
      workflowId: RUN_ID,
      status: 'succeeded',
      rowsByTable: { marketplace_products: 2 },
      finishedAt: new Date('2026-11-26T11:00:04.000Z'),
      tokenUsage: 3,
    });
    await recordDidNotRun(db, {
      workflowId: MISSED_ID,
      pipeline: MISSED_PIPELINE,
      kind: 'marketplace',
      scheduledAt: FIRE_AT,
      error: `schedule ${MISSED_PIPELINE} of pipeline ${MISSED_PIPELINE} did not run at 2026-11-26T12:00:00Z: skipped by its overlap policy (skip)`,
      now: FOUND_AT,
    });
  } finally {
    await db.close();
  }
  return { dir, dbFile, dbUrl, close: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
