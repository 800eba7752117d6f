// `scrape-etl up` in the foreground: the embedded Temporal dev server (when no TEMPORAL_ADDRESS is set), N pipeline
// workers in this process, the metrics endpoint and the schedule watch, until Ctrl-C or SIGTERM. Then the workers
// drain (in-flight activities get the shutdown grace; loads are idempotent, so one cut off is retried later), the
// extra services stop, and the embedded server it ran stops (its SQLite state stays: open runs go on at the next
// start). Loaded only by the `up` action (heavy: the worker SDK, the activities, the databases).
import { EXIT, signalExitCode } from '../../lib/exit-codes.js';
import fs from 'node:fs';
import type { LogLevel } from '@temporalio/worker';
import { writeJsonAtomic } from '../../lib/state-file.js';
import { temporalSettings } from '../../temporal/settings.js';
import type { Settings } from '../../settings/settings.js';
import { sdkMetricsPort } from '../worker-options.js';
import { liveUp, upPaths, type UpState } from './paths.js';
import { UP_SERVICES, type RunningUpService } from './services.js';
import { oneLine, runEventLine, sdkLogLine } from './up-log.js';

export interface UpOptions {
  workers: number;
  maxActivities: number;
  shutdownGrace: string;
  logLevel: string;
  metricsPort: number | undefined;
  metricsHost: string;
  /** Names of the extra services asked for (keys of UP_SERVICES). */
  services: string[];
  /** The settings of this `up` (its flags over the process's): what its workers, watches and services read. */
  settings: Settings;
  /** Called once every worker polls, with the state written (the detached parent waits for the state file). */
  onReady?: (state: UpState) => void;
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

export async function runUp(opts: UpOptions): Promise<number> {
  const settings = temporalSettings(opts.settings);
  const paths = upPaths(settings.dataDir);
  const out = (m: string) => process.stdout.write(`${m}\n`);
  // One event, one line (an error's own newlines included): a tail of the log reads event by event.
  const log = (m: string) => process.stderr.write(`${new Date().toISOString()} ${oneLine(m)}\n`);

  // One `up` per data folder: a second one would start a second set of workers for the same server, and `down`
  // could stop only one of them.
  const other = liveUp(settings.dataDir);
  if (other && other.pid !== process.pid) {
    throw Object.assign(
      new Error(
        `scrape-etl up already runs for ${settings.dataDir} (pid ${other.pid}, since ${other.startedAt}); \`scrape-etl down\` stops it`,
      ),
      { exitCode: EXIT.failed },
    );
  }
  for (const name of opts.services) {
    if (!UP_SERVICES[name]?.load)
      throw Object.assign(new Error(`--${name}: not available in this version of scrape-etl; nothing was started`), {
        exitCode: EXIT.usage,
      });
  }

  // Until the workers poll, a signal exits at once (starting the embedded server can take a minute).
  let stopping: NodeJS.Signals | undefined;
  let stopWorkers: (() => void) | undefined;
  const onSignal = (sig: NodeJS.Signals) => {
    if (!stopWorkers) {
      process.stderr.write(
        `${sig === 'SIGINT' ? 'interrupted' : 'terminated'} while starting: no worker polled; an embedded Temporal server that was starting goes on in the background (\`scrape-etl server stop\` stops it)\n`,
      );
      process.exit(signalExitCode(sig));
    }
    if (stopping) {
      process.stderr.write(`${sig} again: exiting now (open runs go on at the next start)\n`);
      process.exit(signalExitCode(sig));
    }
    stopping = sig;
    log(`${sig}: stopping: the workers drain (up to ${opts.shutdownGrace} for activities in flight)`);
    stopWorkers();
  };
  for (const sig of SIGNALS) process.on(sig, onSignal);

  const { Runtime, DefaultLogger } = await import('@temporalio/worker');
  const { connectWorker, createPipelineWorker, runPipelineWorker } = await import('../../temporal/worker.js');
  const { describeWorkflowBundle, resolveWorkflowBundle } = await import('../../temporal/workflow-bundle.js');
  const { readWorkerTuning } = await import('../../temporal/tuning.js');
  const { createMetrics } = await import('../../temporal/metrics.js');
  const level = opts.logLevel.toUpperCase();
  if (!['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'].includes(level))
    throw Object.assign(new Error(`--log-level '${opts.logLevel}' is not one of TRACE, DEBUG, INFO, WARN, ERROR`), {
      exitCode: EXIT.usage,
    });
  if (!/^[0-9]+(ms|s|m|h)$/.test(opts.shutdownGrace))
    throw Object.assign(new Error(`--shutdown-grace '${opts.shutdownGrace}' is not a duration like '30s'`), {
      exitCode: EXIT.usage,
    });
  readWorkerTuning(opts.settings);
  const sdkPort = opts.metricsPort === undefined ? undefined : await sdkMetricsPort(opts.metricsPort, opts.settings);
  Runtime.install({
    // The SDK's default logger prints each entry's context as a multi-line object, an activity's task token in it.
    logger: new DefaultLogger(level as LogLevel, (entry) => log(sdkLogLine(entry.level, entry.message, entry.meta))),
    // This process stops its workers itself (above), then the services and the embedded server.
    shutdownSignals: [],
    telemetryOptions: {
      logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} },
      ...(sdkPort !== undefined ? { metrics: { prometheus: { bindAddress: `127.0.0.1:${sdkPort}` } } } : {}),
    },
  });

  fs.mkdirSync(settings.dataDir, { recursive: true });
  const { connection, address, uiUrl } = await connectWorker(settings, log);
  const metrics = createMetrics();
  const webUiUrl = opts.settings.webUiUrl || uiUrl;
  const workers: Awaited<ReturnType<typeof createPipelineWorker>>[] = [];
  // One connection each: the SDK refuses two workers of one task queue on one connection.
  const connections = [connection];
  for (let i = 1; i < opts.workers; i++) connections.push((await connectWorker(settings, log)).connection);
  for (let i = 0; i < opts.workers; i++) {
    workers.push(
      await createPipelineWorker({
        role: 'up',
        connection: connections[i]!,
        namespace: settings.namespace,
        taskQueue: settings.taskQueue,
        maxConcurrentActivityTaskExecutions: opts.maxActivities,
        shutdownGraceTime: opts.shutdownGrace,
        // One registry for all: /metrics counts every run this process finished, whichever worker took it.
        // On the embedded server nothing is billed: a dead worker's wait is taken over sooner (temporal/tuning.ts).
        activities: {
          settings: opts.settings,
          metrics,
          embeddedServer: settings.address === undefined,
          onRunEvent: (e) => log(runEventLine(e)),
          ...(webUiUrl ? { webUiUrl } : {}),
        },
      }),
    );
  }
  let metricsServer: { url: string; close(): Promise<void> } | undefined;
  if (opts.metricsPort !== undefined) {
    const { startMetricsServer } = await import('../../temporal/metrics-server.js');
    metricsServer = await startMetricsServer({
      host: opts.metricsHost,
      port: opts.metricsPort,
      registry: metrics.registry,
      ...(sdkPort !== undefined ? { sdkMetricsUrl: `http://127.0.0.1:${sdkPort}/metrics` } : {}),
    });
  }
  const services: RunningUpService[] = [];
  for (const name of opts.services) {
    const service = await UP_SERVICES[name]!.load!();
    services.push(
      await service.start({
        dataDir: settings.dataDir,
        address,
        namespace: settings.namespace,
        taskQueue: settings.taskQueue,
        uiUrl,
        metricsUrl: metricsServer?.url,
        log,
      }),
    );
  }

  const running = workers.map((w) => runPipelineWorker(w));
  stopWorkers = () => {
    for (const { worker } of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  const { watchSchedules } = await import('../../monitor/schedule-watch.js');
  const watch = await watchSchedules({ settings, metrics, log });

  const state: UpState = {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    cwd: process.cwd(),
    address,
    embedded: settings.address === undefined,
    uiUrl: uiUrl ?? null,
    namespace: settings.namespace,
    taskQueue: settings.taskQueue,
    workers: opts.workers,
    metricsUrl: metricsServer?.url ?? null,
    ready: false,
  };
  // The state and pid file first (`down` and `server status` find this process as soon as its banner shows), and
  // `ready` only once the banner is out: `up --detach` (cli/commands/up.ts) prints the log when the state is ready,
  // and a state written ready before the banner's await left it an empty screen (a CI run).
  writeJsonAtomic(paths.stateFile, state);
  fs.writeFileSync(paths.pidFile, `${process.pid}\n`);
  out(
    [
      `scrape-etl up (pid ${process.pid}) in ${process.cwd()}`,
      `  Temporal:   ${address} (${state.embedded ? `embedded dev server, state in ${settings.dataDir}/temporal` : 'TEMPORAL_ADDRESS'}), namespace '${settings.namespace}'`,
      `  Web UI:     ${uiUrl ?? "(the cluster's own; SCRAPE_ETL_WEB_UI_URL for alert links)"}`,
      `  workers:    ${opts.workers} polling task queue '${settings.taskQueue}', up to ${opts.maxActivities} activities each; ${describeWorkflowBundle((await resolveWorkflowBundle()).source)}`,
      `  metrics:    ${metricsServer ? `${metricsServer.url}${sdkPort !== undefined ? ` (Temporal SDK metrics from 127.0.0.1:${sdkPort} included)` : ''}` : 'off (--metrics-port <port> serves them)'}`,
      `  schedules:  ${watch.summary()}`,
      ...services.map((s) => `  ${s.describe}`),
      `  data:       ${settings.dataDir}`,
      'Ctrl-C, SIGTERM or `scrape-etl down` stops it: the workers drain, then the embedded server stops.',
    ].join('\n'),
  );
  state.ready = true;
  writeJsonAtomic(paths.stateFile, state);
  opts.onReady?.(state);

  let failed = false;
  const results = await Promise.allSettled(running);
  for (const r of results) {
    if (r.status === 'rejected') {
      failed = true;
      log(`a worker stopped with an error: ${(r.reason as Error)?.message ?? String(r.reason)}`);
    }
  }
  // One worker failing (its connection lost for good) leaves the others polling: stop them too, so that the
  // process exits non-zero and a supervisor (systemd Restart=on-failure, compose restart) starts it again.
  stopWorkers();
  watch.close();
  await Promise.allSettled(services.map((s) => s.close()));
  await metricsServer?.close();
  for (const c of connections) await c.close().catch(() => undefined);
  if (state.embedded) {
    const { stopDevServer } = await import('../../temporal/dev-server.js');
    if (await stopDevServer({ dataDir: settings.dataDir }))
      log(`stopped the embedded Temporal server; its state stays in ${settings.dataDir}/temporal`);
  }
  const mine = liveUp(settings.dataDir);
  if (!mine || mine.pid === process.pid) {
    fs.rmSync(paths.stateFile, { force: true });
    fs.rmSync(paths.pidFile, { force: true });
  }
  for (const sig of SIGNALS) process.off(sig, onSignal);
  log(`scrape-etl up (pid ${process.pid}) stopped${stopping ? ` on ${stopping}` : ''}`);
  if (failed) return EXIT.failed;
  // Stopped by a signal: its code, as every command ended that way (README, "Exit codes").
  return stopping ? signalExitCode(stopping) : EXIT.ok;
}
