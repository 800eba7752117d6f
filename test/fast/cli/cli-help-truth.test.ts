// Help texts and the docs beside them that must stay true as the code changes: each is compared with the code it
// describes, not with a copy of its wording. The command's help is read from the sources (tsx), as a user reads it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DESTINATION_NAMES } from '../../../destinations/names.js';
import { UP_SERVICES } from '../../../cli/up/services.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', '..');
const MAIN = path.join(ROOT, 'cli', 'main.ts');
// tsx as this repository resolves it: the help is also read from folders outside it (a project in a temp folder).
const TSX = pathToFileURL(createRequire(path.join(ROOT, 'package.json')).resolve('tsx')).href;

function help(args: string[], cwd = ROOT, env: NodeJS.ProcessEnv = {}): string {
  const clean: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...env };
  for (const name of ['DATABASE_URL', 'SCRAPE_ETL_PROJECT']) if (!(name in env)) delete clean[name];
  return execFileSync(process.execPath, ['--import', TSX, MAIN, ...args, '--help'], {
    cwd,
    env: clean,
    encoding: 'utf8',
  });
}

/** How a destination is named in prose; a destination missing here fails the test that reads the help. */
const PROSE_NAME: Record<string, string> = { sqlite: 'SQLite', duckdb: 'DuckDB', postgres: 'Postgres' };

describe('help that must stay true', () => {
  it('the top-level help names every destination of the registry (destinations/)', () => {
    const text = help([]);
    const first = text.split('\n').find((l) => l.startsWith('Durable ETL')) ?? '';
    for (const name of DESTINATION_NAMES) {
      expect(PROSE_NAME[name], `no prose name for destination ${name} in this test`).toBeDefined();
      expect(first, `the help's first line should name ${name}`).toContain(PROSE_NAME[name]!);
    }
  }, 30_000);

  it("console --help names the database the console shows by default: in a project, the project's destination", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'help-truth-'));
    try {
      fs.writeFileSync(
        path.join(dir, 'scrape-etl.yaml'),
        'pipelines: [pipelines/*.yaml]\ndestination: sqlite:state/own.sqlite\n',
      );
      const text = help(['console'], dir).replace(/\s+/g, ' ');
      const m = /--database <url>\s+(.*?)(?= --port)/.exec(text);
      expect(m, text).not.toBeNull();
      // The default is the project's destination (filled into DATABASE_URL), not a fixed ./data file.
      expect(m![1]).toMatch(/project's destination/);
      expect(m![1]).toMatch(/DATABASE_URL/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it("every --database help that falls back to DATABASE_URL names the project's destination too (the project fills DATABASE_URL)", async () => {
    const { Command } = await import('../../../vendor/commander.js');
    const program = new Command();
    const dir = path.join(ROOT, 'cli', 'commands');
    for (const f of fs
      .readdirSync(dir)
      .filter((x) => x.endsWith('.ts'))
      .sort()) {
      const m = (await import(path.join(dir, f))) as { register?: (p: unknown) => void };
      m.register?.(program);
    }
    const walk = (c: InstanceType<typeof Command>, name: string): Array<[string, string]> => [
      ...c.options.filter((o) => o.long === '--database').map((o): [string, string] => [name, o.description]),
      ...c.commands.flatMap((sub) => walk(sub, `${name} ${sub.name()}`.trim())),
    ];
    const found = walk(program, '');
    expect(found.length).toBeGreaterThan(5);
    // A default that falls back to DATABASE_URL or the built-in file passes through the project's destination first.
    for (const [name, description] of found.filter(([, d]) => /DATABASE_URL|sqlite:\.\/data/.test(d)))
      expect(`${name}: ${description}`).toMatch(/project's destination/);
  }, 30_000);

  it("simulator/README.md's flag table lists every option of `simulate`, and nothing else", async () => {
    const { Command } = await import('../../../vendor/commander.js');
    const { register } = await import('../../../cli/commands/simulate.js');
    const program = new Command();
    register(program);
    const simulate = program.commands.find((c) => c.name() === 'simulate')!;
    const options = simulate.options
      .map((o) => o.long!)
      .filter((l) => l !== '--help')
      .sort();
    const readme = fs.readFileSync(path.join(ROOT, 'simulator', 'README.md'), 'utf8');
    const table = [...readme.matchAll(/^\| `(--[a-z-]+)[^`]*` \|/gm)].map((m) => m[1]!).sort();
    expect(table).toEqual(options);
  });

  it('simulator/README.md says /_sim/drift needs the token, as every /_sim route', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'simulator', 'README.md'), 'utf8');
    const drift = readme.split('\n').filter((l) => l.includes('/_sim/drift'));
    expect(drift.length).toBeGreaterThan(0);
    // Every curl of a /_sim route in the README sends the token header.
    for (const line of readme.split('\n').filter((l) => /curl .*\/_sim\//.test(l)))
      expect(line, line).toMatch(/-H "\$T"|Authorization: Bearer/);
    expect(drift.some((l) => /curl .*\/_sim\/drift/.test(l))).toBe(true);
  });

  it('docs/up.md describes every service of UP_SERVICES as available (none is said to be missing)', () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs', 'up.md'), 'utf8');
    for (const [name, s] of Object.entries(UP_SERVICES)) {
      expect(s.load, `${name} has a module`).toBeDefined();
      expect(doc).toContain(`up --${name}`);
      const said = doc
        .split(/\n\n/)
        .filter((p) => p.includes(`--${name}`))
        .join(' ')
        .replace(/\s+/g, ' ');
      expect(said, `docs/up.md on --${name}`).not.toMatch(/not available|until it is built|reserved for/);
    }
  });
});
