// Where a command's output goes: its writers take their streams from a CommandIO rather than reaching for
// `process.std*`, so that a test (or a caller embedding a command) can hand it other streams.

/** A stream a command writes to; `isTTY` and `columns` say what the far end is (a progress bar needs both). */
export type OutputStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

export interface CommandIO {
  stdout: OutputStream;
  stderr: OutputStream;
}

/** This process's own stdout and stderr. */
export const processIO: CommandIO = { stdout: process.stdout, stderr: process.stderr };
