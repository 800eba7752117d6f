// Load benchmark: flatten + idempotent upsert into SQLite (db/store/load.ts) against a bare better-sqlite3
// prepared-statement INSERT loop writing the same rows (the physical baseline), measured in one run on the
// same generated products. Flattening is on BOTH clocks (the baseline calls flattenMarketplace inside its timing;
// our load cannot be timed without it); parsing and validating the bodies is on neither. Ours is timed twice:
// one transaction per product (loadBatch, what a pipeline's url-list chunk did) and groups of GROUP products in
// one transaction with a savepoint each (loadBatches, what `scrape-etl load` does). Then peak memory for N and
// 10N products, each in a child process of its own.
//   npx tsx bench/load.ts                 full run
//   npx tsx bench/load.ts --memory <n>    (internal) load n products, print peak RSS/heap as JSON
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../destinations/open.js';
import { loadBatch } from '../db/store/load.js';
import { TABLE_META } from '../db/model/tables.js';
import { bareInsert, baselineRows, products, timeProductLoads, type Product } from './_marketplace-files.js';
import { memoryInChild, printPeaks } from './_memory.js';

const PRODUCTS = Number(process.env['BENCH_LOAD_PRODUCTS'] ?? 2000);
/** Products per transaction in the grouped run: cli/commands/load.ts GROUP_FILES. */
const GROUP = 64;
function tmpFile(name: string): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-load-')), name);
}

async function ours(list: readonly Product[], grouped: boolean): Promise<{ seconds: number; rows: number }> {
  const file = tmpFile('ours.sqlite');
  const db = await openDatabase(`sqlite:${file}`);
  const out = await timeProductLoads(db, list, grouped ? GROUP : undefined);
  await db.close();
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  return out;
}

/**
 * The same products loaded a second time into the file that holds them (a daily run whose data did not change):
 * only the second load is timed. No row changes, so what it costs is the lookups and whatever marks the rows seen.
 */
async function oursAgain(list: readonly Product[], grouped: boolean): Promise<{ seconds: number; rows: number }> {
  const file = tmpFile('again.sqlite');
  const db = await openDatabase(`sqlite:${file}`);
  await timeProductLoads(db, list, grouped ? GROUP : undefined);
  const out = await timeProductLoads(db, list, grouped ? GROUP : undefined);
  await db.close();
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  return out;
}

/**
 * The same flattened rows (history rows included, as first loads append them) written with one prepared
 * single-row INSERT per table and one transaction per product: no raw landing, no hashing, no upsert, no
 * checks. Flattening is inside the clock, as it is in ours.
 */
async function baseline(list: readonly Product[]): Promise<{ seconds: number; rows: number }> {
  const file = tmpFile('baseline.sqlite');
  await (await openDatabase(`sqlite:${file}`)).close(); // same schema and pragmas as ours
  const loadedAt = new Date().toISOString();
  // Flattened lazily, as bareInsert asks for each product: flattening is on its clock.
  const units = function* () {
    for (const [i, p] of list.entries())
      yield baselineRows(p, i + 1, loadedAt).map(([t, rows]) => [t, TABLE_META[t].columns, rows] as const);
  };
  const out = bareInsert(file, units());
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  return out;
}

/** Child-process mode: stream n products through loadBatch without keeping them, report peaks. */
async function memoryRun(n: number): Promise<void> {
  const file = tmpFile('memory.sqlite');
  const db = await openDatabase(`sqlite:${file}`);
  let peakHeap = 0;
  let i = 0;
  const t0 = Date.now();
  for (const p of products(n)) {
    await loadBatch(db, {
      pipeline: 'bench',
      kind: 'marketplace',
      endpoint: 'POST /api/marketplace/sync',
      raw: p.raw,
      data: p.data,
    });
    if (++i % 200 === 0) peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }
  const seconds = (Date.now() - t0) / 1000;
  await db.close();
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  printPeaks({ products: n, seconds }, peakHeap);
}

interface MemoryFigures {
  products: number;
  seconds: number;
  peakRssMb: number;
  peakHeapMb: number;
  liveHeapMb: number;
}
const memoryInChildOf = (n: number) => memoryInChild<MemoryFigures>(import.meta.url, n);

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  const memIdx = process.argv.indexOf('--memory');
  if (memIdx >= 0) return memoryRun(Number(process.argv[memIdx + 1]));

  console.log(
    `# load benchmark: ${PRODUCTS} generated marketplace products (2-8 models each), SQLite file, one transaction per product; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const list = [...products(PRODUCTS)];
  // Warm-up, untimed: the JIT has compiled the flatteners and loaders of both sides before either is timed (the
  // side timed first would otherwise pay for it alone).
  const warm = list.slice(0, Math.min(200, list.length));
  await ours(warm, true);
  await baseline(warm);
  const single = await ours(list, false);
  const grouped = await ours(list, true);
  const b = await baseline(list);
  const singleAgain = await oursAgain(list, false);
  const groupedAgain = await oursAgain(list, true);
  const line = (label: string, r: { seconds: number; rows: number }) =>
    console.log(
      `${label.padEnd(44)} ${fmt(PRODUCTS / r.seconds)} products/s, ${fmt(r.rows / r.seconds)} rows/s (${r.rows} rows, ${r.seconds.toFixed(2)} s)`,
    );
  line('load, one transaction per product:', single);
  line(`load, ${GROUP} products per transaction (savepoints):`, grouped);
  line('bare prepared INSERT loop (flatten included):', b);
  line('load again, unchanged, one per product:', singleAgain);
  line(`load again, unchanged, ${GROUP} per transaction:`, groupedAgain);
  const ratio = (r: { seconds: number; rows: number }) => (r.rows / r.seconds / (b.rows / b.seconds)).toFixed(2);
  console.log(`ratio ours/baseline (rows/s): per product ${ratio(single)}, grouped ${ratio(grouped)}  (goal >= 0.7)`);
  console.log(
    `ratio unchanged reload/baseline (rows/s): per product ${ratio(singleAgain)}, grouped ${ratio(groupedAgain)}`,
  );
  console.log(
    `load average at the end ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  if (process.env['BENCH_LOAD_MEMORY'] === '0') return;
  const small = memoryInChildOf(PRODUCTS);
  const large = memoryInChildOf(PRODUCTS * 10);
  for (const m of [small, large]) {
    console.log(
      `memory, ${fmt(m.products)} products in a child process: peak RSS ${m.peakRssMb.toFixed(0)} MB, peak heap ${m.peakHeapMb.toFixed(0)} MB, live heap at the end ${m.liveHeapMb.toFixed(0)} MB (${m.seconds.toFixed(1)} s)`,
    );
  }
  console.log(`peak RSS growth for 10x products: ${(large.peakRssMb / small.peakRssMb).toFixed(2)}x`);
}

await main();
