// Entry point of the `scrape-etl` command. Each subcommand lives in cli/commands/<name>.ts and exports
// `register(program)`; this file only wires them together and maps usage errors to exit code 2.
// Start-up cost: every command module is imported here to register its options, so a command module imports
// only light modules at its top (commander, constants, types); Temporal, drizzle, pg, zod, pino and the like
// are loaded with `await import(...)` inside the action that needs them. `scrape-etl --help` and `--version`
// then load little more than commander (bench/startup.ts measures it).
import { Command, CommanderError } from 'commander';
import { limitHeapGrowth } from '../temporal/heap-growth.js';
import { commandFailure } from './command-error.js';
import { applyUmask } from '../lib/private-files.js';
import { packageInfo } from './package-info.js';
import { register as registerDemo } from './commands/demo.js';
import { register as registerStatus } from './commands/status.js';
import { register as registerSchedule } from './commands/schedule.js';
import { register as registerRun } from './commands/run.js';
import { register as registerExport } from './commands/export.js';
import { register as registerLoad } from './commands/load.js';
import { register as registerValidate } from './commands/validate.js';
import { register as registerSimulate } from './commands/simulate.js';
import { register as registerWorker } from './commands/worker.js';
import { register as registerHistory } from './commands/history.js';
import { register as registerPrune } from './commands/prune.js';
import { register as registerServer } from './commands/server.js';
import { register as registerSchema } from './commands/schema.js';
import { register as registerUp } from './commands/up.js';
import { register as registerInit } from './commands/init.js';
import { register as registerCheck } from './commands/check.js';
import { register as registerConsole } from './commands/console.js';
import { register as registerReport } from './commands/report.js';

/** Commands that can run a worker in their own process. */
const HOSTS_ACTIVITIES = new Set(['run', 'demo', 'worker', 'trigger', 'up']);

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('scrape-etl')
    .description('Durable ETL from a web scraping service into SQLite or Postgres tables, on Temporal')
    .version(packageInfo().version, '-V, --version', 'print the version of scrape-etl')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  // Commands whose process runs pipeline activities collect garbage sooner (temporal/heap-growth.ts). Set before the
  // action imports anything heavy: V8 sizes the heap from its first collections on, and set later (as the worker
  // itself does for other hosts) the same run peaked about 35 MB higher.
  program.hook('preAction', (_program, action) => {
    if (!HOSTS_ACTIVITIES.has(action.name())) return;
    try {
      limitHeapGrowth();
    } catch (err) {
      // A malformed setting is the caller's to fix, like a wrong option: exit 2, before anything started.
      throw Object.assign(new Error(`${(err as Error).message}; nothing was started`), { exitCode: 2 });
    }
  });
  // Subcommands register themselves here (one line each).
  registerDemo(program);
  registerStatus(program);
  registerHistory(program);
  registerPrune(program);
  registerServer(program);
  registerSchedule(program);
  registerRun(program);
  registerExport(program);
  registerLoad(program);
  registerValidate(program);
  registerSimulate(program);
  registerWorker(program);
  registerSchema(program);
  registerUp(program);
  registerInit(program);
  registerCheck(program);
  registerConsole(program);
  registerReport(program);
  return program;
}

// A reader that stops early (`scrape-etl status | head`) closes the pipe: what is left to print has no reader,
// which is not an error of the command. Exit quietly like other Unix tools instead of dying with an EPIPE stack.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

async function main(argv: string[]): Promise<void> {
  // Everything the command creates (data folder, databases, exports, logs, key file) is the user's alone.
  applyUmask();
  const [first, second] = argv.slice(2);
  // The project file (scrape-etl.yaml, here or above) fills the environment variables it sets and the environment
  // does not; before the commands register, as some take their defaults from the environment then. Help, the
  // version and `init` (which writes one) work even beside a broken project file.
  if (!argv.slice(2).some((w) => ['-h', '--help', '-V', '--version'].includes(w)) && first !== 'init' && first !== 'help') {
    try {
      const { enterProject } = await import('./project.js');
      await enterProject();
    } catch (err) {
      const failure = commandFailure(err);
      process.stderr.write(failure.message);
      process.exit(failure.exitCode);
    }
  }
  const program = buildProgram();
  // Commander answers `help <anything>` with the general help and exit 0; a command that does not exist is a
  // usage error like `scrape-etl <unknown>`.
  if (first === 'help' && second !== undefined && !second.startsWith('-') && !program.commands.some((c) => c.name() === second || c.aliases().includes(second))) {
    process.stderr.write(`scrape-etl: unknown command '${second}' (run with --help for usage)\n`);
    process.exit(2);
  }
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end through exitOverride too; they are successes.
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') {
        process.exit(0);
      }
      process.exit(2);
    }
    const failure = commandFailure(err);
    process.stderr.write(failure.message);
    process.exit(failure.exitCode);
  }
}

await main(process.argv);
