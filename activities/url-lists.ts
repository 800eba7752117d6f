// Mode 'url-list' (job-board, marketplace): one chunk of the pipeline's URL list per activity, fetched with
// p-limit(spec.concurrency); each URL's response is landed and loaded atomically (alone, or as part of a group that
// keeps each response atomic, see ChunkWriter), and a URL that fails for good is reported without losing the others.
// How one URL is fetched is the kind's (kinds/).
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import pLimit from 'p-limit';
import type { Database } from '../destinations/contract.js';
import { loadBatch, loadBatches, type LoadBatchOptions, type LoadBatchResult } from '../db/store/load.js';
import { readUrlSlice } from '../db/store/url-lists.js';
import { landedRequestKeys } from '../db/store/raw-responses.js';
import type { UrlListKind } from '../kinds/index.js';
import type { PipelineKind, PipelineSpec } from '../pipelines/spec.js';
import type { ActivityDeps } from './deps.js';
import { addRows, asActivityFailure, isScraperApiError, kindRunningIn } from './failures.js';
import { keepAlive } from './keep-alive.js';
import { ApiNetworkError, ApiTimeoutError, type ScraperApiError } from '../client/index.js';
import type { BudgetStop, FailedUrl, UrlChunkHeartbeat, UrlChunkInput, UrlChunkOutput } from './types.js';
import { tokenUsageOf } from '../db/store/raw-responses.js';
import { BudgetExhaustedError, spendMeter, type SpendMeter } from '../budget/meter.js';
import type { Refusal } from '../db/store/spend.js';

/** Attempts of this activity during which transient (retryable) URL errors are retried rather than reported. */
const TRANSIENT_RETRY_ATTEMPTS = 3;

/** Failure type of a chunk none of whose URLs could reach the service (the workflow waits it out). */
export const SERVICE_UNAVAILABLE = 'ServiceUnavailable';

/**
 * An answer that says the service is down rather than that this URL is bad: no connection, no answer in time, or
 * a gateway's 502/503/504.
 */
function isOutageError(err: ScraperApiError): boolean {
  if (err instanceof ApiNetworkError || err instanceof ApiTimeoutError) return true;
  return err.status === 502 || err.status === 503 || err.status === 504;
}

