// Everything that differs between destinations lives in destinations/<name>/ behind the adapter interface
// (destinations/types.ts): product code outside destinations/ asks the adapter or a capability and never compares a
// destination's name. This scans the source (pure, fast): a `dialect === 'sqlite'`, a `case 'duckdb':` or a
// `=== 'postgres'` outside destinations/ fails it, with file and line. Tests may compare names (they pick the
// database to check against).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DESTINATION_NAMES } from '../../../destinations/names.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', '..');
const SKIP_DIRS = new Set(['node_modules', 'dist', '.git', 'test', 'destinations']);
const NAMES = '(?:sqlite|postgres|postgresql|duckdb)';

/** The forms a branch on a destination's name takes. */
const BRANCH_PATTERNS: RegExp[] = [
  /\bdialect\s*[!=]==/,
  /\bdialect\s*\)\s*\{/, // switch (x.dialect) {
  new RegExp(`[!=]==\\s*['"\`]${NAMES}['"\`]`),
  new RegExp(`['"\`]${NAMES}['"\`]\\s*[!=]==`),
  new RegExp(`\\bcase\\s+['"\`]${NAMES}['"\`]\\s*:`),
  // A URL's scheme tested in place (destinations/url-forms.ts holds them): /^(sqlite|duckdb):/, startsWith('sqlite:').
  new RegExp(`/\\^\\(?${NAMES}`),
  new RegExp(`startsWith\\(['"\`]${NAMES}`),
];

/** `file:line: text` of every branch on a destination name in the TypeScript under `root` outside destinations/ and test/. */
export function dialectBranches(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !e.name.startsWith('.')) walk(path.join(dir, e.name));
      } else if (/\.(ts|mts|cts)$/.test(e.name) && !e.name.endsWith('.d.ts')) {
        const file = path.join(dir, e.name);
        fs.readFileSync(file, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            const code = line.replace(/\/\/.*$/, '');
            if (BRANCH_PATTERNS.some((p) => p.test(code))) found.push(`${path.relative(root, file)}:${i + 1}: ${line.trim()}`);
          });
      }
    }
  };
  walk(root);
  return found;
}

describe('destination branches', () => {
  it('the patterns catch every form of a branch on a destination name (and leave other code alone)', () => {
    const branches = [
      "if (db.dialect === 'sqlite') {",
      "return tx.dialect !== 'postgres' ? a : b;",
      "if ('duckdb' === parsed.dialect) x();",
      "switch (db.dialect) {",
      "  case 'duckdb':",
      "const url = d === 'postgres' ? a : b;",
      "const m = /^(sqlite|duckdb):(.*)$/.exec(url);",
      "if (/^postgres(ql)?:\\/\\//i.test(url)) return;",
      "if (url.trim().startsWith('sqlite:')) {",
    ];
    for (const b of branches) expect(BRANCH_PATTERNS.some((p) => p.test(b)), b).toBe(true);
    const neutral = ["const dest = destinationOf(db);", "if (dest.capabilities.savepoints) {", "sqlite: sqliteDestination,", "`sqlite:${file}`"];
    for (const c of neutral) expect(BRANCH_PATTERNS.some((p) => p.test(c)), c).toBe(false);
  });

  it('no product code outside destinations/ compares a destination name', () => {
    expect(dialectBranches(ROOT)).toEqual([]);
  });

  it('every destination runs the standard adapter suite in a file of its own', () => {
    for (const name of DESTINATION_NAMES) {
      const file = path.join(ROOT, 'test', 'destinations', `${name}.test.ts`);
      expect(fs.existsSync(file), `test/destinations/${name}.test.ts`).toBe(true);
      expect(fs.readFileSync(file, 'utf8')).toContain(`adapterSuite('${name}'`);
    }
  });
});
