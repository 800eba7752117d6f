// Which runs the built command hands to a bundle (cli/read-only-commands.ts, cli/launch.ts): a read-only command's or
// `export`'s words without help or version; never `rebuild` (registered by the schema module, and it writes), the
// help, the version or another command. Each bundle's command modules are the whole program's own entries, and
// each registers exactly the commands it is listed under.
import { describe, expect, it } from 'vitest';
import { Command } from '../../../vendor/commander.js';
import { COMMAND_MODULES } from '../../../cli/command-modules.js';
import { EXPORT_MODULES } from '../../../cli/export-main.js';
import { PIPELINES_MODULES } from '../../../cli/pipelines-main.js';
import { READ_ONLY_BUNDLES, readOnlyBundleOf } from '../../../cli/read-only-commands.js';
import { READ_ONLY_MODULES } from '../../../cli/read-only-main.js';

describe('readOnlyBundleOf', () => {
  it('takes status, history and schema to the read-only bundle, pipelines to its own, with their arguments', () => {
    for (const args of [
      ['status'],
      ['status', 'shop', '--json'],
      ['history', 'shop'],
      ['schema', 'show', 'shop'],
      ['schema', 'export', '--format', 'dbt'],
    ])
      expect(readOnlyBundleOf(args), args.join(' ')).toBe('read-only');
    for (const args of [['pipelines'], ['pipelines', '--json']])
      expect(readOnlyBundleOf(args), args.join(' ')).toBe('pipelines');
    for (const args of [
      ['export', '--pipeline', 'shop', '--out', 'x'],
      ['export', '--tables', 'a,b', '--since-last', '--pipeline', 'shop', '--out', 'x'],
    ])
      expect(readOnlyBundleOf(args), args.join(' ')).toBe('export');
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
      ['pipelines', '-V'],
      ['help', 'status'],
      ['rebuild', 'shop'],
      ['run', 'shop'],
      ['export', '--help'],
      ['up'],
      ['--json', 'status'],
    ])
      expect(readOnlyBundleOf(args), args.join(' ')).toBeUndefined();
  });
});

describe("the bundles' command modules", () => {
  it('are the whole program entries, each registering exactly the commands it is listed under, as the bundles name them', async () => {
    const entries = { 'read-only': READ_ONLY_MODULES, pipelines: PIPELINES_MODULES, export: EXPORT_MODULES };
    expect(Object.keys(entries).sort()).toEqual(Object.keys(READ_ONLY_BUNDLES).sort());
    for (const [bundle, modules] of Object.entries(entries)) {
      // The bundle's words are its modules' first names (`rebuild` is the schema module's, and no bundle's).
      expect(modules.map((m) => m.names[0])).toEqual(READ_ONLY_BUNDLES[bundle]);
      for (const m of modules) {
        expect(COMMAND_MODULES).toContain(m);
        const program = new Command();
        (await m.load()).register(program);
        expect(program.commands.map((c) => c.name()).sort()).toEqual([...m.names].sort());
      }
    }
    // Every top-level command of the program is listed once.
    const names = COMMAND_MODULES.flatMap((m) => m.names);
    expect(new Set(names).size).toBe(names.length);
  });
});
