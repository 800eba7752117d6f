// The entry of the `export` bundle (scripts/cli-bundle.ts builds it, cli/launch.ts runs it): the program with the
// `export` command alone. An export of a small table is mostly start-up, and unbundled the command resolved, read
// and compiled over a hundred module files before its first row (bench/csv-export.ts times it against Python's csv
// module, interpreter start included).
import type { CommandModule } from './read-only-commands.js';
import { runCli } from './run-cli.js';

export const EXPORT_MODULES: CommandModule[] = [{ names: ['export'], load: () => import('./commands/export.js') }];

export function main(argv: string[]): Promise<void> {
  return runCli(argv, EXPORT_MODULES);
}
