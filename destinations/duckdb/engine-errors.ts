// Errors of the DuckDB engine itself, as opposed to errors of a statement: an internal assertion (after which DuckDB
// invalidates the database), or a file it cannot read back (a checksum or deserialization failure). Retrying on the
// same instance cannot help, and an instance in that state has been seen to spin in its own rollback for minutes
// (issue #41). So the process stops using the file at once (database.ts): the error names the file and what to do,
// and every later session of the file in this process fails with it in no time, until the file is replaced (a
// damaged file) or the process restarts (an invalidated instance).
import { DestinationUnusableError } from '../../db/store/permanent-errors.js';

/** Messages after which the instance itself is unusable: it is abandoned, not closed (closing runs its rollback). */
const INSTANCE_BROKEN = /^(INTERNAL|FATAL) Error:|database has been invalidated/im;
/** Messages that say the file's bytes are not what DuckDB wrote. */
const FILE_DAMAGED = /^Serialization Error:|Failed to deserialize|Corrupt database file/im;

export type EngineErrorKind = 'instance' | 'file';

export function engineErrorKind(err: unknown): EngineErrorKind | undefined {
  if (err instanceof DuckDBEngineError) return err.kind;
  if (!(err instanceof Error)) return undefined;
  if (INSTANCE_BROKEN.test(err.message)) return 'instance';
  if (FILE_DAMAGED.test(err.message)) return 'file';
  return undefined;
}

export class DuckDBEngineError extends DestinationUnusableError {
  constructor(
    readonly file: string,
    readonly kind: EngineErrorKind,
    cause: unknown,
  ) {
    const first = (cause instanceof Error ? cause.message : String(cause)).split('\n')[0]!.trim();
    const fix =
      kind === 'instance'
        ? 'restart the worker (`scrape-etl down`, then `scrape-etl up`); if the error comes back, check that the file opens in the duckdb CLI or Python duckdb'
        : 'check that the file opens in the duckdb CLI or Python duckdb; restore it from a backup or move it aside (a new file is created)';
    super(`DuckDB engine error on ${file}: ${first}. This process stops using the file; ${fix}`, { cause });
    this.name = 'DuckDBEngineError';
  }
}
