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
//   npx tsx bench/load-duckdb.ts          (BENCH_LOAD_PRODUCTS, default 1000; run `npm run build` first for memory)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../destinations/open.js';
import { pythonReadersEnv } from '../test/support/python-readers.js';
import { products, timeProductLoads, writeMarketplaceFiles, type Product } from './_marketplace-files.js';

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

/** The closed file's size and blocks as Python's duckdb reads them (an independent reader). */
function blocksOf(file: string): string {
  const res = spawnSync(
    'python3',
    [
      '-c',
      'import duckdb,sys\nc=duckdb.connect(sys.argv[1],read_only=True)\nprint(*c.execute("select total_blocks, free_blocks from pragma_database_size()").fetchone())',
      file,
    ],
    { encoding: 'utf8', env: pythonReadersEnv() },
  );
  if (res.status !== 0) throw new Error(`python duckdb could not read ${file}: ${res.stderr}`);
  const [total, free] = res.stdout.trim().split(' ').map(Number) as [number, number];
  const wal = fs.existsSync(`${file}.wal`) ? fs.statSync(`${file}.wal`).size : 0;
  return `${(fs.statSync(file).size / 1048576).toFixed(1)} MB (wal ${wal} bytes), ${free} of ${total} blocks free (${((100 * free) / total).toFixed(1)}%, goal <= 10%)`;
}

/** Peak RSS of `scrape-etl load` for N and 10N files, this build and (BENCH_LOAD_DUCKDB_COMPARE) another. */
function memory(): void {
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
    for (const [k, n] of sizes.entries()) {
      const dir = path.join(tmp, `files-${n}`);
      writeMarketplaceFiles(dir, n);
      // Alternating which build goes first, so neither always meets the busier moment.
      const order = k % 2 === 0 ? builds : [...builds].reverse();
      for (const [b, [label, root]] of order.entries()) {
        const file = path.join(tmp, `load-${n}-${b}.duckdb`);
        const r = commandLoad(root, dir, file);
        console.log(
          `${fmt(n)} files, ${label}: peak RSS ${r.peakMb.toFixed(0)} MB, ${r.seconds.toFixed(1)} s; file ${blocksOf(file)}; load average ${loadAverage()}`,
        );
        peaks.set(label, [...(peaks.get(label) ?? []), r.peakMb]);
        fs.rmSync(file, { force: true });
      }
      fs.rmSync(dir, { recursive: true, force: true });
    }
    for (const [label, [small, large]] of peaks)
      console.log(`peak RSS growth for 10x files, ${label}: ${(large! / small!).toFixed(2)}x (goal <= 1.2x)`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
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
  if (process.env['BENCH_LOAD_DUCKDB_MEMORY'] !== '0') memory();
}

await main();
