// The one pipeline workflow. It holds ids, counts, cursors and status only; every byte of result data moves
// inside activities (activities/), which land it raw and load it in one transaction per batch.
//
// It knows modes, not kinds: the `planPipelineRun` local activity reads the kind's run mode from the kind
// registry (kinds/) and the worker's tuning, both recorded in history so replays see the same values; an unknown
// kind fails the run there, non-retryably, before anything is written. Each mode has its own module here,
// mirroring activities/:
//   create-and-wait (pdf, leads-*)   scraping-runs.ts
//   url-list (job-board, marketplace) url-lists.ts
//   results-sync (results)           results-sync.ts
// then exports, and the pipeline_runs row is finished with counts read from the database.
import { defineSearchAttributeKey } from '@temporalio/common';
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  defineQuery,
  isCancellation,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  proxySinks,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { DEFAULT_DELIVER_WITHIN, urlsOf } from '../pipelines/spec.js';
import type { Activities } from '../activities/index.js';
import type { BeginPipelineRunInput, BudgetStop, FinishPipelineRunInput } from '../activities/types.js';
import {
  PROGRESS_QUERY,
  WORKFLOW_FAILURE_TYPES,
  pipelineWorkflowId,
  workflowIdMatches,
  type ExportStatus,
  type ExportedFileRef,
  type PipelineProgress,
  type PipelineWorkflowInput,
  type PipelineWorkflowResult,
  type RunMode,
  type WorkerTuning,
  PLAN_ATTEMPTS,
  ANOTHER_KEY,
  type SealSinks,
} from '../temporal/contract.js';
import { applyRunRetention, sendRunAlerts } from './alerts.js';
import { markRunStatus } from './visibility.js';
import { deliverWatches, runChecks } from './checks.js';
import { runResultsSync } from './results-sync.js';
import { runCreateAndWait } from './scraping-runs.js';
import {
  causeMessage,
  shortText,
  withoutUrls,
  MAX_LISTED_FAILURES,
  type ModeContext,
  type ModeRunner,
} from './shared.js';
import { runUrlList } from './url-lists.js';

export type {
  PipelinePhase,
  PipelineProgress,
  PipelineResumeState,
  PipelineWorkflowInput,
  PipelineWorkflowResult,
  ResultsCursor,
} from '../temporal/contract.js';

export const progressQuery = defineQuery<PipelineProgress>(PROGRESS_QUERY);

/** The budgets a run's bookkeeping reports (metrics), when it has any. */
function budgetsOf(spec: PipelineWorkflowInput['spec']): {
  budgets?: { budget?: NonNullable<typeof spec.budget>; project_budget?: NonNullable<typeof spec.project_budget> };
} {
  if (!spec.budget && !spec.project_budget) return {};
  return {
    budgets: {
      ...(spec.budget ? { budget: spec.budget } : {}),
      ...(spec.project_budget ? { project_budget: spec.project_budget } : {}),
    },
  };
}

const SCHEDULED_START_TIME = defineSearchAttributeKey('TemporalScheduledStartTime', 'DATETIME');

const RUNNERS: Record<RunMode, ModeRunner> = {
  'create-and-wait': runCreateAndWait,
  'url-list': runUrlList,
  'results-sync': runResultsSync,
};

