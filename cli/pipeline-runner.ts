/**
 * Starting a pipeline run on Temporal, or attaching to the unfinished one remembered in the data folder, and
 * waiting for it while showing its `progress` query. Shared by `run`, `demo` and `schedule trigger --wait`.
 */
import { rowsSeenChangedText } from '../lib/run-figures.js';
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { PipelineSpec } from '../pipelines/spec.js';
import {
  PROGRESS_QUERY,
  pipelineWorkflowId,
  type PipelineProgress,
  type PipelineWorkflowResult,
} from '../temporal/contract.js';
import { startOrGetPipelineRun } from '../temporal/start.js';
import { isBookkeepingTable, orderedRows, runRowTotals, splitRows } from '../db/model/table-names.js';
import type { CommandIO } from './io.js';
import type { Logger } from './logger.js';
import { createProgressReporter } from './progress.js';
import { localWaitNote, oneLineReason, waitingOf, type WaitingNote } from './waiting.js';
import type { ProgressMode } from './progress.js';
import {
  forgetRun,
  forgetRunByWorkflowId,
  newRunKey,
  recallRun,
  rememberRun,
  runIdentity,
  withRunStartLock,
} from './run-state.js';

export type PipelineHandle = WorkflowHandle;

export interface StartedRun {
  handle: PipelineHandle;
  workflowId: string;
  runKey: string;
  /** true when an unfinished run from an earlier command was picked up. */
  attached: boolean;
  /**
   * Set when the remembered run had already completed before this command asked (a detached run a worker
   * finished, or one that finished after Ctrl-C): there is nothing to resume, only its outcome to report.
   */
  completedAt?: Date;
  /** The remembered run this command found already ended and did not report (a new run was started instead). */
  endedEarlier?: EndedRun;
}

export interface EndedRun {
  workflowId: string;
  closedAt: Date;
  /** Its outcome: the result's status for a completed run, else Temporal's state (failed, terminated, …), lower case. */
  outcome: string;
}

export interface StartOptions {
  client: Client;
  taskQueue: string;
  dataDir: string;
  spec: PipelineSpec;
  file: string;
  /** Ignore a remembered unfinished run and start a new one. */
  fresh?: boolean;
  /**
   * A remembered run that already completed is returned (with completedAt) for its outcome to be reported, and
   * nothing is started; without it such a run is named in `endedEarlier` and a new run starts.
   */
  attach?: boolean;
  log: Logger;
  /** Ends a wait for another command's start of this pipeline (nothing is started then). */
  signal?: AbortSignal;
  /** Told the workflow id just before its start is sent. */
  onWorkflowId?: (workflowId: string) => void;
}

/**
 * Attaches to the remembered unfinished run of this pipeline (name, destination and file) when it still exists, else
 * starts a new run. The whole decision holds the pipeline's start lock, so two commands started together attach to
 * one workflow. `onWorkflowId` hears the id before its start is sent: a signal from then on can say which run it was.
 */
export async function startOrAttach(opts: StartOptions): Promise<StartedRun> {
  const { spec, dataDir } = opts;
  const id = runIdentity(spec, opts.file);
  return withRunStartLock(dataDir, id, () => startOrAttachLocked(opts), opts.signal);
}

async function startOrAttachLocked(opts: StartOptions): Promise<StartedRun> {
  const { client, spec, dataDir, log } = opts;
  const id = runIdentity(spec, opts.file);
  const remembered = opts.fresh ? undefined : recallRun(dataDir, id);
  let endedEarlier: EndedRun | undefined;
  if (remembered) {
    const handle = client.workflow.getHandle(remembered.workflowId);
    try {
      const d = await handle.describe();
      if (d.status.name === 'RUNNING') {
        log.debug({ workflowId: remembered.workflowId }, 'attaching to remembered run');
        return { handle, workflowId: remembered.workflowId, runKey: remembered.runKey, attached: true };
      }
      // A run that finished while nobody waited is not resumed. With `attach` the caller reports it as what it is (a
      // run that completed earlier) and starts nothing; otherwise it is named and a new run starts, so that `run`
      // always resumes or starts a run.
      if (d.status.name === 'COMPLETED' && opts.attach) {
        log.debug({ workflowId: remembered.workflowId }, 'remembered run completed earlier');
        return {
          handle,
          workflowId: remembered.workflowId,
          runKey: remembered.runKey,
          attached: true,
          completedAt: d.closeTime ?? new Date(),
        };
      }
      endedEarlier = {
        workflowId: remembered.workflowId,
        closedAt: d.closeTime ?? new Date(),
        outcome: await endedOutcome(handle, d.status.name),
      };
      log.debug(
        { workflowId: remembered.workflowId, status: d.status.name },
        'remembered run already ended; starting a new run',
      );
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      log.info({ workflowId: remembered.workflowId }, 'remembered run is unknown to Temporal; starting a new run');
    }
  }
  const runKey = newRunKey();
  const workflowId = pipelineWorkflowId(spec.name, runKey);
  // Remembered before the start: a crash between the two leaves a key whose workflow does not exist, which the
  // next command detects (not found) and replaces; the other order could lose a started run.
  rememberRun(dataDir, id, {
    pipeline: spec.name,
    runKey,
    workflowId,
    file: opts.file,
    startedAt: new Date().toISOString(),
  });
  opts.onWorkflowId?.(workflowId);
  const { handle, attached } = await startOrGetPipelineRun(
    { client, taskQueue: opts.taskQueue, file: opts.file },
    spec,
    runKey,
  );
  return { handle, workflowId, runKey, attached, ...(endedEarlier ? { endedEarlier } : {}) };
}

