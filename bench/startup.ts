// Start-up benchmark of the compiled command, against `node -e 0` (the floor: Node itself) measured in the same
// run: `scrape-etl --help` and `--version` (goal: at most 3x the floor, which needs lazily imported commands),
// and "worker ready", the time from spawning `scrape-etl worker` until it logs that it polls its task queue,
// against a real Temporal dev server. The worker must use the bundle prebuilt by `npm run build`; the old path,
// running the sources through tsx and bundling the workflow code at start, is timed as the worker's baseline.
//   npm run build && npx tsx bench/startup.ts        (npm run bench builds first)
//   BENCH_STARTUP_RUNS=n                              runs of the quick commands (default 15; workers: a third)
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDevServer, stopDevServer } from '../temporal/dev-server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin', 'scrape-etl.js');
const RUNS = Math.max(3, Number(process.env['BENCH_STARTUP_RUNS'] ?? 15));
const WORKER_RUNS = Math.max(3, Math.round(RUNS / 3));

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function timeCommand(args: string[], expectStdout?: RegExp): number {
  const t0 = process.hrtime.bigint();
  const res = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (res.status !== 0) throw new Error(`node ${args.join(' ')} exited ${res.status ?? res.signal}: ${res.stderr}`);
  if (expectStdout && !expectStdout.test(res.stdout)) throw new Error(`node ${args.join(' ')} printed ${JSON.stringify(res.stdout.slice(0, 200))}`);
  return ms;
}

interface WorkerStart {
  ms: number;
  /** The worker's own line about its workflow code: prebuilt, or bundled at start. */
  bundleLine: string;
}

/** Spawns a worker, waits for its "polling task queue" line, stops it (SIGTERM, then SIGKILL) and waits for its exit. */
async function timeWorker(args: string[], address: string, taskQueue: string): Promise<WorkerStart> {
  const t0 = process.hrtime.bigint();
  const child = spawn(process.execPath, [...args, 'worker', '--shutdown-grace', '1s'], {
    cwd: root,
    env: { ...process.env, TEMPORAL_ADDRESS: address, TEMPORAL_TASK_QUEUE: taskQueue, SCRAPE_ETL_WORKER_LOG_LEVEL: 'ERROR' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ms = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker not ready within 120 s:\n${out}`)), 120_000);
    const onData = (b: Buffer) => {
      out += b.toString();
      if (out.includes('polling task queue')) {
        clearTimeout(timer);
        resolve(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`worker exited before polling:\n${out}`));
    });
  });
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(killer);
  const bundleLine = out.split('\n').find((l) => l.startsWith('workflow bundle:')) ?? '(no workflow bundle line)';
  return { ms, bundleLine };
}

const fmt = (ms: number) => `${ms.toFixed(0).padStart(6)} ms`;

if (!fs.existsSync(path.join(root, 'dist', 'cli', 'main.js')) || !fs.existsSync(path.join(root, 'dist', 'workflow-bundle.js'))) {
  throw new Error('dist/ is not built: run `npm run build` first (`npm run bench` does)');
}

// Interleaved, so that a burst of load on the machine hits every command alike.
const floor: number[] = [];
const help: number[] = [];
const version: number[] = [];
const expectedVersion = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
timeCommand(['-e', '0']); // warms the file system cache
timeCommand([bin, '--help']);
for (let i = 0; i < RUNS; i++) {
  floor.push(timeCommand(['-e', '0']));
  help.push(timeCommand([bin, '--help'], /Usage: scrape-etl/));
  version.push(timeCommand([bin, '--version'], new RegExp(`^${expectedVersion.replace(/\./g, '\\.')}\\n$`)));
}
const f = median(floor);
process.stdout.write(`runs: ${RUNS} each (medians)\n`);
process.stdout.write(`node -e 0                          ${fmt(f)}   (floor)\n`);
process.stdout.write(`node bin/scrape-etl.js --help      ${fmt(median(help))}   ${(median(help) / f).toFixed(2)}x the floor (goal <= 3x)\n`);
process.stdout.write(`node bin/scrape-etl.js --version   ${fmt(median(version))}   ${(median(version) / f).toFixed(2)}x the floor (goal <= 3x)\n`);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-bench-startup-'));
try {
  const server = await ensureDevServer({ dataDir, headless: true, startTimeoutMs: 90_000 });
  const compiled: WorkerStart[] = [];
  const fromSource: WorkerStart[] = [];
  for (let i = 0; i < WORKER_RUNS; i++) {
    compiled.push(await timeWorker([bin], server.address, `bench-startup-${i}`));
    // The old path: the TypeScript sources through tsx, bundling the workflow code at start.
    fromSource.push(await timeWorker(['--import', 'tsx', path.join(root, 'cli', 'main.ts')], server.address, `bench-startup-src-${i}`));
  }
  const c = median(compiled.map((w) => w.ms));
  const s = median(fromSource.map((w) => w.ms));
  const bundledAtStart = compiled.some((w) => !w.bundleLine.includes('prebuilt'));
  process.stdout.write(`\nworker ready (spawn until "polling task queue"), ${WORKER_RUNS} runs each against a dev server:\n`);
  process.stdout.write(`compiled: node bin/scrape-etl.js worker          ${fmt(c)}   ${compiled[0]!.bundleLine}\n`);
  process.stdout.write(`old path: tsx sources, bundling at start         ${fmt(s)}   ${fromSource[0]!.bundleLine}\n`);
  process.stdout.write(`compiled / old path: ${(c / s).toFixed(2)}x; a bundle was built at worker start: ${bundledAtStart ? 'YES (unexpected)' : 'no'}\n`);
  if (bundledAtStart) process.exitCode = 1;
} finally {
  await stopDevServer({ dataDir });
  fs.rmSync(dataDir, { recursive: true, force: true });
}
