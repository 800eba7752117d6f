// Mode 'create-and-wait' (pdf, leads-*): create-and-run, wait, load the run's results. The kind's own parts (which
// endpoint creates, how many results a run should carry, which table they go to) come from the kind registry.
import { contentTargetOf } from '../kinds/content.js';
import { ApplicationFailure, Context } from '@temporalio/activity';
import {
  ApiHttpError,
  ApiMalformedBodyError,
  ApiValidationError,
  ScraperApiError,
  parseJson,
  type ListScraper,
  stringifyJson,
  type CreateAndRunResponse,
  type ResultRecord,
  type ScrapingRunResponse,
} from '../client/index.js';
import { loadBatch } from '../db/store/load.js';
import { logLoadWarnings } from './load-warnings.js';
import { findRecordedBody, tokenUsageOf } from '../db/store/raw-responses.js';
import { BudgetExhaustedError, spendMeter } from '../budget/meter.js';
import { lastCallAt } from '../db/store/spend.js';
import { storedResultIds } from '../db/store/run-results.js';
import { keepAlive, progressBeats, type ProgressBeats } from './keep-alive.js';
import type { CreateAndWaitKind } from '../kinds/index.js';
import type { PipelineKind, PipelineSpec } from '../pipelines/spec.js';
import type { ActivityDeps } from './deps.js';
import { addRows, asActivityFailure, kindRunningIn, runIdOf } from './failures.js';
import type {
  AdoptedScraper,
  CheckRunInput,
  CreateAndRunInput,
  CreateAndRunOutput,
  FindAdoptedRunsInput,
  LoadRunHeartbeat,
  LoadRunResultsInput,
  LoadRunResultsOutput,
  RunCheckHeartbeat,
  RunTarget,
  WaitForRunInput,
} from './types.js';
import { parseDurationMs } from '../pipelines/duration.js';

const CREATE_REQUEST_KEY = 'create-and-run';
/** Where an adopted scraper (a create whose answer was lost) is recorded for the workflow's later attempts. */
const ADOPTED_REQUEST_KEY = 'create-and-run:adopted';

/**
 * The name a run's scraper gets at the service: the request's name (default: the pipeline name) and the run key,
 * e.g. 'pdf-annual-reports--20261123T101500Z-3fa2b1' or 'pdf-annual-reports--scheduled-2026-11-23T02:30:00Z'.
 * Unique per workflow, so a create whose answer was lost can be found by its name and adopted, never paid twice.
 */
export function scraperNameFor(spec: PipelineSpec, workflowId: string): string {
  const prefix = `${spec.name}--`;
  const runKey = workflowId.startsWith(prefix) ? workflowId.slice(prefix.length) : workflowId;
  return `${(spec.request as { name?: string }).name ?? spec.name}--${runKey}`;
}
/** Malformed run-status answers in a row after which the check fails for good, with the last one as its cause. */
export const MALFORMED_CHECKS_BEFORE_FAILING = 5;

/** An answer that arrived but is not a usable run detail (not JSON, cut short, or not the documented shape). */
function isMalformedAnswer(err: unknown): err is ScraperApiError {
  return err instanceof ApiMalformedBodyError || (err instanceof ApiValidationError && err.side === 'response');
}
/** Statuses that mean "not finished yet"; anything else but 'succeeded' is a failed run. */
const IN_PROGRESS = new Set(['running', 'queued', 'pending', 'created', 'starting', 'in_progress', 'processing']);

function runTargets(response: CreateAndRunResponse): RunTarget[] {
  return response.results.map((r) => ({
    scrapingRunId: r.scraping_run_id.toString(),
    scraperName: r.scraper_name,
    label: r.scraped_url,
  }));
}

