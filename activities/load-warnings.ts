// What a load kept out of its columns (db/store/load-rows.ts LoadWarn: a timestamp that is not one, stored NULL) is
// said in the worker's log with the pipeline and run, so the one who reads the log can find it in raw_responses.
import { log } from '@temporalio/activity';
import type { LoadBatchResult } from '../db/store/load.js';

export function logLoadWarnings(
  loaded: Pick<LoadBatchResult, 'warnings' | 'loadId'>,
  where: { pipeline: string; workflowId: string | null | undefined },
): void {
  for (const warning of loaded.warnings ?? [])
    log.warn(`load: ${warning}`, {
      pipeline: where.pipeline,
      workflowId: where.workflowId ?? null,
      rawResponseId: loaded.loadId,
    });
}