export async function pipelineWorkflow(input: PipelineWorkflowInput): Promise<PipelineWorkflowResult> {
  // An input that is not a pipeline's (a payload encrypted with another key decodes to { unreadablePayload }, see
  // temporal/payload-codec.ts; or a neighbour's malformed JSON) fails the run here, once: a TypeError below would
  // fail the workflow task instead, retried for ever.
  const shape = input as unknown as {
    spec?: { name?: unknown; kind?: unknown };
    runKey?: unknown;
    unreadablePayload?: unknown;
  } | null;
  if (
    typeof shape?.spec?.name !== 'string' ||
    typeof shape.spec.kind !== 'string' ||
    typeof shape.runKey !== 'string'
  ) {
    const why =
      shape?.unreadablePayload !== undefined
        ? `its input could not be decrypted: ${String(shape.unreadablePayload)}`
        : "its input is not a pipeline run's";
    // Replaying a run started with another key (the key file lost or replaced since): the refusal below cannot
    // fail a run whose history goes on, so the worker ends it (SealSinks), at once and with the same sentence.
    if (workflowInfo().unsafe.isReplaying && String(shape?.unreadablePayload ?? '').startsWith(ANOTHER_KEY)) {
      proxySinks<SealSinks>().sealedWithAnotherKey.endRun(`refused: ${why}`);
    }
    throw ApplicationFailure.nonRetryable(
      `refused: ${why}; runs are started by scrape-etl commands that share the worker's secret key (see docs/security.md)`,
      WORKFLOW_FAILURE_TYPES.unsignedInput,
    );
  }
  const { spec, runKey } = input;
  const workflowId = workflowInfo().workflowId;
  if (!workflowIdMatches(workflowId, spec.name, runKey)) {
    throw ApplicationFailure.nonRetryable(
      `workflow id '${workflowId}' does not match pipeline '${spec.name}' and run key '${runKey}' (expected '${pipelineWorkflowId(spec.name, runKey)}')`,
      WORKFLOW_FAILURE_TYPES.badWorkflowId,
    );
  }

  const progress: PipelineProgress = {
    workflowId,
    pipeline: spec.name,
    kind: spec.kind,
    phase: 'starting',
    runs: { total: 0, waiting: 0, loading: 0, done: 0, ids: [] },
    urls: { total: 0, done: 0, failed: 0 },
    pagesLoaded: input.resume?.pagesLoaded ?? 0,
    resultsLoaded: input.resume?.resultsLoaded ?? 0,
    rowsLoaded: { ...(input.resume?.rowsLoaded ?? {}) },
    failedUrls: [],
    continuedAsNew: input.resume?.continuedAsNew ?? 0,
    error: null,
    exportError: null,
  };
  setHandler(progressQuery, () => progress);

  // Decided once, at the run's start, and kept for its whole life: a run an older worker began replays its old
  // steps to the end (patched() read later could turn true half way, when the replay catches up with the present).
  const lean = patched(LEAN_PATCH);
  const ref = { workflowId, pipeline: spec.name, kind: spec.kind, database: spec.destination.database };
  // A Schedule's runs carry the time they were scheduled for; it is recorded as the run's lineage.
  const scheduledAt = workflowInfo().typedSearchAttributes.get(SCHEDULED_START_TIME);
  const beginInput = { ...ref, ...(scheduledAt ? { scheduledAt: scheduledAt.toISOString() } : {}) };

  // Before anything is written: an unknown kind (or malformed worker tuning) fails here, once, with its reason.
  const plan = await planRun(input, lean ? beginInput : undefined);
  const tuning: WorkerTuning = plan.tuning;
  const runMode = RUNNERS[plan.mode];
  if (!runMode) {
    throw ApplicationFailure.nonRetryable(
      `pipeline kind '${spec.kind}' has run mode '${plan.mode}', which this workflow does not know`,
      WORKFLOW_FAILURE_TYPES.unknownKind,
    );
  }

  const retry = { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10 };
  // Bookkeeping (the pipeline_runs row, the results watermark) is short database work: since LEAN_PATCH local
  // activities, which run inside the workflow task that asks for them. Temporal Cloud bills all local activities of
  // one workflow task as one action and they add one marker event each, against an action and three events (plus
  // a workflow task of three more) for a regular activity.
  const control = lean
    ? proxyLocalActivities<Activities>({ startToCloseTimeout: '1m', retry })
    : proxyActivities<Activities>({ startToCloseTimeout: '1m', retry });
  const loading = proxyActivities<Activities>({
    startToCloseTimeout: tuning.activityTimeout,
    heartbeatTimeout: tuning.heartbeatTimeout,
    retry,
  });

  const failures: ModeContext['failures'] = { count: 0, listed: [] };
  const alerts: ModeContext['alerts'] = [...(input.resume?.alerts ?? [])];
  const ctx: ModeContext = { input, spec, workflowId, tuning, progress, loading, control, failures, alerts, lean };
  // Since LEAN_PATCH the alerts step runs only when a webhook would hear it (the plan says, from the pipeline and the
  // worker's defaults); before, it ran for every run, an activity with nothing to send.
  const alertsOn = !lean || plan.alerts !== false;
  // Once the row holds the run's outcome, a cancel that comes later (during its alerts) does not rewrite it.
  let rowFinished = false;
  try {
    if (lean) {
      if (plan.beginError !== undefined)
        throw ApplicationFailure.nonRetryable(
          `pipeline '${spec.name}' failed: ${plan.beginError}`,
          plan.beginErrorType ?? WORKFLOW_FAILURE_TYPES.pipelineFailed,
        );
    } else if (!input.resume) {
      await control.beginPipelineRun(beginInput);
    }
    // A run whose forecast exceeds its budget (checked by the plan, before any call) runs nothing: no call, no load,
    // no checks or exports over data it did not touch; it ends partial with the reason 'budget' and its alerts.
    if (plan.budgetRefusal) ctx.budgetStop = plan.budgetRefusal;
    const { scrapingRunIds } = plan.budgetRefusal ? { scrapingRunIds: [] as string[] } : await runMode(ctx);

    const urlCount = progress.urls.total;
    if (urlCount > 0 && failures.count === urlCount) {
      throw ApplicationFailure.nonRetryable(
        `all ${urlCount} URLs of pipeline '${spec.name}' failed; first: ${failures.listed[0]?.url}: ${failures.listed[0]?.error}`,
        WORKFLOW_FAILURE_TYPES.allUrlsFailed,
      );
    }

    // The data is loaded: its checks decide whether the run is failed_checks (the data is kept either way).
    progress.phase = 'checking';
    const checks = plan.budgetRefusal ? undefined : await runChecks(spec, workflowId, progress.rowsLoaded, lean);
    const failedChecks = (checks?.errorsFailed ?? 0) > 0;
    if (checks?.detail) alerts.push({ event: 'check_failed', detail: checks.detail });
    // Exports marked on_failed_checks: skip are left out of a run whose error checks failed.
    const exportsToRun = plan.budgetRefusal
      ? []
      : failedChecks
        ? spec.exports.filter((e) => e.on_failed_checks !== 'skip')
        : spec.exports;

    // The data is loaded; exports are their own phase with their own outcome. An export that fails for good
    // (after its retries) is reported beside the data's status, never instead of it.
    let exportFiles: ExportedFileRef[] = [];
    let exportUnchanged: string[] = [];
    let exportStatus: ExportStatus = 'none';
    let exportError: string | null = null;
    if (exportsToRun.length > 0) {
      progress.phase = 'exporting';
      try {
        const exported = await loading.runExports({
          workflowId,
          spec: { ...withoutUrls(spec), exports: exportsToRun },
          startedAt: workflowInfo().startTime.toISOString(),
        });
        exportFiles = exported.files;
        // A worker from before the list was returned answers without it.
        exportUnchanged = exported.unchanged ?? [];
        // Incremental exports with nothing new anywhere wrote no file: said as such, not as a success with no files.
        exportStatus = exportFiles.length === 0 && exportUnchanged.length > 0 ? 'no_new_rows' : 'succeeded';
      } catch (err) {
        exportStatus = 'failed';
        exportError = shortText(causeMessage(err), 4000);
        progress.exportError = exportError;
      }
    }

    progress.phase = 'finishing';
    const budgetStop = ctx.budgetStop;
    const asked = failedChecks ? 'failed_checks' : failures.count > 0 || budgetStop ? 'partial' : 'succeeded';
    const errors = [
      ...(budgetStop
        ? [budgetStop.beforeStart ? budgetStop.detail : `stopped by its budget: ${budgetStop.detail}`]
        : []),
      ...(failures.count > 0
        ? [
            `${failures.count} of ${urlCount} URLs failed: ${failures.listed.map((f) => `${f.url}: ${f.error}`).join(' | ')}`,
          ]
        : []),
      ...(failedChecks && checks?.detail ? [checks.detail] : []),
    ];
    const askedError = errors.length > 0 ? shortText(errors.join('\n'), 4000) : null;
    const finished = await control.finishPipelineRun({
      ...ref,
      status: asked,
      error: askedError,
      exportStatus,
      exportError,
      ...(budgetStop ? { statusReason: 'budget' as const } : {}),
      ...budgetsOf(spec),
    });
    rowFinished = true;
    // Results the loads quarantined (rejected_results) make a succeeded run partial; the activity says so in its answer.
    const status = finished.status !== undefined && finished.status !== 'failed' ? finished.status : asked;
    const error = finished.error !== undefined ? finished.error : askedError;
    // The outcome is recorded; the alerts come after it, bounded, and say how they went.
    let alertOutcome: Awaited<ReturnType<typeof sendRunAlerts>>;
    if (alertsOn) {
      progress.phase = 'alerting';
      progress.alertsWithin = spec.notify?.deliver_within ?? DEFAULT_DELIVER_WITHIN;
      alertOutcome = await sendRunAlerts({
        spec,
        workflowId,
        status,
        error,
        exportStatus,
        exportError,
        rowsByTable: finished.rowsByTable,
        ...(finished.seenByTable ? { seenByTable: finished.seenByTable } : {}),
        collected: alerts,
        lean,
      });
    }
    const watchEvents = await deliverWatches(spec, workflowId, lean);
    await applyRunRetention(spec, lean);
    markRunStatus(status, lean);
    progress.phase = status;
    return {
      workflowId,
      pipeline: spec.name,
      kind: spec.kind,
      status,
      scrapingRunIds,
      rowsByTable: finished.rowsByTable,
      ...(finished.seenByTable ? { seenByTable: finished.seenByTable } : {}),
      failedUrls: failures.listed.slice(0, MAX_LISTED_FAILURES),
      failedUrlCount: failures.count,
      pagesLoaded: progress.pagesLoaded,
      resultsLoaded: progress.resultsLoaded,
      exportedFiles: exportFiles.length,
      exportFiles,
      exportUnchanged,
      exportStatus,
      exportError,
      ...(alertOutcome ? { alerts: alertOutcome } : {}),
      ...(checks ? { checks: checks.results } : {}),
      ...(watchEvents ? { watchEvents } : {}),
      ...(finished.rejectedResults ? { rejectedResults: finished.rejectedResults, error } : {}),
      ...(finished.keptOut ? { keptOut: finished.keptOut } : {}),
      ...(budgetStop
        ? { reason: 'budget' as const, budget: { limit: budgetStop.limit, detail: budgetStop.detail }, error }
        : {}),
    };
  } catch (err) {
    // continue-as-new is delivered as a thrown value; it is not a failure.
    if (err instanceof ContinueAsNew) throw err;
    // A cancel (the Web UI's, `temporal workflow cancel`, a schedule's overlap policy cancel_other) cancels the
    // workflow's scope: every activity scheduled in it fails at once, so the steps below would leave the row
    // 'running' and end the workflow FAILED with the cancellation's empty message. Since CANCEL_PATCH the row is
    // finished 'cancelled' outside the cancelled scope and the cancellation rethrown: the workflow ends CANCELLED.
    // No alert: no webhook event is a cancel (a person or a schedule asked for it). patched() is asked only here,
    // so runs that are not cancelled carry no marker.
    if (isCancellation(err) && patched(CANCEL_PATCH)) {
      const during = progress.phase;
      progress.phase = 'cancelled';
      progress.error = `cancelled while ${during}`;
      await CancellationScope.nonCancellable(async () => {
        if (!rowFinished)
          await finishCancelledRow(
            control,
            ref,
            `the run was cancelled while ${during} (${CANCEL_SOURCES}); what it loaded before stays`,
          );
        markRunStatus('cancelled', lean);
      });
      throw err;
    }
    const message = causeMessage(err);
    progress.phase = 'failed';
    progress.error = message;
    try {
      await control.finishPipelineRun({ ...ref, status: 'failed', error: shortText(message, 4000) });
    } catch {
      // The destination itself may be what failed (not a database, no permission): the failure below says so.
    }
    let alertOutcome: Awaited<ReturnType<typeof sendRunAlerts>>;
    if (alertsOn) {
      progress.phase = 'alerting';
      alertOutcome = await sendRunAlerts({
        spec,
        workflowId,
        status: 'failed',
        error: shortText(message, 4000),
        exportStatus: 'none',
        collected: alerts,
        lean,
      });
    }
    await applyRunRetention(spec, lean);
    markRunStatus('failed', lean);
    progress.phase = 'failed';
    // An undelivered alert of a failed run is said in the failure `run` prints (the run's result for a failure).
    const undelivered =
      alertOutcome?.status === 'failed' ? ` (and its alert was not delivered: ${alertOutcome.error})` : '';
    // The workflow's own failures (thrown above and by the run modes) already say what failed. One that came from an
    // activity is said as the pipeline's: a regular activity's arrives as an ActivityFailure, a local one's (the plan,
    // a short URL list since LEAN_PATCH) as its ApplicationFailure itself, which then carries the failure it was
    // decoded from; before that was told apart, a list of 1-3 URLs failed without the pipeline's name.
    const own = err instanceof ApplicationFailure && err.failure === undefined;
    if (own && !undelivered) throw err;
    // An activity's own classification (ResultsPagingStuck, ApiValidationError, ...) stays the failure's type.
    const cause = err instanceof ActivityFailure ? err.cause : err instanceof ApplicationFailure ? err : undefined;
    const type = cause instanceof ApplicationFailure && cause.type ? cause.type : WORKFLOW_FAILURE_TYPES.pipelineFailed;
    const text = own ? err.message : `pipeline '${spec.name}' failed: ${message}`;
    throw ApplicationFailure.nonRetryable(`${text}${undelivered}`, type);
  }
}

