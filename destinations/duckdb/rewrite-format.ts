// A destination file rewritten as a fresh copy of itself, which then replaces it by an atomic rename. Two reasons:
// a file made before the destination chose DuckDB's v1.2 storage format and 64 KB blocks (database.ts) keeps its old
// format for ever, since DuckDB fixes a file's format and block size when it creates it; and DuckDB never gives a
// file's free blocks back (compact.ts). The copy is DuckDB's own `COPY FROM DATABASE` (every table, sequence with its
// current value, key and index), made by the instance that has the file open for writing: DuckDB's own lock on the
// file is held from before the copy until after the rename, so no other program (the `duckdb` CLI, a notebook) can
// write the old file meanwhile and lose its rows to the rename, and scrape-etl's lock file (file-lock.ts) keeps every
// scrape-etl process out. The copy is written beside the file (`<file>.rewrite.tmp`) and synced before the rename; a
// process killed at any point leaves either the old file whole or the new one whole, and a stale copy is removed by
// the next open (removeStaleCopy).
import fs from 'node:fs';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';

/** The copy's name while it is written. */
export const rewritePathOf = (file: string) => `${file}.rewrite.tmp`;

/** DuckDB's storage_version tag of a file (`v1.0.0+`, `v1.2.0+`), compared with `current` (`v1.2.0`). */
export function olderFormat(tag: string, current: string): boolean {
  const parse = (v: string) => (/^v(\d+)\.(\d+)\.(\d+)/.exec(v) ?? []).slice(1).map(Number);
  const [a, b] = [parse(tag), parse(current)];
  if (a.length !== 3 || b.length !== 3) return false; // an unknown tag: leave the file as it is
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}

/** Removes a copy (and its WAL) that a process killed while copying left beside `file`. */
export function removeStaleCopy(file: string): void {
  const target = rewritePathOf(file);
  fs.rmSync(target, { force: true });
  fs.rmSync(`${target}.wal`, { force: true });
}

const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** The alias the copy is attached under in the writer's instance. */
const COPY_ALIAS = 'scrape_etl_rewrite_copy';

/**
 * DuckDB's memory limit while the copy is made. A copy the size of the file otherwise stays in DuckDB's buffers
 * until the copy is checkpointed (its default limit is most of the machine's memory); capped, DuckDB writes the
 * copy's row groups out as it goes and drops cached blocks of the source.
 */
export const COPY_MEMORY_LIMIT = '128MB';

/**
 * Rewrites `file`, open for writing in `conn`'s instance and checkpointed (no WAL), in `storageVersion` with
 * `blockSize`-byte blocks, keeping every row, sequence value, key and index; returns the sizes before and after.
 * Throws, leaving `file` as it was, when the copy fails. The caller closes the instance afterwards (it holds the old
 * file, now unlinked) and opens the file again for further use.
 */
export async function rewriteInPlace(
  conn: DuckDBConnection,
  file: string,
  storageVersion: string,
  blockSize: string,
): Promise<{ before: number; after: number }> {
  const target = rewritePathOf(file);
  // Rows in the WAL would be replayed over the copy by the next open: only a checkpointed file is rewritten.
  if (walBytes(file) > 0) throw new Error(`${file} has a WAL (not checkpointed)`);
  removeStaleCopy(file);
  const before = fs.statSync(file).size;
  const name = String((await conn.runAndReadAll('SELECT current_database()')).getRows()[0]?.[0]);
  const limit = String((await conn.runAndReadAll(`SELECT current_setting('memory_limit')`)).getRows()[0]?.[0]);
  // Not set (the instance could not free enough of what it holds): copied under the instance's own limit.
  await conn.run(`SET memory_limit = ${quote(COPY_MEMORY_LIMIT)}`).catch(() => {});
  try {
    await conn.run(
      `ATTACH ${quote(target)} AS ${COPY_ALIAS} (STORAGE_VERSION ${quote(storageVersion)}, BLOCK_SIZE ${Number(blockSize)})`,
    );
    try {
      await conn.run(`COPY FROM DATABASE "${name.replaceAll('"', '""')}" TO ${COPY_ALIAS}`);
    } finally {
      // Detaching checkpoints the copy: every row is in the new file itself, none in a WAL.
      await conn.run(`DETACH ${COPY_ALIAS}`);
    }
    if (fs.existsSync(`${target}.wal`)) throw new Error(`the copy ${target} kept a WAL`);
    if (walBytes(file) > 0) throw new Error(`${file} was written while it was copied`);
    syncFile(target);
  } catch (err) {
    removeStaleCopy(file);
    throw err;
  } finally {
    await conn.run(`SET memory_limit = ${quote(limit)}`).catch(() => {});
  }
  fs.renameSync(target, file);
  syncFile(path.dirname(file));
  return { before, after: fs.statSync(file).size };
}

function walBytes(file: string): number {
  try {
    return fs.statSync(`${file}.wal`).size;
  } catch {
    return 0;
  }
}

function syncFile(p: string): void {
  const fd = fs.openSync(p, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
