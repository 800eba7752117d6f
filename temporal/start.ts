// Starting a pipeline run: the one place that turns (spec, run key) into a workflow start, for the CLI's `run`
// command and for tests. Schedules use the same workflow type, id prefix and arguments.
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { PipelineSpec } from '../pipelines/spec.js';
import type { pipelineWorkflow, PipelineWorkflowInput } from '../workflows/pipeline.js';
import { pipelineWorkflowId } from './workflow-id.js';

export const PIPELINE_WORKFLOW_TYPE = 'pipelineWorkflow';

/** A run key from the clock, e.g. 20250314T101500123Z: sortable and valid in a workflow id. */
export function runKeyNow(now: Date = new Date()): string {
  return now.toISOString().replace(/[-:.]/g, '');
}

export async function startPipelineRun(
  conn: { client: Client; taskQueue: string },
  spec: PipelineSpec,
  runKey: string = runKeyNow(),
): Promise<WorkflowHandle<typeof pipelineWorkflow>> {
  const input: PipelineWorkflowInput = { spec, runKey };
  return conn.client.workflow.start<typeof pipelineWorkflow>(PIPELINE_WORKFLOW_TYPE, {
    workflowId: pipelineWorkflowId(spec.name, runKey),
    taskQueue: conn.taskQueue,
    args: [input],
    // Starting the same run key twice is a mistake, not a second run: the second start fails clearly.
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
  });
}
