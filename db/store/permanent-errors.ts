// Which database errors of a load no retry can fix: the data, the pipeline file or the schema must change first.
// Activities turn them into non-retryable failures (activities/failures.ts), so a run fails in seconds with the
// database's message instead of after ten attempts and minutes of backoff (issue 30). Anything not named here
// (locks, deadlocks, serialization failures, lost connections, a full disk, a busy file) stays retryable.

// Postgres SQLSTATE classes and codes: 22 data exception (numeric out of range, invalid datetime), 23 integrity
// constraint violation, 42 syntax error or access rule violation (undefined column, name too long), 54 program
// limit exceeded (row too big, too many columns). 42501 (insufficient privilege) is left retryable: a grant fixes it
// without changing anything of the run.
const PG_PERMANENT_CLASSES = ['22', '23', '42', '54'];
const PG_RETRYABLE = new Set(['42501']);

// SQLite result codes (better-sqlite3's `code`): constraint violations, a value or statement over a limit, a type
// mismatch, a bad parameter index; plus SQLITE_ERROR for the schema errors named in its message.
const SQLITE_PERMANENT = /^SQLITE_(CONSTRAINT\w*|TOOBIG|MISMATCH|RANGE)$/;
const SQLITE_PERMANENT_MESSAGE =
  /too many columns|no such column|has no column named|duplicate column name|too many terms|string or blob too big/i;

// DuckDB names the class at the start of its message.
const DUCKDB_PERMANENT = /^(Conversion|Constraint|Binder|Parser|Out of Range|Invalid Input|Not implemented) Error:/;

/**
 * A destination this process has stopped using (an engine error of an embedded database: destinations/duckdb/
 * engine-errors.ts). Its message names the file and the fix; it stays retryable, so a run resumes once the worker
 * is restarted or the file replaced.
 */
export class DestinationUnusableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DestinationUnusableError';
  }
}

export function isPermanentDatabaseError(err: unknown): boolean {
  if (!(err instanceof Error) || err instanceof DestinationUnusableError) return false;
  const code = (err as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    /^[0-9A-Z]{5}$/.test(code) &&
    (err as { severity?: unknown }).severity !== undefined
  ) {
    return PG_PERMANENT_CLASSES.includes(code.slice(0, 2)) && !PG_RETRYABLE.has(code);
  }
  if (typeof code === 'string' && code.startsWith('SQLITE_')) {
    return SQLITE_PERMANENT.test(code) || (code === 'SQLITE_ERROR' && SQLITE_PERMANENT_MESSAGE.test(err.message));
  }
  return DUCKDB_PERMANENT.test(err.message);
}
