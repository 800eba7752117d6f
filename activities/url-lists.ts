// Mode 'url-list' (job-board, marketplace): one chunk of the pipeline's URL list per activity, fanned out with
// p-limit(spec.concurrency); each URL's response is landed and loaded in its own transaction, and a URL that
// fails for good is reported without losing the others. How one URL is fetched is the kind's (kinds/).
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import pLimit from 'p-limit';
import { loadBatch } from '../db/load.js';
import { readUrlSlice } from '../db/url-lists.js';
import type { UrlListKind } from '../kinds/index.js';
import type { PipelineKind, PipelineSpec } from '../pipelines/spec.js';
import type { ActivityDeps } from './deps.js';
import { addRows, asActivityFailure, isScraperApiError, kindRunningIn } from './failures.js';
import type { FailedUrl, UrlChunkHeartbeat, UrlChunkInput, UrlChunkOutput } from './types.js';

/** Attempts of this activity during which transient (retryable) URL errors are retried rather than reported. */
const TRANSIENT_RETRY_ATTEMPTS = 3;

export function urlListActivities(deps: ActivityDeps) {
  async function loadOne(spec: PipelineSpec, kind: UrlListKind<PipelineKind>, workflowId: string, url: string, signal: AbortSignal) {
    const db = await deps.destination(spec.destination.database);
    const { api, load } = await kind.fetch(deps.client(), spec.request, url, { signal });
    const out = await loadBatch(db, {
      ...load,
      pipeline: spec.name,
      resultTable: kind.resultTable,
      requestKey: url,
      workflowId,
      priceDivisor: spec.price_divisor,
      endpoint: api.endpoint,
      raw: api.raw,
      receivedAt: api.receivedAt,
      schemaMode: spec.schema.mode,
    });
    return out.rowsByTable;
  }

  async function loadUrlChunk(input: UrlChunkInput): Promise<UrlChunkOutput> {
    const { spec, workflowId } = input;
    const kind = kindRunningIn(spec, 'url-list');
    const urls = input.list
      ? await readUrlSlice(await deps.destination(spec.destination.database), input.list.listId, input.offset, input.list.count)
      : input.urls;
    const ctx = Context.current();
    const previous = ctx.info.heartbeatDetails as UrlChunkHeartbeat | undefined;
    const done = new Set(previous?.done ?? []);
    const failed: FailedUrl[] = [...(previous?.failed ?? [])];
    const rows: Record<string, number> = { ...(previous?.rows ?? {}) };
    const transient: Array<{ index: number; url: string; error: string }> = [];
    const limit = pLimit(Math.max(1, spec.concurrency));
    const beat = () => ctx.heartbeat({ done: [...done], failed, rows } satisfies UrlChunkHeartbeat);

    // A load error that no retry can fix (a frozen schema met a new column) fails the run, not just its URL.
    await Promise.all(
      urls.map((url, index) =>
        limit(async () => {
          if (done.has(index)) return;
          try {
            addRows(rows, await loadOne(spec, kind, workflowId, url, ctx.cancellationSignal));
          } catch (err) {
            if (err instanceof CancelledFailure || ctx.cancellationSignal.aborted) throw err;
            // Only the service's answers are per-URL outcomes; a database error fails the activity (retried).
            if (!isScraperApiError(err)) throw err;
            if (err.retryable && ctx.info.attempt < TRANSIENT_RETRY_ATTEMPTS) {
              transient.push({ index, url, error: err.message });
              return;
            }
            failed.push({ url, error: err.message });
          }
          done.add(index);
          beat();
        }),
      ),
    ).catch((err: unknown) => {
      throw asActivityFailure(err);
    });
    if (transient.length > 0) {
      beat();
      throw ApplicationFailure.retryable(
        `${transient.length} of ${urls.length} URLs (from #${input.offset + 1}) hit transient errors, retrying them; first: ${transient[0]?.url}: ${transient[0]?.error}`,
        'TransientUrlErrors',
      );
    }
    return { succeeded: urls.length - failed.length, failed, rows };
  }

  return { loadUrlChunk };
}
