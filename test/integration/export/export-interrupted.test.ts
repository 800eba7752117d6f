// An export stopped by Ctrl-C or SIGTERM leaves no hidden `.partial` behind (issue 30: up to 16 MB were left), and
// the process still ends by that signal. A real process writing through writeAtomically, signalled mid-write.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../support/cli.js';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-interrupted-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('an export interrupted mid-write', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal}: the .partial is removed and the process ends by the signal`, async () => {
      const final = path.join(dir, `out-${signal}.csv`);
      const script = `import fs from 'node:fs';
import { writeAtomically } from ${JSON.stringify(path.join(REPO_ROOT, 'export/atomic-file.ts'))};
await writeAtomically(${JSON.stringify(final)}, async (temp) => {
  fs.writeFileSync(temp, 'a,b\\n'.repeat(100000));
  process.stdout.write('writing\\n');
  await new Promise((r) => setTimeout(r, 120000));
});`;
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
        child.on('close', (code, sig) => r({ code, signal: sig })),
      );
      const deadline = Date.now() + 60_000;
      while (!out.includes('writing')) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`never wrote:\n${out}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(fs.readdirSync(dir).filter((f) => f.endsWith('.partial'))).toHaveLength(1);
      child.kill(signal);
      expect(await closed).toEqual({ code: null, signal });
      expect(fs.readdirSync(dir).filter((f) => f.includes(`out-${signal}`))).toEqual([]);
    }, 90_000);
  }
});
