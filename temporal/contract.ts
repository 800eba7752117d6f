// The one Temporal contract between the pipeline workflow and everything that starts, schedules, queries or
// lists it: the workflow type, the query, workflow ids and run keys, and the input/progress/result shapes.
// Pure TypeScript with no imports of Node or the SDK, so the workflow bundle, the CLI and the tests all use it.
import type { Sinks } from '@temporalio/workflow';
import type { NotifyEventName, PipelineKind, PipelineSpec } from '../pipelines/spec.js';
import type { DataOutcome, RunStateReason } from '../lib/run-states.js';

/** Registered name of the workflow function (workflows/pipeline.ts exports a function of this name). */
export const PIPELINE_WORKFLOW_TYPE = 'pipelineWorkflow';
/** Name of the query that answers a PipelineProgress. */
export const PROGRESS_QUERY = 'progress';
/** Run key of every scheduled run: Temporal appends the scheduled time to the workflow id. */
export const SCHEDULED_RUN_KEY = 'scheduled';

/** Custom search attributes of every run (Keyword; temporal/visibility.ts sets them where they are registered). */
export const SEARCH_ATTRIBUTE_NAMES = {
  pipeline: 'ScrapeEtlPipeline',
  kind: 'ScrapeEtlKind',
  destination: 'ScrapeEtlDestination',
  /**
   * The run's outcome as the data sees it: 'running', then 'succeeded' | 'partial' | 'failed'. A partial run is a
   * COMPLETED workflow; this (or, where it is not registered, the memo's `status`) is what shows it in the Web UI.
   */
  status: 'ScrapeEtlStatus',
} as const;

/** How a kind runs; the workflow has one module per mode (workflows/) mirroring activities/. */
export type RunMode = 'create-and-wait' | 'url-list' | 'results-sync';
export const RUN_MODES: readonly RunMode[] = ['create-and-wait', 'url-list', 'results-sync'];

/** Workflow id of one run of a pipeline: the same id for the same run key makes a start idempotent. */
export function pipelineWorkflowId(pipelineName: string, runKey: string): string {
  return `${pipelineName}--${runKey}`;
}

/**
 * A Schedule starts every action with the same arguments (run key 'scheduled') and appends the scheduled time
 * to the workflow id, so a scheduled run's id is '<name>--scheduled-<RFC 3339 time>': unique per run.
 */
export function scheduledWorkflowIdPrefix(pipelineName: string): string {
  return `${pipelineWorkflowId(pipelineName, SCHEDULED_RUN_KEY)}-`;
}

/** Whether a workflow id belongs to (pipeline, run key), accepting the ids Temporal gives scheduled runs. */
export function workflowIdMatches(workflowId: string, pipelineName: string, runKey: string): boolean {
  if (workflowId === pipelineWorkflowId(pipelineName, runKey)) return true;
  return runKey === SCHEDULED_RUN_KEY && workflowId.startsWith(scheduledWorkflowIdPrefix(pipelineName));
}

/** A run key from the clock, e.g. 20250314T101500123Z: sortable and valid in a workflow id. */
export function runKeyNow(now: Date = new Date()): string {
  return now.toISOString().replace(/[-:.]/g, '');
}

/** Rows per table; summed by the workflow for progress (the pipeline_runs row is counted from the database). */
export type RowCounts = Record<string, number>;

/**
 * Attempts of the planPipelineRun local activity of workflows since LEAN_PATCH (it also starts the run's row): the
 * activity reports a row it could not start on the last one instead of throwing (activities/plan.ts).
 */
export const PLAN_ATTEMPTS = 5;

/** Workers' maxHeartbeatThrottleInterval (temporal/worker.ts), and what temporal/actions.ts estimates heartbeats with. */
export const MAX_HEARTBEAT_THROTTLE_MS = 240_000;

export interface FailedUrl {
  url: string;
  error: string;
}

/** Worker-side knobs that end up in activity options (read from the worker's configuration once per run). */
export interface WorkerTuning {
  /** Heartbeat timeout of long activities: how soon a crashed worker's activity is retried elsewhere. */
  heartbeatTimeout: string;
  /**
   * Heartbeat timeout of the activity that waits for a scraping run (since LEAN_PATCH): how soon a crashed worker's
   * wait is taken over, against one billed heartbeat per 80% of it. Optional in histories from before it (5m then).
   */
  waitHeartbeatTimeout?: string;
  /** Start-to-close timeout of one loading activity attempt. */
  activityTimeout: string;
  /** URLs per fan-out activity (each activity loads its chunk with p-limit(spec.concurrency)). */
  urlChunkSize: number;
  /**
   * urlChunkSize was set (SCRAPE_ETL_URL_CHUNK_SIZE): chunks are exactly that long. Unset, runs since LEAN_PATCH
   * grow the chunks of a long list from it (workflows/url-lists.ts chunkSizeFor).
   */
  urlChunkFixed?: boolean;
  /**
   * URL responses loaded per transaction, each still atomic (activities/url-lists.ts ChunkWriter);
   * 1: a transaction per URL. Read by the activity from its worker's tuning; optional in histories from before it.
   */
  urlLoadGroup?: number;
  /** Pages per results-sync activity, and activities per workflow run before continue-as-new. */
  pagesPerActivity: number;
  activitiesPerRun: number;
  /** Results per transaction when loading a run's results. */
  loadBatchSize: number;
}

