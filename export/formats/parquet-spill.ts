// Where a Parquet export's DuckDB may put its scratch files (spilled blocks, the pipe of destinations/postgres/parquet.ts).
import { basename, dirname, join } from 'node:path';

/**
 * The folder beside the output, named like a partial file of the same export
 * (`.<name>.spill~host~pid~random.partial`), so an export killed mid-write leaves nothing that the next export's
 * removeAbandonedPartials (atomic-file.ts) does not remove.
 */
export function spillFolderFor(path: string): string {
  const name = basename(path);
  const m = /^\.(.+?)(~.*\.partial)$/.exec(name);
  return join(dirname(path), m ? `.${m[1]}.spill${m[2]}` : `.${name}.spill`);
}
