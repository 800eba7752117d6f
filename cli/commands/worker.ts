// `scrape-etl worker`: a long-running worker process for the pipeline task queue. Several can run against the
// same Temporal cluster; the API token is read here, from this process's environment, and nowhere else.
import type { Command } from 'commander';
import type { LogLevel } from '@temporalio/worker';
import { temporalSettings } from '../../temporal/settings.js';
import { readWorkerTuning } from '../../activities/tuning.js';

function positiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got '${value}'`);
    return n;
  };
}

export function register(program: Command): void {
  program
    .command('worker')
    .description('Run a Temporal worker for pipeline workflows (TEMPORAL_ADDRESS, or the embedded dev server)')
    .option('--task-queue <name>', 'task queue to poll (default TEMPORAL_TASK_QUEUE or scrape-etl)')
    .option('--max-activities <n>', 'activities running at once in this worker', positiveInt('--max-activities'), 20)
    .option('--shutdown-grace <duration>', 'on SIGINT/SIGTERM, time for in-flight activities to finish', process.env['SCRAPE_ETL_SHUTDOWN_GRACE'] ?? '30s')
    .option('--log-level <level>', 'Temporal SDK log level (TRACE, DEBUG, INFO, WARN, ERROR)', process.env['SCRAPE_ETL_WORKER_LOG_LEVEL'] ?? 'WARN')
    .action(async (opts: { taskQueue?: string; maxActivities: number; shutdownGrace: string; logLevel: string }) => {
      // Loaded here, not at the top, so that registering the command for --help stays cheap (see cli/main.ts).
      const { Runtime, DefaultLogger } = await import('@temporalio/worker');
      const { connectWorker, createPipelineWorker, runPipelineWorker } = await import('../../temporal/worker.js');
      const { describeWorkflowBundle, resolveWorkflowBundle } = await import('../../temporal/workflow-bundle.js');
      const level = opts.logLevel.toUpperCase();
      if (!['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'].includes(level)) throw new Error(`--log-level '${opts.logLevel}' is not one of TRACE, DEBUG, INFO, WARN, ERROR`);
      if (!/^[0-9]+(ms|s|m|h)$/.test(opts.shutdownGrace)) throw new Error(`--shutdown-grace '${opts.shutdownGrace}' is not a duration like '30s'`);
      // Fail at start, not in the first activity, when the worker's knobs are malformed.
      readWorkerTuning();
      Runtime.install({ logger: new DefaultLogger(level as LogLevel) });
      const settings = temporalSettings();
      const taskQueue = opts.taskQueue ?? settings.taskQueue;
      const log = (m: string) => process.stderr.write(`${m}\n`);
      const { connection, address } = await connectWorker(settings, log);
      const worker = await createPipelineWorker({
        connection,
        namespace: settings.namespace,
        taskQueue,
        maxConcurrentActivityTaskExecutions: opts.maxActivities,
        shutdownGraceTime: opts.shutdownGrace,
      });
      log(describeWorkflowBundle((await resolveWorkflowBundle()).source));
      log(`worker ${process.pid} polling task queue '${taskQueue}' on ${address} (namespace '${settings.namespace}'); Ctrl-C to stop`);
      await runPipelineWorker(worker, connection);
      log(`worker ${process.pid} stopped`);
    });
}
