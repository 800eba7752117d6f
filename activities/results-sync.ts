// The `results` kind: pages /api/results (newest first) from a page cursor down to the last complete sync's
// watermark, one transaction per page, heartbeating the cursor so a retried attempt resumes at the next page.
// New results arriving meanwhile push older ones onto later pages, so resuming by page number can re-read a
// result (an idempotent upsert) but never skips one.
import { contentTargetOf } from '../kinds/content.js';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { loadBatch } from '../db/store/load.js';
import { progressBeats } from './keep-alive.js';
import { logLoadWarnings } from './load-warnings.js';
import type { ActivityDeps } from './deps.js';
import { addRows, asActivityFailure, kindRunningIn } from './failures.js';
import type { ResultsPagesHeartbeat, ResultsPagesInput, ResultsPagesOutput } from './types.js';
import { hexDigest } from '../db/model/hash.js';

/** Identical pages in a row (each the same ids as the one before, adding nothing) before the sync gives up. */
export const MAX_REPEATED_PAGES = 3;

export function resultsSyncActivities(deps: ActivityDeps) {
  return { loadResultsPages: (input: ResultsPagesInput) => loadResultsPages(deps, input) };
}

async function loadResultsPages(deps: ActivityDeps, input: ResultsPagesInput): Promise<ResultsPagesOutput> {
  const { spec, workflowId } = input;
  const kind = kindRunningIn(spec, 'results-sync');
  const ctx = Context.current();
  const previous = ctx.info.heartbeatDetails as ResultsPagesHeartbeat | undefined;
  let page = previous?.nextPage ?? input.startPage;
  let pagesLoaded = previous?.pagesLoaded ?? 0;
  let resultsLoaded = previous?.resultsLoaded ?? 0;
  let highestId = previous?.highestId ?? null;
  let lowestId = previous?.lowestId ?? input.lowestId;
  let stalledPages = previous?.stalledPages ?? input.stalledPages;
  let lastPageKey = previous?.lastPageKey ?? input.lastPageKey;
  const rows: Record<string, number> = { ...(previous?.rows ?? {}) };
  const watermark = input.watermark === null ? null : BigInt(input.watermark);
  const perPage = (spec.request as { per_page: number }).per_page;
  let done = false;
  // Alive while it waits for its destination (a DuckDB file another process holds) or a page, with the newest cursor:
  // a bare beat would send a retry back to the first page.
  const beats = progressBeats<ResultsPagesHeartbeat>(ctx);
  try {
    const db = await deps.destination(spec.destination.database);
    while (pagesLoaded < input.maxPages) {
      const res = await deps.client().listResults({ page, per_page: perPage }, { signal: ctx.cancellationSignal });
      const items = res.data.data;
      if (items.length === 0) {
        done = true;
        break;
      }
      // Newest first: a page that moves the scan on holds an id below every id seen so far in this pass. Results
      // arriving meanwhile push seen ones down, so pages can go by that add nothing (their ids shift from page to
      // page; new results above this pass's watermark are for the next sync). A service repeating one page serves
      // the same ids again and again: three repeats in a row end the sync instead of paging forever. Pages that add
      // nothing are not landed, so neither case grows raw_responses.
      const pageLowest = items.reduce<bigint | null>(
        (m, r) => (m === null || BigInt(r.id) < m ? BigInt(r.id) : m),
        null,
      );
      const pageKey = hexDigest('sha1', items.map((r) => r.id.toString()).join(','));
      if (lowestId !== null && pageLowest !== null && pageLowest >= BigInt(lowestId)) {
        stalledPages = pageKey === lastPageKey ? stalledPages + 1 : 0;
        lastPageKey = pageKey;
        if (stalledPages >= MAX_REPEATED_PAGES) {
          throw ApplicationFailure.nonRetryable(
            `${res.endpoint}?page=${page}&per_page=${perPage}: ${stalledPages} pages in a row repeated the page before (no result older than id ${lowestId}); the list does not advance, so the sync of pipeline '${spec.name}' stops instead of paging forever`,
            'ResultsPagingStuck',
          );
        }
        page += 1;
        beats.beat({
          nextPage: page,
          pagesLoaded,
          resultsLoaded,
          highestId,
          lowestId,
          stalledPages,
          lastPageKey,
          rows,
        });
        continue;
      }
      stalledPages = 0;
      lastPageKey = pageKey;
      if (pageLowest !== null) lowestId = pageLowest.toString();
      const fresh = watermark === null ? items : items.filter((r) => BigInt(r.id) > watermark);
      for (const r of fresh) if (highestId === null || BigInt(r.id) > BigInt(highestId)) highestId = r.id.toString();
      if (fresh.length > 0) {
        const out = await loadBatch(db, {
          pipeline: spec.name,
          resultTable: kind.resultTable,
          endpoint: res.endpoint,
          requestKey: `results:page:${page}:per_page:${perPage}`,
          raw: res.raw,
          receivedAt: res.receivedAt,
          workflowId,
          content: contentTargetOf(spec, kind),
          schemaMode: spec.schema.mode,
          kind: 'results',
          data: fresh.length === items.length ? res.data : { ...res.data, data: fresh },
        });
        addRows(rows, out.rowsByTable);
        logLoadWarnings(out, { pipeline: spec.name, workflowId });
        resultsLoaded += fresh.length;
      }
      pagesLoaded += 1;
      page += 1;
      beats.beat({
        nextPage: page,
        pagesLoaded,
        resultsLoaded,
        highestId,
        lowestId,
        stalledPages,
        lastPageKey,
        rows,
      });
      if (fresh.length < items.length || items.length < perPage) {
        done = true;
        break;
      }
    }
  } catch (err) {
    throw asActivityFailure(err);
  } finally {
    beats.stop();
  }
  return { nextPage: page, done, pagesLoaded, resultsLoaded, highestId, lowestId, stalledPages, lastPageKey, rows };
}
