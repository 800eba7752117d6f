/**
 * Starting a pipeline run on Temporal, or attaching to the unfinished one remembered in the data folder, and
 * waiting for it while showing its `progress` query. Shared by `run`, `demo` and `schedule trigger --wait`.
 */
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { PipelineSpec } from '../pipelines/spec.js';
import { PROGRESS_QUERY, pipelineWorkflowId, type PipelineProgress, type PipelineWorkflowResult } from '../temporal/contract.js';
import { startOrGetPipelineRun } from '../temporal/start.js';
import type { Logger } from './logger.js';
import { createProgressReporter } from './progress.js';
import type { ProgressMode } from './progress.js';
import { forgetRun, newRunKey, recallRun, rememberRun } from './run-state.js';

export type PipelineHandle = WorkflowHandle;

export interface StartedRun {
  handle: PipelineHandle;
  workflowId: string;
  runKey: string;
  /** true when an unfinished run from an earlier command was picked up. */
  attached: boolean;
}

export interface StartOptions {
  client: Client;
  taskQueue: string;
  dataDir: string;
  spec: PipelineSpec;
  file: string;
  /** Ignore a remembered unfinished run and start a new one. */
  fresh?: boolean;
  log: Logger;
}

/** Attaches to the remembered unfinished run of this pipeline when it still exists, else starts a new run. */
export async function startOrAttach(opts: StartOptions): Promise<StartedRun> {
  const { client, spec, dataDir, log } = opts;
  const remembered = opts.fresh ? undefined : recallRun(dataDir, spec.name);
  if (remembered) {
    const handle = client.workflow.getHandle(remembered.workflowId);
    try {
      const d = await handle.describe();
      // A run that finished while nobody waited is still "this" run: attach and report its outcome.
      if (d.status.name === 'RUNNING' || d.status.name === 'COMPLETED') {
        log.debug({ workflowId: remembered.workflowId, status: d.status.name }, 'attaching to remembered run');
        return { handle, workflowId: remembered.workflowId, runKey: remembered.runKey, attached: true };
      }
      log.info({ workflowId: remembered.workflowId, status: d.status.name }, 'remembered run ended without success; starting a new run');
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      log.info({ workflowId: remembered.workflowId }, 'remembered run is unknown to Temporal; starting a new run');
    }
  }
  const runKey = newRunKey();
  const workflowId = pipelineWorkflowId(spec.name, runKey);
  // Remembered before the start: a crash between the two leaves a key whose workflow does not exist, which the
  // next command detects (not found) and replaces; the other order could lose a started run.
  rememberRun(dataDir, { pipeline: spec.name, runKey, workflowId, file: opts.file, startedAt: new Date().toISOString() });
  const { handle, attached } = await startOrGetPipelineRun({ client, taskQueue: opts.taskQueue, file: opts.file }, spec, runKey);
  return { handle, workflowId, runKey, attached };
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
  pollMs?: number;
  log: Logger;
}

export async function waitForRun(run: StartedRun, opts: WaitOptions): Promise<RunOutcome> {
  const reporter = createProgressReporter(opts.mode, run.workflowId);
  let stopPolling = false;
  const poll = (async () => {
    while (!stopPolling) {
      try {
        const p = await run.handle.query<PipelineProgress>(PROGRESS_QUERY);
        if (!stopPolling) reporter.update(toSnapshot(p));
      } catch (err) {
        // No worker has picked the workflow up yet, or it just finished: nothing to show this time.
        opts.log.debug({ err: (err as Error).message }, 'progress query failed');
      }
      await sleep(opts.pollMs ?? 500, opts.signal);
    }
  })();
  const interrupted = new Promise<'interrupted'>((resolve) => {
    if (opts.signal?.aborted) resolve('interrupted');
    opts.signal?.addEventListener('abort', () => resolve('interrupted'), { once: true });
  });
  let outcome: RunOutcome | undefined;
  try {
    outcome = await Promise.race([
      run.handle.result().then(
        (result: PipelineWorkflowResult): RunOutcome => ({ status: 'completed', workflowId: run.workflowId, result }),
        (err: unknown): RunOutcome => ({ status: 'failed', workflowId: run.workflowId, reason: failureReason(err) }),
      ),
      interrupted.then((): RunOutcome => ({ status: 'interrupted', workflowId: run.workflowId })),
    ]);
    return outcome;
  } finally {
    stopPolling = true;
    reporter.stop();
    // After Ctrl-C a progress query may hang (the worker is going away): do not wait for it.
    if (outcome?.status !== 'interrupted') await poll.catch(() => undefined);
  }
}

/** After a run ended (either way) its key is forgotten so the next `run` starts fresh. */
export function settleRun(dataDir: string, spec: PipelineSpec, outcome: RunOutcome): void {
  if (outcome.status !== 'interrupted') {
    const remembered = recallRun(dataDir, spec.name);
    if (remembered?.workflowId === outcome.workflowId) forgetRun(dataDir, spec.name);
  }
}

function toSnapshot(p: PipelineProgress) {
  const units = p.urls.total > 0 ? p.urls : p.runs.total > 0 ? p.runs : undefined;
  const rows = Object.values(p.rowsLoaded).reduce((s, n) => s + n, 0);
  return {
    phase: p.phase,
    ...(units ? { done: units.done, total: units.total } : {}),
    rows,
    pagesLoaded: p.pagesLoaded,
    resultsLoaded: p.resultsLoaded,
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    }, { once: true });
  });
}

export function formatRowsByTable(rows: Record<string, number>): string[] {
  const entries = Object.entries(rows).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) return ['  (no rows)'];
  const width = Math.max(...entries.map(([t]) => t.length));
  return entries.map(([t, n]) => `  ${t.padEnd(width)}  ${n}`);
}
