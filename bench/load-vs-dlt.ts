// `scrape-etl load` into SQLite against its two baselines of issue #39, measured in the same run on the same saved
// product files (the form a backfill has on disk: one `{"request", "response"}` file per product, in folders of
// 1,000):
//   - the bare INSERT: every row our load wrote (raw_responses and every table with a load_id, read back from our
//     file outside any clock) inserted into an empty file of the same schema and indexes with better-sqlite3
//     prepared statements, one transaction per table, WAL on: the work our load must do at the least, done by hand
//     (goal: ours >= 0.8x its speed). Only the inserts are on its clock: no process start, no file reading, no parsing.
//   - the bare loader: the same rows inserted the same way, each file's rows after reading that file and parsing
//     it with JSON.parse, a transaction per 64 files as our load groups them: what a hand-written loader must do at
//     the least (no flattening: the rows are ours, read back outside the clock). Whether issue #39's 0.8x is against
//     this one or the bare INSERT is not settled; both ratios are printed.
//   - dlt (https://dlthub.com) with its default settings into SQLite (its sqlalchemy destination, append, nested
//     lists as child tables): a python process reading the same files (goal: ours >= 3x its speed).
// Ours and dlt are timed as a user runs them, the whole process from spawn to exit (dlt's own time from its
// pipeline's start, imports excluded, is printed beside). Speed ratios are baseline seconds / our seconds. Rows
// are counted in each file by Python's sqlite3. Rounds alternate the order of the three, and print the load average.
// BENCH_LOAD_DLT_COMPARE=<a built checkout> times that checkout's command too, in the same rounds (before/after).
//   npm run build && npx tsx bench/load-vs-dlt.ts    (BENCH_LOAD_DLT_PRODUCTS, default 20000; BENCH_LOAD_DLT_ROUNDS, 3)
// dlt[sqlalchemy] is installed from PyPI into ~/.cache/scrape-etl/py-dlt-sqlite on first use.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  bareInsert,
  emptyCopy,
  loadedUnits,
  writeMarketplaceFiles,
  type BareUnit,
  type Cell,
} from './_marketplace-files.js';

const PRODUCTS = Number(process.env['BENCH_LOAD_DLT_PRODUCTS'] ?? 20000);
const ROUNDS = Number(process.env['BENCH_LOAD_DLT_ROUNDS'] ?? 3);
const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DLT_DIR = path.join(os.homedir(), '.cache', 'scrape-etl', 'py-dlt-sqlite');
const DLT_VERSION = '1.31.0';

const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

interface Timing {
  /** Wall seconds from spawn to exit. */
  seconds: number;
  /** CPU seconds (user + system) of the process and its children, as GNU time reports them. */
  cpu: number;
}

