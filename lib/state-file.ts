// Small JSON state files beside the data (the embedded server's, a detached `up`'s, a remembered run) and
// the logs next to them: written whole or not at all, read as "absent" when missing or unreadable.
import fs from 'node:fs';

/** Write-then-rename: a crash mid-write must not leave a half file behind for the next reader. */
export function writeJsonAtomic(file: string, value: unknown): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
  fs.renameSync(tmp, file);
}

/** The file's JSON, or undefined when it is missing or not JSON. */
export function readJsonFile<T>(file: string): T | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** The last `bytes` of a log, for an error that says why a process it belongs to did not start. */
export function fileTail(file: string, bytes = 2000): string {
  try {
    return fs.readFileSync(file, 'utf8').slice(-bytes);
  } catch {
    return '(no log)';
  }
}
