// Nothing below the entry points reads process.env (issue #35): settings/process.ts builds the process's settings
// from it once, the entry point hands them down, and every other product module reads settings. A module that
// reached for process.env would read a setting past its definition, its check and the project file. Tooling with
// entry points of its own is left out by folder: bench/ and soak/ (they set up the processes they measure), the
// simulator (a separate program, `scrape-etl simulate`), test/, and the build scripts.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../support/fixtures.js';

/** The product files allowed to read process.env, each with the reason. */
const ALLOWED: Record<string, string> = {
  'settings/process.ts': 'the one loader: builds the process settings from the environment',
};
const TOOLING = new Set(['bench', 'soak', 'simulator', 'test', 'scripts']);
const SKIP = new Set(['node_modules', 'dist', 'data', 'vendor']);
/** process.env, process['env'], `const { env } = process`, and node:process's env. */
const READS =
  /\bprocess\s*(?:\.\s*env\b|\[\s*['"`]env['"`]\s*\])|\{[^}]*\benv\b[^}]*\}\s*=\s*process\b|import\s*\{[^}]*\benv\b[^}]*\}\s*from\s*['"](?:node:)?process['"]/;

function readers(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      const rel = path.relative(root, full);
      if (e.isDirectory()) {
        if (!SKIP.has(e.name) && !e.name.startsWith('.') && !(dir === root && TOOLING.has(e.name))) walk(full);
      } else if (/\.(ts|mts|cts|js|mjs)$/.test(e.name) && !e.name.endsWith('.d.ts')) {
        fs.readFileSync(full, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (!line.trim().startsWith('//') && !line.trim().startsWith('*') && READS.test(line))
              found.push(`${rel}:${i + 1}: ${line.trim()}`);
          });
      }
    }
  };
  walk(root);
  return found;
}

describe('process.env', () => {
  it('is read only by the allowed entry points and the settings loader', () => {
    const outside = readers(REPO_ROOT).filter((hit) => !Object.hasOwn(ALLOWED, hit.slice(0, hit.indexOf(':'))));
    expect(outside, 'read settings through settings/ (processSettings(), or the Settings handed down) instead').toEqual(
      [],
    );
  });

  it('each allowed file still reads it (a stale entry is removed)', () => {
    const hits = readers(REPO_ROOT).map((h) => h.slice(0, h.indexOf(':')));
    for (const file of Object.keys(ALLOWED)) expect(hits, file).toContain(file);
  });

  it('the scan finds each form it forbids', () => {
    const dir = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'process-env-'));
    try {
      fs.mkdirSync(path.join(dir, 'lib'));
      fs.mkdirSync(path.join(dir, 'bench'));
      fs.writeFileSync(
        path.join(dir, 'lib', 'a.ts'),
        [
          "const a = process.env['X'];",
          "const b = process['env'].Y;",
          'const { env } = process;',
          "import { env as e } from 'node:process';",
          '// process.env in a comment',
          "const c = 'no';",
        ].join('\n'),
      );
      fs.writeFileSync(path.join(dir, 'bench', 'b.ts'), "const d = process.env['X'];\n");
      expect(readers(dir)).toEqual([
        "lib/a.ts:1: const a = process.env['X'];",
        "lib/a.ts:2: const b = process['env'].Y;",
        'lib/a.ts:3: const { env } = process;',
        "lib/a.ts:4: import { env as e } from 'node:process';",
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