export function urlListActivities(deps: ActivityDeps) {
  async function fetchOne(
    spec: PipelineSpec,
    kind: UrlListKind<PipelineKind>,
    workflowId: string,
    url: string,
    signal: AbortSignal,
    meter: SpendMeter,
  ): Promise<LoadBatchOptions> {
    // Each HTTP attempt is recorded (or refused by a budget) before it is sent; its tokens when the answer came.
    const metered = meter.call(kind.endpoints[0] ?? kind.kind, url, false);
    const { api, load } = await kind.fetch(deps.client(), spec.request, url, { signal, ...metered.options });
    await metered.answered(tokenUsageOf(load.kind, api.raw));
    return {
      ...load,
      pipeline: spec.name,
      resultTable: kind.resultTable,
      requestKey: url,
      workflowId,
      // A URL's answer is the run's once: an attempt still running after Temporal timed it out must not land it
      // beside its retry (db/store/land-once.ts).
      landOnce: true,
      priceDivisor: spec.price_divisor,
      endpoint: api.endpoint,
      raw: api.raw,
      receivedAt: api.receivedAt,
      schemaMode: spec.schema.mode,
    };
  }

  async function loadUrlChunk(input: UrlChunkInput): Promise<UrlChunkOutput> {
    const { spec, workflowId } = input;
    const kind = kindRunningIn(spec, 'url-list');
    const ctx = Context.current();
    const previous = ctx.info.heartbeatDetails as UrlChunkHeartbeat | undefined;
    const done = new Set(previous?.done ?? []);
    const failed: FailedUrl[] = [...(previous?.failed ?? [])];
    const rows: Record<string, number> = { ...(previous?.rows ?? {}) };
    const details = (): UrlChunkHeartbeat => ({ done: [...done], failed, rows });
    // Alive while it waits for its destination (a DuckDB file another process holds) or a slow answer: the progress
    // beats come only with a URL loaded.
    const stopBeats = keepAlive(ctx, details);
    try {
      const db = await deps.destination(spec.destination.database);
      const urls = input.list ? await readUrlSlice(db, input.list.listId, input.offset, input.list.count) : input.urls;
      const transient: Array<{ index: number; url: string; error: string }> = [];
      // URLs this attempt loaded, and the service-down errors it met: an outage is every tried URL failing so.
      let loadedNow = 0;
      const outage: Array<{ index: number; url: string; error: string }> = [];
      let otherFailures = 0;
      const limit = pLimit(Math.max(1, spec.concurrency));
      // A local activity (a short list, workflows/url-lists.ts) has no heartbeat: a retry finds its landed responses.
      const heartbeats = new HeartbeatThrottle(
        ctx.info.isLocal ? undefined : () => ctx.heartbeat(details()),
        ctx.info.heartbeatTimeoutMs,
      );
      const beat = () => heartbeats.beat();
      const loads = new ChunkWriter(db, deps.tuning.urlLoadGroup ?? 1);
      const meter = spendMeter({
        db,
        spec,
        workflowId,
        activityId: ctx.info.activityId,
        activityAttempt: ctx.info.attempt,
      });
      // The first refusal of a budget: the URLs it left uncalled stay undone, and the workflow starts no further chunk.
      let budget: (BudgetStop & { refusal: Refusal }) | undefined;
      let notCalled = 0;
      // A retried attempt: responses that an earlier attempt landed after its last recorded heartbeat (the worker
      // died in between; heartbeats are throttled) are loaded, since landing and loading are one transaction.
      // Fetching them again would pay for them twice, and an error the second time would report a loaded URL as failed.
      if (ctx.info.attempt > 1 || input.afterOutage) {
        const landed = await landedRequestKeys(
          db,
          workflowId,
          urls.filter((_, i) => !done.has(i)),
        );
        urls.forEach((url, i) => {
          if (landed.has(url)) done.add(i);
        });
      }

      // A load error that no retry can fix (a frozen schema met a new column) fails the run, not just its URL.
      await Promise.all(
        urls.map(async (url, index) => {
          if (done.has(index)) return;
          // The p-limit slot is the request's: the response then waits for its group's transaction without holding it.
          let load: LoadBatchOptions;
          try {
            load = await limit(() => {
              if (budget) throw new BudgetExhaustedError(budget.refusal, spec.name);
              return fetchOne(spec, kind, workflowId, url, ctx.cancellationSignal, meter);
            });
          } catch (err) {
            if (err instanceof CancelledFailure || ctx.cancellationSignal.aborted) throw err;
            if (err instanceof BudgetExhaustedError) {
              budget ??= { limit: err.refusal.limit.key, detail: err.message, refusal: err.refusal };
              notCalled++;
              return;
            }
            // Only the service's answers are per-URL outcomes; anything else fails the activity (retried).
            if (!isScraperApiError(err)) throw err;
            if (err.retryable && ctx.info.attempt < TRANSIENT_RETRY_ATTEMPTS) {
              transient.push({ index, url, error: err.message });
              return;
            }
            if (input.outageRetry && isOutageError(err)) {
              outage.push({ index, url, error: err.message });
              return;
            }
            otherFailures++;
            failed.push({ url, error: err.message });
            done.add(index);
            beat();
            return;
          }
          // A database error fails the activity (retried); the URLs loaded before it stay done.
          addRows(rows, (await loads.load(load)).rowsByTable);
          loadedNow++;
          done.add(index);
          beat();
        }),
      ).catch((err: unknown) => {
        // What this attempt got done is what a retry starts from: the last throttled state goes out with the failure.
        heartbeats.flush();
        throw asActivityFailure(err);
      });
      // The newest state, should a throttled heartbeat still be pending: one per chunk, not per URL.
      heartbeats.flushPending();
      if (outage.length > 0) {
        heartbeats.flush();
        // Nothing got through: the service is down, not these URLs bad. The workflow waits and tries the chunk again,
        // up to polling.deadline; the URLs done so far stay done (heartbeat, landed responses).
        if (loadedNow === 0 && otherFailures === 0) {
          throw ApplicationFailure.nonRetryable(
            `service unreachable for ${outage.length} URL(s) of this chunk; first: ${outage[0]?.url}: ${outage[0]?.error}`,
            SERVICE_UNAVAILABLE,
          );
        }
        // Others loaded: it is these URLs, after their retries; reported failed as before.
        for (const o of outage) {
          failed.push({ url: o.url, error: o.error });
          done.add(o.index);
        }
      }
      if (transient.length > 0 && !budget) {
        heartbeats.flush();
        throw ApplicationFailure.retryable(
          `${transient.length} of ${urls.length} URLs (from #${input.offset + 1}) hit transient errors, retrying them; first: ${transient[0]?.url}: ${transient[0]?.error}`,
          'TransientUrlErrors',
        );
      }
      if (budget) {
        // URLs whose transient errors would have been retried are not called again: the budget is spent.
        heartbeats.flush();
        const { refusal: _refusal, ...stop } = budget;
        return {
          succeeded: urls.length - failed.length - notCalled - transient.length,
          failed,
          rows,
          budget: { ...stop, notCalled: notCalled + transient.length },
        };
      }
      return { succeeded: urls.length - failed.length, failed, rows };
    } finally {
      stopBeats();
    }
  }

  return { loadUrlChunk };
}

