// The worker that runs pipeline workflows and their activities. The workflow code is the bundle prebuilt by
// `npm run build` when this runs compiled, or bundled in-process from workflows/index.ts when it runs from the
// TypeScript sources (see workflow-bundle.ts).
import {
  NativeConnection,
  Worker,
  type InjectedSinks,
  type WorkflowBundleOption,
  type WorkerOptions,
} from '@temporalio/worker';
import { ApplicationFailure } from '@temporalio/common';
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time.js';
import {
  createActivities,
  createActivityDeps,
  type ActivityDepsOptions,
  type OwnedActivityDeps,
} from '../activities/index.js';
import { ensureDevServer } from './dev-server.js';
import { pipelineDataConverter } from './payload-codec.js';
import { limitHeapGrowth } from './heap-growth.js';
import { temporalConnectionSecurity, temporalSettings, type TemporalSettings } from './settings.js';
import { resolveWorkflowBundle } from './workflow-bundle.js';
import { ANOTHER_KEY, MAX_HEARTBEAT_THROTTLE_MS, WORKFLOW_FAILURE_TYPES, type SealSinks } from './contract.js';
import { workerIdentity, type WorkerRole } from './pollers.js';
import { clearAttemptFailure, recordAttemptFailure } from './attempt-notes.js';
import { settingsFor } from '../settings/process.js';

export { WORKFLOWS_PATH } from './workflow-bundle.js';

/** How long after the shutdown grace a worker still waits for activities that did not end before it gives up on them. */
export const SHUTDOWN_FORCE_MARGIN_MS = 15_000;

export interface PipelineWorkerOptions {
  /** The data folder, where a local activity's failed attempts are noted for `run` (default: the settings'). */
  dataDir?: string;
  /** Said in the worker's identity: whether `run` may count on it staying (temporal/pollers.ts). */
  role: WorkerRole;
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /** Activities running at once in this process (each may fan out to spec.concurrency requests). Default 20. */
  maxConcurrentActivityTaskExecutions?: number;
  maxConcurrentWorkflowTaskExecutions?: number;
  /** On shutdown (SIGINT/SIGTERM), how long in-flight activities may finish before they are cancelled. Default 30s. */
  shutdownGraceTime?: Duration;
  /**
   * How long a workflow task waits on this worker's sticky queue before any worker may take it. A worker that
   * died holds its workflows' next tasks this long. Default: the setting SCRAPE_ETL_STICKY_QUEUE_TIMEOUT.
   */
  stickyQueueScheduleToStartTimeout?: Duration;
  /** The workflow code; default: pipelineWorkflowBundle(). */
  workflowBundle?: WorkflowBundleOption;
  /** What the activities are built from (settings, client options, tuning); default: this process's settings. */
  activities?: ActivityDepsOptions;
}

/** A worker and the resources its activities hold (client, open databases), released when it stops. */
export interface PipelineWorker {
  worker: Worker;
  deps: OwnedActivityDeps;
}

/** The workflow bundle of this process: the prebuilt file when compiled, else bundled once from the sources. */
export async function pipelineWorkflowBundle(): Promise<WorkflowBundleOption> {
  return (await resolveWorkflowBundle()).option;
}

