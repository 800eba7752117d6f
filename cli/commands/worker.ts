// `scrape-etl worker`: a long-running worker process for the pipeline task queue. Several can run against the
// same Temporal cluster; the API token is read here, from this process's environment, and nowhere else.
import type { Command } from '../../vendor/commander.js';
import type { LogLevel } from '@temporalio/worker';
import { temporalSettings } from '../../temporal/settings.js';
import { positiveInt, sdkMetricsPort, workerSettings } from '../worker-options.js';

export function register(program: Command): void {
  program
    .command('worker')
    .description('Run a Temporal worker for pipeline workflows (TEMPORAL_ADDRESS, or the embedded dev server)')
    .option('--task-queue <name>', 'task queue to poll (default TEMPORAL_TASK_QUEUE or scrape-etl)')
    .option('--max-activities <n>', 'activities running at once in this worker', positiveInt('--max-activities'), 20)
    .option(
      '--shutdown-grace <duration>',
      'on SIGINT/SIGTERM, time for in-flight activities to finish (default SCRAPE_ETL_SHUTDOWN_GRACE or 30s)',
    )
    .option(
      '--log-level <level>',
      'Temporal SDK log level (TRACE, DEBUG, INFO, WARN, ERROR; default SCRAPE_ETL_WORKER_LOG_LEVEL or WARN)',
    )
    .option(
      '--metrics-port <port>',
      'serve Prometheus metrics (product and Temporal SDK) at http://<host>:<port>/metrics (default SCRAPE_ETL_METRICS_PORT; none when unset; 0 = any free port)',
    )
    .option(
      '--metrics-host <address>',
      'address the metrics endpoint binds (default SCRAPE_ETL_METRICS_HOST or 127.0.0.1; 0.0.0.0 for a scraper on another host)',
    )
    .action(
      async (opts: {
        taskQueue?: string;
        maxActivities: number;
        shutdownGrace?: string;
        logLevel?: string;
        metricsPort?: string;
        metricsHost?: string;
      }) => {
        // The flags over the environment, the project file and the defaults: one settings object for this worker.
        const config = workerSettings(opts).withFlags({ temporalTaskQueue: opts.taskQueue });
        // Until the worker polls, Ctrl-C or SIGTERM exits at once: the SDK's own handler only drains workers that
        // already run, so a signal while the embedded server or the worker was starting was noted and honoured a
        // minute later, when the worker came up and stopped again.
        const { exitOnSignalWhileStarting } = await import('../signals.js');
        const startedUp = exitOnSignalWhileStarting(
          'the worker never polled; an embedded Temporal server that was starting goes on in the background (`scrape-etl server stop` stops it)',
        );
        // Loaded here, not at the top, so that registering the command for --help stays cheap (see cli/main.ts).
        const { Runtime, DefaultLogger } = await import('@temporalio/worker');
        const { connectWorker, createPipelineWorker, runPipelineWorker } = await import('../../temporal/worker.js');
        const { describeWorkflowBundle, resolveWorkflowBundle } = await import('../../temporal/workflow-bundle.js');
        const shutdownGrace = config.shutdownGrace;
        const level = config.workerLogLevel;
        // Fail at start, not in the first activity, when the worker's knobs are malformed.
        const { readWorkerTuning } = await import('../../temporal/tuning.js');
        readWorkerTuning(config, { embeddedServer: temporalSettings(config).address === undefined });
        const metricsPort = config.metricsPort;
        // The SDK's exporter binds its own server; it listens on loopback and /metrics below appends its text.
        const sdkPort = metricsPort === undefined ? undefined : await sdkMetricsPort(metricsPort, config);
        const { sdkLogLine } = await import('../up/up-log.js');
        Runtime.install({
          // One line per entry, as `up`'s log: the SDK's default prints each entry's context as an object, task token in it.
          logger: new DefaultLogger(level as LogLevel, (entry) =>
            process.stderr.write(`${new Date().toISOString()} ${sdkLogLine(entry.level, entry.message, entry.meta)}\n`),
          ),
          telemetryOptions: {
            // The native core's log lines go through the worker's logger (stderr, its level and format), not on
            // stdout in a format of their own.
            logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} },
            ...(sdkPort !== undefined ? { metrics: { prometheus: { bindAddress: `127.0.0.1:${sdkPort}` } } } : {}),
          },
        });
        const settings = temporalSettings(config);
        const taskQueue = settings.taskQueue;
        const log = (m: string) => process.stderr.write(`${m}\n`);
        const { connection, address, uiUrl } = await connectWorker(settings, log);
        // A server a `run` started stops when that run ends, unless a long-lived process such as this one holds it.
        if (settings.address === undefined)
          (await import('../../temporal/dev-server.js')).holdDevServer(settings.dataDir);
        const { createMetrics } = await import('../../temporal/metrics.js');
        const metrics = createMetrics();
        const webUiUrl = config.webUiUrl || uiUrl;
        const worker = await createPipelineWorker({
          role: 'worker',
          connection,
          namespace: settings.namespace,
          taskQueue,
          maxConcurrentActivityTaskExecutions: opts.maxActivities,
          shutdownGraceTime: shutdownGrace,
          // On the embedded server (no TEMPORAL_ADDRESS) nothing is billed: a dead worker's wait is taken over sooner.
          activities: {
            settings: config,
            metrics,
            embeddedServer: settings.address === undefined,
            ...(webUiUrl ? { webUiUrl } : {}),
          },
        });
        let metricsServer: { close(): Promise<void> } | undefined;
        if (metricsPort !== undefined) {
          const { startMetricsServer } = await import('../../temporal/metrics-server.js');
          const server = await startMetricsServer({
            host: config.metricsHost,
            port: metricsPort,
            registry: metrics.registry,
            ...(sdkPort !== undefined ? { sdkMetricsUrl: `http://127.0.0.1:${sdkPort}/metrics` } : {}),
          });
          metricsServer = server;
          log(`metrics on ${server.url} (Temporal SDK metrics from 127.0.0.1:${sdkPort} included)`);
        }
        log(describeWorkflowBundle((await resolveWorkflowBundle()).source));
        log(
          `worker ${process.pid} polling task queue '${taskQueue}' on ${address} (namespace '${settings.namespace}'); Ctrl-C to stop`,
        );
        // From here the SDK's handler drains the worker on SIGINT/SIGTERM (in-flight activities get --shutdown-grace);
        // the signal that ended it is its exit code (README, "Exit codes").
        startedUp();
        let ended: NodeJS.Signals | undefined;
        for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => (ended ??= sig));
        try {
          await runPipelineWorker(worker, connection);
        } finally {
          // An open listener would keep the process alive after the worker stopped.
          await metricsServer?.close();
        }
        log(`worker ${process.pid} stopped`);
        const { signalExitCode } = await import('../../lib/exit-codes.js');
        if (ended) process.exitCode = signalExitCode(ended);
      },
    );
}
