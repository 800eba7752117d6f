// `scrape-etl run <file>`: one run of a pipeline on Temporal, waited for with progress, then a summary.
// An interrupted run (Ctrl-C, crash, reboot) is remembered in the data folder and picked up by the same command.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from '../../vendor/commander.js';
import type { PipelineSpec } from '../../pipelines/spec.js';
import { processIO, type CommandIO } from '../io.js';
import type { PipelineWorkflowResult } from '../../workflows/pipeline.js';
import type { Logger } from '../logger.js';
import type { RunOutcome, StartedRun } from '../pipeline-runner.js';
import type { Session } from '../client-session.js';
import { trapSignals, type SignalTrap } from '../signals.js';
import { EXIT } from '../command-error.js';
import { processSettings } from '../../settings/process.js';
import { statusWithKeptOut } from '../../lib/run-figures.js';

export interface RunFlags {
  json?: boolean;
  detach?: boolean;
  new?: boolean;
  attach?: boolean;
  verbose?: boolean;
  plan?: boolean;
}

/**
 * Files written into the pipeline's export folders since the run started (and, given `until`, no later than it
 * ended): what the run exported, for results of runs that do not list their files (exportFiles) themselves.
 */
export function exportedFilesSince(spec: PipelineSpec, since: Date, until?: Date): string[] {
  const files = new Set<string>();
  for (const e of spec.exports) {
    // A lake export's files are listed by its manifests, not found in a folder.
    if (e.dir === undefined) continue;
    const dir = path.resolve(e.dir);
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!name.endsWith('.csv') || !name.includes(spec.name)) continue;
      const full = path.join(dir, name);
      // One second of slack: some file systems keep mtimes with second precision.
      const mtime = fs.statSync(full).mtimeMs;
      if (mtime >= since.getTime() - 1000 && (until === undefined || mtime <= until.getTime() + 1000)) files.add(full);
    }
  }
  return [...files].sort();
}

/**
 * The lines that say what a finished run exported: its files one a line, and the tables an incremental export
 * found no new row in (no file written for them), or that nothing was new at all.
 */
export function exportLines(
  result: PipelineWorkflowResult,
  files: string[],
  mark: (file: string) => string = () => '',
): string[] {
  const unchanged = result.exportUnchanged ?? [];
  if (result.exportStatus === 'no_new_rows')
    return [`exported files: none, no rows were new since the last export (${unchanged.join(', ')})`];
  const lines = [
    files.length > 0 ? 'exported files:' : 'exported files: none',
    ...files.map((f) => `  ${f}${mark(f)}`),
  ];
  if (unchanged.length > 0) lines.push(`no rows new since the last export, so no file for: ${unchanged.join(', ')}`);
  return lines;
}

/** The files a finished run's exports wrote: listed in its result, or found by their times for an older result. */
export function filesOfRun(
  spec: PipelineSpec,
  result: PipelineWorkflowResult,
  startedAt: Date,
  closedAt?: Date,
): string[] {
  if (result.exportFiles) return [...new Set(result.exportFiles.map((f) => f.file))].sort();
  return exportedFilesSince(spec, startedAt, closedAt);
}

export interface RunReport {
  type: 'result';
  workflowId: string;
  pipeline: string;
  status: string;
  /** Rows changed (inserted or updated) by table. */
  rowsByTable: Record<string, number>;
  /** Rows the run's responses held by table, changed or not (absent from results of runs before it was counted). */
  seenByTable?: Record<string, number>;
  exportedFiles: string[];
  /** The exports' own outcome: 'failed' means the data loaded (see status) but the files were not written. */
  exportStatus: PipelineWorkflowResult['exportStatus'];
  exportError: string | null;
  /** Tables an incremental export found no new row in: no file was written for them. */
  unchangedTables: string[];
  failedUrls: number;
  /** Results quarantined in rejected_results (absent when none). */
  rejectedResults?: number;
  /** Values kept out of their columns (pipeline_runs.kept_out; absent when none). */
  keptOut?: number;
  attached: boolean;
  /** true when the remembered run had completed before this command: reported, not resumed, nothing started. */
  alreadyCompleted: boolean;
  /** When the run completed (ISO 8601), for a run that completed before this command. */
  completedAt?: string;
  /** How the run's alerts ended (absent for runs from before it was reported). */
  alerts?: PipelineWorkflowResult['alerts'];
  /** The run's data checks (status failed_checks when an error check failed). */
  checks?: PipelineWorkflowResult['checks'];
  watchEvents?: PipelineWorkflowResult['watchEvents'];
  /** Why the run ended as it did ('budget'), and the limit that stopped its calls. */
  reason?: PipelineWorkflowResult['reason'];
  budget?: PipelineWorkflowResult['budget'];
}

