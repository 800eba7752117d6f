// Mode 'url-list' (job-board, marketplace): the URL list in slices, each slice one activity that fans out with
// p-limit inside; a URL that fails for good is collected (the run ends 'partial') without losing the others.
// The list itself is read by reference (input.urlList, stored by the starter in the destination database), so a
// list of any length fits Temporal's payload limits; long lists continue-as-new so history stays bounded.
import { continueAsNew } from '@temporalio/workflow';
import type { PipelineWorkflowInput } from '../temporal/contract.js';
import type { ModeRunner } from './shared.js';
import { MAX_LISTED_FAILURES, addRows, shortText, urlsOf, withoutUrls } from './shared.js';

export const runUrlList: ModeRunner = async ({ input, spec, workflowId, tuning, progress, loading, failures, alerts }) => {
  const inline = input.urlList ? [] : urlsOf(spec);
  const total = input.urlList ? input.urlList.count : inline.length;
  const size = Math.max(1, tuning.urlChunkSize);
  let offset = input.resume?.urlOffset ?? 0;
  failures.count = input.resume?.failedUrlCount ?? 0;
  failures.listed.push(...(input.resume?.failedUrls ?? []));
  progress.urls = { total, done: offset, failed: failures.count };
  progress.failedUrls = failures.listed.slice(0, MAX_LISTED_FAILURES);
  progress.phase = 'loading';
  const bare = withoutUrls(spec);
  let activities = 0;
  while (offset < total) {
    if (activities >= tuning.activitiesPerRun) {
      const next: PipelineWorkflowInput = {
        spec,
        runKey: input.runKey,
        ...(input.urlList ? { urlList: input.urlList } : {}),
        ...(input.seal ? { seal: input.seal } : {}),
        resume: {
          tuning,
          urlOffset: offset,
          failedUrlCount: failures.count,
          failedUrls: failures.listed,
          pagesLoaded: progress.pagesLoaded,
          resultsLoaded: progress.resultsLoaded,
          rowsLoaded: progress.rowsLoaded,
          continuedAsNew: progress.continuedAsNew + 1,
          alerts,
        },
      };
      await continueAsNew(next);
    }
    const count = Math.min(size, total - offset);
    const out = await loading.loadUrlChunk({
      workflowId,
      spec: bare,
      offset,
      ...(input.urlList ? { urls: [], list: { listId: input.urlList.listId, count } } : { urls: inline.slice(offset, offset + count) }),
    });
    activities += 1;
    offset += count;
    progress.urls.done = offset;
    progress.urls.failed += out.failed.length;
    failures.count += out.failed.length;
    addRows(progress.rowsLoaded, out.rows);
    for (const f of out.failed) {
      if (failures.listed.length >= MAX_LISTED_FAILURES) break;
      const short = { url: f.url, error: shortText(f.error) };
      failures.listed.push(short);
      progress.failedUrls.push(short);
    }
  }
  return { scrapingRunIds: [] };
};
