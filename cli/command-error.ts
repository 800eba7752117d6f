// How a command's error reaches the user: `scrape-etl: <message>` on stderr and the error's own exit code (2 for
// usage and pipeline-file errors, 1 otherwise). Shared by the command line's entry and the background worker,
// which reports the errors of the runs it carries out the same way.
export function commandFailure(err: unknown): { message: string; exitCode: number } {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { exitCode?: unknown } | undefined)?.exitCode;
  return { message: `scrape-etl: ${message}\n`, exitCode: typeof code === 'number' ? code : 1 };
}
