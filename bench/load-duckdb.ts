// DuckDB load benchmark: flatten + idempotent upsert (db/store/load.ts) into a DuckDB file against the same load into a
// SQLite file, on the same generated products in the same run (flattening on both clocks). Each is timed one
// transaction per product (loadBatch: every call a session of its own, so the file is opened, locked and closed per
// product, as for a pipeline's loads when nothing else is queued) and in groups of GROUP products (loadBatches: one
// session; in DuckDB one transaction per group written by db/load-group-duckdb.ts; SQLite: one transaction, a
// savepoint each). The ratio printed is DuckDB/SQLite rows per second.
//   npx tsx bench/load-duckdb.ts          (BENCH_LOAD_PRODUCTS, default 1000)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../destinations/open.js';
import { products, timeProductLoads, type Product } from './_marketplace-files.js';

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
    `ratio DuckDB/SQLite (rows/s): per product ${ratio(r.duckSingle, r.sqliteSingle)}, grouped ${ratio(r.duckGrouped, r.sqliteGrouped)}`,
  );
}

await main();
