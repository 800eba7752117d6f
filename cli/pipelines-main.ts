// The entry of the `pipelines` bundle (scripts/cli-bundle.ts builds it, cli/launch.ts runs it): the program with the
// `pipelines` command alone, with zod, which checks the pipeline files it lists.
import type { CommandModule } from './read-only-commands.js';
import { runCli } from './run-cli.js';

export const PIPELINES_MODULES: CommandModule[] = [
  { names: ['pipelines'], load: () => import('./commands/pipelines.js') },
];

export function main(argv: string[]): Promise<void> {
  return runCli(argv, PIPELINES_MODULES);
}
