// `scrape-etl cancel <pipeline | workflow id>`: Temporal's cancel of a pipeline's open run(s), or of one workflow by
// id, then a short wait for the workflow to end: what a cancelled run does is in docs/cancelling-runs.md (its
// activity stops, its pipeline_runs row is finished `cancelled`, the workflow ends CANCELLED, no alert). Scraping runs
// it already started on the service are not stopped: the service has no cancel. Never starts the embedded Temporal
// server: with none running there is nothing to cancel.
import type { Command } from '../../vendor/commander.js';

interface CancelFlags {
  wait: number;
  json?: boolean;
}

export interface CancelOutcome {
  workflowId: string;
  pipeline: string;
  /** Temporal's status once the wait ended: CANCELLED when the workflow ended, RUNNING when it has not yet. */
  status: string;
  /** The run's pipeline_runs row after the cancel, when it could be read. */
  pipelineRun: { status: string; error: string | null } | null;
  /** Why pipelineRun is null, when it is. */
  pipelineRunNote?: string;
}

/** What happens to the service's side of a cancelled run, said with every cancel. */
export const SCRAPING_RUNS_NOTE =
  'scraping runs it had already started on the service are not stopped (the service has no cancel): they finish there and this run loads none of their results';

function seconds(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0)
    throw Object.assign(new Error(`--wait ${v}: expected a number of seconds (0 or more)`), { exitCode: 2 });
  return n;
}

