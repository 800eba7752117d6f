// What the per-mode workflow modules share: the run's context, the activity proxies' type, and small
// deterministic helpers. Workflow code only: no I/O, no Node modules.
import { ActivityFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { BudgetStop } from '../activities/types.js';
import type {
  FailedUrl,
  NotifyEvent,
  PipelineProgress,
  PipelineWorkflowInput,
  RowCounts,
  WorkerTuning,
} from '../temporal/contract.js';
import type { PipelineSpec } from '../pipelines/spec.js';

export type ActivityProxies = ReturnType<typeof proxyActivities<Activities>>;

/** Everything a mode's runner gets from the entry workflow. */
export interface ModeContext {
  input: PipelineWorkflowInput;
  spec: PipelineSpec;
  workflowId: string;
  tuning: WorkerTuning;
  progress: PipelineProgress;
  /** Long, heartbeating activities (loads). */
  loading: ActivityProxies;
  /** Short bookkeeping activities. */
  control: ActivityProxies;
  /** URLs that failed for good (url-list mode): how many, and the first MAX_LISTED_FAILURES of them. */
  failures: { count: number; listed: FailedUrl[] };
  /** Alert events the run collected (beyond its final status), sent when it ends; carried over continue-as-new. */
  alerts: NotifyEvent[];
  /** The run takes the steps of LEAN_PATCH (workflows/pipeline.ts): decided once at its start. */
  lean: boolean;
  /** Set when a budget refused a call: the run starts no more calls and ends partial with the reason 'budget'. */
  budgetStop?: BudgetStop;
}

export interface ModeOutcome {
  scrapingRunIds: string[];
}

export type ModeRunner = (ctx: ModeContext) => Promise<ModeOutcome>;

export const MAX_LISTED_FAILURES = 100;

export function addRows(into: RowCounts, rows: RowCounts): void {
  for (const [table, n] of Object.entries(rows)) into[table] = (into[table] ?? 0) + n;
}

export function shortText(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A few tasks at a time; deterministic because workflow code runs single-threaded. */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  });
  await Promise.all(lanes);
}

export function chunked<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export function causeMessage(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause) return causeMessage(err.cause);
  return err instanceof Error ? err.message : String(err);
}

export { urlsOf, withoutUrls } from '../pipelines/spec.js';