/**
 * A chunk's progress heartbeats, at most one per tenth of the heartbeat timeout (3 s by default; 1 s without a
 * timeout): the first at once, later ones carrying the newest state at the end of the pause. One heartbeat per URL
 * cost every URL the details' conversion (the done list), encryption and hand-over to the SDK's core (rxjs, the
 * codec, protobuf: a visible share of a worker's busy time in bench/many-runs.ts profiles), while the core sends the
 * server only the newest details once per 0.8 heartbeat timeout anyway: the pause adds at most an eighth of that to what
 * a retry would find, and a retry also finds the responses landed after its last heartbeat (landedRequestKeys).
 * With many chunks running at once each chunk loads a URL every second or so, so a 1 s pause saved nothing.
 * Before the activity ends, the newest state is handed over at once (`flush`, `flushPending`), as the per-URL
 * heartbeat did.
 */
const HEARTBEAT_EVERY_MS = 1000;
class HeartbeatThrottle {
  private timer: NodeJS.Timeout | undefined;
  private last = -Infinity;
  private readonly everyMs: number;

  constructor(
    private readonly send: (() => void) | undefined,
    heartbeatTimeoutMs: number | undefined,
  ) {
    this.everyMs = heartbeatTimeoutMs ? heartbeatTimeoutMs / 10 : HEARTBEAT_EVERY_MS;
  }

  beat(): void {
    if (!this.send || this.timer) return;
    const wait = this.last + this.everyMs - Date.now();
    if (wait <= 0) this.flush();
    else this.timer = setTimeout(() => this.flush(), wait);
  }

  /** Sends the newest state now (a pending trailing heartbeat is sent with it). */
  flush(): void {
    this.cancel();
    if (!this.send) return;
    this.last = Date.now();
    this.send();
  }

  /** Sends the newest state now if a heartbeat is waiting for the end of its pause. */
  flushPending(): void {
    if (this.timer) this.flush();
  }

  private cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/**
 * The loads of one chunk. A response is written as soon as the chunk's writer is free, together with every response
 * that arrived while it was busy (up to `max`), in one transaction (db/store/load.ts loadBatches: into SQLite one
 * savepoint per response, so each stays atomic). better-sqlite3 blocks the event loop while it writes or waits for
 * the file's lock, so "arrived meanwhile" means the answers read in the next turn of the loop: the write starts
 * from setImmediate, after them. SQLite has one writer per file, and two worker processes taking its
 * lock once per URL spent their time handing it over (a connection waiting for the lock sleeps in SQLite's busy
 * handler, with its whole event loop); waiting for a full group instead would leave up to `max` paid-for responses
 * unlanded for as long as the slowest fetch, all fetched again if the worker died then. Postgres and DuckDB write
 * such a group with about one statement per table (db/store/load-group.ts) instead of ~25 statements per response, the
 * round trips that dominated their loads; on Postgres its locks are taken in the one order every load keeps, so
 * workers loading overlapping data wait for each other instead of deadlocking (db/README.md, "Concurrent loads").
 * max = 1 loads each response in a transaction of its own.
 */
class ChunkWriter {
  private waiting: Array<{
    load: LoadBatchOptions;
    resolve: (r: LoadBatchResult) => void;
    reject: (err: unknown) => void;
  }> = [];
  /** A write is scheduled or under way; its end writes what arrived meanwhile. */
  private writing = false;

  constructor(
    private readonly db: Database,
    private readonly max: number,
  ) {}

  load(load: LoadBatchOptions): Promise<LoadBatchResult> {
    if (this.max <= 1) return loadBatch(this.db, load);
    const loaded = new Promise<LoadBatchResult>((resolve, reject) => this.waiting.push({ load, resolve, reject }));
    this.write();
    return loaded;
  }

  /** Writes what waits, unless a write is under way: its end writes what arrived meanwhile. */
  private write(): void {
    if (this.writing || this.waiting.length === 0) return;
    this.writing = true;
    setImmediate(() => void this.writeWaiting());
  }

  private async writeWaiting(): Promise<void> {
    const group = this.waiting.splice(0, this.max);
    try {
      const out = await loadBatches(
        this.db,
        group.map((g) => g.load),
      );
      out.results.forEach((r, i) => group[i]!.resolve(r));
      // The failed response and the ones after it (not tried) are not loaded; the activity fails with its error.
      if (out.failed) for (const g of group.slice(out.failed.index)) g.reject(out.failed.error);
    } catch (err) {
      for (const g of group) g.reject(err);
    } finally {
      this.writing = false;
      this.write();
    }
  }
}
