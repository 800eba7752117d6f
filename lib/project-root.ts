// Where a project's root is: the nearest folder upwards holding scrape-etl.yaml (cli/project.ts reads that file).
// Here, apart from the reader, because the pipeline loader needs only this: relative paths in a pipeline file that
// lies in a project are taken from the project's root, so every subfolder (and every process) agrees on them.
import fs from 'node:fs';
import path from 'node:path';
import { fileUrlParts } from '../destinations/url-forms.js';

export const PROJECT_FILE = 'scrape-etl.yaml';

/** The folder of the nearest scrape-etl.yaml at or above `dir`, or undefined. */
export function projectRootAbove(dir: string): string | undefined {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, PROJECT_FILE))) return d;
    if (path.dirname(d) === d) return undefined;
  }
}

/** A file destination's URL (sqlite:, duckdb:) whose file is relative, made absolute against `root`; any other URL unchanged. */
export function anchorDatabaseUrl(url: string, root: string): string {
  const m = fileUrlParts(url);
  if (!m || m.rest === ':memory:' || m.rest === '' || path.isAbsolute(m.rest)) return url;
  return `${m.scheme}:${path.resolve(root, m.rest)}`;
}
