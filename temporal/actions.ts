// Temporal Cloud's billable actions of a workflow run, counted from its event history the way Temporal Cloud's
// documentation says it counts them (docs.temporal.io/cloud/actions, read 2026-11-26), so a change to the workflow
// can be priced before it ships. Used by bench/many-runs.ts and test/integration/temporal/temporal-actions.test.ts.
//
// Counted from history (one action each):
// - a workflow started (client start, schedule, continue-as-new: each run's own WorkflowExecutionStarted);
// - an activity scheduled, and each retry of it (ActivityTaskStarted.attempt - 1: retries write no events);
// - the markers of one workflow task, together (local activities and patch markers alike: "all RecordMarkers from
//   each Workflow Task as one action"), plus each non-first local activity attempt (metering metadata);
// - a timer started; a search attribute upsert (except one that sets only TemporalChangeVersion); a signal
//   received; an update accepted; workflow options updated; a child workflow initiated (two).
// Not in history, so added by the caller where it knows them:
// - activity heartbeats that reach the server: estimated (unless `heartbeats: false`) for the activity types that
//   heartbeat as they work (HEARTBEATING; the alert and watch deliveries heartbeat once per webhook, which history
//   does not say, so they are left out): each attempt sends its first at once,
//   then the SDK throttles them to one per min(80% of the heartbeat timeout, the worker's cap: 4 min), so 1 per attempt plus the last
//   attempt's duration over that throttle (earlier attempts' durations are not in history);
// - queries (`run` counts those it makes); workflow task heartbeats of local activities longer than the task timeout.
// Not billed: the memo (WorkflowPropertiesModified), workflow tasks themselves, describe, history reads, long polls.
import proto from '@temporalio/proto';
// Our workers' cap on the heartbeat throttle (the SDK's default is 60 s).
import { MAX_HEARTBEAT_THROTTLE_MS } from './contract.js';

// A CommonJS module: its namespace is its default export.
const { temporal } = proto;
type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

export interface ActionCount {
  /** Events in the history. */
  events: number;
  /** Billable actions found in history, plus the heartbeats estimated when asked. */
  actions: number;
  /** Actions by what caused them (e.g. `activity:loadUrlChunk`, `markers`, `start`, `upsert`). */
  by: Record<string, number>;
}

export interface ActionCountOptions {
  /** Estimate the heartbeats of activities that have a heartbeat timeout (default true). */
  heartbeats?: boolean;
}

/** Our activities that heartbeat on every attempt as they work (activities/*.ts). */
export const HEARTBEATING: readonly string[] = [
  'loadUrlChunk',
  'loadRunResults',
  'loadResultsPages',
  'waitForScrapingRun',
  'checkRunStatus',
  'runExports',
];

function ms(ts: { seconds?: unknown; nanos?: number | null } | null | undefined): number {
  if (!ts) return 0;
  const s = ts.seconds as number | { toNumber(): number } | null | undefined;
  const sec = s === null || s === undefined ? 0 : typeof s === 'object' ? s.toNumber() : Number(s);
  return sec * 1000 + Math.floor((ts.nanos ?? 0) / 1e6);
}

function num(v: unknown): number {
  if (v === null || v === undefined) return 0;
  return typeof v === 'object' ? (v as { toNumber(): number }).toNumber() : Number(v);
}

/** The billable actions of one run's history (a continue-as-new chain: sum the runs). */
export function countActions(events: readonly HistoryEvent[], opts: ActionCountOptions = {}): ActionCount {
  const T = temporal.api.enums.v1.EventType;
  const by: Record<string, number> = {};
  const add = (what: string, n = 1) => {
    if (n > 0) by[what] = (by[what] ?? 0) + n;
  };
  const scheduled = new Map<number, { type: string; heartbeatMs: number }>();
  const started = new Map<number, { type: string; at: number; attempt: number; heartbeatMs: number }>();
  const markerTasks = new Set<number>();
  for (const e of events) {
    const id = num(e.eventId);
    switch (e.eventType) {
      case T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
        add('start');
        break;
      case T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED: {
        const a = e.activityTaskScheduledEventAttributes;
        const type = a?.activityType?.name ?? '?';
        const hb = a?.heartbeatTimeout;
        scheduled.set(id, { type, heartbeatMs: hb ? num(hb.seconds) * 1000 + Math.floor((hb.nanos ?? 0) / 1e6) : 0 });
        add(`activity:${type}`);
        break;
      }
      case T.EVENT_TYPE_ACTIVITY_TASK_STARTED: {
        const a = e.activityTaskStartedEventAttributes;
        const s = scheduled.get(num(a?.scheduledEventId));
        const type = s?.type ?? '?';
        add(`retry:${type}`, (a?.attempt ?? 1) - 1);
        started.set(num(a?.scheduledEventId), {
          type,
          at: ms(e.eventTime),
          attempt: a?.attempt ?? 1,
          heartbeatMs: s?.heartbeatMs ?? 0,
        });
        break;
      }
      case T.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
      case T.EVENT_TYPE_ACTIVITY_TASK_FAILED:
      case T.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT:
      case T.EVENT_TYPE_ACTIVITY_TASK_CANCELED: {
        const attrs =
          e.activityTaskCompletedEventAttributes ??
          e.activityTaskFailedEventAttributes ??
          e.activityTaskTimedOutEventAttributes ??
          e.activityTaskCanceledEventAttributes;
        const s = started.get(num(attrs?.scheduledEventId));
        if (s && s.heartbeatMs > 0 && opts.heartbeats !== false && HEARTBEATING.includes(s.type)) {
          const throttle = Math.min(0.8 * s.heartbeatMs, MAX_HEARTBEAT_THROTTLE_MS);
          add(`heartbeat:${s.type}`, s.attempt + Math.floor((ms(e.eventTime) - s.at) / throttle));
        }
        break;
      }
      case T.EVENT_TYPE_MARKER_RECORDED:
        markerTasks.add(num(e.markerRecordedEventAttributes?.workflowTaskCompletedEventId));
        break;
      case T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
        add(
          'local-activity-retry',
          e.workflowTaskCompletedEventAttributes?.meteringMetadata?.nonfirstLocalActivityExecutionAttempts ?? 0,
        );
        break;
      case T.EVENT_TYPE_TIMER_STARTED:
        add('timer');
        break;
      case T.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES: {
        const fields = Object.keys(
          e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {},
        );
        if (fields.some((f) => f !== 'TemporalChangeVersion')) add('upsert');
        break;
      }
      case T.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
        add('signal');
        break;
      case T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
        add('update');
        break;
      case T.EVENT_TYPE_WORKFLOW_EXECUTION_OPTIONS_UPDATED:
        add('options');
        break;
      case T.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
        add('child', 2);
        break;
      default:
        break;
    }
  }
  add('markers', markerTasks.size);
  return { events: events.length, actions: Object.values(by).reduce((s, n) => s + n, 0), by };
}

/** `4 actions (start 1, markers 2, activity:loadUrlChunk 1)` */
export function formatActions(c: ActionCount): string {
  const parts = Object.entries(c.by)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`);
  return `${c.actions} actions (${parts.join(', ')})`;
}
