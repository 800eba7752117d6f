// What the built command does with its arguments, once: a read-only command runs from the bundle the build made of it
// (cli/read-only-commands.ts says which and why); every other command, the help and the version run the program of
// cli/run-cli.ts with every command module (cli/command-modules.ts). Either way the same modules do the work: the
// bundle is built from them. bin/scrape-etl.js runs it as dist/cli/launch.cjs, a CommonJS bundle of this file
// (scripts/cli-bundle.ts), so that a read-only command, whose bundle is CommonJS too, starts without Node's ES module
// loader; cli/main.ts runs it as an ES module (from the sources, or a dist/ without the bundles). It imports nothing
// else at its top, so neither path loads the other's modules.
import { readOnlyBundleOf } from './read-only-commands.js';
import { readOnlyBundle } from './read-only-bundle.js';

export async function launch(argv: string[]): Promise<void> {
  const bundle = readOnlyBundleOf(argv.slice(2));
  const bundled = bundle === undefined ? undefined : readOnlyBundle(bundle);
  if (bundled) return bundled.main(argv);
  const [{ runCli }, { COMMAND_MODULES }] = await Promise.all([import('./run-cli.js'), import('./command-modules.js')]);
  await runCli(argv, COMMAND_MODULES);
}
