// Where a command's output goes. A command normally writes to this process's stdout and stderr; a `run` served by
// the background worker (cli/background/) writes to the streams of the thin `run` process that asked for it, so
// every writer of a command's output takes its streams from here instead of reaching for `process.std*`.

/** A stream a command writes to; `isTTY` and `columns` say what the far end is (a progress bar needs both). */
export type OutputStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

export interface CommandIO {
  stdout: OutputStream;
  stderr: OutputStream;
}

/** This process's own stdout and stderr. */
export const processIO: CommandIO = { stdout: process.stdout, stderr: process.stderr };
