// yaml, tinyglobby and commander reach the product only through vendor/ (vendor/README.md): the build bundles each
// into one file, and a module that imported the package itself would load its dozens of CommonJS files beside the
// bundle, giving the start-up time back (bench/startup.ts). This scans the runtime sources (pure, fast); tests,
// benches, the soak and the build scripts may import the packages themselves.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', '..');
const SKIP_DIRS = new Set(['node_modules', 'dist', 'test', 'bench', 'soak', 'scripts', 'vendor', 'data']);
const VENDORED = ['yaml', 'tinyglobby', 'commander', 'zod/mini'];
// Static imports and re-exports (type-only ones load nothing and are allowed), and dynamic imports.
const IMPORT = new RegExp(
  `(?:^\\s*(?:import|export)\\s+(?!type\\b)[^'"]*from\\s*|\\bimport\\(\\s*)['"](${VENDORED.join('|')})(?:/[^'"]*)?['"]`,
);

/** `file:line: text` of every runtime import of a vendored package outside vendor/. */
function directImports(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !e.name.startsWith('.')) walk(path.join(dir, e.name));
      } else if (/\.(ts|mts|cts)$/.test(e.name) && !e.name.endsWith('.d.ts') && !e.name.includes('.config.')) {
        const file = path.join(dir, e.name);
        fs.readFileSync(file, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (IMPORT.test(line)) found.push(`${path.relative(root, file)}:${i + 1}: ${line.trim()}`);
          });
      }
    }
  };
  walk(root);
  return found;
}

describe('vendored packages', () => {
  it('no runtime module imports yaml, tinyglobby or commander except through vendor/', () => {
    expect(directImports(ROOT)).toEqual([]);
  });

  it('the scan finds the forms it forbids, and lets type-only imports through', () => {
    const dir = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'vendor-imports-'));
    try {
      fs.mkdirSync(path.join(dir, 'cli'));
      fs.writeFileSync(
        path.join(dir, 'cli', 'a.ts'),
        [
          "import { parse } from 'yaml';",
          "import type { Command } from 'commander';",
          "  const { glob } = await import('tinyglobby');",
          "export { Option } from 'commander';",
          "import x from '../vendor/yaml.js';",
        ].join('\n'),
      );
      expect(directImports(dir)).toEqual([
        "cli/a.ts:1: import { parse } from 'yaml';",
        "cli/a.ts:3: const { glob } = await import('tinyglobby');",
        "cli/a.ts:4: export { Option } from 'commander';",
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
