// Bookkeeping activities: the pipeline_runs row (started first, finished last with counts read back from the
// database) and the results-sync watermark.
import {
  countRowsOfRun,
  finishPipelineRun,
  getPipelineRun,
  inferredTablesOf,
  keptOutOfRun,
  rejectedResultsOfRun,
  seenRowsOfRun,
  startPipelineRun,
  sumTokenUsageOfRun,
} from '../db/store/pipeline-runs.js';
import { commitSyncWatermark, readSyncWatermark } from '../db/store/sync-watermarks.js';
import { DATA_TABLES } from '../db/model/tables.js';
import { budgetStatusOf } from '../budget/status.js';
import type { ActivityDeps } from './deps.js';
import type {
  BeginPipelineRunInput,
  CommitWatermarkInput,
  FinishPipelineRunInput,
  FinishPipelineRunOutput,
  WatermarkInput,
} from './types.js';

/** The stream name of the results sync's watermark in sync_watermarks. */
const RESULTS_STREAM = 'results';

export function controlActivities(deps: ActivityDeps) {
  return {
    async beginPipelineRun(input: BeginPipelineRunInput): Promise<void> {
      const db = await deps.destination(input.database);
      const { created } = await startPipelineRun(db, {
        workflowId: input.workflowId,
        pipeline: input.pipeline,
        kind: input.kind,
        ...(input.scheduledAt ? { scheduledAt: new Date(input.scheduledAt) } : {}),
      });
      if (created) deps.onRunEvent?.({ event: 'started', pipeline: input.pipeline, workflowId: input.workflowId });
    },

    async finishPipelineRun(input: FinishPipelineRunInput): Promise<FinishPipelineRunOutput> {
      const db = await deps.destination(input.database);
      // Every table the run can have written: the model's, and the pipeline's inferred content tables (the
      // `<pipeline>_items` family, which hold the content of pdf, leads and results pipelines).
      const inferred = await inferredTablesOf(db, input.pipeline);
      const rowsByTable = await countRowsOfRun(db, {
        pipeline: input.pipeline,
        workflowId: input.workflowId,
        tables: [...inferred, ...DATA_TABLES],
      });
      // Rows seen beside rows changed: a run that fetched unchanged rows changed 0 but saw them.
      const seenByTable = await seenRowsOfRun(db, input.workflowId, rowsByTable);
      const tokenUsage = await sumTokenUsageOfRun(db, input.workflowId);
      // Values kept out of their columns (stored NULL) leave the status as it is: the data that could be stored is,
      // and every surface says the count beside the status (docs/warehouse.md).
      const keptOut = await keptOutOfRun(db, input.workflowId);
      // Results its loads quarantined make a run that otherwise succeeded `partial`, with them named in its error.
      const rejected =
        input.status === 'failed' || input.status === 'cancelled'
          ? { count: 0, first: [] }
          : await rejectedResultsOfRun(db, input.workflowId);
      let status = input.status;
      let error = input.error ?? null;
      if (rejected.count > 0) {
        // A run that failed its checks keeps that status: it is the worse news.
        if (status === 'succeeded') status = 'partial';
        const named = rejected.first.map((r) => `result ${r.resultId}: ${r.reason}`).join(' | ');
        const text = `${rejected.count} result(s) could not be loaded and were quarantined in rejected_results (the others loaded): ${named}`;
        error = error ? `${error} | ${text}` : text;
      }
      await finishPipelineRun(db, {
        tokenUsage,
        keptOut,
        workflowId: input.workflowId,
        status,
        rowsByTable,
        seenByTable,
        error,
        ...(input.statusReason ? { statusReason: input.statusReason } : {}),
        ...(input.exportStatus && input.exportStatus !== 'none'
          ? { exportStatus: input.exportStatus, exportError: input.exportError ?? null }
          : {}),
      });
      const row = await getPipelineRun(db, input.workflowId);
      const durationMs =
        row?.finishedAt && row.startedAt ? Date.parse(row.finishedAt) - Date.parse(row.startedAt) : null;
      deps.metrics.runFinished({
        pipeline: input.pipeline,
        kind: input.kind,
        status,
        rowsByTable,
        seenByTable,
        tokenUsage,
        keptOut: keptOut.count,
        durationMs,
      });
      if (input.budgets) {
        const status = await budgetStatusOf(db, { name: input.pipeline, ...input.budgets }, input.workflowId);
        for (const b of status)
          deps.metrics.budget({
            pipeline: input.pipeline,
            scope: b.limit.scope,
            limit: b.limit.key.replace(/^budget\./, ''),
            value: b.limit.limit,
            spent: b.spent,
          });
      }
      deps.onRunEvent?.({
        event: 'ended',
        pipeline: input.pipeline,
        workflowId: input.workflowId,
        status,
        rowsByTable,
        seenByTable,
        ...(keptOut.count > 0 ? { keptOut: keptOut.count } : {}),
        durationMs,
        error,
      });
      // A cancelled run's quarantined results are not counted (above): only a finished run's status is said back.
      return {
        rowsByTable,
        seenByTable,
        tokenUsage,
        ...(keptOut.count > 0 ? { keptOut: keptOut.count } : {}),
        ...(rejected.count > 0 && status !== 'cancelled' ? { status, error, rejectedResults: rejected.count } : {}),
      };
    },

    async readResultsWatermark(input: WatermarkInput): Promise<string | null> {
      return readSyncWatermark(await deps.destination(input.database), input.pipeline, RESULTS_STREAM);
    },

    async commitResultsWatermark(input: CommitWatermarkInput): Promise<void> {
      await commitSyncWatermark(
        await deps.destination(input.database),
        input.pipeline,
        RESULTS_STREAM,
        input.watermark,
      );
    },
  };
}
