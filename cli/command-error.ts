// How a command's error reaches the user: `scrape-etl: <message>` on stderr and the error's own exit code (2 for
// usage, configuration and pipeline-file errors, 1 otherwise; see EXIT). Used by the command line's entry (cli/main.ts).
export function commandFailure(err: unknown): { message: string; exitCode: number } {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { exitCode?: unknown } | undefined)?.exitCode;
  return { message: `scrape-etl: ${message}\n`, exitCode: typeof code === 'number' ? code : exitCodeOf(err) };
}

import { EXIT } from '../lib/exit-codes.js';

/** The README's exit-code table, defined once in lib/exit-codes.ts. */
export { EXIT };

/** Errors without an exit code of their own: configuration no retry fixes is a usage error (2), the rest fail (1). */
function exitCodeOf(err: unknown): number {
  const name = (err as { name?: unknown } | undefined)?.name;
  if (name === 'DatabaseConfigError' || name === 'TemporalSettingsError') return EXIT.usage;
  return EXIT.failed;
}
