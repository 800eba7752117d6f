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
import { ActivityFailure, ApplicationFailure, ContinueAsNew, defineQuery, proxyActivities, proxyLocalActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
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
} from '../temporal/contract.js';
import { applyRunRetention, sendRunAlerts } from './alerts.js';
import { runResultsSync } from './results-sync.js';
import { runCreateAndWait } from './scraping-runs.js';
import { causeMessage, shortText, withoutUrls, MAX_LISTED_FAILURES, type ModeContext, type ModeRunner } from './shared.js';
import { runUrlList } from './url-lists.js';

export type { PipelinePhase, PipelineProgress, PipelineResumeState, PipelineWorkflowInput, PipelineWorkflowResult, ResultsCursor } from '../temporal/contract.js';

export const progressQuery = defineQuery<PipelineProgress>(PROGRESS_QUERY);

const SCHEDULED_START_TIME = defineSearchAttributeKey('TemporalScheduledStartTime', 'DATETIME');

const RUNNERS: Record<RunMode, ModeRunner> = {
  'create-and-wait': runCreateAndWait,
  'url-list': runUrlList,
  'results-sync': runResultsSync,
};

export async function pipelineWorkflow(input: PipelineWorkflowInput): Promise<PipelineWorkflowResult> {
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

  // Before anything is written: an unknown kind (or malformed worker tuning) fails here, once, with its reason.
  const plan = await planRun(input);
  const tuning: WorkerTuning = plan.tuning;
  const runMode = RUNNERS[plan.mode];
  if (!runMode) {
    throw ApplicationFailure.nonRetryable(`pipeline kind '${spec.kind}' has run mode '${plan.mode}', which this workflow does not know`, WORKFLOW_FAILURE_TYPES.unknownKind);
  }

  const retry = { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10 };
  const control = proxyActivities<Activities>({ startToCloseTimeout: '1m', retry });
  const loading = proxyActivities<Activities>({ startToCloseTimeout: tuning.activityTimeout, heartbeatTimeout: tuning.heartbeatTimeout, retry });
  const ref = { workflowId, pipeline: spec.name, kind: spec.kind, database: spec.destination.database };

  const failures: ModeContext['failures'] = { count: 0, listed: [] };
  const alerts: ModeContext['alerts'] = [...(input.resume?.alerts ?? [])];
  const ctx: ModeContext = { input, spec, workflowId, tuning, progress, loading, control, failures, alerts };
  try {
    if (!input.resume) {
      // A Schedule's runs carry the time they were scheduled for; it is recorded as the run's lineage.
      const scheduledAt = workflowInfo().typedSearchAttributes.get(SCHEDULED_START_TIME);
      await control.beginPipelineRun({ ...ref, ...(scheduledAt ? { scheduledAt: scheduledAt.toISOString() } : {}) });
    }
    const { scrapingRunIds } = await runMode(ctx);

    const urlCount = progress.urls.total;
    if (urlCount > 0 && failures.count === urlCount) {
      throw ApplicationFailure.nonRetryable(
        `all ${urlCount} URLs of pipeline '${spec.name}' failed; first: ${failures.listed[0]?.url}: ${failures.listed[0]?.error}`,
        WORKFLOW_FAILURE_TYPES.allUrlsFailed,
      );
    }

    // The data is loaded; exports are their own phase with their own outcome. An export that fails for good
    // (after its retries) is reported beside the data's status, never instead of it.
    let exportFiles: ExportedFileRef[] = [];
    let exportUnchanged: string[] = [];
    let exportStatus: ExportStatus = 'none';
    let exportError: string | null = null;
    if (spec.exports.length > 0) {
      progress.phase = 'exporting';
      try {
        const exported = await loading.runExports({ workflowId, spec: withoutUrls(spec), startedAt: workflowInfo().startTime.toISOString() });
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
    const asked = failures.count > 0 ? 'partial' : 'succeeded';
    const askedError =
      failures.count > 0
        ? shortText(`${failures.count} of ${urlCount} URLs failed: ${failures.listed.map((f) => `${f.url}: ${f.error}`).join(' | ')}`, 4000)
        : null;
    const finished = await control.finishPipelineRun({ ...ref, status: asked, error: askedError, exportStatus, exportError });
    // Results the loads quarantined (rejected_results) make the run partial; the activity says so in its answer.
    const status = finished.status ?? asked;
    const error = finished.error !== undefined ? finished.error : askedError;
    await sendRunAlerts({ spec, workflowId, status, error, exportStatus, exportError, rowsByTable: finished.rowsByTable, collected: alerts });
    await applyRunRetention(spec);
    progress.phase = status;
    return {
      workflowId,
      pipeline: spec.name,
      kind: spec.kind,
      status,
      scrapingRunIds,
      rowsByTable: finished.rowsByTable,
      failedUrls: failures.listed.slice(0, MAX_LISTED_FAILURES),
      failedUrlCount: failures.count,
      pagesLoaded: progress.pagesLoaded,
      resultsLoaded: progress.resultsLoaded,
      exportedFiles: exportFiles.length,
      exportFiles,
      exportUnchanged,
      exportStatus,
      exportError,
      ...(finished.rejectedResults ? { rejectedResults: finished.rejectedResults, error } : {}),
    };
  } catch (err) {
    // continue-as-new is delivered as a thrown value; it is not a failure.
    if (err instanceof ContinueAsNew) throw err;
    const message = causeMessage(err);
    progress.phase = 'failed';
    progress.error = message;
    try {
      await control.finishPipelineRun({ ...ref, status: 'failed', error: shortText(message, 4000) });
    } catch {
      // The destination itself may be what failed (not a database, no permission): the failure below says so.
    }
    await sendRunAlerts({ spec, workflowId, status: 'failed', error: shortText(message, 4000), exportStatus: 'none', collected: alerts });
    await applyRunRetention(spec);
    if (err instanceof ApplicationFailure) throw err;
    // An activity's own classification (ResultsPagingStuck, ApiValidationError, ...) stays the failure's type.
    const cause = err instanceof ActivityFailure ? err.cause : undefined;
    const type = cause instanceof ApplicationFailure && cause.type ? cause.type : WORKFLOW_FAILURE_TYPES.pipelineFailed;
    throw ApplicationFailure.nonRetryable(`pipeline '${spec.name}' failed: ${message}`, type);
  }
}

/** The run's mode and tuning: from the first run's plan, or carried over continue-as-new. */
async function planRun(input: PipelineWorkflowInput): Promise<{ mode: RunMode; tuning: WorkerTuning }> {
  const local = proxyLocalActivities<Activities>({ startToCloseTimeout: '10s', retry: { maximumAttempts: 3 } });
  try {
    const plan = await local.planPipelineRun({ kind: input.spec.kind });
    return input.resume ? { mode: plan.mode, tuning: input.resume.tuning } : plan;
  } catch (err) {
    // The activity names the failure (UnknownPipelineKind, BadWorkerTuning); keep its type, never retry it.
    const cause = err instanceof ActivityFailure ? err.cause : err;
    const type = cause instanceof ApplicationFailure && cause.type ? cause.type : 'PlanFailed';
    throw ApplicationFailure.nonRetryable(causeMessage(err), type);
  }
}
