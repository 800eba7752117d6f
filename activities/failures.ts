// How errors leave an activity, and small helpers the activity modules share.
import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import { ScraperApiError } from '../client/index.js';
import { PermanentLoadError } from '../db/model/evolve/errors.js';
import { isPermanentDatabaseError } from '../db/store/permanent-errors.js';
import { kindOf, type KindDefinition } from '../kinds/index.js';
import type { PipelineKind, PipelineSpec } from '../pipelines/spec.js';
import type { RunMode } from '../temporal/contract.js';

/**
 * Client errors become failures that carry only their (already redacted) message and class name: no request,
 * headers or body objects reach history. Errors the client marks non-retryable (400/401/403/404/422, a body
 * that breaks the contract) are not retried by Temporal either, nor are load errors only a changed pipeline file
 * can fix (a frozen schema meeting a new column, a merge key path that is not there).
 */
export function asActivityFailure(err: unknown): unknown {
  if (err instanceof CancelledFailure || err instanceof ApplicationFailure) return err;
  if (err instanceof PermanentLoadError) return ApplicationFailure.nonRetryable(err.message, err.name);
  // A database refusing the data itself (a constraint, a value out of range, a limit): retrying cannot help.
  if (isPermanentDatabaseError(err))
    return ApplicationFailure.nonRetryable(
      `the destination refused the load: ${(err as Error).message}`,
      'PermanentDatabaseError',
    );
  if (err instanceof ScraperApiError) {
    return err.retryable
      ? ApplicationFailure.retryable(err.message, err.name)
      : ApplicationFailure.nonRetryable(err.message, err.name);
  }
  return err;
}

export function isScraperApiError(err: unknown): err is ScraperApiError {
  return err instanceof ScraperApiError;
}

/** Scraping-run ids arrive as decimal strings from the workflow; the client takes number or bigint. */
export function runIdOf(id: string): number | bigint {
  const big = BigInt(id);
  return big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}

export function addRows(into: Record<string, number>, rows: Partial<Record<string, number>>): void {
  for (const [t, n] of Object.entries(rows)) if (n !== undefined) into[t] = (into[t] ?? 0) + n;
}

/**
 * The registry entry of the spec's kind, which must run in `mode`: each mode's activities serve only their own
 * kinds, and anything else reaching them is a programming error, reported once and never retried.
 */
export function kindRunningIn<M extends RunMode>(
  spec: PipelineSpec,
  mode: M,
): Extract<KindDefinition<PipelineKind>, { mode: M }> {
  const def = kindOf(spec.kind);
  if (def.mode !== mode) {
    throw ApplicationFailure.nonRetryable(
      `pipeline kind '${spec.kind}' runs in mode '${def.mode}', not '${mode}'`,
      'BadKind',
    );
  }
  return def as Extract<KindDefinition<PipelineKind>, { mode: M }>;
}
