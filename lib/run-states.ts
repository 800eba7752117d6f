// The one vocabulary of a run's state: what pipeline_runs.status holds, what `status` and `history` print, what the
// console badges, webhooks (`status`), metrics (the `status` label) and the ScrapeEtlStatus search attribute carry.
// Every surface names a state through this module, so a run reads the same word wherever it is shown and whatever
// else is open beside it (issue 36: a run read SUCCEEDED alone and COMPLETED while another run was in progress).
// Pure, with no imports: the workflow bundle uses it too.

/**
 * Each state and the word tables print for it. The ids are stored (pipeline_runs.status), sent (webhooks, metrics,
 * search attribute) and badged (console); the display names are the same words in capitals.
 */
export const RUN_STATES = {
  running: 'RUNNING',
  succeeded: 'SUCCEEDED',
  /** Some URLs failed for good (listed in the error); the others loaded. */
  partial: 'PARTIAL',
  /** The data loaded and is kept, and an `error` data check failed. */
  failed_checks: 'FAILED_CHECKS',
  failed: 'FAILED',
  cancelled: 'CANCELLED',
  /** Its process ended without finishing it (db/store/orphaned-runs.ts). */
  interrupted: 'INTERRUPTED',
  /** A schedule's fire with no run started: an event, not a run (db/store/pipeline-runs.ts isMissedFire). */
  did_not_run: 'DID_NOT_RUN',
  /** Temporal ended the workflow (terminate, or its run timeout) before it recorded an outcome. */
  terminated: 'TERMINATED',
  timed_out: 'TIMED_OUT',
  /** Temporal says the workflow completed, and no outcome of it is recorded in this database. */
  completed: 'COMPLETED',
  unknown: 'UNKNOWN',
} as const;

export type RunState = keyof typeof RUN_STATES;

/**
 * Why a run ended in its state, when its status alone does not say (pipeline_runs.status_reason, the workflow's
 * result `reason`, webhooks' `status_reason`, status and history): the ids are stored and sent, the texts shown.
 */
export const RUN_STATE_REASONS = {
  /** A spend limit (budget:) was reached: the run started no further service calls (budget/, docs/budgets.md). */
  budget: 'a spend limit was reached: no further service calls were started',
} as const;
export type RunStateReason = keyof typeof RUN_STATE_REASONS;

export function isRunStateReason(s: string | null | undefined): s is RunStateReason {
  return typeof s === 'string' && Object.prototype.hasOwnProperty.call(RUN_STATE_REASONS, s);
}

/** A state with its reason as tables print it: 'PARTIAL (budget)'; the state alone without one. */
export function runStateWithReason(state: string | null | undefined, reason: string | null | undefined): string {
  return reason ? `${runStateName(state)} (${reason})` : runStateName(state);
}
export const RUN_STATE_IDS = Object.keys(RUN_STATES) as RunState[];

/** The states a run's pipeline_runs row can hold, in the order they are listed to people. */
export const RECORDED_RUN_STATES = [
  'running',
  'succeeded',
  'partial',
  'failed_checks',
  'failed',
  'cancelled',
  'interrupted',
  'did_not_run',
] as const satisfies readonly RunState[];
export type RecordedRunState = (typeof RECORDED_RUN_STATES)[number];
/** The states a finished run ends in (pipeline_runs, webhooks, metrics, the search attribute). */
export type FinishedRunState = Exclude<RecordedRunState, 'running'>;
/** What a run's data ends as (the workflow's result, its alerts and the search attribute). */
export type DataOutcome = 'succeeded' | 'partial' | 'failed_checks' | 'failed';

/** What pipeline_runs.export_status holds (NULL: no exports, or the run did not reach them). */
export const RECORDED_EXPORT_STATUSES = ['succeeded', 'no_new_rows', 'failed'] as const;
/** What pipeline_runs.alert_status holds once a run's alert deliveries ended (NULL: nothing to send). */
export const ALERT_STATUSES = ['delivered', 'failed'] as const;

export function isRunState(s: string): s is RunState {
  return Object.prototype.hasOwnProperty.call(RUN_STATES, s);
}

/** The word a table prints for a state; an id outside the vocabulary is shown as it is, in capitals. */
export function runStateName(state: string | null | undefined): string {
  if (state === null || state === undefined) return RUN_STATES.unknown;
  return isRunState(state) ? RUN_STATES[state] : state.toUpperCase();
}

/** Temporal's execution status names and the state each means when pipeline_runs records no outcome. */
const FROM_TEMPORAL: Record<string, RunState> = {
  RUNNING: 'running',
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed_out',
  CONTINUED_AS_NEW: 'running',
};

/**
 * A run's state from what is known of it: the outcome pipeline_runs recorded wins (a partial run is a COMPLETED
 * workflow, a failed_checks run too); Temporal's execution status answers only for a run whose row is missing or
 * still says running (is it, right now?).
 */
export function runStateOf(recorded: string | null | undefined, temporalStatus?: string | null): RunState {
  if (recorded && recorded !== 'running') return isRunState(recorded) ? recorded : 'unknown';
  if (temporalStatus) return FROM_TEMPORAL[temporalStatus] ?? 'unknown';
  return recorded === 'running' ? 'running' : 'unknown';
}