/** A closed run's outcome in the words `run` uses: the result's status when it completed, else Temporal's state. */
async function endedOutcome(handle: WorkflowHandle, state: string): Promise<string> {
  if (state === 'COMPLETED') {
    try {
      return ((await handle.result()) as PipelineWorkflowResult).status;
    } catch {
      return 'completed';
    }
  }
  return state.toLowerCase().replace(/_/g, ' ');
}

/** The one line that says a remembered run had ended and a new one starts instead. */
export function endedEarlierLine(ended: EndedRun): string {
  return `the remembered run ${ended.workflowId} already ended at ${ended.closedAt.toISOString()} (${ended.outcome}); starting a new run (--attach reports such a run instead of starting one)`;
}

export type RunOutcome =
  | { status: 'completed'; workflowId: string; result: PipelineWorkflowResult }
  | { status: 'failed'; workflowId: string; reason: string }
  | { status: 'interrupted'; workflowId: string };

/** The innermost readable reason of a workflow failure (the activity's or application's own message). */
export function failureReason(err: unknown): string {
  let cur: unknown = err instanceof WorkflowFailedError ? (err.cause ?? err) : err;
  let message = cur instanceof Error ? cur.message : String(cur);
  while (cur instanceof Error && cur.cause instanceof Error) {
    cur = cur.cause;
    if ((cur as Error).message) message = (cur as Error).message;
  }
  return message;
}

export interface WaitOptions {
  mode: ProgressMode;
  /** Aborting stops waiting; the workflow keeps running in Temporal. */
  signal?: AbortSignal;
  /** The longest pause between two looks at the run (default 500 ms); the first looks come sooner, see below. */
  pollMs?: number;
  log: Logger;
  /** Where the progress goes; default this process's stdout and stderr. */
  io?: CommandIO;
  /** Counts the progress queries made (each is a billable action on Temporal Cloud): benchmarks and tests read it. */
  stats?: { queries: number };
  /** Why the worker waits inside its attempt (a destination file another process holds), when no retry says why. */
  localWait?: () => string | undefined;
}

/**
 * The progress query's pacing. Temporal Cloud bills every query (describe and the result's long poll are free), and
 * `run` used to ask twice a second: ~1,200 queries over a 10-minute run. Now the first comes after QUERY_FIRST_MS
 * (a one-URL run is over by then: it asks none), the pause doubles up to QUERY_MAX_MS, and a look whose describe
 * shows that the run moved on (its pending activities changed: a chunk, a wait or a load ended) asks again after
 * QUERY_FIRST_MS, so each step's figures are shown when it happens: ~20 queries in 10 minutes.
 */
export const QUERY_FIRST_MS = 1500;
export const QUERY_MAX_MS = 60_000;

/** Phases the progress query answers once the run's outcome is set, in the moment before the workflow closes. */
const FINAL_PHASES: ReadonlySet<string> = new Set(['succeeded', 'partial', 'failed']);

/** Execution states after which a workflow does nothing more (CONTINUED_AS_NEW is never the latest run's). */
const CLOSED = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED', 'TIMED_OUT']);

/** What `run` says of a run that was cancelled while it waited (docs/cancelling-runs.md). */
export const CANCELLED_REASON =
  "the run was cancelled (a cancel from the Temporal Web UI or CLI, or a schedule's overlap policy cancel_other); what it loaded before stays, and its row in pipeline_runs says 'cancelled'";

/**
 * Waits for a run by short calls only (describe, now and then the progress query), each cancelled when `signal` aborts, and
 * fetches the outcome once the workflow is closed. No long poll (`handle.result()` from the start) stays in flight:
 * one left behind when the command closed its connection after Ctrl-C or SIGTERM came back from the SDK's retry
 * timer as an uncaught "Channel has been shut down".
 */
