// File-system answers to an export that the same export would get again (a file where the folder should be, no
// permission, a read-only or full disk), turned into one sentence: which path, what is wrong, what to do. Retrying
// them only delayed the run's end by minutes and ended in the raw error (docs/measurements.md), so the export activity fails them at once as ExportConfigError (activities/exports.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The codes treated as permanent for an export. ENOSPC is among them: a full disk is not freed by waiting a minute,
 * the run's data is loaded already, and `run` prints the command that writes the files once space is freed.
 */
const EXPORT_FS_CODES = new Set([
  'EEXIST',
  'ENOTDIR',
  'EISDIR',
  'EACCES',
  'EPERM',
  'EROFS',
  'ENOSPC',
  'EDQUOT',
  'ENAMETOOLONG',
]);

export function isPermanentExportFsError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && EXPORT_FS_CODES.has(code);
}

/** The first existing component of `p` (itself or an ancestor) that is not a folder, if any. */
function fileInTheWay(p: string): string | undefined {
  let cur = path.resolve(p);
  for (;;) {
    try {
      return fs.statSync(cur).isDirectory() ? undefined : cur;
    } catch {
      const up = path.dirname(cur);
      if (up === cur) return undefined;
      cur = up;
    }
  }
}

function whoAmI(): string {
  try {
    return os.userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? '?'}`;
  }
}

/**
 * One sentence for a permanent file-system error of an export into `dir` (the pipeline's `exports[].dir`), or
 * undefined when the error is not one of them. Names the path, the problem and the fix; never just the errno.
 */
export function describeExportFsError(err: unknown, dir: string, who = 'the worker'): string | undefined {
  if (!isPermanentExportFsError(err)) return undefined;
  const e = err as NodeJS.ErrnoException;
  const folder = path.resolve(dir);
  const at = e.path ?? folder;
  const other = 'or set exports[].dir in the pipeline file to another folder';
  switch (e.code) {
    case 'EEXIST':
    case 'ENOTDIR': {
      const file = fileInTheWay(folder) ?? at;
      return `export folder ${folder} cannot be created: ${file} is a file, not a folder; remove or rename that file, ${other}`;
    }
    case 'EISDIR':
      return `export file ${at} cannot be written: a folder of that name exists in ${folder}; remove or rename it, or change exports[].file_name`;
    case 'EACCES':
    case 'EPERM':
      return `export folder ${folder}: ${who} (user ${whoAmI()}) may not write ${at}; give it write permission (chmod/chown), ${other}`;
    case 'EROFS':
      return `export folder ${folder} is on a read-only file system (${at}); mount it writable, ${other}`;
    case 'ENOSPC':
    case 'EDQUOT':
      return `export folder ${folder}: the disk (or quota) holding ${at} is full; free space, ${other}`;
    case 'ENAMETOOLONG':
      return `export file name too long: ${at}; shorten exports[].dir or exports[].file_name`;
    default:
      return undefined;
  }
}