export function register(program: Command): void {
  program
    .command('cancel')
    .description(
      "cancel a pipeline's open run (or one workflow by id) through Temporal: its row ends `cancelled`, the workflow CANCELLED; its scraping runs on the service are not stopped",
    )
    .argument(
      '<pipeline|workflow-id>',
      'a pipeline (name of the project, or file): every open run of it; or a workflow id (<pipeline>--<run key>)',
    )
    .option(
      '--wait <seconds>',
      'how long to wait for the workflow to end after the cancel (0: do not wait)',
      seconds,
      30,
    )
    .option('--json', 'one JSON object per cancelled workflow (workflowId, pipeline, status, pipelineRun)')
    .action(async (arg: string, flags: CancelFlags) => {
      const { looksLikeFile, resolvePipelineRef } = await import('../resolve-pipeline.js');
      const { temporalSettings } = await import('../../temporal/settings.js');
      const { connectRunningTemporal } = await import('../../temporal/connect.js');
      const { PIPELINE_WORKFLOW_TYPE } = await import('../../temporal/contract.js');
      // A file or a name of the project: its name (and destination); anything else may be a workflow id.
      const ref = looksLikeFile(arg) || !arg.includes('--') ? await resolvePipelineRef(arg) : undefined;
      const settings = temporalSettings();
      const found = await connectRunningTemporal(settings);
      if ('notAsked' in found) {
        if (ref?.note) throw Object.assign(new Error(ref.note), { exitCode: 2 });
        throw Object.assign(
          new Error(`nothing to cancel: ${found.notAsked}, so no run of '${ref?.name ?? arg}' is open`),
          { exitCode: 1 },
        );
      }
      const { client, connection, address, namespace } = found.conn;
      try {
        const { WorkflowNotFoundError } = await import('@temporalio/client');
        const where = `in Temporal at ${address} (namespace ${namespace})`;
        let targets: Array<{ workflowId: string; runId: string }> = [];
        if (ref === undefined || !ref.file) {
          // A workflow id (or a name no file of the project holds, which may still be a workflow's id).
          try {
            const d = await client.workflow.getHandle(arg).describe();
            if (d.type !== PIPELINE_WORKFLOW_TYPE)
              throw Object.assign(
                new Error(`workflow ${arg} is no pipeline run (type ${d.type}); nothing was cancelled`),
                { exitCode: 2 },
              );
            if (d.status.name !== 'RUNNING')
              throw Object.assign(new Error(`nothing to cancel: workflow ${arg} already ended ${d.status.name}`), {
                exitCode: 1,
              });
            targets = [{ workflowId: d.workflowId, runId: d.runId }];
          } catch (err) {
            if (!(err instanceof WorkflowNotFoundError)) throw err;
          }
        }
        const name = ref?.name ?? arg;
        if (targets.length === 0 && ref !== undefined) {
          // Every open run of the pipeline: its workflow ids are '<name>--<run key>' (temporal/contract.ts).
          for await (const w of client.workflow.list({
            query: `WorkflowType = '${PIPELINE_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'`,
          })) {
            if (w.workflowId.startsWith(`${name}--`)) targets.push({ workflowId: w.workflowId, runId: w.runId });
          }
        }
        if (targets.length === 0) {
          if (ref?.note)
            throw Object.assign(new Error(`${ref.note}; and no workflow ${where} has the id '${arg}'`), {
              exitCode: 2,
            });
          if (ref === undefined)
            throw Object.assign(new Error(`nothing to cancel: no workflow '${arg}' ${where}`), { exitCode: 1 });
          throw Object.assign(new Error(`nothing to cancel: pipeline '${name}' has no open run ${where}`), {
            exitCode: 1,
          });
        }

        const { toolCommand } = await import('../next-steps.js');
        const tool = toolCommand();
        const outcomes: CancelOutcome[] = [];
        for (const t of targets) {
          const handle = client.workflow.getHandle(t.workflowId, t.runId);
          await handle.cancel();
          const by = Date.now() + flags.wait * 1000;
          let d = await handle.describe();
          while (d.status.name === 'RUNNING' && Date.now() < by) {
            await new Promise((r) => setTimeout(r, 250));
            d = await handle.describe();
          }
          const pipeline =
            typeof d.memo?.['pipeline'] === 'string' ? (d.memo['pipeline'] as string) : t.workflowId.split('--')[0]!;
          const outcome: CancelOutcome = {
            workflowId: t.workflowId,
            pipeline,
            status: d.status.name,
            pipelineRun: null,
          };
          const queue = d.taskQueue;
          // The row is read from the pipeline's destination: the project's (with its password), else the one the
          // run recorded (a Postgres URL recorded without its password may not open).
          const recorded = typeof d.memo?.['destination'] === 'string' ? (d.memo['destination'] as string) : undefined;
          const url = ref?.file ? ref.database : recorded;
          if (url === undefined) outcome.pipelineRunNote = 'the run recorded no destination';
          else {
            try {
              const { readDestination } = await import('../read-destination.js');
              const row = await readDestination(
                url,
                async (r) =>
                  (
                    await r.all(`SELECT status, error FROM pipeline_runs WHERE workflow_id = ${r.ph(1)}`, [
                      t.workflowId,
                    ])
                  )[0],
              );
              if (row)
                outcome.pipelineRun = {
                  status: String(row['status']),
                  error: row['error'] == null ? null : String(row['error']),
                };
              else outcome.pipelineRunNote = 'the run had not written its pipeline_runs row';
            } catch (err) {
              outcome.pipelineRunNote = `pipeline_runs not read: ${(err as Error).message.split('\n')[0]}`;
            }
          }
          outcomes.push(outcome);
          if (flags.json) process.stdout.write(`${JSON.stringify(outcome)}\n`);
          else process.stdout.write(`${describeOutcome(outcome, flags.wait, queue, tool)}\n`);
        }
      } finally {
        await connection.close();
      }
    });
}

function describeOutcome(o: CancelOutcome, waitSeconds: number, taskQueue: string, tool: string): string {
  const row = o.pipelineRun
    ? `pipeline_runs says ${o.pipelineRun.status}${o.pipelineRun.error ? ` (${o.pipelineRun.error})` : ''}`
    : (o.pipelineRunNote ?? '');
  if (o.status === 'RUNNING') {
    return (
      `cancel requested for ${o.workflowId} (pipeline ${o.pipeline}); it has not ended within ${waitSeconds}s: the run ends CANCELLED when a worker ` +
      `of task queue ${taskQueue} works on it (none may be polling: \`${tool} up\` runs one). ${SCRAPING_RUNS_NOTE}`
    );
  }
  return `cancelled ${o.workflowId} (pipeline ${o.pipeline}): the workflow ended ${o.status}; ${row}. ${SCRAPING_RUNS_NOTE}`;
}
