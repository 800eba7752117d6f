// The layout of test/ (test/README.md) holds: every test file sits where a contributor looks for it and runs in
// exactly one tier (test/tiers.ts, the projects of vitest.config.ts), and a fast test starts no server. A file
// outside the layout, or in neither tier, would otherwise never run without anyone noticing.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { globSync } from 'tinyglobby';
import { describe, expect, it } from 'vitest';
import { FAST_TIER, INTEGRATION_TIER, LONG_FIRST } from '../../tiers.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const rel = (f: string) => f.split(path.sep).join('/');

/** Every file under test/, relative to the repository root. */
const allFiles = globSync('test/**/*', { cwd: repoRoot, dot: true, onlyFiles: true }).map(rel).sort();
const tier = (globs: readonly string[]) => new Set(globSync([...globs], { cwd: repoRoot, onlyFiles: true }).map(rel));
const fast = tier(FAST_TIER);
const integration = tier(INTEGRATION_TIER);

/** Where each kind of file may be (test/README.md, "Where a new test goes"). */
const PLACES: Array<{ what: string; re: RegExp }> = [
  { what: 'a fast test', re: /^test\/fast\/[a-z0-9-]+\/[a-z0-9-]+\.test\.ts$/ },
  { what: 'an integration test', re: /^test\/integration\/[a-z0-9-]+\/[a-z0-9-]+\.test\.ts$/ },
  { what: 'the destination adapter suite', re: /^test\/destinations\/[a-z0-9-]+(\.test)?\.ts$/ },
  { what: 'test support', re: /^test\/support\/[a-z0-9-]+\.(ts|mjs)$/ },
  { what: 'a fixture', re: /^test\/fixtures\// },
  { what: 'a recorded history and its capture', re: /^test\/replay\// },
  { what: 'the tiers and their guide', re: /^test\/(tiers\.ts|README\.md)$/ },
];

/** Support modules that start servers or need the build: the integration tier's. */
const SERVER_SUPPORT = [
  'temporal',
  'temporal-server',
  'postgres',
  's3-server',
  'destinations',
  'browser',
  'cli',
  'cli-bed',
  'pipeline-bed',
  'up-process',
  'console-fixture',
  'docker-compose',
  'dbt',
];

describe('test/ layout and tiers', () => {
  it('finds the test files (the globs are relative to the repository root)', () => {
    expect(fast.size).toBeGreaterThan(5);
    expect(integration.size).toBeGreaterThan(5);
    expect(allFiles).toContain('test/fast/meta/test-layout.test.ts');
  });

  it('every file under test/ is in its place', () => {
    const misplaced = allFiles.filter((f) => !PLACES.some((p) => p.re.test(f)));
    expect(
      misplaced,
      `files outside the layout of test/README.md; move each where it belongs (${PLACES.map((p) => `${p.what}: ${p.re.source}`).join('; ')})`,
    ).toEqual([]);
  });

  it('every test file is in exactly one tier', () => {
    const tests = allFiles.filter((f) => /\.(test|spec)\.[cm]?[jt]sx?$/.test(f));
    const neither = tests.filter((f) => !fast.has(f) && !integration.has(f));
    const both = tests.filter((f) => fast.has(f) && integration.has(f));
    expect(
      neither,
      'test files in neither tier: they never run. Put each under test/fast/<area>/ or test/integration/<area>/ as a .test.ts, or name it in test/tiers.ts',
    ).toEqual([]);
    expect(both, 'test files in both tiers (test/tiers.ts): they would run twice').toEqual([]);
  });

  it('the long files started first are integration files (test/tiers.ts LONG_FIRST)', () => {
    expect(LONG_FIRST.filter((f) => !integration.has(f))).toEqual([]);
  });

  it('every test file the sources and docs name by path exists (a moved or renamed test leaves no stale reference)', () => {
    const tracked = globSync(['**/*.{md,ts,mjs,js,sh,yml,yaml}', '.ci/run'], {
      cwd: repoRoot,
      dot: true,
      ignore: ['node_modules/**', 'dist/**', 'data/**', 'test-artifacts/**'],
    }).map(rel);
    const stale: string[] = [];
    for (const f of tracked) {
      const text = fs.readFileSync(path.join(repoRoot, f), 'utf8');
      for (const m of text.matchAll(/(?<![\w.-])test\/[\w/-]+\.test\.ts/g))
        if (!fs.existsSync(path.join(repoRoot, m[0]))) stale.push(`${f}: ${m[0]}`);
    }
    expect(
      stale,
      "references to test files that do not exist: point them at the file's place under test/fast/ or test/integration/",
    ).toEqual([]);
  });

  it('a fast test imports no support that starts a server or spawns the built command', () => {
    const offending: string[] = [];
    for (const f of fast) {
      const text = fs.readFileSync(path.join(repoRoot, f), 'utf8');
      for (const m of text.matchAll(/(?:from|import\()\s*'([^']+)'/g)) {
        const spec = m[1]!;
        const target = path.resolve(path.dirname(path.join(repoRoot, f)), spec);
        const name = path.basename(spec).replace(/\.js$/, '');
        if (
          spec.startsWith('.') &&
          path.dirname(target) === path.join(repoRoot, 'test', 'support') &&
          SERVER_SUPPORT.includes(name)
        )
          offending.push(`${f} imports ${spec}`);
        if (spec.startsWith('.') && rel(path.relative(repoRoot, target)) === 'temporal/dev-server.js')
          offending.push(`${f} imports ${spec}`);
      }
    }
    expect(
      offending,
      'fast tests run in-process (test/README.md); a test that needs these belongs under test/integration/',
    ).toEqual([]);
  });
});