export function scrapingRunActivities(deps: ActivityDeps) {
  /**
   * Creates the scraper and starts its runs, once per workflow. The response is landed (raw_responses, keyed by
   * the workflow id) and loaded in one transaction before this returns, so a retry after a crash finds it and
   * reuses those runs instead of creating and paying for new ones. The service offers no idempotency key, so the
   * scraper's name is unique to the workflow: an answer lost on the way (or a crash before that commit) is
   * recovered by looking the scraper up by name and adopting it, never by creating a second one.
   */
  async function createAndRun(input: CreateAndRunInput): Promise<CreateAndRunOutput> {
    const ctx = Context.current();
    // Alive on a clock (keep-alive.ts), with the last details given: a worker killed inside the create is noticed
    // within the heartbeat timeout instead of the activity's start-to-close, which held the run for minutes.
    let details: unknown = ctx.info.heartbeatDetails;
    const stopBeats = keepAlive(ctx, () => details);
    try {
      return await createAndRunAttempt(input, (d) => {
        details = d;
        ctx.heartbeat(d);
      });
    } finally {
      stopBeats();
    }
  }

  async function createAndRunAttempt(
    input: CreateAndRunInput,
    beat: (details: { ambiguousCreateUntil: number }) => void,
  ): Promise<CreateAndRunOutput> {
    const { spec, workflowId } = input;
    const kind = kindRunningIn(spec, 'create-and-wait');
    const ctx = Context.current();
    const db = await deps.destination(spec.destination.database);
    const recorded = await findRecordedBody(db, { workflowId, requestKey: CREATE_REQUEST_KEY });
    if (recorded !== undefined) {
      return { runs: runTargets(parseJson(recorded) as CreateAndRunResponse), reused: true, rows: {} };
    }
    const adoptedBefore = await findRecordedBody(db, { workflowId, requestKey: ADOPTED_REQUEST_KEY });
    const adoptedFrom = (listed: ListScraper): AdoptedScraper => ({
      scraperId: listed.id.toString(),
      scraperName: listed.name,
      createdAt: listed.created_at,
      expectedRuns: kind.expectedRuns(spec.request),
    });
    if (adoptedBefore !== undefined)
      return { runs: [], reused: true, rows: {}, adopted: adoptedFrom(parseJson(adoptedBefore) as ListScraper) };

    const name = scraperNameFor(spec, workflowId);
    const request = { ...spec.request, name };
    const client = deps.client();
    const adoptIfCreated = async (): Promise<CreateAndRunOutput | undefined> => {
      const found = await client.findScraperByName(name, { signal: ctx.cancellationSignal });
      if (!found) return undefined;
      // Landed and loaded like any answer: its list entry is the scrapers row (the run records the lost answer
      // held are listed nowhere; the runs themselves are found in /api/results and land in scraping_runs).
      const loaded = await loadBatch(db, {
        pipeline: spec.name,
        resultTable: kind.resultTable,
        endpoint: 'GET /api/scrapers',
        requestKey: ADOPTED_REQUEST_KEY,
        workflowId,
        raw: stringifyJson(found),
        kind: 'listed-scraper',
        data: found,
      });
      const rows: Record<string, number> = {};
      addRows(rows, loaded.rowsByTable);
      logLoadWarnings(loaded, { pipeline: spec.name, workflowId });
      return { runs: [], reused: true, rows, adopted: adoptedFrom(found) };
    };
    // Looks for the scraper until `until` (or until this attempt's time is nearly up: the next attempt goes on
    // looking, the deadline travels in the heartbeat details). A create the service received but had not processed
    // when the answer was lost (a create slower than the client's timeout) appears only later: sending the create
    // again before the service's own create timeout has passed paid for two scrapers.
    const lookUntil = async (until: number, why: string): Promise<CreateAndRunOutput | undefined> => {
      beat({ ambiguousCreateUntil: until });
      const attemptEnds = ctx.info.currentAttemptScheduledTimestampMs + ctx.info.startToCloseTimeoutMs - 15_000;
      for (;;) {
        const adopted = await adoptIfCreated();
        if (adopted) return adopted;
        const now = Date.now();
        if (now >= until) return undefined;
        if (now >= attemptEnds) {
          throw ApplicationFailure.retryable(
            `${why} No scraper named '${name}' exists yet; still looking for it until ${new Date(until).toISOString()} before a create is sent again.`,
            'AmbiguousCreate',
          );
        }
        beat({ ambiguousCreateUntil: until });
        await ctx.sleep(Math.min(5_000, Math.max(until - now, 0)));
      }
    };
    try {
      // An earlier attempt may have created the scraper and died before recording the answer (a worker crash):
      // the name is unique to this workflow, so a scraper of that name is that attempt's. After an ambiguous
      // create, the earlier attempt's look-up window is finished first.
      // A create an earlier attempt recorded (calls are recorded just before they are sent) may still be on its way
      // through the service when its worker died: it is looked for as long as an ambiguous answer's would be.
      if (ctx.info.attempt > 1) {
        const pending = (ctx.info.heartbeatDetails as { ambiguousCreateUntil?: unknown } | undefined)
          ?.ambiguousCreateUntil;
        const sentAt = await lastCallAt(db, workflowId, CREATE_REQUEST_KEY);
        const until = Math.max(
          typeof pending === 'number' ? pending : 0,
          sentAt !== undefined ? sentAt + deps.createLookupMs : 0,
        );
        const adopted =
          until > Date.now()
            ? await lookUntil(
                until,
                typeof pending === 'number' && pending >= until
                  ? 'An earlier create got no usable answer.'
                  : 'An earlier attempt sent a create and ended before its answer was recorded.',
              )
            : await adoptIfCreated();
        if (adopted) return adopted;
      }
      let res;
      // The create is recorded (or refused by a budget) before it is sent: a refused one creates nothing.
      const meter = spendMeter({
        db,
        spec,
        workflowId,
        activityId: ctx.info.activityId,
        activityAttempt: ctx.info.attempt,
      });
      const metered = meter.call(
        kind.endpoints.find((e) => e.includes('create-and-run')) ?? kind.endpoints[0] ?? kind.kind,
        CREATE_REQUEST_KEY,
        true,
      );
      try {
        res = await kind.create(client, request, { signal: ctx.cancellationSignal, ...metered.options });
        await metered.answered(tokenUsageOf('create-run', res.raw));
      } catch (err) {
        if (err instanceof BudgetExhaustedError)
          return { runs: [], reused: false, rows: {}, budget: { limit: err.refusal.limit.key, detail: err.message } };
        // The service may have created it although no usable answer came back: look before sending again, for as
        // long as the service may take to process a create.
        if (!(err instanceof ScraperApiError) || !err.ambiguous) throw err;
        const adopted = await lookUntil(Date.now() + deps.createLookupMs, err.message);
        if (adopted) return adopted;
        throw ApplicationFailure.retryable(
          `${err.message} No scraper named '${name}' appeared within ${Math.round(deps.createLookupMs / 1000)} s (SCRAPE_ETL_CREATE_LOOKUP_SECONDS), so the create is sent again.`,
          'AmbiguousCreate',
        );
      }
      const loaded = await loadBatch(db, {
        pipeline: spec.name,
        resultTable: kind.resultTable,
        endpoint: res.endpoint,
        requestKey: CREATE_REQUEST_KEY,
        workflowId,
        raw: res.raw,
        receivedAt: res.receivedAt,
        kind: 'create-run',
        data: res.data,
      });
      const rows: Record<string, number> = {};
      addRows(rows, loaded.rowsByTable);
      logLoadWarnings(loaded, { pipeline: spec.name, workflowId });
      const runs = runTargets(res.data);
      if (runs.length === 0) {
        throw ApplicationFailure.nonRetryable(
          `${res.endpoint} answered without any run record for pipeline '${spec.name}'`,
          'NoRuns',
        );
      }
      return { runs, reused: false, rows };
    } catch (err) {
      throw asActivityFailure(err);
    }
  }

  /**
   * The runs of an adopted scraper, from /api/results (results enter it when their run finishes; newest first,
   * so the scan stops at results older than the scraper). Until every expected run has shown up, a retryable
   * failure: Temporal polls this like a run-status check, within the pipeline's polling deadline.
   */
  async function findAdoptedRuns(input: FindAdoptedRunsInput): Promise<RunTarget[]> {
    const { scraper } = input;
    const ctx = Context.current();
    const since = Date.parse(scraper.createdAt);
    const runs = new Map<string, RunTarget>();
    for await (const page of deps.client().pages('results', { perPage: 100, signal: ctx.cancellationSignal })) {
      const items = page.items as ResultRecord[];
      for (const r of items) {
        if (r.scraper_id.toString() !== scraper.scraperId) continue;
        const id = r.scraping_run_id.toString();
        if (!runs.has(id)) runs.set(id, { scrapingRunId: id, scraperName: r.scraper_name, label: r.scraped_url });
      }
      if (runs.size >= scraper.expectedRuns) break;
      if (items.length > 0 && items.every((r) => Date.parse(r.created_at) < since)) break;
      ctx.heartbeat();
    }
    if (runs.size < scraper.expectedRuns) {
      throw ApplicationFailure.create({
        message: `adopted scraper ${scraper.scraperId} ('${scraper.scraperName}'): ${runs.size} of ${scraper.expectedRuns} runs listed in /api/results so far (pipeline '${input.pipeline}')`,
        type: 'AdoptedRunsNotListedYet',
        category: 'BENIGN',
      });
    }
    return [...runs.values()].sort((a, b) => (BigInt(a.scrapingRunId) < BigInt(b.scrapingRunId) ? -1 : 1));
  }

  /**
   * Looks once. Still running: a retryable failure, so Temporal schedules the next look with the pipeline's
   * polling policy (no history events per look). Ended in any other status than 'succeeded': non-retryable.
   */
  async function checkRunStatus(input: CheckRunInput): Promise<{ status: string }> {
    const { run } = input;
    const ctx = Context.current();
    // Carried from attempt to attempt (Temporal hands an attempt the last heartbeat of the one before).
    const previous = ctx.info.heartbeatDetails as RunCheckHeartbeat | undefined;
    let status: string;
    try {
      const res = await deps.client().getScrapingRun(runIdOf(run.scrapingRunId), { signal: ctx.cancellationSignal });
      status = res.data.data.status;
    } catch (err) {
      if (err instanceof ApiHttpError && err.status === 404) {
        throw ApplicationFailure.nonRetryable(
          `scraping run ${run.scrapingRunId} of scraper '${run.scraperName}' (${run.label}) does not exist (404) (pipeline '${input.pipeline}')`,
          'RunNotFound',
        );
      }
      if (isMalformedAnswer(err)) {
        // A garbage answer now and then is retried like a 5xx; the same garbage every time is the service's
        // real answer and must not wait for the polling deadline (hours) to be reported.
        const inARow = (previous?.malformedInARow ?? 0) + 1;
        ctx.heartbeat({ malformedInARow: inARow, lastError: err.message } satisfies RunCheckHeartbeat);
        if (inARow >= MALFORMED_CHECKS_BEFORE_FAILING) {
          throw ApplicationFailure.nonRetryable(
            `${err.endpoint} answered ${inARow} run-status checks in a row with a malformed body (scraping run ${run.scrapingRunId}, pipeline '${input.pipeline}'); last: ${err.message}`,
            'MalformedRunStatus',
          );
        }
        throw ApplicationFailure.retryable(err.message, err.name);
      }
      if (err instanceof ScraperApiError)
        ctx.heartbeat({ malformedInARow: 0, lastError: err.message } satisfies RunCheckHeartbeat);
      throw asActivityFailure(err);
    }
    if (status === 'succeeded') return { status };
    if (IN_PROGRESS.has(status.toLowerCase())) {
      ctx.heartbeat({ malformedInARow: 0, lastError: null } satisfies RunCheckHeartbeat);
      // Benign: the normal way to wait (Temporal retries the check), logged by the SDK at DEBUG, not as a warning.
      throw ApplicationFailure.create({
        message: `scraping run ${run.scrapingRunId} is still ${status}`,
        type: 'RunStillRunning',
        category: 'BENIGN',
      });
    }
    throw ApplicationFailure.nonRetryable(
      `scraping run ${run.scrapingRunId} of scraper '${run.scraperName}' (${run.label}) ended with status '${status}' instead of 'succeeded' (pipeline '${input.pipeline}')`,
      'RunFailed',
    );
  }

  /**
   * Waits for a scraping run to succeed in one activity that polls (workflows since LEAN_PATCH), instead of one
   * activity attempt per look (checkRunStatus, Temporal retrying it): Temporal Cloud bills every attempt, so a
   * 10-minute run looked at every 10 s was ~60 actions. Here the looks follow the pipeline's polling backoff
   * (initial_interval, growing by backoff_coefficient to max_interval) and the billable part is the heartbeats
   * that reach the server, which the SDK throttles to one per 80% of the heartbeat timeout (at most one a minute):
   * about 10 for the same run. A worker that dies is noticed by the heartbeat timeout and the next attempt goes on
   * polling, the deadline counted from the first attempt's schedule.
   */
  async function waitForScrapingRun(input: WaitForRunInput): Promise<{ status: string; looks: number }> {
    const { run, polling } = input;
    const ctx = Context.current();
    const previous = ctx.info.heartbeatDetails as RunCheckHeartbeat | undefined;
    let malformedInARow = previous?.malformedInARow ?? 0;
    let lastError: string | null = previous?.lastError ?? null;
    const deadline = ctx.info.scheduledTimestampMs + parseDurationMs(polling.deadline);
    const maxPause = parseDurationMs(polling.max_interval);
    let pause = parseDurationMs(polling.initial_interval);
    let looks = 0;
    for (;;) {
      looks++;
      let status: string | undefined;
      try {
        const res = await deps.client().getScrapingRun(runIdOf(run.scrapingRunId), { signal: ctx.cancellationSignal });
        status = res.data.data.status;
        malformedInARow = 0;
      } catch (err) {
        if (ctx.cancellationSignal.aborted) throw err;
        if (err instanceof ApiHttpError && err.status === 404) {
          throw ApplicationFailure.nonRetryable(
            `scraping run ${run.scrapingRunId} of scraper '${run.scraperName}' (${run.label}) does not exist (404) (pipeline '${input.pipeline}')`,
            'RunNotFound',
          );
        }
        if (isMalformedAnswer(err)) {
          // The same garbage every time is the service's real answer: said now, not at the polling deadline.
          malformedInARow++;
          if (malformedInARow >= MALFORMED_CHECKS_BEFORE_FAILING) {
            throw ApplicationFailure.nonRetryable(
              `${err.endpoint} answered ${malformedInARow} run-status checks in a row with a malformed body (scraping run ${run.scrapingRunId}, pipeline '${input.pipeline}'); last: ${err.message}`,
              'MalformedRunStatus',
            );
          }
        } else {
          const failure = asActivityFailure(err);
          // An answer no later look changes (a refused token, a bad request) fails the wait now.
          if (failure instanceof ApplicationFailure && failure.nonRetryable) throw failure;
          if (!(err instanceof ScraperApiError)) throw failure;
        }
        lastError = (err as Error).message;
      }
      if (status === 'succeeded') return { status, looks };
      if (status !== undefined && !IN_PROGRESS.has(status.toLowerCase())) {
        throw ApplicationFailure.nonRetryable(
          `scraping run ${run.scrapingRunId} of scraper '${run.scraperName}' (${run.label}) ended with status '${status}' instead of 'succeeded' (pipeline '${input.pipeline}')`,
          'RunFailed',
        );
      }
      if (status !== undefined) lastError = null;
      if (Date.now() + pause > deadline) {
        // The workflow turns this into its deadline message (RunDeadlineExceeded), with the last look's error.
        throw ApplicationFailure.create({
          message: `scraping run ${run.scrapingRunId} is still ${status ?? 'not answering'} at the polling deadline${lastError ? `; last check: ${lastError}` : ''}`,
          type: 'RunStillRunning',
          nonRetryable: true,
          details: [lastError],
        });
      }
      // Throttled by the SDK: most of these stay in the worker, and only those that reach the server are billed.
      ctx.heartbeat({ malformedInARow, lastError } satisfies RunCheckHeartbeat);
      await ctx.sleep(pause);
      pause = Math.min(maxPause, Math.round(pause * polling.backoff_coefficient));
    }
  }

  /**
   * Loads a succeeded run's results from its detail, `loadBatchSize` results per transaction, heartbeating after
   * each batch with the next index, so a retried attempt (worker killed mid-load) resumes at the next batch.
   * Where the detail may not carry every result (fewer than the request asked for), /api/results is paged for
   * the rest: newest first, so the scan stops once it is below the detail's highest id.
   */
  async function loadRunResults(input: LoadRunResultsInput): Promise<LoadRunResultsOutput> {
    const { spec, run, workflowId } = input;
    const kind = kindRunningIn(spec, 'create-and-wait');
    const ctx = Context.current();
    const previous = ctx.info.heartbeatDetails as LoadRunHeartbeat | undefined;
    const rows: Record<string, number> = { ...(previous?.rows ?? {}) };
    let batches = previous?.batches ?? 0;
    // Alive while it waits for its destination (a DuckDB file another process holds) or the service, with the newest
    // progress: a bare beat would send a retry back to the first slice.
    const beats = progressBeats<LoadRunHeartbeat>(ctx);
    try {
      const db = await deps.destination(spec.destination.database);
      const res = await deps.client().getScrapingRun(runIdOf(run.scrapingRunId), { signal: ctx.cancellationSignal });
      const detail = res.data.data;
      if (detail.status !== 'succeeded') {
        throw ApplicationFailure.nonRetryable(
          `scraping run ${run.scrapingRunId} of scraper '${run.scraperName}' is '${detail.status}', expected 'succeeded' when loading its results`,
          'RunFailed',
        );
      }
      const results = detail.results;
      const size = deps.tuning.loadBatchSize;
      const load = async (slice: ResultRecord[], from: number): Promise<void> => {
        const data: ScrapingRunResponse = { ...res.data, data: { ...detail, results: slice } };
        const whole = from === 0 && slice.length === results.length;
        const out = await loadBatch(db, {
          pipeline: spec.name,
          resultTable: kind.resultTable,
          endpoint: res.endpoint,
          // One raw row per batch: the body as received when it is one batch, else the batch's slice of it.
          requestKey: whole
            ? `scraping-run:${run.scrapingRunId}`
            : `scraping-run:${run.scrapingRunId}:results[${from}..${from + slice.length})`,
          raw: whole ? res.raw : stringifyJson(data),
          receivedAt: res.receivedAt,
          workflowId,
          // A finished run's results are fixed: a retry that lost the heartbeat of a loaded slice leaves it.
          landOnce: true,
          scrapingRunId: runIdOf(run.scrapingRunId),
          priceDivisor: spec.price_divisor,
          content: contentTargetOf(spec, kind),
          schemaMode: spec.schema.mode,
          kind: 'scraping-run',
          data,
        });
        addRows(rows, out.rowsByTable);
        logLoadWarnings(out, { pipeline: spec.name, workflowId });
        batches += 1;
      };
      let next = Math.min(previous?.nextIndex ?? 0, results.length);
      if (results.length === 0 && next === 0 && batches === 0) await load([], 0);
      while (next < results.length) {
        const slice = results.slice(next, next + size);
        await load(slice, next);
        next += slice.length;
        beats.beat({ nextIndex: next, batches, rows });
      }

      let fromResultsList = 0;
      const expected = kind.expectedResultsPerRun(spec.request);
      if (expected === undefined || results.length < expected) {
        fromResultsList = await loadMissingFromList(input, kind, results, expected, rows, ctx, beats);
      }
      return { results: results.length + fromResultsList, batches, fromResultsList, rows };
    } catch (err) {
      throw asActivityFailure(err);
    } finally {
      beats.stop();
    }
  }

  async function loadMissingFromList(
    input: LoadRunResultsInput,
    kind: CreateAndWaitKind<PipelineKind>,
    inDetail: readonly ResultRecord[],
    expected: number | undefined,
    rows: Record<string, number>,
    ctx: Context,
    beats: ProgressBeats<LoadRunHeartbeat>,
  ): Promise<number> {
    const { spec, run, workflowId } = input;
    const db = await deps.destination(spec.destination.database);
    const runId = BigInt(run.scrapingRunId);
    const seen = new Set(inDetail.map((r) => r.id.toString()));
    let found = 0;
    // A retry: the results an earlier attempt stored from the list are the run's already. Landed again from a page
    // fetched again, their rows would count as seen twice (db/store/run-results.ts).
    if (ctx.info.attempt > 1) {
      for (const id of await storedResultIds(db, kind.resultTable, spec.name, run.scrapingRunId)) {
        if (seen.has(id)) continue;
        seen.add(id);
        found += 1;
      }
      if (expected !== undefined && inDetail.length + found >= expected) return found;
    }
    let floor: bigint | undefined;
    for (const r of inDetail) {
      const id = BigInt(r.id);
      if (floor === undefined || id > floor) floor = id;
    }
    const maxPagesWithoutFloor = 100;
    let pages = 0;
    for await (const page of deps.client().pages('results', { perPage: 100, signal: ctx.cancellationSignal })) {
      pages += 1;
      const mine = (page.items as ResultRecord[]).filter(
        (r) => BigInt(r.scraping_run_id) === runId && !seen.has(r.id.toString()),
      );
      if (mine.length > 0) {
        for (const r of mine) seen.add(r.id.toString());
        const out = await loadBatch(db, {
          pipeline: spec.name,
          resultTable: kind.resultTable,
          endpoint: 'GET /api/results',
          requestKey: `results:page:${page.page}:run:${run.scrapingRunId}`,
          raw: page.raw,
          workflowId,
          scrapingRunId: runIdOf(run.scrapingRunId),
          content: contentTargetOf(spec, kind),
          schemaMode: spec.schema.mode,
          kind: 'results',
          data: { data: mine },
        });
        addRows(rows, out.rowsByTable);
        logLoadWarnings(out, { pipeline: spec.name, workflowId });
        found += mine.length;
      }
      beats.again();
      if (expected !== undefined && inDetail.length + found >= expected) break;
      const lowest = page.items.reduce<bigint | undefined>(
        (m, r) => (m === undefined || BigInt(r.id) < m ? BigInt(r.id) : m),
        undefined,
      );
      // Newest first: once a page reaches below the detail's highest id, no missing (newer) result can follow.
      if (floor !== undefined && lowest !== undefined && lowest < floor) break;
      if (floor === undefined && pages >= maxPagesWithoutFloor) break;
    }
    return found;
  }

  return { createAndRun, findAdoptedRuns, checkRunStatus, waitForScrapingRun, loadRunResults };
}
