// What opening a destination for reading only reports (the engines' read-only sources, the console, the report):
// a source that cannot be read, and a file that does not exist yet.
import fs from 'node:fs';
import path from 'node:path';

export class SourceError extends Error {
  override readonly name = 'SourceError';
}

export function mustExist(file: string, scheme: string): string {
  const full = path.resolve(file);
  if (!fs.existsSync(full)) {
    throw new SourceError(
      `${scheme} database ${full} does not exist; the console reads an existing destination (run a pipeline first, or pass --database ${scheme}:<path of your database file>)`,
    );
  }
  return full;
}
