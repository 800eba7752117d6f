// Bookkeeping activities: the pipeline_runs row (started first, finished last with counts read back from the
// database) and the results-sync watermark.
import { finishPipelineRun, startPipelineRun } from '../db/pipeline-runs.js';
import { withTransaction } from '../db/sql.js';
import { DATA_TABLES } from '../db/tables.js';
import { destination } from './resources.js';
import type {
  BeginPipelineRunInput,
  CommitWatermarkInput,
  FinishPipelineRunInput,
  FinishPipelineRunOutput,
  WatermarkInput,
} from './types.js';
import { commitSyncWatermark, readSyncWatermark } from './watermark-store.js';

export async function beginPipelineRun(input: BeginPipelineRunInput): Promise<void> {
  const db = await destination(input.database);
  await startPipelineRun(db, { workflowId: input.workflowId, pipeline: input.pipeline, kind: input.kind });
}

export async function finishPipelineRunActivity(input: FinishPipelineRunInput): Promise<FinishPipelineRunOutput> {
  const db = await destination(input.database);
  // Counted from the tables, not summed from activity results: a batch loaded twice (retry after a crash)
  // must not be counted twice.
  const rowsByTable: Record<string, number> = {};
  await withTransaction(db, async (tx) => {
    for (const table of DATA_TABLES) {
      const [row] = await tx.all(
        `SELECT count(*) AS n FROM "${table}" WHERE pipeline = ${tx.ph(1)} AND load_id IN (SELECT id FROM raw_responses WHERE workflow_id = ${tx.ph(2)})`,
        [input.pipeline, input.workflowId],
      );
      const n = Number(row?.['n'] ?? 0);
      if (n > 0) rowsByTable[table] = n;
    }
  });
  await finishPipelineRun(db, { workflowId: input.workflowId, status: input.status, rowsByTable, error: input.error });
  return { rowsByTable };
}

export async function readResultsWatermark(input: WatermarkInput): Promise<string | null> {
  return readSyncWatermark(await destination(input.database), input.pipeline, 'results');
}

export async function commitResultsWatermark(input: CommitWatermarkInput): Promise<void> {
  await commitSyncWatermark(await destination(input.database), input.pipeline, 'results', input.watermark);
}
