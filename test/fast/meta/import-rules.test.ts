// The import rules of docs/architecture.md ("Layers and imports"), run with dependency-cruiser over the product's
// own imports (.dependency-cruiser.cjs, its layers in .dependency-cruiser-layers.cjs): no import cycle across
// top-level folders, no import into an engine folder destinations/<engine>/ from outside destinations/, and no
// import from a lower layer to a higher one beyond the (at most four) listed and justified exceptions. The report is
// printed whether the rules pass or not, so CI's output shows the figures. The model (db/model/) imports and loads no
// module that does I/O (.dependency-cruiser-runtime.cjs follows what it loads through the layers below it), and the
// store (db/store/) reaches destinations through the contract only. A second case runs the same rules over a small
// tree that breaks each of them, so a rule that stopped matching anything fails here too.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', '..');
const require = createRequire(import.meta.url);
const { LAYERS, LOWER_TO_HIGHER, PRODUCT_FOLDERS } = require(path.join(ROOT, '.dependency-cruiser-layers.cjs')) as {
  LAYERS: ReadonlyArray<{ name: string; paths: string[] }>;
  LOWER_TO_HIGHER: ReadonlyArray<{ from: string; to: string }>;
  PRODUCT_FOLDERS: readonly string[];
};
const DEPCRUISE = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
  cycle?: Array<{ name: string }>;
}
interface Cruise {
  modules: Array<{
    source: string;
    dependencies: Array<{ resolved: string; coreModule?: boolean; couldNotResolve?: boolean }>;
  }>;
  summary: { violations: Violation[] };
}

/** dependency-cruiser with the project's rules over `folders` (relative to `cwd`), as its JSON result. */
async function cruise(cwd: string, folders: readonly string[], config: string): Promise<Cruise> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [DEPCRUISE, '--config', config, '--output-type', 'json', ...folders],
    {
      cwd,
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  return JSON.parse(stdout) as Cruise;
}

const top = (p: string) => p.split('/')[0]!;

