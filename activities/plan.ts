// The workflow's first step (a local activity): which run mode the pipeline's kind has, from the kind registry,
// and the worker's tuning. Both are recorded in history, so a replay sees the same values.
import { ApplicationFailure } from '@temporalio/activity';
import { UnknownKindError, kindOf } from '../kinds/index.js';
import type { RunMode, WorkerTuning } from '../temporal/contract.js';
import type { NotifySpec } from '../pipelines/spec.js';
import type { ActivityDeps } from './deps.js';
import { expandWebhookUrl } from './notify-config.js';

export interface PlanInput {
  kind: string;
  /**
   * The pipeline's alerts, checked against this worker's environment before anything runs: a webhook that could
   * never be sent fails the run here (NotifyConfigError), not silently after it. Absent from older workflows' plans.
   */
  notify?: NotifySpec;
}

export interface PlanOutput {
  mode: RunMode;
  tuning: WorkerTuning;
}

export function planActivities(deps: ActivityDeps) {
  return {
    async planPipelineRun(input: PlanInput): Promise<PlanOutput> {
      const problems = (input.notify?.webhooks ?? []).flatMap((w, i) => {
        const expanded = expandWebhookUrl(w.url, deps.notify.env);
        return 'problem' in expanded ? [`notify.webhooks[${i}].url: ${expanded.problem}`] : [];
      });
      if (problems.length > 0) {
        throw ApplicationFailure.nonRetryable(
          `the run's alerts could not be sent by this worker: ${problems.join('; ')}. Set the variable in the worker's environment and ` +
            `restart the worker, or change the pipeline file; nothing was started or loaded`,
          'NotifyConfigError',
        );
      }
      try {
        return { mode: kindOf(input.kind).mode, tuning: deps.tuning };
      } catch (err) {
        if (err instanceof UnknownKindError) throw ApplicationFailure.nonRetryable(err.message, err.name);
        throw err;
      }
    },
  };
}
