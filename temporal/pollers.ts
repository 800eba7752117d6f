// Whether any worker polls a task queue: a run started where none does stays RUNNING without a word, so the
// commands that start runs without a worker of their own (`run --detach`, `run` against a cluster, `schedule
// trigger`) ask Temporal and warn. The server lists pollers seen in the last few minutes.
import type { Client } from '@temporalio/client';
// A CommonJS module: named ESM imports of it fail in Node, so the namespace comes from its default export.
import proto from '@temporalio/proto';

const { TaskQueueKind, TaskQueueType } = proto.temporal.api.enums.v1;

export async function workflowPollerCount(client: Client, namespace: string, taskQueue: string): Promise<number> {
  const res = await client.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return res.pollers?.length ?? 0;
}

/** The warning to print when no worker polls the queue, or undefined when one does (or the question fails). */
export async function noWorkerWarning(client: Client, namespace: string, taskQueue: string): Promise<string | undefined> {
  try {
    if ((await workflowPollerCount(client, namespace, taskQueue)) > 0) return undefined;
  } catch {
    // Describing the queue is a courtesy: a server that refuses it must not fail the start.
    return undefined;
  }
  return (
    `warning: no worker polls task queue '${taskQueue}' (namespace '${namespace}'): the run stays RUNNING until one does; ` +
    `start one with \`scrape-etl worker\` (same TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and TEMPORAL_TASK_QUEUE)`
  );
}
