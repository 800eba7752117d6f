// Start-up benchmark of the compiled command, against `node -e 0` (the floor: Node itself) measured in the same
// run: `scrape-etl --help` and `--version` (goal: at most 3x the floor, which needs lazily imported commands);
// the day-two commands that only read a database (`status`, `history`, `schema show`; goal: at most 2x `node -e 0`
// plus their bare query, i.e. 2x a Node process that opens the SQLite file with better-sqlite3 and runs the same
// SELECT), the same `status` by pipeline name inside a project (scrape-etl.yaml read, the name looked up in the
// pipeline files), and `schedule list` against `temporal schedule list` on the same server (goal: at most 3x;
// it lists over plain HTTP/2 gRPC, without the SDK: cli/schedule-list.ts); and "worker ready", the time from spawning `scrape-etl worker` until it logs that it polls its task queue,
// against a real Temporal dev server. The worker must use the bundle prebuilt by `npm run build`; the old path,
// running the sources through tsx and bundling the workflow code at start, is timed as the worker's baseline.
//   npm run build && npx tsx bench/startup.ts        (npm run bench builds first)
//   BENCH_STARTUP_RUNS=n                              runs of the quick commands (default 15; workers: a third)
//   BENCH_STARTUP_WORKER=0                            skip the worker-ready part
//   BENCH_STARTUP_COMPARE=<built checkout>            also that checkout's bin/scrape-etl.js in the project part
// The read-only commands in a project (`status`, `history`, `schema show` by pipeline name, and `pipelines`) are
// also timed in CPU against `node -e 0` itself, interleaved (goal <= 2x, issue #39).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { locateTemporalCli } from '../temporal/cli-binary.js';
import { ensureDevServer, stopDevServer } from '../temporal/dev-server.js';
import { ScraperClient } from '../client/index.js';
import { startSimulator } from '../simulator/server.js';
import { JOB_SCHEMA } from '../test/support/job-schema.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin', 'scrape-etl.js');
const RUNS = Math.max(3, Number(process.env['BENCH_STARTUP_RUNS'] ?? 15));
const WORKER_RUNS = Math.max(3, Math.round(RUNS / 3));

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function timeCommand(
  args: string[],
  expectStdout?: RegExp,
  env?: NodeJS.ProcessEnv,
  exe = process.execPath,
  cwd = root,
): number {
  const t0 = process.hrtime.bigint();
  const res = spawnSync(exe, args, { cwd, encoding: 'utf8', ...(env ? { env } : {}) });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (res.status !== 0) throw new Error(`${exe} ${args.join(' ')} exited ${res.status ?? res.signal}: ${res.stderr}`);
  if (expectStdout && !expectStdout.test(res.stdout))
    throw new Error(`node ${args.join(' ')} printed ${JSON.stringify(res.stdout.slice(0, 200))}`);
  return ms;
}

/**
 * CPU time (user + system) of one run of a command, from bash's `times` (its children's getrusage, to the
 * millisecond). Unlike wall time it hardly moves with the machine's load, so on a busy machine it says what the
 * quiet one would: the ratios below are printed for both.
 */
function cpuOfCommand(args: string[], env?: NodeJS.ProcessEnv, exe = process.execPath, cwd = root): number {
  const res = spawnSync('bash', ['-c', '"$@" >/dev/null 2>&1; rc=$?; times >&3; exit $rc', 'bash', exe, ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    ...(env ? { env } : {}),
  });
  if (res.status !== 0) throw new Error(`${exe} ${args.join(' ')} exited ${res.status ?? res.signal}`);
  // Two lines: the shell's own times, then its children's ("0m0.112s 0m0.031s").
  const children =
    String(res.output[3] ?? '')
      .trim()
      .split('\n')[1] ?? '';
  const secs = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  if (secs.length !== 2) throw new Error(`bash times printed ${JSON.stringify(res.output[3])}`);
  return (secs[0]! + secs[1]!) * 1000;
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
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: address,
      TEMPORAL_TASK_QUEUE: taskQueue,
      SCRAPE_ETL_WORKER_LOG_LEVEL: 'ERROR',
    },
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