export async function createPipelineWorker(opts: PipelineWorkerOptions): Promise<PipelineWorker> {
  // Every process that runs activities (`run`, `demo`, `worker`) collects its garbage sooner (see heap-growth.ts).
  const settings = opts.activities?.settings ?? settingsFor(opts.activities?.env);
  limitHeapGrowth(settings);
  // Reads and checks the tuning now: a malformed knob fails the worker's start, not its first activity.
  const deps = createActivityDeps({ ...opts.activities, settings });
  const options: WorkerOptions = {
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    identity: workerIdentity(opts.role),
    workflowBundle: opts.workflowBundle ?? (await pipelineWorkflowBundle()),
    activities: createActivities(deps),
    // Payloads encrypted with the data folder's key (temporal/payload-codec.ts), as every client here writes them.
    dataConverter: pipelineDataConverter(),
    maxConcurrentActivityTaskExecutions: opts.maxConcurrentActivityTaskExecutions ?? 20,
    maxConcurrentWorkflowTaskExecutions: opts.maxConcurrentWorkflowTaskExecutions ?? 40,
    // Heartbeats are sent at most every 80% of an activity's heartbeat timeout, and by default at least every 60 s:
    // the wait for a scraping run (heartbeat timeout >= 5 min, workflows/scraping-runs.ts) would send one a minute,
    // each a billable action on Temporal Cloud. Loads (30 s timeouts) and alerts (20 s) are not affected.
    maxHeartbeatThrottleInterval: MAX_HEARTBEAT_THROTTLE_MS,
    shutdownGraceTime: opts.shutdownGraceTime ?? '30s',
    // An activity that ignores its cancel (a statement stuck inside an embedded database's native code) must not keep
    // the worker, and `down`, waiting for ever: past the grace and this margin the worker gives up on it.
    shutdownForceTime: msToNumber(opts.shutdownGraceTime ?? '30s') + SHUTDOWN_FORCE_MARGIN_MS,
    stickyQueueScheduleToStartTimeout: opts.stickyQueueScheduleToStartTimeout ?? settings.stickyQueueTimeout,
  };
  // A run this worker cannot decrypt (started with another key: the key file lost or replaced since) is ended at
  // once with the reason, naming both keys: its workflow's own refusal cannot fail a run whose history goes on
  // (workflows/pipeline.ts), so it asks here, and an activity of it fails for good (below), which brings its
  // workflow here at once instead of after the activity's timeouts and retries.
  const sinks: InjectedSinks<SealSinks> = {
    sealedWithAnotherKey: {
      endRun: {
        callDuringReplay: true,
        fn: (info, reason) => {
          void opts.connection.workflowService
            .terminateWorkflowExecution({
              namespace: opts.namespace,
              workflowExecution: { workflowId: info.workflowId, runId: info.runId },
              reason,
              identity: `scrape-etl worker ${process.pid}`,
            })
            .catch(() => undefined); // ended already (by this worker's earlier attempt, or otherwise)
        },
      },
    },
  };
  options.sinks = sinks;
  const attemptsDataDir = opts.dataDir ?? temporalSettings(settings).dataDir;
  // Times every activity attempt for the load and export histograms (temporal/metrics.ts picks which).
  options.interceptors = {
    activity: [
      (ctx) => ({
        inbound: {
          async execute(input, next) {
            const unreadable = input.args
              .map((a) => (a as { unreadablePayload?: unknown } | null)?.unreadablePayload)
              .find((u) => typeof u === 'string' && u.startsWith(ANOTHER_KEY));
            if (unreadable !== undefined) {
              throw ApplicationFailure.nonRetryable(
                `refused: this activity's input could not be decrypted: ${String(unreadable)}`,
                WORKFLOW_FAILURE_TYPES.unsignedInput,
              );
            }
            const started = performance.now();
            const arg = input.args[0] as { spec?: { name?: unknown }; pipeline?: unknown } | undefined;
            const pipeline = String(arg?.spec?.name ?? arg?.pipeline ?? '');
            let outcome: 'ok' | 'error' = 'error';
            const { info } = ctx;
            const workflowId = info.workflowExecution?.workflowId;
            try {
              const out = await next(input);
              outcome = 'ok';
              if (info.isLocal && info.attempt > 1 && workflowId) clearAttemptFailure(attemptsDataDir, workflowId);
              return out;
            } catch (err) {
              // Temporal records no attempt of a local activity: `run` reads this note instead (attempt-notes.ts).
              if (info.isLocal && workflowId) {
                const reason = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 300);
                recordAttemptFailure(attemptsDataDir, workflowId, {
                  activity: info.activityType,
                  attempt: info.attempt,
                  reason,
                  at: new Date().toISOString(),
                });
              }
              throw err;
            } finally {
              deps.metrics.activityFinished({
                activity: ctx.info.activityType,
                pipeline,
                seconds: (performance.now() - started) / 1000,
                outcome,
              });
            }
          },
        },
      }),
    ],
  };
  try {
    return { worker: await Worker.create(options), deps };
  } catch (err) {
    await deps.close();
    throw err;
  }
}

/** The worker's connection: TEMPORAL_ADDRESS, or the embedded dev server (started or reused). */
export async function connectWorker(
  settings: TemporalSettings = temporalSettings(),
  log?: (m: string) => void,
): Promise<{ connection: NativeConnection; address: string; uiUrl?: string }> {
  const server = settings.address
    ? undefined
    : await ensureDevServer({ dataDir: settings.dataDir, namespace: settings.namespace, ...(log ? { log } : {}) });
  const address = settings.address ?? server!.address;
  try {
    return {
      connection: await NativeConnection.connect({ address, ...temporalConnectionSecurity(settings) }),
      address,
      ...(server ? { uiUrl: server.uiUrl } : {}),
    };
  } catch (err) {
    throw new Error(`cannot connect the worker to Temporal at ${address}: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * Runs a worker until it is shut down. The SDK's runtime shuts workers down on SIGINT/SIGTERM: polling stops,
 * in-flight activities get `shutdownGraceTime` to finish (their loads are idempotent, so an activity cut off
 * there is simply retried by another worker), then the connection and databases are closed.
 */
export async function runPipelineWorker(
  { worker, deps }: PipelineWorker,
  connection?: NativeConnection,
): Promise<void> {
  try {
    await worker.run();
  } finally {
    await deps.close();
    await connection?.close();
  }
}
