// Kept free of Temporal imports so the CLI, activities and the workflow bundle can all use it.

/** Workflow id of one run of a pipeline: the same id for the same run key makes a start idempotent. */
export function pipelineWorkflowId(pipelineName: string, runKey: string): string {
  return `${pipelineName}--${runKey}`;
}