/** `command` run under GNU time: its wall and CPU seconds and its standard output. */
function timed(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Timing & { stdout: string } {
  const report = path.join(os.tmpdir(), `bench-load-dlt-time-${process.pid}`);
  const t0 = process.hrtime.bigint();
  const res = spawnSync('/usr/bin/time', ['-o', report, '-f', '%U %S', command, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    env,
    maxBuffer: 256 * 1024 * 1024,
  });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (res.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (exit ${res.status ?? res.signal}): ${res.stderr}`);
  const [user, system] = fs.readFileSync(report, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number) as [
    number,
    number,
  ];
  fs.rmSync(report, { force: true });
  return { seconds, cpu: user + system, stdout: res.stdout };
}

/** `scrape-etl load marketplace <dir>` of the checkout `root` (built) into a new SQLite file. */
function ourLoad(root: string, dir: string, file: string): Timing {
  const { seconds, cpu } = timed(
    process.execPath,
    [path.join(root, 'bin', 'scrape-etl.js'), 'load', 'marketplace', dir, '--db', `sqlite:${file}`],
    { ...process.env, SCRAPE_ETL_PROJECT: 'none' },
  );
  return { seconds, cpu };
}

/** Every row `source` holds of the tables a load writes, inserted into a new file of its schema, one transaction per table. */
function bareLoad(source: string, file: string): Timing & { rows: number } {
  const { schema, perLoad } = loadedUnits(source);
  const byTable = new Map<string, { cols: readonly string[]; rows: Cell[][] }>();
  for (const unit of perLoad)
    for (const [t, cols, rows] of unit) {
      let entry = byTable.get(t);
      if (!entry) byTable.set(t, (entry = { cols, rows: [] }));
      for (const r of rows) entry.rows.push(r);
    }
  emptyCopy(file, schema);
  const cpu0 = process.cpuUsage();
  const out = bareInsert(
    file,
    [...byTable].map(([t, { cols, rows }]) => [[t, cols, rows] as const]),
  );
  const cpu = process.cpuUsage(cpu0);
  return { ...out, cpu: (cpu.user + cpu.system) / 1e6 };
}

/** Files per transaction of the bare loader: as `scrape-etl load` groups them (cli/commands/load.ts GROUP_FILES). */
const BARE_LOADER_GROUP = 64;

/** The JSON files below `dir`, sorted by path: the order `scrape-etl load <dir>` loads them in. */
function jsonFiles(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => path.join(dir, f));
}

/**
 * Every row `source` holds of the tables a load writes, inserted into a new file of its schema file by file: each
 * file of `dir` read and parsed, then the rows our load wrote for it, a transaction per BARE_LOADER_GROUP files.
 */
function bareLoader(source: string, dir: string, file: string): Timing & { rows: number } {
  const { schema, perLoad } = loadedUnits(source);
  const files = jsonFiles(dir);
  if (files.length !== perLoad.length)
    throw new Error(`${source} holds ${perLoad.length} loads for ${files.length} files`);
  emptyCopy(file, schema);
  function* units(): Generator<BareUnit> {
    for (let i = 0; i < files.length; i += BARE_LOADER_GROUP) {
      const unit: Array<readonly [string, readonly string[], Cell[][]]> = [];
      for (let j = i; j < Math.min(i + BARE_LOADER_GROUP, files.length); j++) {
        const doc = JSON.parse(fs.readFileSync(files[j]!, 'utf8')) as { response?: unknown };
        if (typeof doc.response !== 'object' || doc.response === null) throw new Error(`${files[j]}: no response`);
        unit.push(...perLoad[j]!);
      }
      yield unit;
    }
  }
  const cpu0 = process.cpuUsage();
  const out = bareInsert(file, units());
  const cpu = process.cpuUsage(cpu0);
  return { ...out, cpu: (cpu.user + cpu.system) / 1e6 };
}

const DLT_SCRIPT = `
import json, os, sys, time
import dlt
src, target, work = sys.argv[1:4]
def products():
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for name in sorted(files):
            if name.endswith('.json'):
                with open(os.path.join(root, name), encoding='utf-8') as f:
                    yield json.load(f)['response']
t0 = time.perf_counter()
p = dlt.pipeline(pipeline_name='bench', pipelines_dir=work, destination=dlt.destinations.sqlalchemy('sqlite:///' + target), dataset_name='main', progress=None)
p.run(products(), table_name='marketplace_products')
print(time.perf_counter() - t0)
`;

function ensureDlt(): void {
  const env = { ...process.env, PYTHONPATH: DLT_DIR };
  if (spawnSync('python3', ['-c', 'import dlt, sqlalchemy'], { env }).status === 0) return;
  console.log(`  (installing dlt[sqlalchemy]==${DLT_VERSION} from PyPI into ${DLT_DIR})`);
  const pip = spawnSync(
    'python3',
    ['-m', 'pip', 'install', '--quiet', '--target', DLT_DIR, `dlt[sqlalchemy]==${DLT_VERSION}`],
    { encoding: 'utf8' },
  );
  if (pip.status !== 0) throw new Error(`pip install dlt[sqlalchemy] failed: ${pip.stderr}`);
}

/**
 * dlt's settings: its defaults until they fail. Its loader's 20 parallel jobs on one SQLite file failed with
 * "database is locked" once the files were many (20,000 products); then one job at a time, the least change that works.
 */
const dltSettings: { env: Record<string, string>; label: string } = { env: {}, label: 'defaults' };

/** dlt's load of the same files into a new SQLite file, and dlt's own seconds (from its pipeline's start). */
function dltLoad(dir: string, file: string, work: string): Timing & { inner: number } {
  const run = () =>
    timed('python3', ['-c', DLT_SCRIPT, dir, file, work], {
      ...process.env,
      PYTHONPATH: DLT_DIR,
      RUNTIME__LOG_LEVEL: 'WARNING',
      ...dltSettings.env,
    });
  let out: ReturnType<typeof run>;
  try {
    out = run();
  } catch (err) {
    if (dltSettings.label !== 'defaults' || !String(err).includes('database is locked')) throw err;
    console.log(
      '  (dlt with its defaults failed: "database is locked" (20 load workers on one file); now LOAD__WORKERS=1)',
    );
    Object.assign(dltSettings, { env: { LOAD__WORKERS: '1' }, label: 'LOAD__WORKERS=1' });
    for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) fs.rmSync(f, { force: true });
    fs.rmSync(work, { recursive: true, force: true });
    out = run();
  }
  return { seconds: out.seconds, cpu: out.cpu, inner: Number(out.stdout.trim().split('\n').at(-1)) };
}

/** Rows per table of a SQLite file as Python's sqlite3 reads them (bookkeeping tables left out), summed. */
function rowsOf(file: string, which: 'ours' | 'dlt'): number {
  const script = `
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
names = [r[0] for r in c.execute("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'")]
if sys.argv[2] == 'dlt':
    names = [n for n in names if not n.startswith('_dlt_')]
else:
    names = [n for n in names if n == 'raw_responses' or any(r[1] == 'load_id' for r in c.execute(f'pragma table_info("{n}")'))]
print(sum(c.execute(f'select count(*) from "{n}"').fetchone()[0] for n in names))
`;
  const res = spawnSync('python3', ['-c', script, file, which], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`python sqlite3 could not read ${file}: ${res.stderr}`);
  return Number(res.stdout.trim());
}

function main(): void {
  const compare = process.env['BENCH_LOAD_DLT_COMPARE'];
  const builds: Array<[label: string, root: string]> = [['ours', HERE]];
  if (compare) builds.push([`before (${compare})`, path.resolve(compare)]);
  for (const [, root] of builds)
    if (!fs.existsSync(path.join(root, 'dist', 'cli', 'main.js')))
      throw new Error(`${root}/dist is missing: run npm run build there`);
  ensureDlt();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-load-dlt-'));
  try {
    const dir = path.join(tmp, 'files');
    writeMarketplaceFiles(dir, PRODUCTS);
    console.log(
      `# scrape-etl load of ${PRODUCTS.toLocaleString('en-US')} saved marketplace product files into SQLite, against a bare INSERT of the rows it wrote, a bare loader of them and dlt ${DLT_VERSION} (sqlalchemy destination, defaults), ${ROUNDS} rounds, order alternated; load average ${loadAverage()}`,
    );
    const times = new Map<string, Timing[]>();
    const add = (label: string, t: Timing) => times.set(label, [...(times.get(label) ?? []), t]);
    const show = (t: Timing) => `${t.seconds.toFixed(2)} s (CPU ${t.cpu.toFixed(2)} s)`;
    const jobs: Array<[string, (round: number) => string]> = [
      ...builds.map(([label, root]): [string, (round: number) => string] => [
        label,
        (round) => {
          const file = path.join(tmp, `${label.replace(/\W+/g, '-')}-${round}.sqlite`);
          const t = ourLoad(root, dir, file);
          add(label, t);
          let note = `${rowsOf(file, 'ours')} rows`;
          if (label === 'ours') {
            const bare = bareLoad(file, path.join(tmp, `bare-${round}.sqlite`));
            add('bare INSERT', bare);
            note += `; bare INSERT of them ${show(bare)}, ${bare.rows} rows`;
            const loader = bareLoader(file, dir, path.join(tmp, `bare-loader-${round}.sqlite`));
            add('bare loader', loader);
            note += `; bare loader (read + JSON.parse + flatten-free insert of the same rows) ${show(loader)}, ${loader.rows} rows`;
          }
          return `${label} ${show(t)}, ${note}`;
        },
      ]),
      [
        'dlt',
        (round) => {
          const file = path.join(tmp, `dlt-${round}.sqlite`);
          const r = dltLoad(dir, file, path.join(tmp, `dlt-work-${round}`));
          add('dlt', r);
          return `dlt (${dltSettings.label}) ${show(r)}, its own ${r.inner.toFixed(2)} s, ${rowsOf(file, 'dlt')} rows`;
        },
      ],
    ];
    /** Speed of `a` against the baseline `b`: b's seconds over a's, wall and CPU. */
    const speed = (a: Timing, b: Timing) =>
      `${(b.seconds / a.seconds).toFixed(2)}x (CPU ${(b.cpu / a.cpu).toFixed(2)}x)`;
    const ratios = (at: (label: string) => Timing) =>
      `ours/bare INSERT ${speed(at('ours'), at('bare INSERT'))}, ours/bare loader ${speed(at('ours'), at('bare loader'))}, ours/dlt ${speed(at('ours'), at('dlt'))}` +
      (compare
        ? `, before/bare INSERT ${speed(at(builds[1]![0]), at('bare INSERT'))}, before/bare loader ${speed(at(builds[1]![0]), at('bare loader'))}, before/dlt ${speed(at(builds[1]![0]), at('dlt'))}, ours/before ${speed(at('ours'), at(builds[1]![0]))}`
        : '');
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? jobs : [...jobs].reverse();
      console.log(`round ${round + 1}, load average ${loadAverage()}:`);
      for (const [, run] of order) console.log(`  ${run(round)}`);
      console.log(`  speed ${ratios((label) => times.get(label)![round]!)}; load average ${loadAverage()}`);
      for (const f of fs.readdirSync(tmp))
        if (f !== 'files') fs.rmSync(path.join(tmp, f), { recursive: true, force: true });
    }
    const medianOf = (label: string): Timing => ({
      seconds: median(times.get(label)!.map((t) => t.seconds)),
      cpu: median(times.get(label)!.map((t) => t.cpu)),
    });
    console.log(
      `medians: ${[...times.keys()].map((l) => `${l} ${show(medianOf(l))}`).join(', ')}\nspeed (medians) ${ratios(medianOf)}; goals ours/bare >= 0.8x (which bare is not settled: both printed), ours/dlt >= 3x; load average ${loadAverage()}`,
    );
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main();