export async function waitForRun(run: StartedRun, opts: WaitOptions): Promise<RunOutcome> {
  const reporter = createProgressReporter(opts.mode, run.workflowId, opts.io);
  const interrupted = (): RunOutcome => ({ status: 'interrupted', workflowId: run.workflowId });
  let last: ReturnType<typeof toSnapshot> | undefined;
  let waiting: WaitingNote | undefined;
  let workflowNote: WaitingNote | undefined;
  let local: WaitingNote | undefined;
  // The bar ends full where the run ended; the outcome itself (status, final counts) is said once, by the summary
  // that follows, not also by a last progress line with other figures.
  const settle = (outcome: RunOutcome): RunOutcome => {
    if (outcome.status === 'completed') reporter.finish();
    return outcome;
  };
  // The first looks come quickly and the pause then grows to pollMs: a short run (one URL on a warm server, well
  // under a second) is reported as soon as it ends instead of at the next half-second tick, a large share of the
  // time of such a run (docs/measurements.md); a long one is described every pollMs (not billed), and queried as
  // paced above.
  const maxPause = opts.pollMs ?? 500;
  let pause = Math.min(maxPause, 40);
  const began = Date.now();
  // A run this command attaches to has been going for a while: where it stands is asked at once (one query).
  let nextQueryAt = run.attached ? began : began + QUERY_FIRST_MS;
  let lastQueryAt = began;
  let queryPause = QUERY_FIRST_MS;
  let moved: string | undefined;
  let movedSinceQuery = false;
  // A run this command just started is 'starting' (the workflow's own first phase): said at once, since the first
  // query comes later and a short run ends before it (nothing to report in between, nothing invented).
  if (!run.attached) reporter.update({ phase: 'starting' });
  try {
    for (;;) {
      if (opts.signal?.aborted) return interrupted();
      let state: string | undefined;
      try {
        const d = await cancellable(run, opts.signal, () => run.handle.describe());
        state = d.status.name;
        // Why it does not move, when an activity is being retried: from this same answer, no extra call.
        waiting = waitingOf(d.raw.pendingActivities);
        // A wait inside a running attempt (a local activity's too, which describe does not list): said only when
        // neither Temporal nor the workflow says why.
        local = localWaitNote(opts.localWait?.());
        const key = (d.raw.pendingActivities ?? [])
          .map((a) => a.activityId ?? '')
          .sort()
          .join(',');
        if (moved !== undefined && key !== moved) movedSinceQuery = true;
        moved = key;
      } catch (err) {
        if (opts.signal?.aborted) return interrupted();
        if (err instanceof WorkflowNotFoundError)
          return { status: 'failed', workflowId: run.workflowId, reason: failureReason(err) };
        // The server restarting or a slow answer: look again at the next tick.
        opts.log.debug({ err: (err as Error).message }, 'describing the workflow failed');
      }
      if (state !== undefined && CLOSED.has(state)) {
        try {
          // Closed: the history ends with the close event, so this answers at once.
          const result = await cancellable(
            run,
            opts.signal,
            () => run.handle.result() as Promise<PipelineWorkflowResult>,
          );
          return settle({ status: 'completed', workflowId: run.workflowId, result });
        } catch (err) {
          if (opts.signal?.aborted) return interrupted();
          // A cancel's own failure says only "Workflow cancelled" (or nothing); who can cancel and what stays is the news.
          const reason = state === 'CANCELLED' ? CANCELLED_REASON : failureReason(err);
          return settle({ status: 'failed', workflowId: run.workflowId, reason });
        }
      }
      const now = Date.now();
      const due = now >= nextQueryAt || (movedSinceQuery && now - lastQueryAt >= QUERY_FIRST_MS);
      if (!due) {
        // Why it waits, from describe (free), between two queries: shown with the figures of the last query.
        const note = waiting ?? workflowNote ?? local;
        if (last && note) reporter.update({ ...last, waiting: waitingJson(note) });
      } else {
        lastQueryAt = now;
        movedSinceQuery = false;
        // The pause grows only once a query was answered: one asked before a worker picked the run up is asked again soon.
        nextQueryAt = now + queryPause;
        try {
          if (opts.stats) opts.stats.queries++;
          const p = await cancellable(run, opts.signal, () => run.handle.query<PipelineProgress>(PROGRESS_QUERY));
          queryPause = Math.min(QUERY_MAX_MS, queryPause * 2);
          last = toSnapshot(p);
          // An activity Temporal retries (describe), else a wait the workflow itself makes (a service outage), else
          // one seen beside the run (a destination file held, a local activity's failed attempt).
          workflowNote = p.waiting
            ? {
                reason: oneLineReason(p.waiting.reason),
                attempt: p.waiting.attempt,
                nextAttemptAt: Date.parse(p.waiting.nextAttemptAt),
                expected: false,
              }
            : undefined;
          const note = waiting ?? workflowNote ?? local;
          // The final phase (succeeded, partial, failed) is said once, by the summary after the run closes.
          if (!FINAL_PHASES.has(p.phase)) reporter.update({ ...last, ...(note ? { waiting: waitingJson(note) } : {}) });
        } catch (err) {
          // No worker has picked the workflow up yet, or it just finished: nothing to show this time.
          if (!opts.signal?.aborted) opts.log.debug({ err: (err as Error).message }, 'progress query failed');
        }
      }
      await sleep(pause, opts.signal);
      pause = Math.min(maxPause, Math.round(pause * 1.5));
    }
  } finally {
    reporter.stop();
  }
}

