// Everything that differs between destinations lives in destinations/<name>/ behind the adapter interface
// (destinations/contract.ts): product code outside destinations/ asks the adapter or a capability and never compares a
// destination's name. This scans the source (pure, fast): a `dialect === 'sqlite'`, a `case 'duckdb':` or a
// `=== 'postgres'` outside destinations/ fails it, with file and line. Tests may compare names (they pick the
// database to check against).
import fs from 'node:fs';
import os from 'node:os';
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

/**
 * The forms a lookup of an adapter by a destination's name takes: below the registry a handle carries its adapter
 * (`db.adapter`), and only the places that wire the product open by URL (destinations/open.ts). A record keyed by
 * destination names and indexed with a handle's name is such a lookup too.
 */
const LOOKUP_PATTERNS: RegExp[] = [
  /\bdestination(?:Named|Of)\(/,
  /\b(?:DESTINATIONS|CAPABILITIES)\s*\[/,
  /\[\s*[\w$.]*\.dialect\s*\]/,
];

/**
 * Where the product is wired may look a destination up by its URL or name (the registry sits above them): the
 * command line, the console's sources, preflight, the activities' dependencies; and the benchmarks and the soak,
 * which pick the database they measure as tests do.
 */
const WIRING =
  /^(cli\/|bench\/|soak\/|console\/(source|targets)\.ts$|pipelines\/preflight(-checks)?\.ts$|activities\/deps\.ts$)/;

/** `file:line: text` of every branch on (or lookup by) a destination name in the TypeScript under `root` outside destinations/ and test/. */
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
            const lookup = !WIRING.test(path.relative(root, file)) && LOOKUP_PATTERNS.some((p) => p.test(code));
            if (lookup || BRANCH_PATTERNS.some((p) => p.test(code)))
              found.push(`${path.relative(root, file)}:${i + 1}: ${line.trim()}`);
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
      'switch (db.dialect) {',
      "  case 'duckdb':",
      "const url = d === 'postgres' ? a : b;",
      'const m = /^(sqlite|duckdb):(.*)$/.exec(url);',
      'if (/^postgres(ql)?:\\/\\//i.test(url)) return;',
      "if (url.trim().startsWith('sqlite:')) {",
    ];
    for (const b of branches)
      expect(
        BRANCH_PATTERNS.some((p) => p.test(b)),
        b,
      ).toBe(true);
    const neutral = [
      'const dest = destinationOf(db);',
      'if (dest.capabilities.savepoints) {',
      'sqlite: sqliteDestination,',
      '`sqlite:${file}`',
    ];
    for (const c of neutral)
      expect(
        BRANCH_PATTERNS.some((p) => p.test(c)),
        c,
      ).toBe(false);
  });

  it("the lookup patterns catch an adapter or a record looked up by a destination name (and leave the handle's adapter alone)", () => {
    const lookups = [
      'const dest = destinationOf(db);',
      "const a = destinationNamed('sqlite');",
      'const c = CAPABILITIES[tx.dialect];',
      'const adapter = DESTINATIONS[name];',
      'const f = FORMATTERS[db.dialect](col);',
    ];
    for (const l of lookups)
      expect(
        LOOKUP_PATTERNS.some((p) => p.test(l)),
        l,
      ).toBe(true);
    const neutral = [
      'const dest = db.adapter;',
      'if (tx.adapter.capabilities.savepoints) {',
      'const n = db.dialect;',
      'sqlite: sqliteDestination,',
    ];
    for (const c of neutral)
      expect(
        LOOKUP_PATTERNS.some((p) => p.test(c)),
        c,
      ).toBe(false);
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'dialect-lookups-'));
    try {
      fs.mkdirSync(path.join(scratch, 'export'));
      fs.writeFileSync(
        path.join(scratch, 'export', 'x.ts'),
        "import { destinationNamed } from '../destinations/index.js';\nexport const t = destinationNamed('sqlite').sql.textType;\n",
      );
      expect(dialectBranches(scratch)).toEqual([
        "export/x.ts:2: export const t = destinationNamed('sqlite').sql.textType;",
      ]);
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
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
