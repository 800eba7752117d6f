// How a command's error reaches the user: `scrape-etl: <message>` on stderr and the error's own exit code (2 for
// usage, configuration and pipeline-file errors, 1 otherwise; see EXIT). Used by the command line's entry (cli/main.ts).
export function commandFailure(err: unknown): { message: string; exitCode: number } {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { exitCode?: unknown } | undefined)?.exitCode;
  return { message: `scrape-etl: ${message}\n`, exitCode: typeof code === 'number' ? code : exitCodeOf(err) };
}

/**
 * The README's exit-code table (one for every command): 0 done; 1 failed (a run failed, the service rejected the
 * token, what was named is not there, Temporal or the service unreachable); 2 usage or configuration error, nothing
 * started (arguments, pipeline or project file, a malformed setting or database URL); 3 a partial run; 4 the data
 * loaded but the exports failed; 130 / 143 interrupted by SIGINT / SIGTERM.
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, partial: 3, exportFailed: 4, sigint: 130, sigterm: 143 } as const;

/** Errors without an exit code of their own: configuration no retry fixes is a usage error (2), the rest fail (1). */
function exitCodeOf(err: unknown): number {
  const name = (err as { name?: unknown } | undefined)?.name;
  if (name === 'DatabaseConfigError' || name === 'TemporalSettingsError') return EXIT.usage;
  return EXIT.failed;
}
