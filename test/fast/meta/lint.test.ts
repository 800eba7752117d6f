// `npm run lint` (ESLint with typescript-eslint, eslint.config.js) is part of the fast tier: the whole repository
// must lint clean. The two rules that carry the guard rails are also shown to fire on a known bad line, so a config
// that silently stopped applying them (a wrong `files` glob, a rule renamed upstream) fails here too. The probes are
// linted as the text of an existing file (the type-aware rules need a file of the TypeScript project); nothing is written.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', '..');

// Whole-repository type-aware linting takes minutes on a loaded 2-core machine, beyond vitest's default timeout.
const LINT_TIMEOUT_MS = 900_000;

// One instance for every probe: its TypeScript project is built once.
let eslint: ESLint | undefined;

async function ruleIdsOf(file: string, code: string): Promise<string[]> {
  eslint ??= new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? 'fatal'}: ${m.message}`);
}

describe('lint', () => {
  it(
    'npm run lint passes on the whole repository',
    () => {
      const r = spawnSync(
        process.execPath,
        [path.join(ROOT, 'node_modules/eslint/bin/eslint.js'), '--max-warnings', '0', '.'],
        {
          cwd: ROOT,
          encoding: 'utf8',
        },
      );
      expect(`${r.stdout}${r.stderr}`.trim()).toBe('');
      expect(r.status).toBe(0);
    },
    LINT_TIMEOUT_MS,
  );

  it(
    'flags a promise nobody awaits',
    async () => {
      const code = `async function later(): Promise<void> {}\nexport function start(): void {\n  later();\n}\n`;
      expect(await ruleIdsOf('lib/exit-codes.ts', code)).toEqual([
        expect.stringMatching(/^@typescript-eslint\/no-floating-promises: /),
      ]);
      expect(await ruleIdsOf('lib/exit-codes.ts', code.replace('  later();', '  void later();'))).toEqual([]);
    },
    LINT_TIMEOUT_MS,
  );

  it('lets no module outside activities/ import a value from it (types may be imported)', async () => {
    const code = `import { retentionActivities } from '../activities/retention.js';\nimport type { RunEvent } from '../activities/deps.js';\nexport const used = retentionActivities;\nexport type Used = RunEvent;\n`;
    expect(await ruleIdsOf('lib/exit-codes.ts', code)).toEqual([
      expect.stringMatching(
        /^@typescript-eslint\/no-restricted-imports: '\.\.\/activities\/retention\.js' import is restricted/,
      ),
    ]);
  });

  it('lets workflow code import values only from the workflow SDK and workflow-safe modules', async () => {
    const lines = [
      `import { proxyActivities } from '@temporalio/workflow';`,
      `import { WORKFLOW_FAILURE_TYPES } from '../temporal/contract.js';`,
      `import { causeMessage } from './shared.js';`,
      `import type { Database } from '../db/connect.js';`,
      `import { z } from 'zod';`,
      `import { openDatabase } from '../db/connect.js';`,
      `export const used = [proxyActivities, WORKFLOW_FAILURE_TYPES, causeMessage, z, openDatabase] as const;`,
      `export type Used = Database;`,
    ];
    const found = await ruleIdsOf('workflows/alerts.ts', `${lines.join('\n')}\n`);
    expect(found).toEqual([
      expect.stringMatching(/^@typescript-eslint\/no-restricted-imports: 'zod' import is restricted/),
      expect.stringMatching(/^@typescript-eslint\/no-restricted-imports: '\.\.\/db\/connect\.js' import is restricted/),
    ]);
  });
});
