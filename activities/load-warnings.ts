// What a load kept out of its columns (db/store/load-rows.ts LoadWarn: a timestamp that is not one, stored NULL) is
// said in the worker's log with the pipeline and run, so the one who reads the log can find it in raw_responses.
// The run counts them too (raw_responses.kept_out, summed into pipeline_runs.kept_out when it finishes): the log
// names the first few of a response, the count is what status, history, the console, alerts and metrics show.
import { log } from '@temporalio/activity';
import type { LoadBatchResult } from '../db/store/load.js';

export function logLoadWarnings(
  loaded: Pick<LoadBatchResult, 'warnings' | 'loadId' | 'keptOut'>,
  where: { pipeline: string; workflowId: string | null | undefined },
): void {
  const fields = { pipeline: where.pipeline, workflowId: where.workflowId ?? null, rawResponseId: loaded.loadId };
  const warnings = loaded.warnings ?? [];
  for (const warning of warnings) log.warn(`load: ${warning}`, fields);
  const more = (loaded.keptOut?.count ?? 0) - warnings.length;
  if (more > 0)
    log.warn(`load: ${more} more value(s) of this response kept out of their columns (stored NULL)`, fields);
}