// Heavy modules (Temporal client, zod, pino) are loaded in the functions and the action that use them, not
// at the top, so that registering the command for --help stays cheap (see cli/main.ts).
export async function printOutcome(
  spec: PipelineSpec,
  run: StartedRun,
  outcome: RunOutcome,
  startedAt: Date,
  json: boolean,
  resumeHint: string,
  interruptedExitCode: number = EXIT.sigint,
  newRunHint = `${resumeHint} --new`,
  io: CommandIO = processIO,
): Promise<number> {
  const { formatRowsByTable, rowsSeenLines } = await import('../pipeline-runner.js');
  const { alertLines, exportFailureLines } = await import('../next-steps.js');
  if (outcome.status === 'interrupted') {
    const msg = `interrupted: run ${run.workflowId} keeps running in Temporal; resume with: ${resumeHint}`;
    if (json)
      io.stdout.write(`${JSON.stringify({ type: 'interrupted', workflowId: run.workflowId, resume: resumeHint })}\n`);
    io.stderr.write(`${msg}\n`);
    return interruptedExitCode;
  }
  if (outcome.status === 'failed') {
    if (json)
      io.stdout.write(
        `${JSON.stringify({ type: 'failed', workflowId: run.workflowId, pipeline: spec.name, reason: outcome.reason })}\n`,
      );
    io.stderr.write(`pipeline ${spec.name} failed (${run.workflowId}): ${outcome.reason}\n`);
    return EXIT.failed;
  }
  const result: PipelineWorkflowResult = outcome.result;
  const exported = filesOfRun(spec, result, startedAt, run.completedAt);
  const earlier = run.completedAt;
  if (json) {
    const report: RunReport = {
      type: 'result',
      workflowId: run.workflowId,
      pipeline: spec.name,
      status: result.status,
      rowsByTable: result.rowsByTable,
      ...(result.seenByTable ? { seenByTable: result.seenByTable } : {}),
      exportedFiles: exported,
      exportStatus: result.exportStatus,
      exportError: result.exportError,
      unchangedTables: result.exportUnchanged ?? [],
      failedUrls: result.failedUrlCount,
      ...(result.alerts ? { alerts: result.alerts } : {}),
      ...(result.rejectedResults ? { rejectedResults: result.rejectedResults } : {}),
      ...(result.keptOut ? { keptOut: result.keptOut } : {}),
      attached: run.attached,
      alreadyCompleted: earlier !== undefined,
      ...(earlier ? { completedAt: earlier.toISOString() } : {}),
      ...(result.checks ? { checks: result.checks } : {}),
      ...(result.watchEvents ? { watchEvents: result.watchEvents } : {}),
      ...(result.reason ? { reason: result.reason } : {}),
      ...(result.budget ? { budget: result.budget } : {}),
    };
    io.stdout.write(`${JSON.stringify(report)}\n`);
  } else {
    const lines = [
      earlier
        ? `pipeline ${spec.name}: the remembered run ${run.workflowId} already completed at ${earlier.toISOString()} (${result.status}); nothing was resumed or started`
        : `pipeline ${spec.name} ${statusWithKeptOut(`${result.status}${result.reason ? ` (${result.reason})` : ''}`, result.keptOut)} (${run.workflowId}${run.attached ? ', resumed' : ''})`,
      ...(result.budget ? [`stopped by its budget: ${result.budget.detail}`] : []),
      'rows by table:',
      ...formatRowsByTable(result.rowsByTable),
      ...rowsSeenLines(result),
    ];
    if (result.failedUrlCount > 0) {
      lines.push(`${result.failedUrlCount} URL(s) failed:`, ...result.failedUrls.map((f) => `  ${f.url}: ${f.error}`));
    }
    if (result.checks && result.checks.length > 0) {
      lines.push(
        'checks:',
        ...result.checks.map(
          (c) => `  ${c.status.toUpperCase().padEnd(7)} ${c.severity.padEnd(5)} ${c.name}: ${c.message}`,
        ),
      );
    }
    for (const w of result.watchEvents ?? [])
      lines.push(`watch ${w.watch}: ${w.rows} ${w.event.replace(/_/g, ' ')} row(s)`);
    if (result.rejectedResults) {
      lines.push(
        `${result.rejectedResults} result(s) could not be loaded and were quarantined (see rejected_results; docs/inferred-tables.md): ${result.error ?? ''}`,
      );
    }
    // A file of a run that completed earlier may have been removed since (retention.exports, or by hand).
    lines.push(...exportLines(result, exported, (f) => (earlier && !fs.existsSync(f) ? '  (removed since)' : '')));
    if (earlier) lines.push(`start a new run with: ${newRunHint}`);
    io.stdout.write(`${lines.join('\n')}\n`);
  }
  // Said on stderr with --json too: a person watching a scripted run sees it.
  for (const line of alertLines(spec, result.alerts)) io.stderr.write(`${line}\n`);
  if (result.exportStatus === 'failed') {
    io.stderr.write(`${exportFailureLines(spec, result.exportError).join('\n')}\n`);
    return EXIT.exportFailed;
  }
  return result.status === 'succeeded' ? EXIT.ok : EXIT.partial;
}

