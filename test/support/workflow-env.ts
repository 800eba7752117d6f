// Workflow logic with mocked activities, for the fast tier (test/README.md): the pipeline workflow's real bundle
// runs on Temporal's time-skipping test server, its activities replaced by functions the test writes, as
// Temporal's own samples test workflows. Timers and retry back-offs (polling, outages, alert bounds) are
// skipped by the server, so a run that would wait minutes ends in a moment. What the activities do for real is
// the integration tier's (test/integration/).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import type { Activities } from '../../activities/index.js';
import { pipelineWorkflowBundle } from '../../temporal/worker.js';
import {
  PIPELINE_WORKFLOW_TYPE,
  pipelineWorkflowId,
  type PipelineWorkflowInput,
  type PipelineWorkflowResult,
  type WorkerTuning,
} from '../../temporal/contract.js';
import type { PipelineSpec } from '../../pipelines/spec.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The test server's executable: $TEMPORAL_TEST_SERVER_PATH, else scripts/ensure-temporal-test-server.sh (the Java
 * SDK's test server from Maven Central, copied once into the cache; the SDK's own download host is unreachable here).
 */
export function temporalTestServerPath(): string {
  const res = spawnSync('bash', [path.join(repoRoot, 'scripts', 'ensure-temporal-test-server.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 10 * 60_000,
  });
  if (res.status !== 0)
    throw new Error(`scripts/ensure-temporal-test-server.sh failed (exit ${res.status}):\n${res.stderr}`);
  return res.stdout.trim();
}

let runtimeInstalled = false;

/** Starts of the test server tried before giving up (see startTimeSkipping). */
export const TEST_SERVER_STARTS = 3;

/**
 * A time-skipping environment of its own (one per test file: time is global to the server). The SDK gives the
 * test server a fixed 5 s to answer and then kills it; on a loaded 2-core machine (the fast tier runs files in
 * parallel) a start can take longer, which failed a whole test file in a clean-clone CI run. Such a start is tried
 * again, on a new port; any other failure is thrown at once. `executable`: another server binary (tests of this).
 */
export async function startTimeSkipping(executable = temporalTestServerPath()): Promise<TestWorkflowEnvironment> {
  if (!runtimeInstalled) {
    runtimeInstalled = true;
    // The failures these tests provoke on purpose would otherwise flood the output.
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await TestWorkflowEnvironment.createTimeSkipping({
        server: { executable: { type: 'existing-path', path: executable } },
      });
    } catch (err) {
      if (attempt >= TEST_SERVER_STARTS || !/did not start within/.test(String((err as Error)?.message))) throw err;
    }
  }
}

/** Every activity the workflow may call: the compiler names one added to activities/ and missing here. */
const ACTIVITY_NAMES = {
  planPipelineRun: true,
  beginPipelineRun: true,
  finishPipelineRun: true,
  recordAlertFailure: true,
  readResultsWatermark: true,
  commitResultsWatermark: true,
  createAndRun: true,
  findAdoptedRuns: true,
  checkRunStatus: true,
  waitForScrapingRun: true,
  loadRunResults: true,
  loadUrlChunk: true,
  loadResultsPages: true,
  runExports: true,
  notifyPipelineRun: true,
  applyPipelineRetention: true,
  evaluateRunChecks: true,
  deliverRunWatches: true,
} satisfies Record<keyof Activities, true>;

export type ActivityName = keyof Activities;
export type MockActivities = {
  [K in ActivityName]?: (input: Parameters<Activities[K]>[0]) => Promise<Awaited<ReturnType<Activities[K]>>>;
};
export interface ActivityCall {
  name: ActivityName;
  input: any;
  /** How the workflow scheduled it: a local activity or not, its attempt and its timeouts (ms; 0 or undefined: none). */
  info: {
    isLocal: boolean;
    attempt: number;
    heartbeatTimeoutMs: number | undefined;
    scheduleToCloseTimeoutMs: number | undefined;
  };
}

export const TUNING: WorkerTuning = {
  heartbeatTimeout: '2s',
  activityTimeout: '5m',
  urlChunkSize: 2,
  urlLoadGroup: 25,
  pagesPerActivity: 2,
  activitiesPerRun: 100,
  loadBatchSize: 100,
};

