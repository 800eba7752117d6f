// DuckDB load benchmark: flatten + idempotent upsert (db/store/load.ts) into a DuckDB file against the same load into a
// SQLite file, on the same generated products in the same run (flattening on both clocks). Each is timed one
// transaction per product (loadBatch: every call a session of its own, so the file is opened, locked and closed per
// product, as for a pipeline's loads when nothing else is queued) and in groups of GROUP products (loadBatches: one
// session; in DuckDB one transaction per group written by destinations/duckdb/load-group.ts; SQLite: one transaction, a
// savepoint each). The ratio printed is DuckDB/SQLite rows per second.
// Then memory (issue #39, goal: peak RSS within 1.2x from N to 10N products): the built command `scrape-etl load` of
// BENCH_LOAD_MEMORY_PRODUCTS (default 2,000) and ten times as many saved product files into a new DuckDB file, its
// peak RSS, time and the closed file's size and free blocks as Python's duckdb reads them (goal <= 10% free);
// BENCH_LOAD_DUCKDB_COMPARE=<a built checkout> runs that checkout's command on the same files, alternating, for
// before/after pairs in one run. The load average is printed with the figures. BENCH_LOAD_DUCKDB_MEMORY=0 skips it.
// Then, on the 10N-product file of each build: its size against dlt's merge-loaded DuckDB file of the same product
// bodies (bench/_dlt.ts; goal <= 1.0x), and BENCH_LOAD_DUCKDB_RUNS (default 3) `run`s of a marketplace pipeline of
// BENCH_LOAD_DUCKDB_RUN_URLS URLs (default 150, the simulator in this process) into that file through Temporal, a
// worker of `scrape-etl up --detach` of that build keeping it between runs as a deployment does: each run's time, the
// file's free blocks once the worker has let go of it (goal <= 10%), and the worker process's peak RSS so far.
// BENCH_LOAD_DUCKDB_FILE=<file> does only that, on a copy of a file of 10N products loaded earlier.
//   npx tsx bench/load-duckdb.ts          (BENCH_LOAD_PRODUCTS, default 1000; run `npm run build` first for memory)
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../destinations/open.js';
import { pythonReadersEnv } from '../test/support/python-readers.js';
import {
  productBodies,
  products,
  timeProductLoads,
  writeMarketplaceFiles,
  type Product,
} from './_marketplace-files.js';
import { dltLoad, duckFileBytes } from './_dlt.js';
import { startSimulator } from '../simulator/server.js';

const PRODUCTS = Number(process.env['BENCH_LOAD_PRODUCTS'] ?? 1000);
/** Products per call in the grouped run: cli/commands/load.ts GROUP_FILES. */
const GROUP = 64;

interface Timing {
  seconds: number;
  rows: number;
}

async function load(dialect: 'duckdb' | 'sqlite', list: readonly Product[], grouped: boolean): Promise<Timing> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-load-duckdb-'));
  const db = await openDatabase(`${dialect}:${path.join(dir, `ours.${dialect}`)}`);
  try {
    return await timeProductLoads(db, list, grouped ? GROUP : undefined);
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const MEMORY_PRODUCTS = Number(process.env['BENCH_LOAD_MEMORY_PRODUCTS'] ?? 2000);
const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// Runs the command inside a node process that records its own peak RSS when it exits, whatever the exit path.
const WRAPPER = `
import fs from 'node:fs';
const [bin, out, ...args] = process.argv.slice(1);
process.on('exit', () => fs.writeFileSync(out, JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS })));
process.argv = [process.argv[0], bin, ...args];
await import(bin);
`;

const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** `scrape-etl load` of `dir` by the checkout `root` (built) into `file`: peak RSS and seconds. */
function commandLoad(root: string, dir: string, file: string): { peakMb: number; seconds: number } {
  const rss = `${file}.rss.json`;
  const t0 = process.hrtime.bigint();
  const res = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      WRAPPER,
      path.join(root, 'bin', 'scrape-etl.js'),
      rss,
      'load',
      'marketplace',
      dir,
      '--db',
      `duckdb:${file}`,
    ],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (res.status !== 0)
    throw new Error(`scrape-etl load (${root}) failed (exit ${res.status ?? res.signal}): ${res.stderr}`);
  const { maxRssKb } = JSON.parse(fs.readFileSync(rss, 'utf8')) as { maxRssKb: number };
  return { peakMb: maxRssKb / 1024, seconds };
}

/**
 * The closed file's size and blocks as Python's duckdb reads them (an independent reader); while a process still has
 * the file open (a worker's session lingering), the read is tried again for up to 30 s.
 */
