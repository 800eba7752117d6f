// Which runs the built command hands to the read-only bundle (cli/read-only-commands.ts, cli/main.ts): a read-only
// command's words without help or version; never `rebuild` (registered by the schema module, and it writes), the
// help, the version or another command. The bundle's command modules are the whole program's own entries, and each
// registers exactly the commands it is listed under.
import { describe, expect, it } from 'vitest';
import { Command } from '../../../vendor/commander.js';
import { COMMAND_MODULES } from '../../../cli/command-modules.js';
import { READ_ONLY_COMMAND_MODULES, isReadOnlyRun } from '../../../cli/read-only-commands.js';

describe('isReadOnlyRun', () => {
  it('takes status, history, schema and pipelines with their arguments', () => {
    for (const args of [
      ['status'],
      ['status', 'shop', '--json'],
      ['history', 'shop'],
      ['schema', 'show', 'shop'],
      ['schema', 'export', '--format', 'dbt'],
      ['pipelines'],
      ['pipelines', '--json'],
    ])
      expect(isReadOnlyRun(args), args.join(' ')).toBe(true);
  });

  it('leaves the help, the version, rebuild and every other command to the whole program', () => {
    for (const args of [
      [],
      ['--help'],
      ['-h'],
      ['-V'],
      ['--version'],
      ['status', '--help'],
      ['schema', 'show', '-h'],
      ['help', 'status'],
      ['rebuild', 'shop'],
      ['run', 'shop'],
      ['export', '--pipeline', 'shop', '--out', 'x'],
      ['up'],
      ['--json', 'status'],
    ])
      expect(isReadOnlyRun(args), args.join(' ')).toBe(false);
  });
});

describe('the read-only command modules', () => {
  it('are the whole program entries, and each registers exactly the commands it is listed under', async () => {
    for (const m of READ_ONLY_COMMAND_MODULES) {
      expect(COMMAND_MODULES).toContain(m);
      const program = new Command();
      (await m.load()).register(program);
      expect(program.commands.map((c) => c.name()).sort()).toEqual([...m.names].sort());
    }
    // Every top-level command of the program is listed once.
    const names = COMMAND_MODULES.flatMap((m) => m.names);
    expect(new Set(names).size).toBe(names.length);
  });
});
