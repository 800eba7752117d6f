// `scrape-etl schedule ...`: Temporal Schedules from pipeline files (apply) and their day-to-day handling.
import { EXIT } from '../../lib/exit-codes.js';
import type { Command } from '../../vendor/commander.js';
import type { ScheduleDescription, ScheduleOverlapPolicy } from '@temporalio/client';
import { PipelineFileError } from '../../pipelines/errors.js';
import type { PipelineSpec } from '../../pipelines/spec.js';
import type { Logger } from '../logger.js';
import type { Session } from '../client-session.js';

interface CommonFlags {
  json?: boolean;
  verbose?: boolean;
}

// Heavy modules (Temporal client, zod, pino) are loaded in the functions and actions that use them, not at the
// top, so that registering the commands for --help stays cheap (see cli/main.ts).
// `worker`: on the embedded server, run a worker in this process for the command (trigger --wait with no worker
// polling); otherwise a client only, which loads none of the worker's code.
async function withSession<T>(
  flags: CommonFlags,
  worker: boolean,
  fn: (s: Session, log: Logger) => Promise<T>,
): Promise<T> {
  const { createLogger } = await import('../logger.js');
  const log = createLogger({ verbose: flags.verbose ?? false });
  const { connectTemporal } = await import('../../temporal/connect.js');
  const { temporalSettings } = await import('../../temporal/settings.js');
  const { clientSession } = await import('../client-session.js');
  const settings = temporalSettings();
  // Transient: an embedded server this command starts stops when it ends; schedules live in its database and fire
  // again once `up` starts it.
  let session = clientSession(await connectTemporal({ settings, log: (m) => log.info(m), transient: true }), settings);
  if (worker && session.conn.embedded) {
    // A worker that polls now (`scrape-etl up`) works on the run; only without one does this command run its own.
    const { livePollers } = await import('../../temporal/pollers.js');
    const polled = await livePollers(session.conn.client, session.conn.namespace, session.conn.taskQueue).catch(
      () => [],
    );
    if (polled.length === 0) {
      // Opened before the first closes, so that the server is not stopped in between.
      const { openSession } = await import('../session.js');
      const first = session;
      session = await openSession({ log, worker });
      await first.close();
    }
  }
  try {
    return await fn(session, log);
  } finally {
    await session.close();
  }
}

async function warnIfNoWorker(session: Session, what: string): Promise<void> {
  const { noWorkerWarning } = await import('../../temporal/pollers.js');
  const { namespace, taskQueue, embedded, client } = session.conn;
  const warning = await noWorkerWarning(client, namespace, taskQueue, { embedded, what });
  if (warning) process.stderr.write(`${warning}\n`);
}

async function longLivedPoller(session: Session): Promise<boolean> {
  const { livePollers } = await import('../../temporal/pollers.js');
  const { client, namespace, taskQueue } = session.conn;
  return (await livePollers(client, namespace, taskQueue).catch(() => [])).some((p) => p.longLived);
}

function out(flags: CommonFlags, text: string, json: unknown): void {
  process.stdout.write(flags.json ? `${JSON.stringify(json)}\n` : `${text}\n`);
}

function notFound(id: string): Error & { exitCode: number } {
  return Object.assign(new Error(`no schedule '${id}' (see \`scrape-etl schedule list\`)`), { exitCode: EXIT.failed });
}

async function describeOrFail(session: Session, id: string): Promise<ScheduleDescription> {
  const { ScheduleNotFoundError } = await import('@temporalio/client');
  try {
    return await session.conn.client.schedule.getHandle(id).describe();
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) throw notFound(id);
    throw err;
  }
}

/** The cron line as applied from the pipeline file (Temporal itself describes it as structured calendars). */
function appliedCron(d: ScheduleDescription): { cron: string | null; timezone: string | null } {
  if (d.action.type !== 'startWorkflow') return { cron: null, timezone: null };
  const arg = d.action.args?.[0] as { spec?: PipelineSpec } | undefined;
  return {
    cron: arg?.spec?.schedule?.cron ?? null,
    timezone: arg?.spec?.schedule?.timezone ?? d.spec.timezone ?? null,
  };
}

