// Starting pipeline runs: the one place that turns (spec, run key) into a workflow start, used by `run`, `demo`,
// `schedule trigger`, the tests, and (as a schedule action) by schedules. Names, ids and arguments come from the
// contract (./contract.ts).
import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { urlsOf, withoutUrls, type PipelineSpec } from '../pipelines/spec.js';
import type { pipelineWorkflow } from '../workflows/pipeline.js';
import { secretKeys } from '../lib/secret-key.js';
import { sealOf } from '../lib/seal.js';
import { pipelineMemo, pipelineSearchAttributes } from './visibility.js';
import {
  PIPELINE_WORKFLOW_TYPE,
  SCHEDULED_RUN_KEY,
  pipelineWorkflowId,
  runKeyNow,
  type PipelineWorkflowInput,
} from './contract.js';

export { PIPELINE_WORKFLOW_TYPE, pipelineWorkflowId, runKeyNow };

export type PipelineWorkflowHandle = WorkflowHandle<typeof pipelineWorkflow>;

export interface StartTarget {
  client: Client;
  taskQueue: string;
  /** The pipeline file, recorded in the run's memo. */
  file?: string;
}

/**
 * Starts one run. Starting the same run key twice is a mistake, not a second run: the second start fails with
 * WorkflowExecutionAlreadyStartedError (see startOrGetPipelineRun for callers that resume on purpose).
 */
export async function startPipelineRun(
  conn: StartTarget,
  spec: PipelineSpec,
  runKey: string = runKeyNow(),
  /** pipelineWorkflowInput(spec, runKey), when the caller prepared it (its URL list already stored). */
  prepared?: PipelineWorkflowInput,
): Promise<PipelineWorkflowHandle> {
  const input = prepared ?? (await pipelineWorkflowInput(spec, runKey));
  return conn.client.workflow.start<typeof pipelineWorkflow>(PIPELINE_WORKFLOW_TYPE, {
    workflowId: pipelineWorkflowId(spec.name, runKey),
    taskQueue: conn.taskQueue,
    args: [input],
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    memo: pipelineMemo(spec, conn.file),
    typedSearchAttributes: await pipelineSearchAttributes(conn.client, spec),
  });
}

/** Starts the run, or returns the handle of the one already started with this run key (`attached: true`). */
export async function startOrGetPipelineRun(
  conn: StartTarget,
  spec: PipelineSpec,
  runKey: string,
): Promise<{ handle: PipelineWorkflowHandle; attached: boolean }> {
  try {
    return { handle: await startPipelineRun(conn, spec, runKey), attached: false };
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    return {
      handle: conn.client.workflow.getHandle<typeof pipelineWorkflow>(pipelineWorkflowId(spec.name, runKey)),
      attached: true,
    };
  }
}

/** URL lists up to this size travel in the workflow's input itself (see pipelineWorkflowInput). */
export const INLINE_URL_LIST_MAX = { urls: 500, bytes: 64 * 1024 };

/**
 * The workflow's input. A long URL list is stored in the destination database and passed by reference: Temporal
 * caps a payload at 2 MB (a 40,000-URL list is ~2.7 MB) and every byte of the input stays in history. So the machine
 * that starts such a run (`run`, `schedule apply`) reaches the destination, as the workers do. A short one (up to
 * INLINE_URL_LIST_MAX) goes inline, which the workflow reads as well: starting it then needs no database, and `run`
 * beside a polling worker loads the Temporal client and none of the database code.
 */
export async function pipelineWorkflowInput(spec: PipelineSpec, runKey: string): Promise<PipelineWorkflowInput> {
  return sealed(await unsealedInput(spec, runKey));
}

/** The input signed with this process's key (lib/secret-key.ts): a worker holding the same key accepts it. */
export function sealed(input: PipelineWorkflowInput): PipelineWorkflowInput {
  const keys = secretKeys();
  return { ...input, seal: sealOf(input, keys.signing, keys.id) };
}

async function unsealedInput(spec: PipelineSpec, runKey: string): Promise<PipelineWorkflowInput> {
  const urls = urlsOf(spec);
  if (urls.length === 0) return { spec, runKey };
  if (urls.length <= INLINE_URL_LIST_MAX.urls && Buffer.byteLength(JSON.stringify(urls)) <= INLINE_URL_LIST_MAX.bytes)
    return { spec, runKey };
  const { openDatabase } = await import('../destinations/open.js');
  const { storeUrlList } = await import('../db/store/url-lists.js');
  const db = await openDatabase(spec.destination.database);
  try {
    const urlList = await storeUrlList(db, urls);
    return { spec: withoutUrls(spec), runKey, urlList };
  } finally {
    await db.close();
  }
}

/** The start action of a pipeline's Schedule: Temporal appends the scheduled time to the workflow id. */
export async function pipelineScheduleAction(client: Client, spec: PipelineSpec, taskQueue: string) {
  const input = await pipelineWorkflowInput(spec, SCHEDULED_RUN_KEY);
  return {
    type: 'startWorkflow' as const,
    workflowType: PIPELINE_WORKFLOW_TYPE,
    workflowId: pipelineWorkflowId(spec.name, SCHEDULED_RUN_KEY),
    taskQueue,
    args: [input],
    typedSearchAttributes: await pipelineSearchAttributes(client, spec),
  };
}