if (
  !fs.existsSync(path.join(root, 'dist', 'cli', 'main.js')) ||
  !fs.existsSync(path.join(root, 'dist', 'workflow-bundle.js'))
) {
  throw new Error('dist/ is not built: run `npm run build` first (`npm run bench` does)');
}

// Interleaved, so that a burst of load on the machine hits every command alike.
const floor: number[] = [];
const help: number[] = [];
const version: number[] = [];
const expectedVersion = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string })
  .version;
timeCommand(['-e', '0']); // warms the file system cache
timeCommand([bin, '--help']);
for (let i = 0; i < RUNS; i++) {
  floor.push(timeCommand(['-e', '0']));
  help.push(timeCommand([bin, '--help'], /Usage: scrape-etl/));
  version.push(timeCommand([bin, '--version'], new RegExp(`^${expectedVersion.replace(/\./g, '\\.')}\\n$`)));
}
const f = median(floor);
// The machine's load with the figures: the goals are for a quiet machine, and a busy one inflates every ratio.
const loadavg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
process.stdout.write(
  `runs: ${RUNS} each (medians); load average ${loadavg()} (1, 5, 15 min), ${os.cpus().length} cores\n`,
);
process.stdout.write(`node -e 0                          ${fmt(f)}   (floor)\n`);
process.stdout.write(
  `node bin/scrape-etl.js --help      ${fmt(median(help))}   ${(median(help) / f).toFixed(2)}x the floor (goal <= 3x)\n`,
);
process.stdout.write(
  `node bin/scrape-etl.js --version   ${fmt(median(version))}   ${(median(version) / f).toFixed(2)}x the floor (goal <= 3x)\n`,
);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-bench-startup-'));
try {
  // A destination with runs of a pipeline: a job-board answer of the simulator loaded three times (three
  // pipeline_runs rows, inferred tables with their schema history).
  const dbFile = path.join(dataDir, 'bench.sqlite');
  const dbEnv = { ...process.env, SCRAPE_ETL_DATA_DIR: dataDir, DATABASE_URL: `sqlite:${dbFile}` };
  const sim = await startSimulator({ port: 0, token: 'bench-token', seed: 3 });
  try {
    const client = new ScraperClient({ baseUrl: sim.baseUrl, token: 'bench-token' });
    const api = await client.jobBoardScrape({
      urls: ['https://weworkremotely.com/remote-jobs/search?term=bench'],
      min: 2,
      max: 6,
      timeout: 60,
      schema: JOB_SCHEMA,
    } as never);
    fs.writeFileSync(path.join(dataDir, 'jobs.json'), api.raw);
  } finally {
    await sim.close();
  }
  for (let i = 0; i < 3; i++)
    timeCommand(
      [
        bin,
        'load',
        'job-board',
        path.join(dataDir, 'jobs.json'),
        '--database',
        `sqlite:${dbFile}`,
        '--pipeline',
        'shop',
      ],
      undefined,
      dbEnv,
    );
  // The bare queries: a Node process that opens the file and runs the SELECT the command runs, nothing else.
  const bare = (sql: string) => [
    '-e',
    `const D=require('better-sqlite3');const db=new D(${JSON.stringify(dbFile)},{readonly:true,fileMustExist:true});db.prepare(${JSON.stringify(sql)}).all();db.close()`,
  ];
  const runsSql =
    'SELECT id, workflow_id, pipeline, kind, status, started_at, finished_at, rows_by_table, error, export_status, export_error, scheduled_at, token_usage FROM pipeline_runs';
  const readers: Array<{ label: string; args: string[]; query: string[] }> = [
    { label: 'status', args: ['status'], query: bare(`${runsSql} ORDER BY started_at DESC LIMIT 20`) },
    {
      label: 'history shop',
      args: ['history', 'shop'],
      query: bare(`${runsSql} WHERE pipeline = 'shop' ORDER BY started_at DESC LIMIT 10`),
    },
    {
      label: 'schema show shop',
      args: ['schema', 'show', 'shop'],
      query: bare(
        "SELECT table_name, column_name, data_type, change, variant_of, pipeline, load_id, changed_at FROM schema_history WHERE pipeline = 'shop' OR table_name = 'shop_items' ORDER BY table_name, load_id, column_name",
      ),
    },
  ];
  // The same status by pipeline name in a project: scrape-etl.yaml found, read and checked (yaml, zod), the
  // pipeline's file found by its name (a glob), then the same query.
  const projectDir = path.join(dataDir, 'project');
  fs.mkdirSync(path.join(projectDir, 'pipelines'), { recursive: true });
  fs.writeFileSync(path.join(projectDir, 'scrape-etl.yaml'), `destination: sqlite:${dbFile}\n`);
  fs.writeFileSync(
    path.join(projectDir, 'pipelines', 'shop.yaml'),
    fs
      .readFileSync(path.join(root, 'pipelines', 'examples', 'job-board.yaml'), 'utf8')
      .replace('name: jobs-remote-typescript', 'name: shop'),
  );
  const projectEnv: NodeJS.ProcessEnv = { ...process.env };
  delete projectEnv['DATABASE_URL'];
  delete projectEnv['SCRAPE_ETL_DATA_DIR'];
  const nodeFloor: number[] = [];
  const times = readers.map(() => ({ cmd: [] as number[], query: [] as number[] }));
  const inProject: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    nodeFloor.push(timeCommand(['-e', '0']));
    readers.forEach((r, k) => {
      times[k]!.query.push(timeCommand(r.query));
      times[k]!.cmd.push(timeCommand([bin, ...r.args], undefined, dbEnv));
    });
    inProject.push(timeCommand([bin, 'status', 'shop'], /shop/, projectEnv, process.execPath, projectDir));
  }
  process.stdout.write(
    `\ncommands that read the database (${RUNS} runs each, medians; the baseline is node -e 0 + the bare query in one process):\n`,
  );
  process.stdout.write(`node -e 0                                  ${fmt(median(nodeFloor))}\n`);
  for (const [k, r] of readers.entries()) {
    const c = median(times[k]!.cmd);
    const q = median(times[k]!.query);
    process.stdout.write(
      `scrape-etl ${r.label.padEnd(18)} ${fmt(c)}   bare query ${fmt(q)}   ${(c / q).toFixed(2)}x (goal <= 2x)\n`,
    );
  }
  const statusQuery = median(times[0]!.query);
  process.stdout.write(
    `scrape-etl status shop, in a project ${fmt(median(inProject))}   bare query ${fmt(statusQuery)}   ${(median(inProject) / statusQuery).toFixed(2)}x (goal <= 2x)\n`,
  );
  // The same ratios in CPU time, each command run alternately with its bare query.
  const cpu = readers.map(() => ({ cmd: [] as number[], query: [] as number[] }));
  const cpuInProject: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    readers.forEach((r, k) => {
      cpu[k]!.query.push(cpuOfCommand(r.query));
      cpu[k]!.cmd.push(cpuOfCommand([bin, ...r.args], dbEnv));
    });
    cpuInProject.push(cpuOfCommand([bin, 'status', 'shop'], projectEnv, process.execPath, projectDir));
  }
  process.stdout.write(`the same in CPU time (user + system, medians; load average ${loadavg()}):\n`);
  for (const [k, r] of readers.entries()) {
    const c = median(cpu[k]!.cmd);
    const q = median(cpu[k]!.query);
    process.stdout.write(
      `scrape-etl ${r.label.padEnd(18)} ${fmt(c)}   bare query ${fmt(q)}   ${(c / q).toFixed(2)}x\n`,
    );
  }
  const cpuStatusQuery = median(cpu[0]!.query);
  process.stdout.write(
    `scrape-etl status shop, in a project ${fmt(median(cpuInProject))}   bare query ${fmt(cpuStatusQuery)}   ${(median(cpuInProject) / cpuStatusQuery).toFixed(2)}x\n`,
  );

  // The read-only commands in the project against `node -e 0` in CPU, interleaved, this build and a compared one.
  {
    const compare = process.env['BENCH_STARTUP_COMPARE']?.trim();
    const bins: Array<[string, string]> = [
      ['this build', bin],
      ...(compare ? [['before', path.join(path.resolve(compare), 'bin', 'scrape-etl.js')] as [string, string]] : []),
    ];
    const commands = [['status', 'shop'], ['history', 'shop'], ['schema', 'show', 'shop'], ['pipelines']];
    const floor: number[] = [];
    const cpuOf = new Map<string, number[]>();
    for (let i = 0; i < RUNS; i++) {
      floor.push(cpuOfCommand(['-e', '0']));
      for (const [name, b] of bins) {
        for (const c of commands) {
          const key = `${name}|${c.join(' ')}`;
          cpuOf.set(key, [
            ...(cpuOf.get(key) ?? []),
            cpuOfCommand([b, ...c], projectEnv, process.execPath, projectDir),
          ]);
        }
      }
    }
    const f = median(floor);
    process.stdout
      .write(`read-only commands in a project, CPU (user + system, medians of ${RUNS}) against node -e 0 ${fmt(f)} (goal <= 2x); load average ${loadavg()}:
`);
    for (const [name] of bins) {
      for (const c of commands) {
        const m = median(cpuOf.get(`${name}|${c.join(' ')}`)!);
        process.stdout.write(`  ${name}: scrape-etl ${c.join(' ').padEnd(16)} ${fmt(m)}   ${(m / f).toFixed(2)}x\n`);
      }
    }
  }

  const server = await ensureDevServer({ dataDir, headless: true, startTimeoutMs: 90_000 });
  const temporalCli = (await locateTemporalCli()).path;
  const clusterEnv = { ...dbEnv, TEMPORAL_ADDRESS: server.address };
  const ours: number[] = [];
  const theirs: number[] = [];
  timeCommand(['schedule', 'list', '--address', server.address], undefined, undefined, temporalCli);
  for (let i = 0; i < RUNS; i++) {
    theirs.push(timeCommand(['schedule', 'list', '--address', server.address], undefined, undefined, temporalCli));
    ours.push(timeCommand([bin, 'schedule', 'list'], /no schedules/, clusterEnv));
  }
  process.stdout.write(`\nschedule list against a dev server (${RUNS} runs each, medians):\n`);
  process.stdout.write(`temporal schedule list                     ${fmt(median(theirs))}\n`);
  process.stdout.write(
    `scrape-etl schedule list                   ${fmt(median(ours))}   ${(median(ours) / median(theirs)).toFixed(2)}x (goal <= 3x)\n`,
  );
  process.stdout.write(`load average ${loadavg()} (1, 5, 15 min)\n`);

  if (process.env['BENCH_STARTUP_WORKER'] !== '0') {
    const compiled: WorkerStart[] = [];
    const fromSource: WorkerStart[] = [];
    for (let i = 0; i < WORKER_RUNS; i++) {
      compiled.push(await timeWorker([bin], server.address, `bench-startup-${i}`));
      // The old path: the TypeScript sources through tsx, bundling the workflow code at start.
      fromSource.push(
        await timeWorker(
          ['--import', 'tsx', path.join(root, 'cli', 'main.ts')],
          server.address,
          `bench-startup-src-${i}`,
        ),
      );
    }
    const c = median(compiled.map((w) => w.ms));
    const s = median(fromSource.map((w) => w.ms));
    const bundledAtStart = compiled.some((w) => !w.bundleLine.includes('prebuilt'));
    process.stdout.write(
      `\nworker ready (spawn until "polling task queue"), ${WORKER_RUNS} runs each against a dev server:\n`,
    );
    process.stdout.write(`compiled: node bin/scrape-etl.js worker          ${fmt(c)}   ${compiled[0]!.bundleLine}\n`);
    process.stdout.write(`old path: tsx sources, bundling at start         ${fmt(s)}   ${fromSource[0]!.bundleLine}\n`);
    process.stdout.write(
      `compiled / old path: ${(c / s).toFixed(2)}x; a bundle was built at worker start: ${bundledAtStart ? 'YES (unexpected)' : 'no'}\n`,
    );
    if (bundledAtStart) process.exitCode = 1;
  }
} finally {
  await stopDevServer({ dataDir });
  fs.rmSync(dataDir, { recursive: true, force: true });
}
