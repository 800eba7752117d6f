// Probing a DuckDB destination file without opening it.
import fs from 'node:fs';
import path from 'node:path';
import { existingDatabaseFile } from '../file-probe.js';

/**
 * DuckDB: an existing path must be a writable file (it is not opened here: a worker may hold it, and DuckDB would
 * refuse a second process); a missing one needs a creatable folder. The lock file is written beside it.
 */
export function probeDuckdb(file: string): void {
  const full = path.resolve(file);
  const stat = existingDatabaseFile(full, 'duckdb');
  if (!stat) return;
  // A DuckDB file carries the magic bytes DUCK at offset 8 (an empty file is one DuckDB will initialise).
  if (stat.size > 0) {
    const head = Buffer.alloc(12);
    const fd = fs.openSync(full, 'r');
    try {
      fs.readSync(fd, head, 0, 12, 0);
    } finally {
      fs.closeSync(fd);
    }
    if (head.subarray(8, 12).toString('latin1') !== 'DUCK') {
      throw new Error(
        `${full} is not a DuckDB database; point destination.database at a DuckDB file, or at a path that does not exist yet`,
      );
    }
  }
  for (const [target, what] of [
    [full, 'the database file'],
    [path.dirname(full), 'its folder (scrape-etl writes a .lock file there)'],
  ] as const) {
    try {
      fs.accessSync(target, fs.constants.W_OK);
    } catch {
      throw new Error(`${what} ${target} is not writable by this user`);
    }
  }
}
