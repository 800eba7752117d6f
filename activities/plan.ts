// The workflow's first step (a local activity): which run mode the pipeline's kind has, from the kind registry,
// and the worker's tuning. Both are recorded in history, so a replay sees the same values.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { UnknownKindError, kindOf } from '../kinds/index.js';
import { PLAN_ATTEMPTS, WORKFLOW_FAILURE_TYPES, type RunMode, type WorkerTuning } from '../temporal/contract.js';
import type { NotifySpec } from '../pipelines/spec.js';
import { secretKeyFile } from '../lib/secret-key.js';
import { sealProblem } from '../lib/seal.js';
import type { ActivityDeps } from './deps.js';
import { expandWebhookUrl } from '../alerts/notify-config.js';
import { asActivityFailure } from './failures.js';
import { startPipelineRun } from '../db/store/pipeline-runs.js';
import type { BeginPipelineRunInput } from './types.js';

export interface PlanInput {
  kind: string;
  /**
   * The pipeline's alerts, checked against this worker's environment before anything runs: a webhook that could
   * never be sent fails the run here (NotifyConfigError), not silently after it. Absent from older workflows' plans.
   */
  notify?: NotifySpec;
  /** The workflow's input, to check its seal (absent only in histories recorded before the seal). */
  sealed?: { spec: unknown; runKey: string; urlList?: unknown; seal?: unknown };
  /**
   * The run's pipeline_runs row, started here once the checks above passed (workflows since LEAN_PATCH): one local
   * activity instead of a plan and a beginPipelineRun activity, i.e. no billable action and no history events of
   * its own. Absent on a continue-as-new resume and in older workflows (which call beginPipelineRun).
   */
  begin?: BeginPipelineRunInput;
  /** Asked by workflows since LEAN_PATCH: whether this run's alerts step has anything to send to (see `alerts`). */
  askAlerts?: boolean;
}

export interface PlanOutput {
  mode: RunMode;
  tuning: WorkerTuning;
  /**
   * Whether any webhook would hear this run's alerts: the pipeline's own, or this worker's default ones
   * (SCRAPE_ETL_NOTIFY_URL...). false: the workflow skips the alerts step (an activity, 3 history events and a
   * billable action for nothing). Recorded in history, so a replay takes the same branch whatever the worker's env.
   */
  alerts?: boolean;
  /** The row could not be started (the destination failed): the workflow fails the run with it, alerts and all. */
  beginError?: string;
  /** Its failure type (e.g. DestinationConfigError), kept as the run's failure type. */
  beginErrorType?: string;
}

export function planActivities(deps: ActivityDeps) {
  return {
    async planPipelineRun(input: PlanInput): Promise<PlanOutput> {
      const keys = deps.secretKeys();
      const problem = input.sealed
        ? sealProblem(input.sealed, keys.signing, keys.id)
        : 'the workflow passed no input to check';
      if (problem !== undefined) {
        const unreadable =
          (input.sealed?.spec as { unreadablePayload?: unknown } | undefined)?.unreadablePayload ??
          (input.sealed as { unreadablePayload?: unknown } | undefined)?.unreadablePayload;
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
      let mode: RunMode;
      try {
        mode = kindOf(input.kind).mode;
      } catch (err) {
        if (err instanceof UnknownKindError) throw ApplicationFailure.nonRetryable(err.message, err.name);
        throw err;
      }
      const out: PlanOutput = { mode, tuning: deps.tuning };
      if (input.askAlerts)
        out.alerts = (input.notify?.webhooks ?? []).length > 0 || deps.notify.defaultWebhooks.length > 0;
      if (input.begin) {
        const b = input.begin;
        try {
          const db = await deps.destination(b.database);
          const { created } = await startPipelineRun(db, {
            workflowId: b.workflowId,
            pipeline: b.pipeline,
            kind: b.kind,
            ...(b.scheduledAt ? { scheduledAt: new Date(b.scheduledAt) } : {}),
          });
          if (created) deps.onRunEvent?.({ event: 'started', pipeline: b.pipeline, workflowId: b.workflowId });
        } catch (err) {
          const failure = asActivityFailure(err);
          const final = failure instanceof ApplicationFailure && failure.nonRetryable;
          // A busy or restarting destination gets the local activity's retries; one that can never work (not a
          // database: DestinationConfigError) and the last attempt are told to the workflow, not failed here.
          if (!final && Context.current().info.attempt < PLAN_ATTEMPTS) throw err;
          // Said by the workflow as the run's failure (it then tries to finish the row and sends the alerts), as
          // when beginPipelineRun was an activity of its own; a plan failure would skip both.
          out.beginError = err instanceof Error ? err.message : String(err);
          if (failure instanceof ApplicationFailure && failure.type) out.beginErrorType = failure.type;
        }
      }
      return out;
    },
  };
}
