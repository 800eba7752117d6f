// The entry of the read-only bundle (scripts/cli-bundle.ts builds it, cli/main.ts runs it): the program with the
// read-only commands alone, so that the bundle holds them and what they import, and nothing else of the product.
import { READ_ONLY_COMMAND_MODULES } from './read-only-commands.js';
import { runCli } from './run-cli.js';

export function main(argv: string[]): Promise<void> {
  return runCli(argv, READ_ONLY_COMMAND_MODULES);
}