/** Waits for a started run; `signal` (Ctrl-C, SIGTERM) turns into "leave it running" rather than killing anything. */
export async function waitWithInterrupt(
  session: Session,
  run: StartedRun,
  spec: PipelineSpec,
  json: boolean,
  log: Logger,
  signal: AbortSignal,
  io: CommandIO = processIO,
): Promise<RunOutcome> {
  const { settleRun, waitForRun } = await import('../pipeline-runner.js');
  const { progressMode } = await import('../progress.js');
  const { destinationWaitNote } = await import('../../destinations/index.js');
  const { describeAttemptFailure, readAttemptFailure } = await import('../../temporal/attempt-notes.js');
  const { oneLineReason } = await import('../waiting.js');
  // What Temporal does not show: a wait for the destination file, or the run's local activity failing attempt after attempt.
  const localWait = () => {
    const failed = readAttemptFailure(session.settings.dataDir, run.workflowId);
    return (
      destinationWaitNote(spec.destination.database) ??
      (failed ? describeAttemptFailure({ ...failed, reason: oneLineReason(failed.reason) }) : undefined)
    );
  };
  const outcome = await waitForRun(run, { mode: progressMode({ json }, io.stderr), signal, log, io, localWait });
  settleRun(session.settings.dataDir, spec, outcome);
  return outcome;
}

/** The pipeline file, loaded and checked against its schema (a clear error, exit 2). */
export async function loadedPipeline(file: string): Promise<PipelineSpec> {
  const { loadPipelineFile } = await import('../../pipelines/loader.js');
  return loadPipelineFile(file);
}

/**
 * What can be checked before anything starts (no Temporal server, no workflow), for a run no worker polls for
 * now: the destination, and for a worker in this process the service settings it will read from this environment.
 * Every problem at once, exit 2. A worker that polls (`scrape-etl up`, `scrape-etl worker`) reads its own
 * environment and opens the destination itself: the check is its, and `run` then loads none of the database code.
 */
