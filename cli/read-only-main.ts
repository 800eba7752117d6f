// The entry of the `read-only` bundle (scripts/cli-bundle.ts builds it, cli/launch.ts runs it): the program with the
// commands that read runs and schemas alone, so that the bundle holds them and what they import, and nothing else.
import type { CommandModule } from './read-only-commands.js';
import { runCli } from './run-cli.js';

export const READ_ONLY_MODULES: CommandModule[] = [
  { names: ['status'], load: () => import('./commands/status.js') },
  { names: ['history'], load: () => import('./commands/history.js') },
  // Registers `rebuild` too, which writes: cli/launch.ts never runs it from the bundle.
  { names: ['schema', 'rebuild'], load: () => import('./commands/schema.js') },
];

export function main(argv: string[]): Promise<void> {
  return runCli(argv, READ_ONLY_MODULES);
}
