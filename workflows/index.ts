// Entry of the workflow bundle: every workflow type the worker serves.
export { pipelineWorkflow, progressQuery } from './pipeline.js';
