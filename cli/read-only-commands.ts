// The commands that only read (status, history, schema show, pipelines), which a user runs often and waits for.
// `npm run build` bundles them, with everything they import, into one file with a V8 code cache
// (scripts/cli-bundle.ts), and cli/main.ts runs that bundle for them: on Node 20 every module file of the product
// is otherwise resolved, read and compiled at each start (bench/startup.ts prints what that costs).
// Light on purpose: cli/main.ts reads it before it knows which program to load.
import type { Command } from '../vendor/commander.js';

/** A command module: the top-level commands it registers, and its loader. */
export interface CommandModule {
  names: string[];
  load: () => Promise<{ register(program: Command): void }>;
}

export const READ_ONLY_COMMAND_MODULES: CommandModule[] = [
  { names: ['status'], load: () => import('./commands/status.js') },
  { names: ['history'], load: () => import('./commands/history.js') },
  // Registers `rebuild` too, which writes: it is never run from the bundle (isReadOnlyRun).
  { names: ['schema', 'rebuild'], load: () => import('./commands/schema.js') },
  { names: ['pipelines'], load: () => import('./commands/pipelines.js') },
];

/** The words that ask for the help or the version, which list every command and so need the whole program. */
export const HELP_OR_VERSION = ['-h', '--help', '-V', '--version'];

/** The first word of argv runs one of the read-only commands, and no help or version is asked. */
export function isReadOnlyRun(args: readonly string[]): boolean {
  const [first] = args;
  if (first === undefined || first === 'rebuild') return false;
  if (args.some((w) => HELP_OR_VERSION.includes(w))) return false;
  return READ_ONLY_COMMAND_MODULES.some((m) => m.names.includes(first));
}
