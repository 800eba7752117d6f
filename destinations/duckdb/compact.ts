// A DuckDB file never gives free blocks back: every checkpoint writes the row groups and ART indexes a load
// changed into new blocks and frees the old ones, and later checkpoints reuse only some of them. A destination that
// grew by loads and runs was a third free blocks at 20,000 products (issue #39). When a file is closed after a
// session, its free share is read after a checkpoint; past MAX_FREE_SHARE the file is compacted by the copy that
// rewrite-format.ts makes (DuckDB's own COPY FROM DATABASE: every table, sequence value, key and index), which has no
// free blocks. The copy is made by the instance that has the file open, before it is closed, so DuckDB's own lock
// keeps other programs from writing the old file until it is replaced; the caller holds the file's lock file too.
import type { DuckDBConnection } from '@duckdb/node-api';

/** The most of a closed file's blocks that may be free; past it the file is compacted. */
export const MAX_FREE_SHARE = 0.1;

export interface BlockCounts {
  total: number;
  free: number;
}

/** The file's blocks, total and free, as DuckDB counts them (`pragma_database_size`). */
export async function blockCounts(conn: DuckDBConnection): Promise<BlockCounts> {
  const row = (
    await conn.runAndReadAll(
      'SELECT total_blocks, free_blocks FROM pragma_database_size() WHERE database_name = current_database()',
    )
  ).getRows()[0];
  return { total: Number(row?.[0] ?? 0), free: Number(row?.[1] ?? 0) };
}

export function needsCompaction(blocks: BlockCounts): boolean {
  return blocks.total > 0 && blocks.free > MAX_FREE_SHARE * blocks.total;
}
