// Options that several commands share, spelled once here so that every command spells them the same way.
// Light on purpose (commander only): every command module imports it at registration (see cli/main.ts).
import { Option, type Command } from '../vendor/commander.js';

/**
 * `--database <url>`: the destination database of status, history, export, load, schema show and rebuild. The
 * canonical spelling matches the pipeline file's `destination.database` and the DATABASE_URL variable.
 * `--db <url>`, the spelling export, load, schema show and rebuild used first, stays as a hidden alias so that
 * existing scripts keep working; whichever of the two comes last on the command line wins.
 */
export function addDatabaseOption(cmd: Command, description: string): Command {
  cmd.option('--database <url>', description);
  cmd.addOption(new Option('--db <url>', 'the same as --database').hideHelp());
  // Commander has no alias for a long option: copy --db into --database as it is parsed.
  cmd.on('option:db', (value: string) => cmd.setOptionValueWithSource('database', value, 'cli'));
  return cmd;
}