/** Who can cancel a run, said in the row of every cancelled run. */
const CANCEL_SOURCES = "a cancel from the Temporal Web UI or CLI, or a schedule's overlap policy cancel_other";

/**
 * Finishes a cancelled run's pipeline_runs row as 'cancelled', outside the cancelled scope (CANCEL_PATCH). The
 * destination itself may be unreachable: that is logged, and the workflow still ends CANCELLED.
 */
async function finishCancelledRow(
  activities: { finishPipelineRun: Activities['finishPipelineRun'] },
  ref: Omit<FinishPipelineRunInput, 'status' | 'error'>,
  error: string,
): Promise<void> {
  await CancellationScope.nonCancellable(async () => {
    try {
      await activities.finishPipelineRun({ ...ref, status: 'cancelled', error });
    } catch (finishErr) {
      log.warn('the cancelled run could not be recorded in pipeline_runs', { error: causeMessage(finishErr) });
    }
  });
}

/** Runs started before the plan checked the alerts' webhooks replay without the check. Keep the id. */
export const NOTIFY_CHECK_PATCH = 'scrape-etl-notify-check-1';

/**
 * Fewer history events and billable actions (issue 29): the run's row started by the plan, bookkeeping as local
 * activities, the alerts step only when a webhook would hear it, no patched() markers for steps every such run has
 * (each marker is an event, and a workflow task with a marker is an action), and a small URL list loaded by a local
 * activity. Runs started before it replay their old steps. Keep the id; deprecatePatch it once none can be open.
 */
