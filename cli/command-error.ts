// How a command's error reaches the user: `scrape-etl: <message>` on stderr and the error's own exit code (2 for
// usage and pipeline-file errors, 1 otherwise). Used by the command line's entry (cli/main.ts).
export function commandFailure(err: unknown): { message: string; exitCode: number } {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { exitCode?: unknown } | undefined)?.exitCode;
  return { message: `scrape-etl: ${message}\n`, exitCode: typeof code === 'number' ? code : 1 };
}
