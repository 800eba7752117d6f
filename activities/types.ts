// Inputs and outputs of the activities, shared (type-only) with the workflow. Everything here is small:
// ids, counts, cursors and short error texts. Result data never crosses the activity boundary, and neither does
// the API token (activities get their client from the worker, configured from its environment).
import type { NotifyEventName, NotifySpec, PipelineKind, PipelineSpec } from '../pipelines/spec.js';

export type { FailedUrl, RowCounts, WorkerTuning } from '../temporal/contract.js';
import type { ExportStatus, FailedUrl, NotifyEvent, RowCounts } from '../temporal/contract.js';
import type { DataOutcome, RunStateReason } from '../lib/run-states.js';
import type { BudgetSpec, ProjectBudgetSpec } from '../budget/types.js';

export interface RunTarget {
  /** Decimal string: ids may exceed 2^53. */
  scrapingRunId: string;
  scraperName: string;
  /** Keyword (PDF) or 'Default' (leads): for messages. */
  label: string;
}

export interface PipelineRunRef {
  workflowId: string;
  pipeline: string;
  kind: PipelineKind;
  database: string;
}

export interface BeginPipelineRunInput extends PipelineRunRef {
  /** ISO time a Schedule scheduled this run for (lineage: which slot of the schedule it fills). */
  scheduledAt?: string;
}

export interface FinishPipelineRunInput extends PipelineRunRef {
  /**
   * 'partial': some URLs failed for good (listed in `error`) and the others loaded; 'failed_checks': an error check
   * failed; 'cancelled': the workflow was cancelled (workflows/pipeline.ts CANCEL_PATCH).
   */
  status: DataOutcome | 'cancelled';
  error: string | null;
  /** Why it ended so, when a reason of lib/run-states.ts applies ('budget'). */
  statusReason?: RunStateReason;
  /** The pipeline's and its project's budgets, for the budget metrics (activities/metrics.ts). */
  budgets?: { budget?: BudgetSpec; project_budget?: ProjectBudgetSpec };
  /** The exports' own outcome; absent when the run failed before them. */
  exportStatus?: ExportStatus;
  exportError?: string | null;
}

export interface FinishPipelineRunOutput {
  /** Rows whose load belongs to this run, per table (rows unchanged by a re-load keep their older load id). */
  rowsByTable: RowCounts;
  /** Rows the run's responses held per table, changed or not (absent from workers before issue 36). */
  seenByTable?: RowCounts;
  /** Sum of the service's tokenUsage over the run's responses; null when none carried one. */
  tokenUsage: number | null;
  /**
   * The status and error recorded, when they differ from the ones asked for: a run whose loads quarantined
   * results (rejected_results) is `partial`, its error naming them. Absent from workers before issue 30.
   */
  status?: DataOutcome;
  error?: string | null;
  /** Results of the run its loads could not write (rejected_results). */
  rejectedResults?: number;
  /** Values its loads kept out of their columns (pipeline_runs.kept_out); absent when none. */
  keptOut?: number;
}

export interface CreateAndRunInput {
  workflowId: string;
  spec: PipelineSpec;
}

export interface CreateAndRunOutput {
  /** The runs the create started; empty when the scraper was adopted (see `adopted`). */
  runs: RunTarget[];
  /** true when an earlier attempt's recorded response was reused instead of creating a new scraper. */
  reused: boolean;
  rows: RowCounts;
  /**
   * Set when a create's answer was lost (ambiguous failure, or a worker crash before it was recorded) and the
   * scraper it made was found by its name: its runs are then found in /api/results (findAdoptedRuns).
   */
  adopted?: AdoptedScraper;
  /** A budget refused the create: nothing was created and the run ends partial with the reason 'budget'. */
  budget?: BudgetStop;
}

export interface AdoptedScraper {
  /** Decimal string (ids may exceed 2^53). */
  scraperId: string;
  scraperName: string;
  /** ISO time the scraper was created: results older than this cannot be its runs'. */
  createdAt: string;
  expectedRuns: number;
}

export interface FindAdoptedRunsInput {
  pipeline: string;
  scraper: AdoptedScraper;
}

export interface CheckRunInput {
  run: RunTarget;
  pipeline: string;
}

/** A scraping run waited for by one polling activity (waitForScrapingRun), with the pipeline's polling section. */
export interface WaitForRunInput extends CheckRunInput {
  polling: { initial_interval: string; backoff_coefficient: number; max_interval: string; deadline: string };
}

/** What a run-status check passes to its next attempt. */
export interface RunCheckHeartbeat {
  /** Malformed answers in a row (reset by any usable answer). */
  malformedInARow: number;
  /** The last attempt's error, for the message when the polling deadline passes. */
  lastError: string | null;
}

export interface LoadRunResultsInput {
  workflowId: string;
  spec: PipelineSpec;
  run: RunTarget;
}

export interface LoadRunResultsOutput {
  results: number;
  batches: number;
  /** Results found only by paging /api/results because the run detail did not carry them all. */
  fromResultsList: number;
  rows: RowCounts;
}

/** What a retried loading activity finds in its last heartbeat. */
export interface LoadRunHeartbeat {
  /** Index (in the run detail's results) of the next batch to load. */
  nextIndex: number;
  batches: number;
  rows: RowCounts;
}

