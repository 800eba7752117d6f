// What the Temporal Web UI shows of a run's outcome. A partial run (some URLs failed for good) completes the
// workflow, which the UI shows as a green COMPLETED; the ScrapeEtlStatus search attribute (and the memo's
// `status`) says succeeded, partial or failed. Workflow code only.
import { defineSearchAttributeKey } from '@temporalio/common';
import { patched, upsertMemo, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { SEARCH_ATTRIBUTE_NAMES, visibleInUi } from '../temporal/contract.js';
import type { DataOutcome } from '../lib/run-states.js';

/** Runs started before the status was recorded replay without these commands. Keep the id. */
export const STATUS_PATCH = 'scrape-etl-status-1';

const STATUS = defineSearchAttributeKey(SEARCH_ATTRIBUTE_NAMES.status, 'KEYWORD');

/**
 * Sets the run's status in its memo, and in ScrapeEtlStatus when the run started with it (the starter sets it to
 * 'running' only where the namespace has it registered): upserting an unregistered attribute fails the workflow
 * task, so the run's own start attributes are the test, and the memo the fallback the UI always shows.
 */
export function markRunStatus(status: DataOutcome | 'cancelled', lean = false): void {
  if (!lean && !patched(STATUS_PATCH)) return;
  // In clear: the memo is for the Web UI, which cannot decrypt (temporal/payload-codec.ts).
  upsertMemo({ status: visibleInUi(status) });
  if (workflowInfo().typedSearchAttributes.get(STATUS) !== undefined)
    upsertSearchAttributes([{ key: STATUS, value: status }]);
}
