// Entry point of the `scrape-etl` command. Each subcommand lives in cli/commands/<name>.ts and exports
// `register(program)`; this file only wires them together and maps usage errors to exit code 2.
import { Command, CommanderError } from 'commander';

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('scrape-etl')
    .description('Durable ETL from a web scraping service into SQLite or Postgres tables, on Temporal')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  // Subcommands register themselves here (one line each).
  return program;
}

async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
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
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`scrape-etl: ${message}\n`);
    process.exit(typeof (err as { exitCode?: unknown }).exitCode === 'number' ? (err as { exitCode: number }).exitCode : 1);
  }
}

await main(process.argv);
