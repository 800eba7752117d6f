// How a destination file's DuckDB instance uses memory (database.ts opens it with these; parquet.ts lifts the limit
// while DuckDB writes Parquet). Both bound what a load holds whatever the size of the file, so a load's peak does not
// grow with the rows already stored (issue #39; bench/load-duckdb.ts prints the peak for N and 10N products).

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
 * (`<file>.tmp`, removed when the file is closed).
 */
export const MEMORY_LIMIT = '64MB';