/**
 * The usual answers of the bookkeeping activities; a test overrides the ones it is about. The plan answers as
 * activities/plan.ts does on a worker without a default webhook: `alerts` only when asked, true when the pipeline
 * has webhooks. beginPipelineRun is not among them: since LEAN_PATCH the plan begins the row, and a call of it
 * fails the run as unexpected.
 */
export function defaultMocks(
  mode: 'create-and-wait' | 'url-list' | 'results-sync',
  tuning: WorkerTuning = TUNING,
): MockActivities {
  return {
    planPipelineRun: async (input) => ({
      mode,
      tuning,
      ...(input.askAlerts ? { alerts: (input.notify?.webhooks ?? []).length > 0 } : {}),
    }),
    finishPipelineRun: async () => ({ rowsByTable: { scrapers: 1 }, tokenUsage: null }),
    notifyPipelineRun: async (input) => ({
      sent: input.notify ? input.notify.webhooks.length : 0,
      alreadySent: 0,
      events: input.events.map((e) => e.event),
      undelivered: [],
      error: null,
    }),
  };
}

export interface PipelineRun {
  calls: ActivityCall[];
  /** The names in the order the activities were called (each attempt counts). */
  names(): ActivityName[];
  /** The inputs of every call of one activity. */
  inputsOf<K extends ActivityName>(name: K): Array<Parameters<Activities[K]>[0]>;
  /** How every call of one activity was scheduled (ActivityCall.info). */
  infoOf(name: ActivityName): Array<ActivityCall['info']>;
}

/**
 * A worker on its own task queue with `mocks` as the activities (every other activity fails the test: a call the
 * test did not expect is a non-retryable failure naming it), and the pipeline workflow started with `spec`.
 * `body` gets the handle (to query, cancel, or await the result) while the worker runs.
 */
export async function withPipelineRun<T>(
  env: TestWorkflowEnvironment,
  o: {
    spec: PipelineSpec;
    mocks: MockActivities;
    runKey?: string;
    input?: Partial<PipelineWorkflowInput>;
    workflowId?: string;
  },
  body: (
    handle: Awaited<ReturnType<TestWorkflowEnvironment['client']['workflow']['start']>>,
    run: PipelineRun,
  ) => Promise<T>,
): Promise<T> {
  const calls: ActivityCall[] = [];
  const activities: Record<string, (input: unknown) => Promise<unknown>> = {};
  for (const name of Object.keys(ACTIVITY_NAMES) as ActivityName[]) {
    const mock = o.mocks[name] as ((input: unknown) => Promise<unknown>) | undefined;
    activities[name] = async (input: unknown) => {
      const info = Context.current().info;
      calls.push({
        name,
        input: structuredClone(input),
        info: {
          isLocal: info.isLocal,
          attempt: info.attempt,
          heartbeatTimeoutMs: info.heartbeatTimeoutMs,
          scheduleToCloseTimeoutMs: info.scheduleToCloseTimeoutMs,
        },
      });
      if (!mock)
        throw ApplicationFailure.nonRetryable(`the test did not expect a call of ${name}`, 'UnexpectedActivity');
      return mock(input);
    };
  }
  const runKey = o.runKey ?? 'test';
  const taskQueue = `wf-${Math.random().toString(36).slice(2)}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await pipelineWorkflowBundle(),
    activities,
  });
  const run: PipelineRun = {
    calls,
    names: () => calls.map((c) => c.name),
    inputsOf: (name) => calls.filter((c) => c.name === name).map((c) => c.input),
    infoOf: (name) => calls.filter((c) => c.name === name).map((c) => c.info),
  };
  return worker.runUntil(async () => {
    const handle = await env.client.workflow.start(PIPELINE_WORKFLOW_TYPE, {
      taskQueue,
      workflowId: o.workflowId ?? pipelineWorkflowId(o.spec.name, runKey),
      args: [{ spec: o.spec, runKey, ...o.input } satisfies PipelineWorkflowInput],
      workflowExecutionTimeout: '1h',
    });
    return body(handle, run);
  });
}

/** The run's result, or its failure as { failure } (the workflow's own ApplicationFailure: message and type). */
export async function outcome(handle: {
  result(): Promise<unknown>;
}): Promise<{ result: PipelineWorkflowResult } | { failure: { message: string; type: string | undefined | null } }> {
  try {
    return { result: (await handle.result()) as PipelineWorkflowResult };
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause;
    if (cause instanceof ApplicationFailure) return { failure: { message: cause.message, type: cause.type } };
    throw err;
  }
}
