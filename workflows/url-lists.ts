// Mode 'url-list' (job-board, marketplace): the URL list in chunks, each chunk one activity that fans out with
// p-limit inside; a URL that fails for good is collected (the run ends 'partial') without losing the others.
import type { ModeRunner } from './shared.js';
import { MAX_LISTED_FAILURES, addRows, chunked, shortText, urlsOf, withoutUrls } from './shared.js';

export const runUrlList: ModeRunner = async ({ spec, workflowId, tuning, progress, loading, failedUrls }) => {
  const urls = urlsOf(spec);
  progress.urls.total = urls.length;
  progress.phase = 'loading';
  const bare = withoutUrls(spec);
  let offset = 0;
  for (const chunk of chunked(urls, Math.max(1, tuning.urlChunkSize))) {
    const out = await loading.loadUrlChunk({ workflowId, spec: bare, offset, urls: chunk });
    offset += chunk.length;
    progress.urls.done += chunk.length;
    progress.urls.failed += out.failed.length;
    addRows(progress.rowsLoaded, out.rows);
    for (const f of out.failed) {
      const short = { url: f.url, error: shortText(f.error) };
      failedUrls.push(short);
      if (progress.failedUrls.length < MAX_LISTED_FAILURES) progress.failedUrls.push(short);
    }
  }
  return { scrapingRunIds: [] };
};
