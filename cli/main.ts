// Entry point of the `scrape-etl` command (bin/scrape-etl.js runs its compiled form). A read-only command runs from
// the bundle the build made of it (cli/read-only-commands.ts says which and why); every other command, the help and
// the version run the program of cli/run-cli.ts with every command module (cli/command-modules.ts). Either way the
// same modules do the work: the bundle is built from them. This file imports nothing else at its top, so neither
// path loads the other's modules.
import { readOnlyBundleOf } from './read-only-commands.js';
import { readOnlyBundle } from './read-only-bundle.js';

const bundle = readOnlyBundleOf(process.argv.slice(2));
const bundled = bundle === undefined ? undefined : readOnlyBundle(bundle);
if (bundled) {
  await bundled.main(process.argv);
} else {
  const [{ runCli }, { COMMAND_MODULES }] = await Promise.all([import('./run-cli.js'), import('./command-modules.js')]);
  await runCli(process.argv, COMMAND_MODULES);
}
