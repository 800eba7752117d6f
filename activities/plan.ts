// The workflow's first step (a local activity): which run mode the pipeline's kind has, from the kind registry,
// and the worker's tuning. Both are recorded in history, so a replay sees the same values.
import { ApplicationFailure } from '@temporalio/activity';
import { UnknownKindError, kindOf } from '../kinds/index.js';
import type { RunMode, WorkerTuning } from '../temporal/contract.js';
import type { ActivityDeps } from './deps.js';

export interface PlanInput {
  kind: string;
}

export interface PlanOutput {
  mode: RunMode;
  tuning: WorkerTuning;
}

export function planActivities(deps: ActivityDeps) {
  return {
    async planPipelineRun(input: PlanInput): Promise<PlanOutput> {
      try {
        return { mode: kindOf(input.kind).mode, tuning: deps.tuning };
      } catch (err) {
        if (err instanceof UnknownKindError) throw ApplicationFailure.nonRetryable(err.message, err.name);
        throw err;
      }
    },
  };
}
