// The commands that only read (status, history, schema show, pipelines), which a user runs often and waits for.
// `npm run build` bundles them, with everything they import, into one-file bundles with a V8 code cache
// (scripts/cli-bundle.ts), and cli/launch.ts runs the bundle of the command asked for: on Node 20 every module file of
// the product is otherwise resolved, read and compiled at each start (bench/startup.ts prints what that costs).
// `pipelines` has a bundle of its own: it checks pipeline files with zod, which the others never load, and a
// bundle's code cache is read whole at each start. `export` writes files (and an incremental export's watermark) but
// is bundled the same way for the same reason: an export of a small table is mostly start-up (cli/export-main.ts).
// Light on purpose: cli/launch.ts reads it before it knows which program to load. The bundles' entries, with the
// command modules each holds, are cli/read-only-main.ts, cli/pipelines-main.ts and cli/export-main.ts.
import type { Command } from '../vendor/commander.js';

/** A command module: the top-level commands it registers, and its loader. */
export interface CommandModule {
  names: string[];
  load: () => Promise<{ register(program: Command): void }>;
}

/** Each bundle (its files are `<name>.bundle.cjs` and `.cache` in the compiled cli/) and the commands it runs. */
export const READ_ONLY_BUNDLES: Readonly<Record<string, readonly string[]>> = {
  'read-only': ['status', 'history', 'schema'],
  pipelines: ['pipelines'],
  export: ['export'],
};

/** The words that ask for the help or the version, which list every command and so need the whole program. */
export const HELP_OR_VERSION = ['-h', '--help', '-V', '--version'];

/**
 * The bundle that runs argv's command: its first word is a read-only command and no help or version is asked.
 * (`rebuild`, which the schema module registers too, writes: it is no word of a bundle.)
 */
export function readOnlyBundleOf(args: readonly string[]): string | undefined {
  const [first] = args;
  if (first === undefined || args.some((w) => HELP_OR_VERSION.includes(w))) return undefined;
  return Object.keys(READ_ONLY_BUNDLES).find((b) => READ_ONLY_BUNDLES[b]!.includes(first));
}
