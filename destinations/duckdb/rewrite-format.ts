// A destination file made before the destination chose DuckDB's v1.2 storage format and 64 KB blocks (database.ts)
// keeps its old format for ever: DuckDB fixes a file's format and block size when it creates it, and never gives
// free blocks back. Such a file (several times the size of the same rows in the current format) is
// rewritten once, the first time this version opens it: every table, sequence (with its current value), key and
// index copied by DuckDB's own `COPY FROM DATABASE` into a new file in the current format, which then replaces the old one by an atomic rename. The caller holds the file's lock, and has closed the
// file after a checkpoint, so the old file has no WAL and nothing else writes it meanwhile. The copy is made beside
// the file (`<file>.rewrite.tmp`); a process that dies while copying leaves the old file whole, and the next open
// removes the stale copy and starts again.
import fs from 'node:fs';
import path from 'node:path';

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

const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;

/**
 * Rewrites the closed file `file` in `storageVersion` with `blockSize`-byte blocks, keeping every row, sequence
 * value, key and index; returns the sizes before and after. Throws (leaving `file` as it was) when the copy fails.
 */
export async function rewriteFormat(
  file: string,
  storageVersion: string,
  blockSize: string,
): Promise<{ before: number; after: number }> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const target = rewritePathOf(file);
  fs.rmSync(target, { force: true });
  fs.rmSync(`${target}.wal`, { force: true });
  const before = fs.statSync(file).size;
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const conn = await instance.connect();
  try {
    await conn.run(`ATTACH ${quote(file)} AS old_file (READ_ONLY)`);
    await conn.run(
      `ATTACH ${quote(target)} AS new_file (STORAGE_VERSION ${quote(storageVersion)}, BLOCK_SIZE ${Number(blockSize)})`,
    );
    await conn.run('COPY FROM DATABASE old_file TO new_file');
    await conn.run('DETACH old_file');
    // Detaching checkpoints the copy: every row is in the new file itself, none in a WAL.
    await conn.run('DETACH new_file');
  } catch (err) {
    conn.closeSync();
    instance.closeSync();
    fs.rmSync(target, { force: true });
    fs.rmSync(`${target}.wal`, { force: true });
    throw err;
  }
  conn.closeSync();
  instance.closeSync();
  if (fs.existsSync(`${target}.wal`))
    throw new Error(`the rewritten copy ${target} kept a WAL; ${file} is left as it was`);
  const fd = fs.openSync(target, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(target, file);
  const dir = fs.openSync(path.dirname(file), 'r');
  try {
    fs.fsyncSync(dir);
  } finally {
    fs.closeSync(dir);
  }
  return { before, after: fs.statSync(file).size };
}