async function preflight(file: string, spec: PipelineSpec, inProcessWorker: boolean): Promise<void> {
  const { destinationIssues, notifyIssues, serviceSettingsProblem } = await import('../../pipelines/preflight.js');
  const { formatIssue } = await import('../../pipelines/errors.js');
  const problems = (await destinationIssues(file, spec)).map(formatIssue);
  if (inProcessWorker) {
    const service = await serviceSettingsProblem(spec);
    if (service !== undefined) problems.push(service);
    // The alerts' webhook URLs, expanded as this worker will expand them after the run.
    problems.push(...(await notifyIssues(file, spec)).map(formatIssue));
  }
  if (problems.length > 0) {
    throw Object.assign(new Error(`${problems.join('\n')}\nnothing was started`), { exitCode: EXIT.usage });
  }
  // Settings in order, the address itself: one that refuses connections or names no host is wrong, not down, and
  // would otherwise be retried until polling.deadline. An outage after the start is still waited out.
  const baseUrl = processSettings().scraperBaseUrl;
  if (inProcessWorker && baseUrl && (await import('../../kinds/index.js')).kindOf(spec.kind).endpoints.length > 0) {
    const unreachable = await (await import('../service-check.js')).serviceUnreachableProblem(baseUrl);
    if (unreachable !== undefined) throw Object.assign(new Error(unreachable), { exitCode: EXIT.failed });
  }
}

export function register(program: Command): void {
  program
    .command('run')
    .description(
      'run a pipeline once on Temporal and wait for it: when a worker polls the task queue (`scrape-etl up`), only starts the ' +
        'workflow; when none does, says so and runs a worker in this process for this run only (on the embedded dev server, used ' +
        'unless TEMPORAL_ADDRESS is set); an interrupted run is resumed by running the same command again',
    )
    .argument('<pipeline>', 'pipeline file, or pipeline name of the project')
    .option('--json', 'progress and the summary as JSON lines on stdout')
    .option('--detach', 'start the run and print its workflow id without waiting')
    .option('--new', 'start a fresh run even if an unfinished one is remembered')
    .option(
      '--attach',
      'when the remembered run already completed, report its outcome and files instead of starting a new run',
    )
    .option(
      '--plan',
      "print the run's forecast spend (from the pipeline's own history) against its budgets and start nothing; exit 5 when a budget would refuse it",
    )
    .option('-v, --verbose', 'more logs (stderr)')
    .action(async (file: string, flags: RunFlags) => {
      // First, so that a signal at any moment ends the command: at once while it starts, cleanly later (see trapSignals).
      const trap = trapSignals({
        whileStarting:
          'no run was started or attached; an embedded Temporal server that was starting goes on in the background (`scrape-etl server stop` stops it)',
      });
      try {
        file = await (await import('../resolve-pipeline.js')).resolvePipelineFile(file);
        process.exitCode = await runCommand(file, flags, trap);
      } finally {
        trap.dispose();
      }
    });
}

/**
 * Where the run is worked on: by a worker that polls the task queue now (this command is then a client only: it
 * loads the Temporal client and nothing of the worker, the databases or the activities), else by a worker in this
 * process for this run only (embedded server), else (a cluster, or --detach) by whichever worker comes.
 */
