/**
 * A command's connection to Temporal, plus (on the embedded dev server, when asked) a worker in this process for
 * this command only: the path of `run` when no worker polls the task queue. With TEMPORAL_ADDRESS set only a
 * client is made: workers of a real cluster are started separately (`scrape-etl worker`, or `scrape-etl up`).
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { connectTemporal } from '../temporal/connect.js';
import type { TemporalConnection } from '../temporal/connect.js';
import { temporalSettings } from '../temporal/settings.js';
import type { TemporalSettings } from '../temporal/settings.js';
import { connectWorker, createPipelineWorker, runPipelineWorker } from '../temporal/worker.js';
import type { Logger } from './logger.js';
import { clientSession, type Session } from './client-session.js';
import { processSettings } from '../settings/process.js';
import type { Settings } from '../settings/settings.js';

export type { Session };

export interface SessionOptions {
  log: Logger;
  /** Run an in-process worker when the embedded server is used (default true). */
  worker?: boolean;
  /** The settings the session and its worker use; default this process's. */
  settings?: Settings;
}

export async function openSession(opts: SessionOptions): Promise<Session> {
  const config = opts.settings ?? processSettings();
  const settings = temporalSettings(config);
  // Transient: the embedded server this command starts stops when it ends (unless `up` has taken it over meanwhile).
  const conn = await connectTemporal({ settings, log: (m) => opts.log.info(m), transient: true });
  if (!conn.embedded || opts.worker === false) return clientSession(conn, settings);
  let worker: { stop(): Promise<void> };
  try {
    worker = await startCommandWorker(conn, settings, opts.log, config);
  } catch (err) {
    await clientSession(conn, settings).close();
    throw err;
  }
  return {
    conn,
    settings,
    hasWorker: true,
    async close() {
      await worker.stop();
      await conn.connection.close();
      await conn.releaseServer?.();
    },
  };
}

/**
 * A worker in this process for this command only (it says so in its identity: another `run` does not count on it),
 * on the command's connection to the embedded server: the session's own, or one a waiting `run` adds to take its run
 * over when no worker polls any more.
 */
export async function startCommandWorker(
  conn: TemporalConnection,
  settings: TemporalSettings,
  log: Logger,
  config: Settings = processSettings(),
): Promise<{ stop(): Promise<void> }> {
  routeSdkLogs(log);
  const { connection } = await connectWorker(settings);
  // A short grace on Ctrl-C: loads are idempotent, so an activity cut off here is simply retried later.
  const pipelineWorker = await createPipelineWorker({
    role: 'run',
    connection,
    namespace: conn.namespace,
    taskQueue: conn.taskQueue,
    shutdownGraceTime: '3s',
    // Alerts sent by this in-process worker link to the embedded server's Web UI; nothing is billed there, so a dead
    // worker's wait is taken over sooner (temporal/tuning.ts).
    activities: {
      settings: config,
      embeddedServer: true,
      ...(conn.uiUrl ? { webUiUrl: config.webUiUrl || conn.uiUrl } : {}),
    },
  });
  const { worker } = pipelineWorker;
  const running = runPipelineWorker(pipelineWorker, connection);
  running.catch((err: unknown) => log.error({ err }, 'the in-process worker stopped'));
  return {
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
    },
  };
}

let sdkLogsRouted = false;

/**
 * The SDK logs to the console by default, including a warning for every "run still running" poll (the workflow
 * polls by retrying an activity). A CLI shows SDK logs only with --verbose; SDK errors stay visible as warnings.
 */
function routeSdkLogs(log: Logger): void {
  if (sdkLogsRouted) return;
  sdkLogsRouted = true;
  Runtime.install({
    // The command owns SIGINT/SIGTERM (`run` traps them for its whole life) and stops this worker itself in
    // close(); the SDK's default handlers would shut the worker down behind its back, mid-command.
    shutdownSignals: [],
    // The SDK's native core prints its own log lines on stdout unless they are forwarded: a core warning ("Task not
    // found when completing", when a run is stopped while a task of it is in flight) landed between the JSON
    // lines of `demo --json` and `run --json`. Forwarded, they go through this logger like the SDK's other logs.
    telemetryOptions: { logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} } },
    logger: new DefaultLogger('DEBUG', (entry) => {
      const { message, level, meta } = entry;
      if (level === 'ERROR') log.warn({ sdk: true, ...meta }, message);
      else log.debug({ sdk: true, ...meta }, message);
    }),
  });
}