function summarize(d: ScheduleDescription) {
  return {
    scheduleId: d.scheduleId,
    paused: d.state.paused,
    note: d.state.note ?? null,
    ...appliedCron(d),
    overlap: d.policies.overlap,
    catchupWindowMs: d.policies.catchupWindow,
    workflowType: d.action.type === 'startWorkflow' ? d.action.workflowType : undefined,
    taskQueue: d.action.type === 'startWorkflow' ? d.action.taskQueue : undefined,
    nextActionTimes: d.info.nextActionTimes.slice(0, 5).map((t) => t.toISOString()),
    recentActions: d.info.recentActions.map((a) => ({
      scheduledAt: a.scheduledAt.toISOString(),
      workflowId: a.action.workflow.workflowId,
    })),
    runningWorkflowIds: d.info.runningActions.map((a) => a.workflow.workflowId),
    numActionsTaken: d.info.numActionsTaken,
  };
}

/** A schedule's id is its pipeline's name: given by name, or by the pipeline's file (cli/resolve-pipeline.ts). */
async function scheduleIdOf(arg: string): Promise<string> {
  return (await import('../resolve-pipeline.js')).pipelineNameOf(arg);
}

export function register(program: Command): void {
  const schedule = program
    .command('schedule')
    .description('Temporal Schedules for pipelines (schedule id = pipeline name)');

  schedule
    .command('apply')
    .description('create or update the schedules of pipeline files; applying unchanged files changes nothing')
    .argument(
      '[pipelines...]',
      'pipeline files, or pipeline names of the project (default: every pipeline of the project)',
    )
    .option('--prune', 'delete the schedule of a pipeline whose file no longer has a schedule section')
    .option('--force', 'replace a schedule applied from another file whose pipeline has the same name')
    .option('--json', 'one JSON object per file')
    .option('-v, --verbose', 'more logs (stderr)')
    .action(async (args: string[], flags: CommonFlags & { prune?: boolean; force?: boolean }) => {
      const files = await (await import('../resolve-pipeline.js')).resolvePipelineFiles(args);
      const { loadPipelineFile } = await import('../../pipelines/loader.js');
      const { applyLine, applyScheduleChanges } = await import('../schedules.js');
      // Every file is validated before any schedule changes, so a typo in one file does not half-apply a set.
      const specs: Array<{ file: string; spec: PipelineSpec }> = [];
      const problems: string[] = [];
      for (const file of files) {
        try {
          specs.push({ file, spec: await loadPipelineFile(file) });
        } catch (err) {
          if (!(err instanceof PipelineFileError)) throw err;
          problems.push(err.message);
        }
      }
      if (problems.length > 0) {
        process.stderr.write(`${problems.join('\n')}\n`);
        process.exitCode = EXIT.usage;
        return;
      }
      await withSession(flags, false, async (session) => {
        let scheduled = false;
        for (const { file, spec } of specs) {
          const r = await applyScheduleChanges(
            session.conn.client,
            spec,
            file,
            session.conn.taskQueue,
            flags.prune ?? false,
            flags.force ?? false,
          );
          const { outcome } = r;
          // What changed is said (fields, paused → active), and a pause made by hand that the apply kept.
          out(flags, applyLine(spec.name, r), {
            file,
            scheduleId: spec.name,
            outcome,
            ...(outcome === 'updated'
              ? { changes: r.changes ?? [], paused: r.paused, ...(r.kept ? { kept: r.kept } : {}) }
              : {}),
          });
          if (outcome !== 'absent' && outcome !== 'deleted' && !(r.paused ?? spec.schedule?.paused)) scheduled = true;
        }
        // A schedule only starts workflows: with no worker polling, every run it starts waits in RUNNING. On the
        // embedded server, the server itself runs only while `up` does (this command stops one it started).
        if (scheduled) {
          if (session.conn.embedded && !(await longLivedPoller(session))) {
            process.stderr.write(
              'schedules fire only while `scrape-etl up` runs (in this data folder); start it with `scrape-etl up --detach`\n',
            );
          } else await warnIfNoWorker(session, 'the schedule starts runs that wait in RUNNING until one does');
        }
      });
    });

  schedule
    .command('list')
    .description('list schedules')
    .option('--json', 'one JSON object per schedule')
    .option('-v, --verbose', 'more logs (stderr)')
    .action(async (flags: CommonFlags) => {
      // Without the Temporal SDK: its loading was nearly all of the command's time (cli/schedule-list.ts).
      const { listSchedulesCommand } = await import('../schedule-list.js');
      await listSchedulesCommand(flags);
    });

  schedule
    .command('describe')
    .description('show one schedule: spec, policies, state, recent and next runs')
    .argument('<id>', 'schedule id: the pipeline name, or its file')
    .option('--json', 'as JSON')
    .option('-v, --verbose', 'more logs (stderr)')
    .action(async (arg: string, flags: CommonFlags) => {
      const id = await scheduleIdOf(arg);
      await withSession(flags, false, async (session) => {
        const s = summarize(await describeOrFail(session, id));
        const text = Object.entries(s)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
          .join('\n');
        out(flags, text, s);
      });
    });

  for (const [name, verb] of [
    ['pause', 'pause'],
    ['unpause', 'unpause'],
  ] as const) {
    schedule
      .command(name)
      .description(`${verb} a schedule`)
      .argument('<id>', 'schedule id: the pipeline name, or its file')
      .option('--note <text>', 'why (shown by describe)')
      .option('--json', 'as JSON')
      .option('-v, --verbose', 'more logs (stderr)')
      .action(async (arg: string, flags: CommonFlags & { note?: string }) => {
        const id = await scheduleIdOf(arg);
        await withSession(flags, false, async (session) => {
          await describeOrFail(session, id);
          const handle = session.conn.client.schedule.getHandle(id);
          const note = flags.note ?? `${name}d with scrape-etl`;
          if (verb === 'pause') await handle.pause(note);
          else await handle.unpause(note);
          out(flags, `${id}: ${name}d`, { scheduleId: id, paused: verb === 'pause' });
        });
      });
  }

  schedule
    .command('trigger')
    .description('start a run of the schedule now (with --wait: and wait for it, running a worker when local)')
    .argument('<id>', 'schedule id: the pipeline name, or its file')
    .option('--wait', 'wait for the triggered run and print its summary')
    .option(
      '--overlap <policy>',
      'overlap policy for this run (skip, buffer_one, buffer_all, cancel_other, terminate_other, allow_all)',
      'allow_all',
    )
    .option('--json', 'as JSON lines')
    .option('-v, --verbose', 'more logs (stderr)')
    .action(async (arg: string, flags: CommonFlags & { wait?: boolean; overlap: string }) => {
      const id = await scheduleIdOf(arg);
      const { formatRowsByTable, rowsSeenLines, waitForRun } = await import('../pipeline-runner.js');
      const { progressMode } = await import('../progress.js');
      const { scheduledWorkflowIdPrefix } = await import('../schedules.js');
      const overlap = flags.overlap.toUpperCase() as ScheduleOverlapPolicy;
      if (
        !['SKIP', 'BUFFER_ONE', 'BUFFER_ALL', 'CANCEL_OTHER', 'TERMINATE_OTHER', 'ALLOW_ALL'].includes(
          overlap as string,
        )
      ) {
        throw Object.assign(
          new Error(
            `--overlap: expected one of skip, buffer_one, buffer_all, cancel_other, terminate_other, allow_all`,
          ),
          { exitCode: EXIT.usage },
        );
      }
      await withSession(flags, flags.wait ?? false, async (session, log) => {
        const before = await describeOrFail(session, id);
        const seen = new Set(before.info.recentActions.map((a) => a.action.workflow.workflowId));
        for (const a of before.info.runningActions) seen.add(a.workflow.workflowId);
        await session.conn.client.schedule.getHandle(id).trigger(overlap);
        if (!session.hasWorker) await warnIfNoWorker(session, 'the triggered run waits in RUNNING until one does');
        // The schedule takes the action asynchronously; its workflow id appears in the description shortly after.
        let workflowId: string | undefined;
        const deadline = Date.now() + 30_000;
        while (workflowId === undefined && Date.now() < deadline) {
          const d = await describeOrFail(session, id);
          const ids = [
            ...d.info.runningActions.map((a) => a.workflow.workflowId),
            ...d.info.recentActions.map((a) => a.action.workflow.workflowId),
          ];
          workflowId = ids.find((w) => !seen.has(w) && w.startsWith(scheduledWorkflowIdPrefix(id)));
          if (workflowId === undefined) await new Promise((r) => setTimeout(r, 200));
        }
        if (workflowId === undefined)
          throw new Error(`schedule '${id}' was triggered but no run appeared within 30 s (overlap policy ${overlap})`);
        if (!flags.wait) {
          out(flags, workflowId, { type: 'started', scheduleId: id, workflowId });
          return;
        }
        if (!flags.json) process.stderr.write(`started ${workflowId}\n`);
        const handle = session.conn.client.workflow.getHandle(workflowId);
        const outcome = await waitForRun(
          { handle, workflowId, runKey: workflowId, attached: false },
          { mode: progressMode(flags), log },
        );
        if (outcome.status === 'completed') {
          out(
            flags,
            [
              `${id} ${outcome.result.status} (${workflowId})`,
              'rows by table:',
              ...formatRowsByTable(outcome.result.rowsByTable),
              ...rowsSeenLines(outcome.result),
            ].join('\n'),
            {
              type: 'result',
              scheduleId: id,
              workflowId,
              status: outcome.result.status,
              rowsByTable: outcome.result.rowsByTable,
              ...(outcome.result.seenByTable ? { seenByTable: outcome.result.seenByTable } : {}),
              ...(outcome.result.alerts ? { alerts: outcome.result.alerts } : {}),
            },
          );
          // An alert given up on is said here too, as `run` says it (stderr).
          if (outcome.result.alerts?.status === 'failed')
            process.stderr.write(`${id}: alert not delivered: ${outcome.result.alerts.error ?? 'unknown reason'}\n`);
          if (outcome.result.status !== 'succeeded') process.exitCode = EXIT.partial;
        } else if (outcome.status === 'failed') {
          out(flags, `${id} failed (${workflowId}): ${outcome.reason}`, {
            type: 'failed',
            scheduleId: id,
            workflowId,
            reason: outcome.reason,
          });
          process.exitCode = EXIT.failed;
        }
      });
    });

  schedule
    .command('backfill')
    .description('take the actions the schedule would have taken between two times')
    .argument('<id>', 'schedule id: the pipeline name, or its file')
    .requiredOption('--start <time>', 'start, ISO 8601 (e.g. 2025-01-01T00:00:00Z)')
    .requiredOption('--end <time>', 'end, ISO 8601')
    .option('--overlap <policy>', 'overlap policy for the backfilled runs', 'buffer_all')
    .option('--json', 'as JSON')
    .option('-v, --verbose', 'more logs (stderr)')
    .action(async (arg: string, flags: CommonFlags & { start: string; end: string; overlap: string }) => {
      const id = await scheduleIdOf(arg);
      const start = new Date(flags.start);
      const end = new Date(flags.end);
      if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime()) || start >= end) {
        throw Object.assign(new Error('--start and --end must be ISO 8601 times with start before end'), {
          exitCode: EXIT.usage,
        });
      }
      await withSession(flags, false, async (session) => {
        await describeOrFail(session, id);
        const overlap = flags.overlap.toUpperCase() as ScheduleOverlapPolicy;
        await session.conn.client.schedule.getHandle(id).backfill({ start, end, overlap });
        out(flags, `${id}: backfill ${start.toISOString()} .. ${end.toISOString()} requested`, {
          scheduleId: id,
          start: start.toISOString(),
          end: end.toISOString(),
        });
      });
    });

  schedule
    .command('delete')
    .description('delete a schedule (runs it already started are not affected)')
    .argument('<id>', 'schedule id: the pipeline name, or its file')
    .option('--json', 'as JSON')
    .option('-v, --verbose', 'more logs (stderr)')
    .action(async (arg: string, flags: CommonFlags) => {
      const id = await scheduleIdOf(arg);
      await withSession(flags, false, async (session) => {
        await describeOrFail(session, id);
        await session.conn.client.schedule.getHandle(id).delete();
        out(flags, `${id}: deleted`, { scheduleId: id, deleted: true });
      });
    });
}
