// The exit codes of every command, defined once (README, "Exit codes"; test/integration/cli/cli-exit-codes.test.ts
// runs each command in each situation). The one rule: 0 done; 1 failed, or what was named is not there (a database
// file, a schedule, a running server or `up` to stop); 2 usage or configuration error, nothing started; 3 partial or
// failed_checks; 4 the data loaded but the exports failed; 5 refused by a budget, nothing started (its forecast
// exceeds a limit, budget/forecast.ts); 130 / 143 ended by SIGINT / SIGTERM, whatever the command
// (a long-running one such as `up` or `worker` included: it drained, and the code says how it was ended).
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  partial: 3,
  exportFailed: 4,
  budget: 5,
  sigint: 130,
  sigterm: 143,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The code of a command ended by `signal`. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return signal === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint;
}

/** An error whose message the command line prints and whose code it exits with. */
export function exitError(message: string, code: number, options?: ErrorOptions): Error & { exitCode: number } {
  return Object.assign(new Error(message, options), { exitCode: code });
}
