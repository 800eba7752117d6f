// `npm run bench`: runs every benchmark module in bench/ one after another, each in a process of its own so
// that timings and memory peaks are not shared. A benchmark module is any bench/*.ts other than this file
// that runs itself when executed; each prints its own numbers against a baseline measured in the same run.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const modules = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_') && !f.endsWith('.d.ts'))
  .filter((f) => only.length === 0 || only.includes(path.basename(f, '.ts')))
  .sort();

let failed = 0;
for (const f of modules) {
  process.stdout.write(`\n=== bench/${f} ===\n`);
  const t0 = Date.now();
  const res = spawnSync(process.execPath, ['--import', 'tsx', path.join(dir, f)], { stdio: 'inherit' });
  if (res.status !== 0) {
    failed++;
    process.stdout.write(`bench/${f} failed (exit ${res.status ?? res.signal})\n`);
  } else {
    process.stdout.write(`(bench/${f}: ${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
  }
}
if (failed > 0) process.exitCode = 1;
