// Mode 'results-sync' (results): page /api/results newest first down to the last complete sync's watermark,
// continue-as-new every N activities so history stays bounded however long the list is.
import { continueAsNew } from '@temporalio/workflow';
import type { PipelineWorkflowInput, ResultsCursor } from '../temporal/contract.js';
import type { ModeRunner } from './shared.js';
import { addRows } from './shared.js';

export const runResultsSync: ModeRunner = async ({
  input,
  spec,
  workflowId,
  tuning,
  progress,
  loading,
  control,
  alerts,
}) => {
  progress.phase = 'loading';
  const cursor: ResultsCursor = input.resume?.cursor
    ? input.resume.cursor
    : {
        nextPage: 1,
        watermark: await control.readResultsWatermark({ database: spec.destination.database, pipeline: spec.name }),
        highestId: null,
        lowestId: null,
        stalledPages: 0,
        lastPageKey: null,
      };
  const maxPages = (spec.request as { max_pages?: number }).max_pages;
  let activities = 0;
  let reachedEnd = false;
  for (;;) {
    const pagesLeft = maxPages === undefined ? Infinity : maxPages - progress.pagesLoaded;
    if (pagesLeft <= 0) break;
    const out = await loading.loadResultsPages({
      workflowId,
      spec,
      startPage: cursor.nextPage,
      watermark: cursor.watermark,
      maxPages: Math.min(tuning.pagesPerActivity, pagesLeft),
      lowestId: cursor.lowestId,
      stalledPages: cursor.stalledPages,
      lastPageKey: cursor.lastPageKey,
    });
    activities += 1;
    progress.pagesLoaded += out.pagesLoaded;
    progress.resultsLoaded += out.resultsLoaded;
    addRows(progress.rowsLoaded, out.rows);
    cursor.nextPage = out.nextPage;
    cursor.highestId = maxId(cursor.highestId, out.highestId);
    cursor.lowestId = out.lowestId;
    cursor.stalledPages = out.stalledPages;
    cursor.lastPageKey = out.lastPageKey;
    if (out.done) {
      reachedEnd = true;
      break;
    }
    if (activities >= tuning.activitiesPerRun) {
      const next: PipelineWorkflowInput = {
        spec,
        runKey: input.runKey,
        ...(input.seal ? { seal: input.seal } : {}),
        resume: {
          tuning,
          cursor,
          pagesLoaded: progress.pagesLoaded,
          resultsLoaded: progress.resultsLoaded,
          rowsLoaded: progress.rowsLoaded,
          continuedAsNew: progress.continuedAsNew + 1,
          alerts,
        },
      };
      await continueAsNew(next);
    }
  }
  // The watermark moves only after a complete pass, so an interrupted sync never leaves a gap below it.
  // A pass cut short by max_pages is not complete: the next sync starts over from the newest page.
  if (reachedEnd && cursor.highestId !== null) {
    await control.commitResultsWatermark({
      database: spec.destination.database,
      pipeline: spec.name,
      watermark: cursor.highestId,
    });
  }
  return { scrapingRunIds: [] };
};

function maxId(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return BigInt(a) >= BigInt(b) ? a : b;
}
