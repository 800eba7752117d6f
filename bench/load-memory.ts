// Peak memory of `scrape-etl load` (the built command, dist/) for N and 10N saved marketplace responses, each a
// file of its own in a directory tree, into a new SQLite file. The command validates every file, then loads them
// one by one, so its peak RSS should not grow with the number of files (goals: <= 300 MB, growth <= 1.1x).
// BENCH_LOAD_MEMORY_DB=duckdb loads into a new DuckDB file instead (goal: growth <= 1.2x, issue #39) and prints the
// file's size and its free blocks once the command closed it (pragma_database_size, read by Python's duckdb).
//   npx tsx bench/load-memory.ts       (npm run bench builds dist/ first; run `npm run build` before running alone)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeMarketplaceFiles } from './_marketplace-files.js';
import { pythonReadersEnv } from '../test/support/python-readers.js';

const PRODUCTS = Number(process.env['BENCH_LOAD_MEMORY_PRODUCTS'] ?? 2000);
/** What the bench says of each file it can load into: its name, the growth goal, and whether it has blocks to count. */
const TARGETS = {
  sqlite: { label: 'SQLite', growthGoal: '1.1', blocks: false },
  duckdb: { label: 'DuckDB', growthGoal: '1.2', blocks: true },
} as const;
const ENGINE = (process.env['BENCH_LOAD_MEMORY_DB'] ?? 'sqlite') as keyof typeof TARGETS;
if (!Object.hasOwn(TARGETS, ENGINE))
  throw new Error(`BENCH_LOAD_MEMORY_DB=${ENGINE}: one of ${Object.keys(TARGETS).join(', ')}`);
const TARGET = TARGETS[ENGINE];
const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'scrape-etl.js');

// Runs the command inside a node process that records its own peak RSS when it exits, whatever the exit path.
const WRAPPER = `
import fs from 'node:fs';
const [bin, out, ...args] = process.argv.slice(1);
process.on('exit', () => fs.writeFileSync(out, JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS })));
process.argv = [process.argv[0], bin, ...args];
await import(bin);
`;

function loadOnce(dir: string, db: string, rssFile: string): { seconds: number; peakRssMb: number; summary: string } {
  const t0 = process.hrtime.bigint();
  const res = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', WRAPPER, BIN, rssFile, 'load', 'marketplace', dir, '--db', `${ENGINE}:${db}`],
    {
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (res.status !== 0) throw new Error(`scrape-etl load failed (exit ${res.status ?? res.signal}): ${res.stderr}`);
  const { maxRssKb } = JSON.parse(fs.readFileSync(rssFile, 'utf8')) as { maxRssKb: number };
  return { seconds, peakRssMb: maxRssKb / 1024, summary: res.stdout.trim().split('\n').pop() ?? '' };
}

/** The closed DuckDB file's size and blocks, as Python's duckdb reads them (an independent reader). */
function duckdbFile(file: string): string {
  const wal = fs.existsSync(`${file}.wal`) ? fs.statSync(`${file}.wal`).size : 0;
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
  return `file ${(fs.statSync(file).size / 1048576).toFixed(1)} MB (wal ${wal} bytes); blocks: total ${total}, free ${free} (${((100 * free) / total).toFixed(1)}%, goal <= 10%)`;
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.resolve(path.dirname(BIN), '..', 'dist')))
    throw new Error('dist/ is missing: run npm run build (npm run bench does)');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-load-memory-'));
  try {
    console.log(
      `# load memory benchmark: scrape-etl load marketplace <directory> of ${PRODUCTS.toLocaleString('en-US')} and ${(PRODUCTS * 10).toLocaleString('en-US')} generated products, new ${TARGET.label} file`,
    );
    const results = [];
    for (const n of [PRODUCTS, PRODUCTS * 10]) {
      const dir = path.join(tmp, `files-${n}`);
      writeMarketplaceFiles(dir, n);
      const file = path.join(tmp, `load-${n}.${ENGINE}`);
      const r = loadOnce(dir, file, path.join(tmp, `rss-${n}.json`));
      fs.rmSync(dir, { recursive: true, force: true });
      console.log(
        `${n.toLocaleString('en-US')} files: peak RSS ${r.peakRssMb.toFixed(0)} MB (goal <= 300 MB), ${r.seconds.toFixed(1)} s; ${r.summary}`,
      );
      if (TARGET.blocks) console.log(`  ${duckdbFile(file)}`);
      results.push(r);
    }
    console.log(
      `peak RSS growth for 10x files: ${(results[1]!.peakRssMb / results[0]!.peakRssMb).toFixed(2)}x (goal <= ${TARGET.growthGoal}x)`,
    );
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