/**
 * Runs one client call that `signal` cancels. The SDK adds an abort listener per call to the signal it is given
 * and never removes it, so each call gets its own short-lived signal, linked to `signal` only while it runs.
 */
async function cancellable<T>(run: StartedRun, signal: AbortSignal | undefined, call: () => Promise<T>): Promise<T> {
  if (signal === undefined) return call();
  const own = new AbortController();
  const forward = () => own.abort();
  signal.addEventListener('abort', forward, { once: true });
  try {
    return await run.handle.client.withAbortSignal(own.signal, call);
  } finally {
    signal.removeEventListener('abort', forward);
  }
}

/** After a run ended (either way) its key is forgotten so the next `run` starts fresh. */
export function settleRun(dataDir: string, spec: PipelineSpec, outcome: RunOutcome): void {
  if (outcome.status !== 'interrupted') {
    forgetRunByWorkflowId(dataDir, spec.name, outcome.workflowId);
  }
}

/** The waiting note as the progress snapshot carries it (JSON lines): stable between looks, so printed on change. */
function waitingJson(w: WaitingNote): {
  reason: string;
  attempt: number;
  nextAttemptAt: string | null;
  expected: boolean;
} {
  return {
    reason: w.reason,
    attempt: w.attempt,
    nextAttemptAt: w.nextAttemptAt === null ? null : new Date(w.nextAttemptAt).toISOString(),
    expected: w.expected,
  };
}

function toSnapshot(p: PipelineProgress) {
  const units = p.urls.total > 0 ? p.urls : p.runs.total > 0 ? p.runs : undefined;
  const rows = Object.values(p.rowsLoaded).reduce((s, n) => s + n, 0);
  return {
    // 'alerting': the run's outcome is recorded; its alerts go out, for at most this long.
    phase: p.phase === 'alerting' && p.alertsWithin ? `sending alerts (up to ${p.alertsWithin})` : p.phase,
    ...(units ? { done: units.done, total: units.total } : {}),
    rows,
    pagesLoaded: p.pagesLoaded,
    resultsLoaded: p.resultsLoaded,
  };
}

/**
 * Resolves after `ms`, or at once when `signal` aborts. The abort listener is removed when the timer fires: one
 * left on the signal per poll was the MaxListenersExceededWarning of long waits (11 listeners after 5 s).
 */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const onAbort = () => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Rows by table as `run` prints them: content tables first, then the model's data tables, bookkeeping last and
 * marked, then one line with data rows and bookkeeping rows apart.
 */
/**
 * The line after "rows by table" (rows changed): the data rows the run's responses held, changed or not, so that
 * an unchanged re-fetch is not read as "0 rows". Nothing for results of runs before rows seen were counted.
 */
export function rowsSeenLines(result: {
  rowsByTable: Record<string, number>;
  seenByTable?: Record<string, number>;
}): string[] {
  if (!result.seenByTable) return [];
  const totals = runRowTotals(result.rowsByTable, result.seenByTable);
  return [`data rows: ${rowsSeenChangedText(totals.changed, totals.seen)}`];
}

export function formatRowsByTable(rows: Record<string, number>): string[] {
  // The count ends each table's line (scripts read it there); a bookkeeping table is marked after its name.
  const entries = orderedRows(rows).map(([t, n]) => [isBookkeepingTable(t) ? `${t} (bookkeeping)` : t, n] as const);
  if (entries.length === 0) return ['  (no rows)'];
  const width = Math.max(...entries.map(([t]) => t.length));
  const digits = Math.max(...entries.map(([, n]) => String(n).length));
  const { data, bookkeeping } = splitRows(rows);
  return [
    ...entries.map(([t, n]) => `  ${t.padEnd(width)}  ${String(n).padStart(digits)}`),
    `  ${data} data row${data === 1 ? '' : 's'}, ${bookkeeping} bookkeeping row${bookkeeping === 1 ? '' : 's'}`,
  ];
}
