// The workflow's first step (a local activity): which run mode the pipeline's kind has, from the kind registry,
// and the worker's tuning. Both are recorded in history, so a replay sees the same values.
import { ApplicationFailure } from '@temporalio/activity';
import { UnknownKindError, kindOf } from '../kinds/index.js';
import { WORKFLOW_FAILURE_TYPES, type RunMode, type WorkerTuning } from '../temporal/contract.js';
import type { NotifySpec } from '../pipelines/spec.js';
import { secretKeyFile } from '../lib/secret-key.js';
import { sealProblem } from '../lib/seal.js';
import type { ActivityDeps } from './deps.js';
import { expandWebhookUrl } from './notify-config.js';

export interface PlanInput {
  kind: string;
  /**
   * The pipeline's alerts, checked against this worker's environment before anything runs: a webhook that could
   * never be sent fails the run here (NotifyConfigError), not silently after it. Absent from older workflows' plans.
   */
  notify?: NotifySpec;
  /** The workflow's input, to check its seal (absent only in histories recorded before the seal). */
  sealed?: { spec: unknown; runKey: string; urlList?: unknown; seal?: unknown };
}

export interface PlanOutput {
  mode: RunMode;
  tuning: WorkerTuning;
}

export function planActivities(deps: ActivityDeps) {
  return {
    async planPipelineRun(input: PlanInput): Promise<PlanOutput> {
      const keys = deps.secretKeys();
      const problem = input.sealed ? sealProblem(input.sealed, keys.signing, keys.id) : 'the workflow passed no input to check';
      if (problem !== undefined) {
        const unreadable = (input.sealed?.spec as { unreadablePayload?: unknown } | undefined)?.unreadablePayload ?? (input.sealed as { unreadablePayload?: unknown } | undefined)?.unreadablePayload;
        throw ApplicationFailure.nonRetryable(
          `refused: this workflow's input was not started by a holder of this worker's secret key (${problem}${unreadable ? `; ${String(unreadable)}` : ''}). ` +
            `Runs are started by scrape-etl commands that read the same key file as the worker (${secretKeyFile()}, or SCRAPE_ETL_KEY_FILE); see docs/security.md`,
          WORKFLOW_FAILURE_TYPES.unsignedInput,
        );
      }
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