/** The strongly connected components (Tarjan) of the module graph whose modules sit in more than one top-level folder. */
function crossFolderCycles(result: Cruise): string[][] {
  const graph = new Map<string, string[]>();
  for (const m of result.modules)
    graph.set(
      m.source,
      m.dependencies.filter((d) => !d.coreModule && !d.couldNotResolve).map((d) => d.resolved),
    );
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (new Set(scc.map(top)).size > 1) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

function layerOf(file: string): string | undefined {
  return LAYERS.find((l) => l.paths.some((p) => new RegExp(p).test(file)))?.name;
}

function report(result: Cruise, cycles: string[][]): string {
  const byRule = new Map<string, Violation[]>();
  for (const v of result.summary.violations) {
    const rule = v.rule.name.startsWith('layer-') ? 'lower-to-higher-layer' : v.rule.name;
    byRule.set(rule, [...(byRule.get(rule) ?? []), v]);
  }
  const lines = [
    `import rules (dependency-cruiser, ${result.modules.filter((m) => PRODUCT_FOLDERS.includes(top(m.source))).length} modules of ${PRODUCT_FOLDERS.join(', ')}):`,
    `  cycles across top-level folders: ${cycles.length}${cycles.map((c) => ` (${c.length} files in ${[...new Set(c.map(top))].sort().join(', ')})`).join('')}`,
    `  imports into an engine folder from outside destinations/: ${byRule.get('no-engine-folder-from-outside')?.length ?? 0}`,
    `  imports from a lower layer to a higher one: ${(byRule.get('lower-to-higher-layer')?.length ?? 0) + LOWER_TO_HIGHER.length} (${LOWER_TO_HIGHER.length} allowed, docs/architecture.md)`,
    ...LOWER_TO_HIGHER.map((a) => `    allowed: ${a.from} → ${a.to} (${layerOf(a.from)} → ${layerOf(a.to)})`),
  ];
  for (const [rule, vs] of byRule)
    for (const v of vs) lines.push(`  ${rule}: ${v.from} → ${v.cycle ? v.cycle.map((c) => c.name).join(' → ') : v.to}`);
  return lines.join('\n');
}

describe('import rules', () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'import-rules-'));
  afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

  it('the product keeps the rules of docs/architecture.md (the report is printed)', async () => {
    const result = await cruise(ROOT, PRODUCT_FOLDERS, '.dependency-cruiser.cjs');
    const cycles = crossFolderCycles(result);
    const loaded = await cruise(ROOT, ['db/model'], '.dependency-cruiser-runtime.cjs');
    console.log(
      `${report(result, cycles)}\n  modules the model loads that do I/O: ${loaded.summary.violations.length} (of ${loaded.modules.length} it reaches)`,
    );
    expect(loaded.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);

    // Every product module belongs to a layer, so none escapes the layer rules.
    expect(result.modules.map((m) => m.source).filter((s) => PRODUCT_FOLDERS.includes(top(s)) && !layerOf(s))).toEqual(
      [],
    );
    expect(cycles).toEqual([]);
    expect(result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);

    // The exceptions: at most four, each an import that exists, goes up, and is named in the documentation.
    expect(LOWER_TO_HIGHER.length).toBeLessThanOrEqual(4);
    const doc = fs.readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
    const rank = (f: string) => LAYERS.findIndex((l) => l.name === layerOf(f));
    for (const a of LOWER_TO_HIGHER) {
      const m = result.modules.find((x) => x.source === a.from);
      expect(
        m?.dependencies.some((d) => d.resolved === a.to),
        `${a.from} imports ${a.to}`,
      ).toBe(true);
      expect(rank(a.from), `${a.from} → ${a.to} goes up`).toBeLessThan(rank(a.to));
      expect(doc, `docs/architecture.md names ${a.from} → ${a.to}`).toContain(`\`${a.from}\` → \`${a.to}\``);
    }
    for (const l of LAYERS)
      expect(doc, `docs/architecture.md lists the layer ${l.name}`).toContain(`| \`${l.name}\` |`);
  });

  it('each rule fails on a tree that breaks it', async () => {
    const files: Record<string, string> = {
      // A cycle across two folders.
      'db/store/a.ts': "import { b } from '../../export/b.js';\nexport const a = (): number => b;\n",
      'export/b.ts': "import { a } from '../db/store/a.js';\nexport const b = 1;\nexport const c = a;\n",
      // An engine folder imported from outside destinations/, and the store importing a higher layer (the registry).
      'db/store/c.ts':
        "import { e } from '../../destinations/sqlite/e.js';\nimport { r } from '../../destinations/index.js';\n" +
        "import { o } from '../../destinations/open.js';\nimport type { H } from '../../destinations/contract.js';\n" +
        'export const c = (h?: H): number => e + r + o + (h ?? 0);\n',
      'destinations/sqlite/e.ts': 'export const e = 1;\n',
      'destinations/index.ts': 'export const r = 2;\n',
      'destinations/open.ts': 'export const o = 3;\n',
      // The contract: a driver's type (which loads nothing at run time), and a value it must not import.
      'destinations/contract.ts':
        "import type BetterSqlite3 from 'better-sqlite3';\nimport { n } from './names.js';\n" +
        'export type H = number | BetterSqlite3.Database;\nexport type N = typeof n;\n',
      'destinations/names.ts': 'export const n = 4;\n',
      // The model: a driver's type imported directly, a file read through a foundation module it imports, and drizzle's
      // table builders and the contract, which are allowed.
      'db/model/direct.ts': "import type pg from 'pg';\nexport type Pool = pg.Pool;\n",
      'db/model/through.ts': "import { read } from '../../lib/read.js';\nexport const t = read;\n",
      'lib/read.ts':
        "import fs from 'node:fs';\nexport const read = (f: string): string => fs.readFileSync(f, 'utf8');\n",
      'db/model/allowed.ts':
        "import { sqliteTable, text } from 'drizzle-orm/sqlite-core';\nimport type { H } from '../../destinations/contract.js';\n" +
        "import { createHash } from 'node:crypto';\n" +
        "export const t = sqliteTable('t', { a: text('a') });\nexport const h = (x: H): string => createHash('sha1').update(String(x)).digest('hex');\n",
    };
    for (const [f, text] of Object.entries(files)) {
      fs.mkdirSync(path.join(scratch, path.dirname(f)), { recursive: true });
      fs.writeFileSync(path.join(scratch, f), text);
    }
    fs.writeFileSync(path.join(scratch, 'tsconfig.json'), fs.readFileSync(path.join(ROOT, 'tsconfig.json')));
    // The packages resolve as they do in the repository, so a driver is matched by the folder it is installed in.
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(scratch, 'node_modules'), 'dir');
    for (const f of ['.dependency-cruiser.cjs', '.dependency-cruiser-layers.cjs', '.dependency-cruiser-runtime.cjs'])
      fs.copyFileSync(path.join(ROOT, f), path.join(scratch, f));
    const result = await cruise(scratch, ['db', 'export', 'destinations', 'lib'], '.dependency-cruiser.cjs');
    const found = result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
    expect(crossFolderCycles(result)).toEqual([['db/store/a.ts', 'export/b.ts']]);
    expect(found).toContain('no-cycle-across-folders: db/store/a.ts → export/b.ts');
    expect(found).toContain('no-engine-folder-from-outside: db/store/c.ts → destinations/sqlite/e.ts');
    expect(found).toContain('layer-store-to-registry: db/store/c.ts → destinations/index.ts');
    expect(found).toContain('layer-store-to-engines: db/store/c.ts → destinations/sqlite/e.ts');
    for (const to of ['destinations/sqlite/e.ts', 'destinations/index.ts', 'destinations/open.ts'])
      expect(found).toContain(`store-uses-the-contract: db/store/c.ts → ${to}`);
    expect(found.filter((f) => f.includes('→ destinations/contract.ts'))).toEqual([]);
    expect(found.filter((f) => f.startsWith('model-imports-no-io:'))).toEqual([
      expect.stringMatching(/^model-imports-no-io: db\/model\/direct\.ts → (.*\/)?node_modules\/pg\//),
    ]);
    expect(found).toContain('contract-is-types-only: destinations/contract.ts → destinations/names.ts');

    // What the model loads, followed through the foundation module it imports; drizzle's builders, node:crypto and
    // the contract's driver type pass.
    const loaded = await cruise(scratch, ['db/model'], '.dependency-cruiser-runtime.cjs');
    const io = loaded.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
    expect(io).toHaveLength(2);
    expect(io).toContain('model-loads-no-io: db/model/through.ts → fs');
    expect(io.filter((f) => f.includes('db/model/direct.ts'))).toEqual([
      expect.stringMatching(/^model-loads-no-io: db\/model\/direct\.ts → (.*\/)?node_modules\/pg\//),
    ]);
  });
});