async function openRunSession(
  file: string,
  spec: PipelineSpec,
  flags: RunFlags,
  log: Logger,
  io: CommandIO,
): Promise<Session> {
  const { temporalSettings } = await import('../../temporal/settings.js');
  const { connectRunningTemporal, connectTemporal } = await import('../../temporal/connect.js');
  const { livePollers, startWorkerHint } = await import('../../temporal/pollers.js');
  const { clientSession } = await import('../client-session.js');
  const settings = temporalSettings();
  // The embedded server is not started just to ask: if it is not running, no worker can be polling it.
  const found =
    settings.address === undefined
      ? await connectRunningTemporal(settings)
      : { conn: await connectTemporal({ settings, log: (m) => log.info(m) }) };
  const conn = 'conn' in found ? found.conn : undefined;
  let polling = false;
  let othersOnly = false;
  if (conn) {
    try {
      // Only a worker that says it is long-lived counts: another run's own worker leaves when that run ends.
      const pollers = await livePollers(conn.client, conn.namespace, conn.taskQueue);
      polling = pollers.some((p) => p.longLived);
      othersOnly = !polling && pollers.length > 0;
    } catch (err) {
      log.debug({ err }, 'could not describe the task queue');
    }
  }
  if (conn && polling) {
    log.info(
      { taskQueue: conn.taskQueue },
      'a worker polls the task queue: this command only starts the run and waits',
    );
    return clientSession(conn, settings);
  }
  const inProcess = settings.address === undefined && !flags.detach;
  try {
    await preflight(file, spec, inProcess);
  } catch (err) {
    await conn?.connection.close();
    throw err;
  }
  if (!inProcess)
    return clientSession(
      conn ?? (await connectTemporal({ settings, log: (m) => log.info(m), transient: true })),
      settings,
    );
  await conn?.connection.close();
  const who = othersOnly
    ? `only another run's worker polls task queue '${settings.taskQueue}' (it stops when that run ends)`
    : `no worker polls task queue '${settings.taskQueue}' now`;
  io.stderr.write(
    `${who}: running one in this process for this run only (start a long-lived one with ${startWorkerHint(true)})\n`,
  );
  const { openSession } = await import('../session.js');
  return openSession({ log, worker: true });
}

/**
 * For a `run` that waits as a client only: when its task queue has had no poller for 30 s (the worker it counted on
 * left), says so in one line and, on the embedded server, runs a worker in this process that takes the run over.
 */
async function watchForTakeover(
  session: Session,
  spec: PipelineSpec,
  log: Logger,
  io: CommandIO,
): Promise<{ stop(): Promise<void> }> {
  const { watchQueue, IDLE_MS } = await import('../queue-watch.js');
  const { startWorkerHint } = await import('../../temporal/pollers.js');
  const { conn, settings } = session;
  let worker: Promise<{ stop(): Promise<void> }> | undefined;
  const idle = `no worker has polled task queue '${conn.taskQueue}' for ${IDLE_MS / 1000} s (the worker that worked on this run stopped)`;
  const watch = watchQueue({
    client: conn.client,
    namespace: conn.namespace,
    taskQueue: conn.taskQueue,
    onError: (err) => log.debug({ err }, 'could not describe the task queue'),
    onIdle: async () => {
      if (!conn.embedded) {
        io.stderr.write(`${idle}: the run waits until one polls; start one with ${startWorkerHint(false)}\n`);
        return;
      }
      // This process's environment is the worker's now: what it needs from it is checked first.
      const { serviceSettingsProblem } = await import('../../pipelines/preflight.js');
      const problem = await serviceSettingsProblem(spec);
      if (problem !== undefined) {
        io.stderr.write(`${idle}; this process cannot take the run over: ${problem}\n`);
        return;
      }
      io.stderr.write(`${idle}: running one in this process to take the run over\n`);
      const { startCommandWorker } = await import('../session.js');
      worker = startCommandWorker(conn, settings, log);
      await worker;
    },
  });
  return {
    async stop() {
      watch.stop();
      await (await worker?.catch(() => undefined))?.stop();
    },
  };
}