export interface UrlChunkInput {
  workflowId: string;
  spec: PipelineSpec;
  /** Index of the chunk's first URL in the pipeline's list (for messages, and where a stored list is read). */
  offset: number;
  /** The chunk's URLs when the list travels inline; [] when it is read from the stored list (`list`). */
  urls: string[];
  /** The stored list (db/store/url-lists.ts) and how many of its URLs from `offset` this chunk loads. */
  list?: { listId: string; count: number };
  /**
   * The workflow waits out a service outage (workflows/url-lists.ts, up to polling.deadline): when every URL the
   * attempt tried failed for want of the service, the activity says so (ServiceUnavailable) instead of reporting the
   * URLs as failed. Absent from older workflows, whose URLs failed after ~15 s of outage.
   */
  outageRetry?: boolean;
  /**
   * This chunk was tried before and given up for an outage: responses an earlier activity landed are looked up in
   * raw_responses (as a retried attempt does), so a URL loaded before the outage is not fetched and paid again.
   */
  afterOutage?: boolean;
}

export interface UrlChunkOutput {
  succeeded: number;
  failed: FailedUrl[];
  rows: RowCounts;
  /** A budget refused a call: the chunk's URLs not called stay undone, and the run starts no more calls. */
  budget?: BudgetStop;
}

/** Why a run stopped starting service calls: a limit of its budget was reached (budget/meter.ts). */
export interface BudgetStop {
  /** The limit's key, e.g. 'budget.calls.run'. */
  limit: string;
  /** The sentence the run's error carries: the limit, what was spent, the fix. */
  detail: string;
  /** URLs of the chunk not called because of it. */
  notCalled?: number;
  /** The run's forecast exceeded the limit: it was refused before its first call (activities/plan.ts). */
  beforeStart?: true;
}

export interface UrlChunkHeartbeat {
  /** Indices within the chunk already loaded or finally failed. */
  done: number[];
  failed: FailedUrl[];
  rows: RowCounts;
}

export interface ResultsPagesInput {
  workflowId: string;
  spec: PipelineSpec;
  /** Page to start from (1 = newest). */
  startPage: number;
  /** Results with id <= watermark were loaded by an earlier complete sync; reaching one ends the sync. */
  watermark: string | null;
  /** Pages this activity may load before handing back to the workflow. */
  maxPages: number;
  /** Lowest result id seen so far in this pass (decimal string), null before the first page. */
  lowestId: string | null;
  /** Pages in a row that added nothing and repeated the page before, and a hash of the last page's ids. */
  stalledPages: number;
  lastPageKey: string | null;
}

export interface ResultsPagesOutput {
  nextPage: number;
  done: boolean;
  pagesLoaded: number;
  resultsLoaded: number;
  /** Highest result id seen in these pages (decimal string), null if none. */
  highestId: string | null;
  lowestId: string | null;
  stalledPages: number;
  lastPageKey: string | null;
  rows: RowCounts;
}

export interface ResultsPagesHeartbeat {
  nextPage: number;
  pagesLoaded: number;
  resultsLoaded: number;
  highestId: string | null;
  lowestId: string | null;
  stalledPages: number;
  lastPageKey: string | null;
  rows: RowCounts;
}

export interface WatermarkInput {
  database: string;
  pipeline: string;
}

export interface CommitWatermarkInput extends WatermarkInput {
  watermark: string;
}

export interface ExportsInput {
  workflowId: string;
  spec: PipelineSpec;
  /** The run's start time (ISO 8601): what {timestamp} in file names renders, the same in every attempt. */
  startedAt: string;
}

/** Export entries (index in spec.exports) already written by an earlier attempt, with their files. */
export interface ExportsHeartbeat {
  /** [entry, files written, tables unchanged (no new rows, no file)]; the third is absent in older heartbeats. */
  done: Array<[number, ExportsOutput['files'], string[]?]>;
}

export interface ExportsOutput {
  files: Array<{ table: string; file: string; rows: number }>;
  /** Tables of incremental entries with no row new since the last export: no file was written for them. */
  unchanged: string[];
}

/** The activity adds 'duration_over' itself when the run took longer than the limit (see NotifyEvent). */
export type { NotifyEvent };

export interface NotifyRunInput extends PipelineRunRef {
  /** First run id of the execution chain (continue-as-new keeps it): with the workflow id, what makes a run unique. */
  runId: string;
  /** The pipeline file's `notify` section (webhook URLs still as `${VAR}` templates); absent: the worker's default. */
  notify?: NotifySpec;
  events: NotifyEvent[];
  status: DataOutcome;
  error: string | null;
  exportStatus?: ExportStatus;
  exportError?: string | null;
  /** Rows by table when the workflow knows them (else read from pipeline_runs). */
  rowsByTable?: RowCounts;
  /** Rows seen by table, likewise. */
  seenByTable?: RowCounts;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /**
   * The bound of all deliveries, retries included (notify.deliver_within), from when the activity was first
   * scheduled. Absent in runs of older workflows: their policy retried for up to ~15 minutes.
   */
  deliverWithinMs?: number;
  /** The pipeline's and its project's budgets: the activity adds budget_warning / budget_exhausted (budget/alerts.ts). */
  budgets?: { budget?: BudgetSpec; project_budget?: ProjectBudgetSpec };
}

export interface NotifyRunOutput {
  /** Deliveries accepted in this attempt, and ones an earlier attempt had already made (found in notify_deliveries). */
  sent: number;
  alreadySent: number;
  events: NotifyEventName[];
  /** Deliveries given up on (bounded runs only), one line each; absent from older workers' answers. */
  undelivered?: string[];
  /** One line saying what was not delivered, null when everything was. */
  error?: string | null;
}