export const LEAN_PATCH = 'scrape-etl-lean-1';

/**
 * A cancelled run finishes its pipeline_runs row as 'cancelled' (outside the cancelled scope) and ends CANCELLED;
 * before it, its row stayed 'running' and the workflow ended FAILED. Asked only once a cancellation reached the
 * workflow, so only cancelled runs' histories have the marker. Keep the id.
 */
export const CANCEL_PATCH = 'scrape-etl-cancel-1';

/** The run's mode and tuning: from the first run's plan, or carried over continue-as-new. */
async function planRun(
  input: PipelineWorkflowInput,
  begin: BeginPipelineRunInput | undefined,
): Promise<{
  mode: RunMode;
  tuning: WorkerTuning;
  alerts?: boolean;
  beginError?: string;
  beginErrorType?: string;
  budgetRefusal?: BudgetStop;
}> {
  const lean = begin !== undefined;
  const local = lean
    ? proxyLocalActivities<Activities>({
        startToCloseTimeout: '1m',
        retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: PLAN_ATTEMPTS },
      })
    : proxyLocalActivities<Activities>({ startToCloseTimeout: '10s', retry: { maximumAttempts: 3 } });
  try {
    // The input goes along for its seal: a run a neighbour started on an unauthenticated server fails here.
    // The pipeline's webhooks are checked by the worker before the first run's work (not on a continue-as-new resume).
    const checkNotify = !input.resume && input.spec.notify !== undefined && (lean || patched(NOTIFY_CHECK_PATCH));
    const plan = await local.planPipelineRun({
      kind: input.spec.kind,
      ...(checkNotify ? { notify: input.spec.notify } : {}),
      sealed: { spec: input.spec, runKey: input.runKey, urlList: input.urlList, seal: input.seal },
      // A resumed run's row was started by its first run.
      ...(lean && !input.resume ? { begin } : {}),
      // A new run of a budgeted pipeline is held to its forecast before any call, whoever started it.
      ...(lean && !input.resume && (input.spec.budget || input.spec.project_budget)
        ? {
            budget: {
              ...(input.spec.budget ? { budget: input.spec.budget } : {}),
              ...(input.spec.project_budget ? { project_budget: input.spec.project_budget } : {}),
              urlCount: input.urlList?.count ?? urlsOf(input.spec).length,
            },
          }
        : {}),
      ...(lean ? { askAlerts: true } : {}),
    });
    return input.resume ? { ...plan, tuning: input.resume.tuning } : plan;
  } catch (err) {
    // A cancel while the plan runs ends the workflow CANCELLED, as one later does (CANCEL_PATCH), not as a failed
    // plan; the row the plan may have begun is finished 'cancelled'. Asked only on a cancellation, as there.
    if (isCancellation(err) && patched(CANCEL_PATCH)) {
      if (begin !== undefined) {
        const { scheduledAt: _scheduledAt, ...ref } = begin;
        await finishCancelledRow(local, ref, `the run was cancelled before it started (${CANCEL_SOURCES})`);
      }
      throw err;
    }
    // The activity names the failure (UnknownPipelineKind, BadWorkerTuning); keep its type, never retry it.
    const cause = err instanceof ActivityFailure ? err.cause : err;
    const type = cause instanceof ApplicationFailure && cause.type ? cause.type : 'PlanFailed';
    throw ApplicationFailure.nonRetryable(causeMessage(err), type);
  }
}
