// Everything that differs between destinations lives in destinations/<name>/ behind the adapter interface
// (destinations/contract.ts): product code outside destinations/ asks the adapter or a capability and never compares a
// destination's name. This scans the source (pure, fast): a `dialect === 'sqlite'`, a `case 'duckdb':` or a
// `=== 'postgres'` outside destinations/ fails it, with file and line; so does a lookup keyed by a destination's
// name (`X[dialect]`, `X.sqlite`, a `{ sqlite: …, pg: … }` table or a `'sqlite' | 'postgres'` type), which is the same
// branch written as data. Tests may compare names (they pick the database to check against).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DESTINATION_NAMES } from '../../../destinations/names.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', '..');
const SKIP_DIRS = new Set(['node_modules', 'dist', '.git', 'test', 'destinations']);
const NAMES = '(?:sqlite|postgres|postgresql|duckdb)';
/** Destination names and the short names tables were keyed by (`pg`). */
const KEYS = '(?:sqlite|postgres|postgresql|pg|duckdb)';

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
  // X[db.dialect], X[dialect]
  /\[\s*(?:[\w$]+\.)*dialect\s*\]/,
];

/**
 * The same lookups written as data, matched in code whose string literals are emptied (a literal that is only a
 * destination's name is kept), so a URL form in a message ('sqlite:<file>') or a file name ('a.sqlite') is none.
 */
const NAME_KEYED_PATTERNS: RegExp[] = [
  // A table keyed by destination names: { sqlite: …, pg: … }, { 'duckdb': … }, a type { sqlite: string; pg: string }.
  new RegExp(`(?:^|[{,;])\\s*(?:${KEYS}|'${KEYS}'|"${KEYS}")\\s*\\??:(?!:)`),
  // A union of destination names as a type: a value form or a type choice named after destinations.
  new RegExp(`['"]${NAMES}['"]\\s*\\|\\s*['"]${NAMES}['"]`),
  // A property named after one: X.sqlite, SQL_TYPES[t].pg, db.duckdb.
  new RegExp(`\\.${KEYS}\\b`),
];

const A_NAME = new RegExp(`^['"]${KEYS}['"]$`);

/** A line of code with the text of its string literals removed (quotes kept), but for literals that are a name. */
function withoutStrings(code: string): string {
  return code.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`/g, (q) =>
    A_NAME.test(q) ? q : q[0]! + q[0]!,
  );
}

function isLookup(code: string): boolean {
  const stripped = withoutStrings(code);
  return LOOKUP_PATTERNS.some((p) => p.test(code)) || NAME_KEYED_PATTERNS.some((p) => p.test(stripped));
}

/**
 * Where the product is wired may look a destination up by its URL or name (the registry sits above them): the
 * command line, the console's sources, preflight, the activities' dependencies; and the benchmarks, the soak and the
 * developer scripts, which pick the database they measure or generate for as tests do.
 */
const WIRING =
  /^(cli\/|bench\/|soak\/|scripts\/|console\/(source|targets)\.ts$|pipelines\/preflight(-checks)?\.ts$|activities\/deps\.ts$)/;

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
            // A line of a block comment is prose, not a lookup.
            const prose = /^\s*(?:\*|\/\*)/.test(code);
            const lookup = !prose && !WIRING.test(path.relative(root, file)) && isLookup(code);
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
      'const inner = FORMATTERS[dialect](col, opts);',
      'return NUMBERS_AS_VALUES[dialect] && n;',
      'const expected = SQL_TYPES[def.type][TYPE_NAMES_OF_FORMS[dialect]];',
      'return SQL_TYPES[def.type].pg;',
      'const t = TYPES.sqlite;',
      'const NUMBERS_AS_VALUES = { sqlite: true, postgres: false } as const;',
      "  int64: { sqlite: 'integer', pg: 'bigint' },",
      '} as const satisfies Record<ColumnType, { sqlite: string; pg: string }>;',
      "const forms: Record<string, () => string[]> = { 'postgres': () => a };",
      '  duckdb: () => b,',
      "export function cellFormatter(col: ColumnInfo, dialect: 'sqlite' | 'postgres'): CellFormatter {",
    ];
    for (const l of lookups) expect(isLookup(l), l).toBe(true);
    const neutral = [
      'const dest = db.adapter;',
      'if (tx.adapter.capabilities.savepoints) {',
      'const n = db.dialect;',
      'const types = db.adapter.sql.columnTypes;',
      "const file = path.join(dir, 'shop.sqlite');",
      'const url = `sqlite:${file}.sqlite`;',
      'const inner = FORMATTERS[forms.values](col, opts);',
      'throw usageError(`not a database URL (sqlite:<file>, duckdb:<file> or postgres://…)`);',
      "const kind = cond ? 'sqlite' : 'other';",
    ];
    for (const c of neutral) expect(isLookup(c), c).toBe(false);
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'dialect-lookups-'));
    try {
      fs.mkdirSync(path.join(scratch, 'export'));
      fs.writeFileSync(
        path.join(scratch, 'export', 'x.ts'),
        "import { destinationNamed } from '../destinations/index.js';\nexport const t = destinationNamed('sqlite').sql.textType;\n",
      );
      fs.writeFileSync(
        path.join(scratch, 'export', 'forms.ts'),
        [
          '// A table keyed by destination names: { sqlite: 1, pg: 2 } in a comment is prose.',
          '/**',
          ' * sqlite: what a comment says about it.',
          ' */',
          "const FORMS = { sqlite: 'native', postgres: 'text' } as const;",
          "export const form = (dialect: 'sqlite' | 'postgres') => FORMS[dialect];",
          '',
        ].join('\n'),
      );
      // Where the product is wired, a table of names is how it picks (the command line's prose of each destination).
      fs.mkdirSync(path.join(scratch, 'cli'));
      fs.writeFileSync(
        path.join(scratch, 'cli', 'names.ts'),
        "export const PROSE = { sqlite: 'SQLite', duckdb: 'DuckDB', postgres: 'Postgres' };\n",
      );
      expect(dialectBranches(scratch).sort()).toEqual([
        "export/forms.ts:5: const FORMS = { sqlite: 'native', postgres: 'text' } as const;",
        "export/forms.ts:6: export const form = (dialect: 'sqlite' | 'postgres') => FORMS[dialect];",
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