export interface ResultsCursor {
  nextPage: number;
  watermark: string | null;
  highestId: string | null;
  /** Lowest result id seen in this pass, and pages in a row that went no lower (a list that does not advance). */
  lowestId: string | null;
  stalledPages: number;
  /** Hash of the last page's ids: a page repeating it adds nothing. */
  lastPageKey: string | null;
}

/**
 * An event of a run for the alerts (activities/notify.ts). The workflow sends its status event when the run ends,
 * with every other event the run collected on the way (`ModeContext.alerts`). 'schema_changed' is added by
 * the notify activity from schema_history (activities/notify.ts).
 */
export interface NotifyEvent {
  event: NotifyEventName;
  detail?: string | null;
}

/** Carried across continue-as-new (long URL lists and the results sync go on for as long as they are). */
export interface PipelineResumeState {
  tuning: WorkerTuning;
  /** results-sync: where the pass goes on. */
  cursor?: ResultsCursor;
  /** url-list: the next URL to load, and the URLs that failed for good so far (count, first ones listed). */
  urlOffset?: number;
  failedUrlCount?: number;
  failedUrls?: FailedUrl[];
  pagesLoaded: number;
  resultsLoaded: number;
  rowsLoaded: RowCounts;
  continuedAsNew: number;
  /** Alert events collected before continue-as-new, sent when the run ends. */
  alerts?: NotifyEvent[];
}

/** A URL list stored in the destination database (db/store/url-lists.ts) instead of the workflow's input. */
export interface UrlListRef {
  /** SHA-256 of the list. */
  listId: string;
  count: number;
}

export interface PipelineWorkflowInput {
  /** For URL-list kinds with `urlList`, `spec.request.urls` is empty: the list is read by reference. */
  spec: PipelineSpec;
  runKey: string;
  urlList?: UrlListRef;
  resume?: PipelineResumeState;
  /**
   * HMAC of spec, runKey and urlList with the data folder's signing key (lib/seal.ts): the worker refuses an input
   * without a valid one (WORKFLOW_FAILURE_TYPES.unsignedInput). Carried unchanged over continue-as-new.
   */
  seal?: string;
}

export type PipelinePhase =
  | 'starting'
  | 'creating'
  | 'waiting'
  | 'loading'
  | 'checking'
  | 'exporting'
  | 'finishing'
  | 'alerting'
  | 'succeeded'
  | 'partial'
  | 'failed_checks'
  | 'failed'
  | 'cancelled';

export interface PipelineProgress {
  workflowId: string;
  pipeline: string;
  kind: PipelineKind;
  phase: PipelinePhase;
  runs: { total: number; waiting: number; loading: number; done: number; ids: string[] };
  urls: { total: number; done: number; failed: number };
  pagesLoaded: number;
  resultsLoaded: number;
  /** Rows loaded per table as reported by the activities (a retried batch may be counted twice here). */
  rowsLoaded: RowCounts;
  /** First failures (at most 100 listed; `urls.failed` has the count). */
  failedUrls: FailedUrl[];
  continuedAsNew: number;
  error: string | null;
  /** Set when the exports failed for good (the data's phase is unaffected). */
  exportError: string | null;
  /** While the phase is 'alerting': how long the deliveries may take at most (notify.deliver_within). */
  alertsWithin?: string;
  /** While the workflow waits out a service outage (url-list mode): the last failure and when it tries again. */
  waiting?: { reason: string; attempt: number; nextAttemptAt: string };
}

/**
 * How a run's alerts ended: 'delivered' (every subscribed webhook accepted), 'failed' (`error` says which were not
 * and why: given up on within notify.deliver_within), 'none' (no webhook was subscribed to the run's events).
 */
export interface AlertOutcome {
  status: 'delivered' | 'failed' | 'none';
  error: string | null;
}

/** One file an export of the run wrote. */
export interface ExportedFileRef {
  table: string;
  /** Absolute path, as the worker wrote it. */
  file: string;
  rows: number;
}

