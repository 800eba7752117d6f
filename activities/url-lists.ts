// Synchronous kinds (job-board, marketplace): one chunk of the pipeline's URL list per activity, fanned out with
// p-limit(spec.concurrency); each URL's response is landed and loaded in its own transaction, and a URL that
// fails for good is reported without losing the others.
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import pLimit from 'p-limit';
import { loadBatch } from '../db/load.js';
import type { PipelineSpec } from '../pipelines/spec.js';
import { addRows, destination, isScraperApiError, scraperClient } from './resources.js';
import type { FailedUrl, UrlChunkHeartbeat, UrlChunkInput, UrlChunkOutput } from './types.js';

/** Attempts of this activity during which transient (retryable) URL errors are retried rather than reported. */
const TRANSIENT_RETRY_ATTEMPTS = 3;

async function loadOne(spec: PipelineSpec, workflowId: string, url: string, signal: AbortSignal): Promise<Partial<Record<string, number>>> {
  const client = scraperClient();
  const db = await destination(spec.destination.database);
  const common = { pipeline: spec.name, pipelineKind: spec.kind, requestKey: url, workflowId, priceDivisor: spec.price_divisor };
  if (spec.kind === 'marketplace') {
    const res = await client.marketplaceSync({ url }, { signal });
    const out = await loadBatch(db, { ...common, endpoint: res.endpoint, raw: res.raw, receivedAt: res.receivedAt, kind: 'marketplace', data: res.data });
    return out.rowsByTable;
  }
  if (spec.kind === 'job-board') {
    const { min, max, timeout, schema } = spec.request;
    const res = await client.jobBoardScrape({ urls: [url], min, max, timeout, schema } as Parameters<typeof client.jobBoardScrape>[0], { signal });
    const out = await loadBatch(db, { ...common, endpoint: res.endpoint, raw: res.raw, receivedAt: res.receivedAt, kind: 'job-board', data: res.data });
    return out.rowsByTable;
  }
  throw ApplicationFailure.nonRetryable(`pipeline kind '${spec.kind}' has no URL list`, 'BadKind');
}

export async function loadUrlChunk(input: UrlChunkInput): Promise<UrlChunkOutput> {
  const { spec, urls, workflowId } = input;
  const ctx = Context.current();
  const previous = ctx.info.heartbeatDetails as UrlChunkHeartbeat | undefined;
  const done = new Set(previous?.done ?? []);
  const failed: FailedUrl[] = [...(previous?.failed ?? [])];
  const rows: Record<string, number> = { ...(previous?.rows ?? {}) };
  const transient: Array<{ index: number; url: string; error: string }> = [];
  const limit = pLimit(Math.max(1, spec.concurrency));
  const beat = () => ctx.heartbeat({ done: [...done], failed, rows } satisfies UrlChunkHeartbeat);

  await Promise.all(
    urls.map((url, index) =>
      limit(async () => {
        if (done.has(index)) return;
        try {
          addRows(rows, await loadOne(spec, workflowId, url, ctx.cancellationSignal));
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
  );
  if (transient.length > 0) {
    beat();
    throw ApplicationFailure.retryable(
      `${transient.length} of ${urls.length} URLs (from #${input.offset + 1}) hit transient errors, retrying them; first: ${transient[0]?.url}: ${transient[0]?.error}`,
      'TransientUrlErrors',
    );
  }
  return { succeeded: urls.length - failed.length, failed, rows };
}
