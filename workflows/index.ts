// Entry of the workflow bundle (WorkerOptions.workflowsPath): every workflow type the worker serves.
export { pipelineWorkflow, progressQuery } from './pipeline.js';
