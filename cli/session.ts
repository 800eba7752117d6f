/**
 * A command's connection to Temporal, plus the in-process worker when Temporal is the embedded dev server.
 * With TEMPORAL_ADDRESS set only a client is made: workers of a real cluster are started separately.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { connectTemporal } from '../temporal/connect.js';
import type { TemporalConnection } from '../temporal/connect.js';
import { temporalSettings } from '../temporal/settings.js';
import type { TemporalSettings } from '../temporal/settings.js';
import { pipelineWorkflowId } from '../temporal/contract.js';
import { connectWorker, createPipelineWorker, runPipelineWorker } from '../temporal/worker.js';
import type { Logger } from './logger.js';

export interface Session {
  conn: TemporalConnection;
  settings: TemporalSettings;
  /** true when this process runs a worker for the task queue. */
  hasWorker: boolean;
  /** Stops the worker (if any; in-flight activities get a short grace) and closes the connection. */
  close(): Promise<void>;
  /** Stops only the worker (if any): the client goes on answering (the background worker, when it is replaced). */
  stopWorker(): Promise<void>;
  /** Whether the worker has anything in flight or cached: an activity, a workflow task, an open workflow. */
  workerBusy(): boolean;
  /** Settles when the worker stops, whyever it does (never when there is none). */
  workerStopped: Promise<void>;
}

export interface SessionOptions {
  log: Logger;
  /** Run an in-process worker when the embedded server is used (default true). */
  worker?: boolean;
  /**
   * Whether the command starts runs now (default: when it runs a worker). On the embedded server a background
   * worker of another identity is stopped first, so that it takes no task of them (a detached `run`, too).
   */
  startsRuns?: boolean;
  /** The pipeline whose runs the command starts or waits for: a shared worker shows the command their SDK lines. */
  pipeline?: string;
  env?: NodeJS.ProcessEnv;
}

export async function openSession(opts: SessionOptions): Promise<Session> {
  const settings = temporalSettings(opts.env);
  const conn = await connectTemporal({ settings, log: (m) => opts.log.info(m) });
  let stopWorker: (() => Promise<void>) | undefined;
  let workerBusy = () => false;
  let workerStopped: Promise<void> = new Promise<void>(() => undefined);
  if (conn.embedded && (opts.startsRuns ?? opts.worker !== false)) {
    const { retireOtherBackgroundWorker } = await import('./background/client.js');
    const retired = await retireOtherBackgroundWorker(settings.dataDir);
    if (retired !== undefined) opts.log.info({ pid: retired }, 'stopped the background worker of another environment, which polled the same queue');
  }
  if (conn.embedded && opts.worker !== false) {
    routeSdkLogs(opts.log);
    const { connection } = await connectWorker(settings);
    // A short grace on Ctrl-C: loads are idempotent, so an activity cut off here is simply retried later.
    const pipelineWorker = await createPipelineWorker({
      connection,
      namespace: conn.namespace,
      taskQueue: conn.taskQueue,
      shutdownGraceTime: '3s',
      // Alerts sent by this in-process worker link to the embedded server's Web UI.
      ...(conn.uiUrl ? { activities: { webUiUrl: process.env['SCRAPE_ETL_WEB_UI_URL']?.trim() || conn.uiUrl } } : {}),
    });
    const { worker } = pipelineWorker;
    const running = runPipelineWorker(pipelineWorker, connection);
    running.catch((err: unknown) => opts.log.error({ err }, 'the in-process worker stopped'));
    stopWorker = async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
    };
    workerStopped = running.catch(() => undefined);
    workerBusy = () => {
      const st = worker.getStatus();
      return st.numInFlightActivities > 0 || st.numInFlightWorkflowActivations > 0 || st.numCachedWorkflows > 0;
    };
  }
  return {
    conn,
    settings,
    hasWorker: stopWorker !== undefined,
    async close() {
      if (stopWorker) await stopWorker();
      await conn.connection.close();
    },
    async stopWorker() {
      if (stopWorker) await stopWorker();
    },
    workerBusy: () => workerBusy(),
    workerStopped,
  };
}

let sdkLogsRouted = false;
/**
 * Loggers of commands served by this process's worker (the background worker's), which see its SDK lines too:
 * those of their pipeline's runs (by workflow id) and the worker's own, not those of other commands' runs.
 */
const sdkLogFollowers = new Map<Logger, string | undefined>();

/**
 * Until the returned function is called, the SDK's log lines also go to `log` (at debug, so with --verbose; errors
 * as warnings). The SDK's runtime, and so its logger, is installed once per process: a background worker serving a
 * command routes them to that command's terminal this way, besides its own log. The SDK buffers its lines for
 * about 100 ms (to sort them): the returned function delivers what is buffered before it stops following.
 */
export function followSdkLogs(log: Logger, pipeline: string | undefined): () => void {
  sdkLogFollowers.set(log, pipeline);
  return () => {
    if (sdkLogsRouted) Runtime.instance().flushLogs();
    sdkLogFollowers.delete(log);
  };
}

function followsEntry(pipeline: string | undefined, meta: Record<string, unknown> | undefined): boolean {
  const workflowId = meta?.['workflowId'];
  return pipeline === undefined || typeof workflowId !== 'string' || workflowId.startsWith(pipelineWorkflowId(pipeline, ''));
}

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
      const write = (to: Logger) => (level === 'ERROR' ? to.warn({ sdk: true, ...meta }, message) : to.debug({ sdk: true, ...meta }, message));
      write(log);
      for (const [follower, pipeline] of sdkLogFollowers) if (followsEntry(pipeline, meta)) write(follower);
    }),
  });
}
