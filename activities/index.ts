// Every activity the pipeline workflow calls. The worker registers `createActivities()`; the workflow imports
// only the `Activities` type (activities never enter the workflow bundle).
import { beginPipelineRun, commitResultsWatermark, finishPipelineRunActivity, readResultsWatermark } from './control.js';
import { runExports } from './exports.js';
import { loadResultsPages } from './results-sync.js';
import { checkRunStatus, createAndRun, loadRunResults } from './scraping-runs.js';
import { readWorkerTuning } from './tuning.js';
import type { WorkerTuning } from './types.js';
import { loadUrlChunk } from './url-lists.js';

export { closeActivityResources } from './resources.js';

export function createActivities() {
  return {
    async workerTuning(): Promise<WorkerTuning> {
      return readWorkerTuning();
    },
    beginPipelineRun,
    finishPipelineRun: finishPipelineRunActivity,
    readResultsWatermark,
    commitResultsWatermark,
    createAndRun,
    checkRunStatus,
    loadRunResults,
    loadUrlChunk,
    loadResultsPages,
    runExports,
  };
}

export type Activities = ReturnType<typeof createActivities>;
