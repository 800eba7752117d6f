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

/**
 * Whether a glob of the project file could match outside the project's folder: absolute, or a `..` segment anywhere
 * (also inside braces and extglobs, `{pipelines,..}/*.yaml`). Such a glob walked the whole disk (`/**\/*.yaml`).
 */
export function globLeavesRoot(glob: string): boolean {
  return (
    path.posix.isAbsolute(glob) ||
    path.win32.isAbsolute(glob) ||
    glob.startsWith('~') ||
    /(^|[/\\{,(|@!?*+])\.\.($|[/\\},)|])/.test(glob)
  );
}

/** `p` with symbolic links resolved as far as it exists (a folder not yet created is taken as written below that). */
function realPathOf(p: string): string {
  const rest: string[] = [];
  for (let d = path.resolve(p); ; d = path.dirname(d)) {
    try {
      return path.join(fs.realpathSync(d), ...rest.reverse());
    } catch {
      if (path.dirname(d) === d) return path.resolve(p);
      rest.push(path.basename(d));
    }
  }
}

/** Whether `target` is `folder` or lies below it, symbolic links resolved (a link inside to a folder outside is outside). */
export function isInsideFolder(target: string, folder: string): boolean {
  const rel = path.relative(realPathOf(folder), realPathOf(target));
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}