export async function runCommand(
  file: string,
  flags: RunFlags,
  trap: SignalTrap,
  io: CommandIO = processIO,
): Promise<number> {
  const { createLogger } = await import('../logger.js');
  const { startOrAttach } = await import('../pipeline-runner.js');
  const log = createLogger({ verbose: flags.verbose ?? false, destination: io.stderr });
  const spec = await loadedPipeline(file);
  // Budgets first: a run whose forecast exceeds a limit is refused before Temporal or the service is asked anything.
  const { hasBudget } = await import('../../budget/limits.js');
  if (flags.plan || hasBudget(spec)) {
    const { planBudget, planLines } = await import('../budget-plan.js');
    const plan = await planBudget(spec, file);
    if (flags.plan) {
      if (flags.json)
        io.stdout.write(
          `${JSON.stringify({ type: 'plan', pipeline: spec.name, forecast: plan.forecast, checks: plan.checks.map((c) => ({ limit: c.limit.key, scope: c.limit.scope, value: c.limit.limit, spent: c.spent, adds: c.adds, exceeds: c.exceeds })), refusal: plan.refusal ?? null })}\n`,
        );
      else io.stdout.write(`${planLines(spec, plan, file).join('\n')}\n`);
      return plan.refusal ? EXIT.budget : EXIT.ok;
    }
    if (plan.refusal) throw Object.assign(new Error(plan.refusal), { exitCode: EXIT.budget });
  }
  const session = await openRunSession(file, spec, flags, log, io);
  try {
    // Up to here a signal exited at once (nothing was started); from the start of the run on, it stops the command
    // at its next step and the run keeps going in Temporal.
    trap.started();
    const run = await startOrAttach({
      client: session.conn.client,
      taskQueue: session.conn.taskQueue,
      dataDir: session.settings.dataDir,
      spec,
      file,
      fresh: flags.new ?? false,
      attach: flags.attach ?? false,
      log,
      signal: trap.signal,
      onWorkflowId: (id) => trap.starting?.(id, `scrape-etl run ${file}`),
    });
    if (run.endedEarlier)
      io.stderr.write(`${(await import('../pipeline-runner.js')).endedEarlierLine(run.endedEarlier)}\n`);
    if (run.completedAt) {
      // --attach, and the remembered run completed while nobody waited (a detached run, or one finished after
      // Ctrl-C): say so with its outcome and files, start nothing, and forget it so that the next `run` starts anew.
      const { settleRun } = await import('../pipeline-runner.js');
      const result = (await run.handle.result()) as PipelineWorkflowResult;
      const outcome: RunOutcome = { status: 'completed', workflowId: run.workflowId, result };
      settleRun(session.settings.dataDir, spec, outcome);
      const startedAt = (await run.handle.describe()).startTime;
      return await printOutcome(
        spec,
        run,
        outcome,
        startedAt,
        flags.json ?? false,
        `scrape-etl run ${file}`,
        trap.exitCode(),
        undefined,
        io,
      );
    }
    if (flags.detach || !session.hasWorker) {
      // Nothing in this process works on the run: say so at once when no worker anywhere polls its queue.
      const { noWorkerWarning } = await import('../../temporal/pollers.js');
      const warning = await noWorkerWarning(session.conn.client, session.conn.namespace, session.conn.taskQueue, {
        embedded: session.conn.embedded,
      });
      if (warning)
        io.stderr.write(
          `${warning}${session.conn.embedded ? `, or run \`scrape-etl run ${file}\` to attach to this run and work on it` : ''}\n`,
        );
    }
    if (flags.detach) {
      if (flags.json)
        io.stdout.write(`${JSON.stringify({ type: 'started', workflowId: run.workflowId, attached: run.attached })}\n`);
      else io.stdout.write(`${run.workflowId}\n`);
      return EXIT.ok;
    }
    if (run.attached) io.stderr.write(`resuming unfinished run ${run.workflowId}\n`);
    else if (!flags.json)
      io.stderr.write(
        `started ${run.workflowId}${session.hasWorker ? '' : ' (worked on by the worker polling the task queue)'}\n`,
      );
    const startedAt = (await run.handle.describe()).startTime;
    const takeover = session.hasWorker ? undefined : await watchForTakeover(session, spec, log, io);
    let outcome: RunOutcome;
    try {
      outcome = await waitWithInterrupt(session, run, spec, flags.json ?? false, log, trap.signal, io);
    } finally {
      await takeover?.stop();
    }
    const exitCode = await printOutcome(
      spec,
      run,
      outcome,
      startedAt,
      flags.json ?? false,
      `scrape-etl run ${file}`,
      trap.exitCode(),
      undefined,
      io,
    );
    if (outcome.status === 'interrupted') {
      // The worker's shutdown grace can keep the process alive a little; the run is safe in Temporal already.
      setTimeout(() => process.exit(exitCode), 5000).unref();
    }
    return exitCode;
  } finally {
    await session.close();
  }
}
