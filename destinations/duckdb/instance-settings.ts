// How a destination file's DuckDB instance uses memory (database.ts opens it with these; parquet.ts lifts the limit
// while DuckDB writes Parquet). Both bound what a load holds whatever the size of the file, so a load's peak does not
// grow with the rows already stored (issue #39; bench/load-duckdb.ts prints the peak for N and 10N products).
import os from 'node:os';

/**
 * WAL size at which DuckDB checkpoints on its own. The WAL's rows wait in memory until the checkpoint, and a
 * checkpoint's own work (row groups compressed, indexes written) grows with them, so this is also what a long
 * load's peak rises by. Every checkpoint also leaves the blocks it rewrote free, which a DuckDB file never gives back:
 * those are taken back when the file is closed (compact.ts), so the threshold no longer needs to be large enough
 * for a whole load to checkpoint once.
 */
export const CHECKPOINT_THRESHOLD = '32MB';

/**
 * DuckDB's memory limit for the instance (its default is most of the machine's memory). DuckDB keeps the blocks it
 * read or wrote cached up to its limit, so a load's process grew with the file it loaded into; capped, DuckDB evicts
 * cached blocks first and, past the limit, writes not yet checkpointed rows to a temporary folder beside the file
 * (`<file>.tmp`, removed when the file is closed). Not lower: a transaction's own new rows must fit under it (an
 * INSERT of 6 million short rows in one transaction fails with "Out of Memory" under a small limit,
 * test/fast/db/db-duckdb-memory-limit.test.ts), and a load's transaction holds whole responses, PDF texts included;
 * a lower limit did not lower a large load's peak either (docs/measurements.md).
 */
export const MEMORY_LIMIT = '256MB';

/**
 * DuckDB's own default limit (80% of the machine's memory), set by value: `RESET memory_limit` reports the default
 * but leaves the instance's buffer pool at the limit it was opened with (DuckDB 1.5; test/fast/db/
 * db-duckdb-memory-limit.test.ts builds an index that fails after a RESET and succeeds after this).
 */
export const LIFTED_MEMORY_LIMIT = `${Math.floor((os.totalmem() * 0.8) / 2 ** 20)}MiB`;

/**
 * Runs `fn` with DuckDB's memory limit lifted to LIFTED_MEMORY_LIMIT, then sets MEMORY_LIMIT again. For work whose memory DuckDB cannot
 * spill: an ART index must fit in memory while it is built, so a schema step that creates an index on a table of an
 * existing file (ddl.ts) would fail with "Out of Memory" under MEMORY_LIMIT once the table holds a few million rows.
 */
export async function withMemoryLimitLifted<T>(
  conn: { run(sql: string): Promise<unknown> },
  fn: () => Promise<T>,
): Promise<T> {
  await conn.run(`SET memory_limit = '${LIFTED_MEMORY_LIMIT}'`);
  try {
    return await fn();
  } finally {
    await conn.run(`SET memory_limit = '${MEMORY_LIMIT}'`);
  }
}