async function blocksOf(file: string): Promise<string> {
  const deadline = Date.now() + 30_000;
  let res: SpawnSyncReturns<string>;
  for (;;) {
    res = spawnSync(
      'python3',
      [
        '-c',
        'import duckdb,sys\nc=duckdb.connect(sys.argv[1],read_only=True)\nprint(*c.execute("select total_blocks, free_blocks from pragma_database_size()").fetchone())',
        file,
      ],
      { encoding: 'utf8', env: pythonReadersEnv() },
    );
    if (res.status === 0 || !/lock/i.test(res.stderr) || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  if (res.status !== 0) throw new Error(`python duckdb could not read ${file}: ${res.stderr}`);
  const [total, free] = res.stdout.trim().split(' ').map(Number) as [number, number];
  const wal = fs.existsSync(`${file}.wal`) ? fs.statSync(`${file}.wal`).size : 0;
  return `${(fs.statSync(file).size / 1048576).toFixed(1)} MB (wal ${wal} bytes), ${free} of ${total} blocks free (${((100 * free) / total).toFixed(1)}%, goal <= 10%)`;
}

const RUNS = Number(process.env['BENCH_LOAD_DUCKDB_RUNS'] ?? 3);
const RUN_URLS = Number(process.env['BENCH_LOAD_DUCKDB_RUN_URLS'] ?? 150);
const SIM_TOKEN = 'bench-load-duckdb-token';

/** A process's peak RSS so far (Linux's VmHWM), in MB. */
function peakRssOf(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0) / 1024;
}

/**
 * RUNS runs of one marketplace pipeline of RUN_URLS URLs into `file`, by a worker of `scrape-etl up --detach` of the
 * checkout `root`, the simulator in this process: the free blocks of `file` after each.
 */
async function runsInto(root: string, label: string, file: string): Promise<void> {
  const sim = await startSimulator({ port: 0, token: SIM_TOKEN, seed: 9, priceDrift: true });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-load-duckdb-runs-'));
  const env = {
    ...process.env,
    SCRAPER_BASE_URL: sim.baseUrl,
    SCRAPER_API_TOKEN: SIM_TOKEN,
    SCRAPE_ETL_DATA_DIR: path.join(dir, 'data'),
    TEMPORAL_ADDRESS: '',
    DATABASE_URL: '',
    SCRAPE_ETL_PROJECT: 'none',
  };
  // Spawned asynchronously: the simulator answers from this process's event loop, which spawnSync would block.
  const cli = (args: string[]): Promise<string> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(root, 'bin', 'scrape-etl.js'), ...args], {
        cwd: dir,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      child.once('error', reject);
      child.once('exit', (code, signal) =>
        code === 0
          ? resolve(stdout)
          : reject(new Error(`scrape-etl ${args.join(' ')} exited ${code ?? signal}:\n${stderr}`)),
      );
    });
  const spec = path.join(dir, 'runs.yaml');
  const urls = Array.from(
    { length: RUN_URLS },
    (_, i) => `https://shopee.tw/api/v2/item/get?itemid=${5_520_309_814 + i}&shopid=10115139`,
  );
  fs.writeFileSync(
    spec,
    `name: bench-runs\nkind: marketplace\nrequest:\n  urls:\n${urls.map((u) => `    - ${u}`).join('\n')}\ndestination:\n  database: duckdb:${file}\n`,
  );
  try {
    await cli(['up', '--detach']);
    const upPid = Number(fs.readFileSync(path.join(dir, 'data', 'up.pid'), 'utf8').trim());
    for (let r = 1; r <= RUNS; r++) {
      // Prices and stock change between runs, as a scheduled pipeline's products do: each run rewrites rows.
      if (r > 1) sim.advanceEpoch();
      const t0 = process.hrtime.bigint();
      const out = await cli(['run', '--json', spec]);
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const result = out
        .trim()
        .split('\n')
        .map(
          (l) =>
            JSON.parse(l) as {
              type?: string;
              status?: string;
              rowsByTable?: Record<string, number>;
              seenByTable?: Record<string, number>;
            },
        )
        .find((l) => l.type === 'result');
      if (result?.status !== 'succeeded' || result.seenByTable?.['marketplace_products'] !== RUN_URLS)
        throw new Error(`run ${r}: expected a succeeded run with ${RUN_URLS} products, got ${JSON.stringify(result)}`);
      console.log(
        `run ${r} of ${RUN_URLS} URLs into it, ${label}: ${seconds.toFixed(1)} s, ${Object.values(result.rowsByTable ?? {}).reduce((a, b) => a + b, 0)} rows inserted or changed; file ${await blocksOf(file)}; worker (up) peak RSS so far ${peakRssOf(upPid).toFixed(0)} MB; load average ${loadAverage()}`,
      );
    }
  } finally {
    await cli(['down']).catch((err: Error) => console.error(`down: ${err.message}`));
    await sim.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Peak RSS of `scrape-etl load` for N and 10N files, this build and (BENCH_LOAD_DUCKDB_COMPARE) another. */
async function memory(): Promise<void> {
  const compare = process.env['BENCH_LOAD_DUCKDB_COMPARE'];
  const builds: Array<[label: string, root: string]> = [['this build', HERE]];
  if (compare) builds.unshift([`${compare} (before)`, path.resolve(compare)]);
  for (const [, root] of builds)
    if (!fs.existsSync(path.join(root, 'dist'))) throw new Error(`${root}/dist is missing: run npm run build there`);
  const sizes = [MEMORY_PRODUCTS, MEMORY_PRODUCTS * 10];
  console.log(
    `# DuckDB load memory: scrape-etl load marketplace <directory> of ${sizes.map(fmt).join(' and ')} product files into a new DuckDB file (goal: peak RSS growth <= 1.2x)`,
  );
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-load-duckdb-memory-'));
  try {
    const peaks = new Map<string, number[]>();
    /** Each build's file of the 10N products, kept for the size and the runs. */
    const large = new Map<string, string>();
    for (const [k, n] of sizes.entries()) {
      const dir = path.join(tmp, `files-${n}`);
      writeMarketplaceFiles(dir, n);
      // Alternating which build goes first, so neither always meets the busier moment.
      const order = k % 2 === 0 ? builds : [...builds].reverse();
      for (const [b, [label, root]] of order.entries()) {
        const file = path.join(tmp, `load-${n}-${b}.duckdb`);
        const r = commandLoad(root, dir, file);
        console.log(
          `${fmt(n)} files, ${label}: peak RSS ${r.peakMb.toFixed(0)} MB, ${r.seconds.toFixed(1)} s; file ${await blocksOf(file)}; load average ${loadAverage()}`,
        );
        peaks.set(label, [...(peaks.get(label) ?? []), r.peakMb]);
        if (n === sizes[1]) large.set(label, file);
        else fs.rmSync(file, { force: true });
      }
      fs.rmSync(dir, { recursive: true, force: true });
    }
    for (const [label, [small, big]] of peaks)
      console.log(`peak RSS growth for 10x files, ${label}: ${(big! / small!).toFixed(2)}x (goal <= 1.2x)`);
    const merged = dltLoad(tmp, productBodies(sizes[1]!), 'merge');
    for (const [label, file] of large)
      console.log(
        `${fmt(sizes[1]!)} products, ${label}: our file ${(duckFileBytes(file) / 1048576).toFixed(1)} MB, dlt's merge-loaded file (${merged.versions}) ${(merged.bytes / 1048576).toFixed(1)} MB -> ${(duckFileBytes(file) / merged.bytes).toFixed(2)}x (goal <= 1.0x)`,
      );
    if (RUNS > 0) for (const [label, root] of builds) await runsInto(root, label, large.get(label)!);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * BENCH_LOAD_DUCKDB_FILE=<a file of 10N products loaded by `scrape-etl load`>: its size against dlt's merge-loaded
 * file, and the runs into a copy of it by this build, without the loads (a file loaded earlier or elsewhere).
 */
async function existingFile(source: string): Promise<void> {
  const n = MEMORY_PRODUCTS * 10;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-load-duckdb-file-'));
  try {
    const file = path.join(tmp, 'loaded.duckdb');
    fs.copyFileSync(source, file);
    console.log(`# ${source} (${fmt(n)} products): file ${await blocksOf(file)}`);
    const merged = dltLoad(tmp, productBodies(n), 'merge');
    console.log(
      `${fmt(n)} products: our file ${(duckFileBytes(file) / 1048576).toFixed(1)} MB, dlt's merge-loaded file (${merged.versions}) ${(merged.bytes / 1048576).toFixed(1)} MB -> ${(duckFileBytes(file) / merged.bytes).toFixed(2)}x (goal <= 1.0x)`,
    );
    if (RUNS > 0) await runsInto(HERE, 'this build', file);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const existing = process.env['BENCH_LOAD_DUCKDB_FILE'];
  if (existing) return existingFile(existing);
  console.log(`# DuckDB load benchmark: ${PRODUCTS} generated marketplace products, DuckDB file against SQLite file`);
  const list = [...products(PRODUCTS)];
  const warm = list.slice(0, Math.min(100, list.length));
  await load('duckdb', warm, true);
  await load('sqlite', warm, true);
  const r = {
    duckSingle: await load('duckdb', list, false),
    duckGrouped: await load('duckdb', list, true),
    sqliteSingle: await load('sqlite', list, false),
    sqliteGrouped: await load('sqlite', list, true),
  };
  const line = (label: string, t: Timing) =>
    console.log(
      `${label.padEnd(52)} ${fmt(PRODUCTS / t.seconds)} products/s, ${fmt(t.rows / t.seconds)} rows/s (${t.rows} rows, ${t.seconds.toFixed(2)} s)`,
    );
  line('DuckDB, one call (session, transaction) per product:', r.duckSingle);
  line(`DuckDB, ${GROUP} products per call (one session):`, r.duckGrouped);
  line('SQLite, one transaction per product:', r.sqliteSingle);
  line(`SQLite, ${GROUP} products per transaction (savepoints):`, r.sqliteGrouped);
  const ratio = (a: Timing, b: Timing) => (a.rows / a.seconds / (b.rows / b.seconds)).toFixed(2);
  console.log(
    `ratio DuckDB/SQLite (rows/s): per product ${ratio(r.duckSingle, r.sqliteSingle)}, grouped ${ratio(r.duckGrouped, r.sqliteGrouped)} (load average ${loadAverage()})`,
  );
  if (process.env['BENCH_LOAD_DUCKDB_MEMORY'] !== '0') await memory();
}

await main();