/**
 * 'none': the pipeline has no exports. 'no_new_rows': the exports ran and were incremental, and no table had a row
 * new since the last export, so no file was written. 'failed': the data loaded, the exports did not (exportError).
 */
export type ExportStatus = 'none' | 'succeeded' | 'no_new_rows' | 'failed';

/** One data check's outcome in a run (checks/evaluate.ts; the sample of failing keys is in check_results). */
export interface RunCheckSummary {
  name: string;
  type: string;
  severity: 'warn' | 'error';
  status: 'pass' | 'fail' | 'error' | 'skipped';
  observed: string | null;
  threshold: string | null;
  message: string;
}

export interface PipelineWorkflowResult {
  workflowId: string;
  pipeline: string;
  kind: PipelineKind;
  /** 'failed_checks': the data loaded (and is kept), and an `error` check failed (see `checks`). */
  status: Exclude<DataOutcome, 'failed'>;
  scrapingRunIds: string[];
  /** Rows written (inserted or updated) by this run per table, counted in the destination database at the end. */
  rowsByTable: RowCounts;
  /** Rows its responses held per table, changed or not; absent from results of runs before it was counted. */
  seenByTable?: RowCounts;
  failedUrls: FailedUrl[];
  failedUrlCount: number;
  pagesLoaded: number;
  resultsLoaded: number;
  /** How many files the exports wrote (`exportFiles.length`). */
  exportedFiles: number;
  /** The files the exports wrote; absent in the results of runs that finished before the list was returned. */
  exportFiles?: ExportedFileRef[];
  /** Tables an incremental export found no new row in, so wrote no file for (write_empty: false). */
  exportUnchanged?: string[];
  exportStatus: ExportStatus;
  exportError: string | null;
  /** How the run's alerts ended; absent in results of runs from before it was reported. */
  alerts?: AlertOutcome;
  /** The run's data checks, when the pipeline has any. */
  checks?: RunCheckSummary[];
  /** Events the run's watches found (rows per watch), when the pipeline has any. */
  watchEvents?: Array<{ watch: string; event: string; rows: number }>;
  /** Results the run's loads could not write, quarantined in rejected_results (the run is then 'partial'). */
  rejectedResults?: number;
  /** Values its loads kept out of their columns (pipeline_runs.kept_out; stored NULL, the run's status kept). */
  keptOut?: number;
  /** The run's error when it is 'partial': failed URLs, quarantined results, the budget that stopped it. */
  error?: string | null;
  /** Why the run ended as it did, when a reason of lib/run-states.ts applies ('budget'). */
  reason?: RunStateReason;
  /** The limit that stopped the run's calls (reason 'budget'), and its sentence. */
  budget?: { limit: string; detail: string };
}

/** Failure types the workflow raises itself (non-retryable). */
export const WORKFLOW_FAILURE_TYPES = {
  badWorkflowId: 'BadWorkflowId',
  unknownKind: 'UnknownPipelineKind',
  allUrlsFailed: 'AllUrlsFailed',
  runDeadlineExceeded: 'RunDeadlineExceeded',
  pipelineFailed: 'PipelineFailed',
  unsignedInput: 'UnsignedWorkflowInput',
} as const;

/**
 * How every message about a payload sealed with another key than the reader's starts (temporal/payload-codec.ts
 * sealedWithAnotherKey): the workflow and the worker recognise such a run by it.
 */
export const ANOTHER_KEY = 'sealed with the key ';

/**
 * The worker-side sink a workflow calls when, replaying a run it cannot decrypt, it cannot fail the run itself (its
 * refusal would not match the run's history, so its workflow task would fail for ever): the worker ends the run
 * with the reason (temporal/worker.ts).
 */
export interface SealSinks extends Sinks {
  sealedWithAnotherKey: { endRun(reason: string): void };
}

/** The key of the wrapper that marks a payload the Temporal Web UI must be able to read (see visibleInUi). */
export const VISIBLE_IN_UI_KEY = '__scrapeEtlVisibleInUi';

/**
 * Wraps a memo value that is meant for the Temporal Web UI: the payload codec (temporal/payload-codec.ts), which
 * encrypts every other payload, writes this one in clear as the bare value, so the UI (which has no key) shows
 * it and readers decode the value itself. Only for what is shown on purpose (pipeline, kind, redacted
 * destination, file, status), never for data or secrets. Workflow-safe (no imports).
 */
export function visibleInUi<T>(value: T): { [VISIBLE_IN_UI_KEY]: T } {
  return { [VISIBLE_IN_UI_KEY]: value };
}
