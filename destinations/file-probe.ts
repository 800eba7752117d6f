// Checks shared by the file destinations' probes (SQLite, DuckDB): the path is a file or can be created.
import fs from 'node:fs';
import path from 'node:path';

/**
 * The database file at `full` when it exists (a file, not a folder); undefined, after checking that it can be
 * created, when it does not.
 */
export function existingDatabaseFile(full: string, scheme: string): fs.Stats | undefined {
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(full);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ENOTDIR: some ancestor is a file; found and named by probeCreatableFolder's walk.
    if (code !== 'ENOENT' && code !== 'ENOTDIR')
      throw new Error(`cannot read ${full}: ${(err as Error).message}`, { cause: err });
  }
  if (stat === undefined) {
    probeCreatableFolder(full);
    return undefined;
  }
  if (stat.isDirectory())
    throw new Error(`${full} is a folder, not a database file (expected ${scheme}:<path to a file>)`);
  return stat;
}

/** The folder of a database file that does not exist yet must be creatable: its nearest existing ancestor is a writable folder. */
function probeCreatableFolder(file: string): void {
  let dir = path.dirname(file);
  for (;;) {
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        throw new Error(`cannot read ${dir}: ${(err as Error).message}`, { cause: err });
    }
    if (stat !== undefined) {
      if (!stat.isDirectory()) throw new Error(`cannot create the database ${file}: ${dir} is not a folder`);
      try {
        fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
      } catch {
        throw new Error(`cannot create the database ${file}: folder ${dir} is not writable by this user`);
      }
      return;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot create the database ${file}: no existing folder above it`);
    dir = parent;
  }
}
