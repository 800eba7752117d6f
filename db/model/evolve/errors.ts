// Load errors that no retry can fix: the data or the pipeline file must change first. Activities turn them into
// non-retryable failures (activities/failures.ts), so a run fails once with this message instead of retrying.
export class PermanentLoadError extends Error {
  override name = 'PermanentLoadError';
}

/** A `schema: { mode: freeze }` pipeline met a new column, table or type; nothing of that batch was written. */
export class SchemaContractError extends PermanentLoadError {
  override name = 'SchemaContractViolation';
}

/** A `merge_key` path that a result's content does not have, or that holds an object or list. */
export class MergeKeyError extends PermanentLoadError {
  override name = 'MergeKeyError';
}
