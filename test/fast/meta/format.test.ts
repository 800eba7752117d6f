// The formatter (Prettier, prettier.config.js) is part of the fast tier: every code file must be as `npm run format`
// writes it. A probe shows the check fires on a badly formatted line, so an ignore file that swallowed the code
// (a glob gone wrong) fails here too rather than passing on nothing.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', '..');

// Checking ~900 files takes tens of seconds on a loaded 2-core machine, beyond vitest's default timeout.
const FORMAT_TIMEOUT_MS = 300_000;

describe('format', () => {
  it(
    'npm run format:check passes on the whole repository',
    () => {
      const r = spawnSync(
        process.execPath,
        [path.join(ROOT, 'node_modules/prettier/bin/prettier.cjs'), '--check', '--log-level', 'warn', '.'],
        { cwd: ROOT, encoding: 'utf8' },
      );
      expect(`${r.stdout}${r.stderr}`.trim()).toBe('');
      expect(r.status).toBe(0);
    },
    FORMAT_TIMEOUT_MS,
  );

  it('covers product code and flags a line the formatter would rewrite', async () => {
    const file = path.join(ROOT, 'lib/exit-codes.ts');
    const info = await prettier.getFileInfo(file, { ignorePath: path.join(ROOT, '.prettierignore') });
    expect(info.ignored).toBe(false);
    const options = { ...(await prettier.resolveConfig(file)), filepath: file };
    expect(await prettier.check('export const a = {b:1}\n', options)).toBe(false);
    expect(await prettier.check('export const a = { b: 1 };\n', options)).toBe(true);
  });
});
