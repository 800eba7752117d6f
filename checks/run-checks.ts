// Checks evaluated and recorded, failures counted in the metrics: what a run's checks activity, `scrape-etl check`
// and up's freshness watch share. `evaluateFreshness` is the evaluation without a run, for `scrape-etl up`'s
// freshness watch (monitor/freshness-watch.ts) or `scrape-etl check --freshness`: a pipeline that silently stopped
// running is caught by it.
import type { Database } from '../destinations/contract.js';
import type { CheckSpec, PipelineSpec } from '../pipelines/spec.js';
import type { RunCheckSummary } from '../temporal/contract.js';
import type { Metrics } from '../temporal/metrics.js';
import { describeFailures, evaluateChecks, recordCheckResults, type CheckResult } from './evaluate.js';

/** A check's outcome as the workflow result and history carry it (the full sample stays in check_results). */
export type CheckSummary = RunCheckSummary;

export interface RunChecksOutput {
  results: CheckSummary[];
  /** `error` checks that failed or could not be evaluated: the run ends failed_checks. */
  errorsFailed: number;
  warnsFailed: number;
  /** The failures in a few lines, for the run's error and the check_failed alert; null when none failed. */
  detail: string | null;
}

export function summarize(results: readonly CheckResult[]): RunChecksOutput {
  const bad = results.filter((r) => r.status === 'fail' || r.status === 'error');
  return {
    results: results.map((r) => ({
      name: r.name,
      type: r.type,
      severity: r.severity,
      status: r.status,
      observed: r.observed,
      threshold: r.threshold,
      message: r.message.slice(0, 500),
    })),
    errorsFailed: bad.filter((r) => r.severity === 'error').length,
    warnsFailed: bad.filter((r) => r.severity === 'warn').length,
    detail: bad.length > 0 ? describeFailures(results).slice(0, 4000) : null,
  };
}

/** Evaluates checks, records them and counts failures in the metrics: what a run, `check` and freshness share. */
export async function evaluateAndRecord(
  db: Database,
  o: {
    pipeline: string;
    workflowId: string;
    checks: readonly CheckSpec[];
    rowsLoaded?: Record<string, number>;
    metrics?: Metrics;
    now?: Date;
  },
): Promise<RunChecksOutput & { full: CheckResult[] }> {
  const results = await evaluateChecks(db, {
    pipeline: o.pipeline,
    workflowId: o.workflowId,
    checks: o.checks,
    ...(o.rowsLoaded ? { rowsLoaded: o.rowsLoaded } : {}),
    ...(o.now ? { now: o.now } : {}),
  });
  await recordCheckResults(db, o.pipeline, o.workflowId, results, o.now);
  for (const r of results)
    if (r.status === 'fail' || r.status === 'error')
      o.metrics?.checkFailed({ pipeline: o.pipeline, check: r.name, severity: r.severity });
  return { ...summarize(results), full: results };
}

/**
 * Freshness checks of a pipeline evaluated now, without a run: for a scheduler to call periodically (`up`), a
 * Temporal schedule, or `scrape-etl check --freshness`. Results land in check_results under the id
 * `freshness:<ISO time>`; failures are counted in `metrics` when given. Returns the summary (no alerts are sent
 * here: the caller decides, e.g. with sendCheckAlert).
 */
export async function evaluateFreshness(
  db: Database,
  spec: PipelineSpec,
  o: { now?: Date; metrics?: Metrics } = {},
): Promise<RunChecksOutput & { workflowId: string }> {
  const now = o.now ?? new Date();
  const checks = (spec.checks ?? []).filter((c) => c.type === 'freshness');
  const workflowId = `freshness:${now.toISOString()}`;
  const out = await evaluateAndRecord(db, {
    pipeline: spec.name,
    workflowId,
    checks,
    now,
    ...(o.metrics ? { metrics: o.metrics } : {}),
  });
  const { full: _full, ...summary } = out;
  return { ...summary, workflowId };
}
