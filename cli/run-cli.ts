// The `scrape-etl` program (cli/main.ts starts it): each subcommand lives in cli/commands/<name>.ts and exports
// `register(program)`; this file wires the command modules it is given together and maps usage errors to exit code 2.
// Start-up cost: a command's run imports its own command module only (help and the version import them all to
// list them), and a command module imports only light modules at its top (commander, constants, types);
// Temporal, drizzle, pg, zod, pino and the like are loaded with `await import(...)` inside the action that needs
// them. bench/startup.ts measures it.
import { EXIT } from '../lib/exit-codes.js';
import { Command, CommanderError } from '../vendor/commander.js';
import { commandFailure } from './command-error.js';
import { applyUmask } from '../lib/private-files.js';
import { packageInfo } from './package-info.js';
import type { DestinationName } from '../destinations/contract.js';
import { DESTINATION_NAMES } from '../destinations/names.js';
import { HELP_OR_VERSION, type CommandModule } from './read-only-commands.js';

/** How the help names each destination; typed over every destination so a new one cannot be left out of it. */
const DESTINATION_PROSE: Record<DestinationName, string> = { sqlite: 'SQLite', duckdb: 'DuckDB', postgres: 'Postgres' };

/** The help's first line, listing the destinations of the registry (destinations/). */
function programDescription(): string {
  const names = DESTINATION_NAMES.map((n) => DESTINATION_PROSE[n]);
  return `Durable ETL from a web scraping service into ${names.slice(0, -1).join(', ')} or ${names[names.length - 1]} tables, on Temporal`;
}

/** Commands that can run a worker in their own process. */
const HOSTS_ACTIVITIES = new Set(['run', 'demo', 'worker', 'trigger', 'up']);

/**
 * The program with every command, or with only the module of `command` when it names one: a command's run then
 * loads its own module alone, not the other modules every command's registration pulls in (Node 20's ESM loader
 * pays for each; bench/startup.ts prints what). Help, the version and an unknown command get them all.
 */
export async function buildProgram(command: string | undefined, commandModules: CommandModule[]): Promise<Command> {
  const program = new Command();
  program
    .name('scrape-etl')
    .description(programDescription())
    .version(packageInfo().version, '-V, --version', 'print the version of scrape-etl')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  // Commands whose process runs pipeline activities collect garbage sooner (temporal/heap-growth.ts). Set before the
  // action imports anything heavy: V8 sizes the heap from its first collections on, and set later (as the worker
  // itself does for other hosts) the same run peaks higher (docs/measurements.md).
  // Imported here, not at the top: node:v8, which it loads, is no use to the commands that host no activities.
  program.hook('preAction', async (_program, action) => {
    if (!HOSTS_ACTIVITIES.has(action.name())) return;
    const { limitHeapGrowth } = await import('../temporal/heap-growth.js');
    try {
      limitHeapGrowth();
    } catch (err) {
      // A malformed setting is the caller's to fix, like a wrong option: exit 2, before anything started.
      throw Object.assign(new Error(`${(err as Error).message}; nothing was started`), { exitCode: EXIT.usage });
    }
  });
  // Subcommands register themselves (one module each).
  const one = commandModules.find((m) => command !== undefined && m.names.includes(command));
  const modules = await Promise.all((one ? [one] : commandModules).map((m) => m.load()));
  for (const m of modules) m.register(program);
  return program;
}

/** Runs the command argv names, with the program made of `commandModules`. */
export async function runCli(argv: string[], commandModules: CommandModule[]): Promise<void> {
  // A reader that stops early (`scrape-etl status | head`) closes the pipe: what is left to print has no reader,
  // which is not an error of the command. Exit quietly like other Unix tools instead of dying with an EPIPE stack.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(EXIT.ok);
      throw err;
    });
  }
  // Everything the command creates (data folder, databases, exports, logs, key file) is the user's alone.
  applyUmask();
  const [first, second] = argv.slice(2);
  // The project file (scrape-etl.yaml, here or above) fills the environment variables it sets and the environment
  // does not; before the commands register, as some take their defaults from the environment then. Help, the
  // version and `init` (which writes one) work even beside a broken project file.
  if (!argv.slice(2).some((w) => HELP_OR_VERSION.includes(w)) && first !== 'init' && first !== 'help') {
    try {
      const { enterProject } = await import('./project.js');
      await enterProject();
    } catch (err) {
      const failure = commandFailure(err);
      process.stderr.write(failure.message);
      process.exit(failure.exitCode);
    }
  }
  // Only the named command's module, unless help (of anything), the version or a word that is no command is asked.
  const helpOrVersion = argv.slice(2).some((w) => HELP_OR_VERSION.includes(w));
  const program = await buildProgram(helpOrVersion ? undefined : first, commandModules);
  // Commander answers `help <anything>` with the general help and exit 0; a command that does not exist is a
  // usage error like `scrape-etl <unknown>`.
  if (
    first === 'help' &&
    second !== undefined &&
    !second.startsWith('-') &&
    !program.commands.some((c) => c.name() === second || c.aliases().includes(second))
  ) {
    process.stderr.write(`scrape-etl: unknown command '${second}' (run with --help for usage)\n`);
    process.exit(EXIT.usage);
  }
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end through exitOverride too; they are successes.
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') {
        process.exit(EXIT.ok);
      }
      process.exit(EXIT.usage);
    }
    const failure = commandFailure(err);
    process.stderr.write(failure.message);
    process.exit(failure.exitCode);
  }
}
