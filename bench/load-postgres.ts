// Postgres load benchmark: flatten + idempotent upsert into Postgres (db/store/load.ts: multi-row upserts, raw landing,
// lineage, price history), per product and in savepoint groups, against a bare COPY of the same rows into the same
// tables (flattening on both clocks, as in bench/load.ts), in the same run on the same server: a throwaway cluster
// from the Debian binaries (test/support/postgres.ts: fsync off, so commit costs are lower than on a durable
// server), or TEST_POSTGRES_URL.
//   npx tsx bench/load-postgres.ts          (BENCH_LOAD_PRODUCTS, default 2000; BENCH_PAIRS, default 3)
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { openDatabase } from '../destinations/open.js';
import { TABLE_META, type DataTableName } from '../db/model/tables.js';
import { testPostgresUrl } from '../test/support/postgres.js';
import { baselineRows, products, timeProductLoads, type Cell, type Product } from './_marketplace-files.js';

const PRODUCTS = Number(process.env['BENCH_LOAD_PRODUCTS'] ?? 2000);
/** Products per transaction in the grouped run: cli/commands/load.ts GROUP_FILES. */
const GROUP = 64;
/** Pairs of (grouped load, COPY) whose median ratio is the figure. */
const PAIRS = Math.max(1, Number(process.env['BENCH_PAIRS'] ?? 3));

interface Timing {
  seconds: number;
  rows: number;
}

async function ours(list: readonly Product[], grouped: boolean): Promise<Timing> {
  const db = await openDatabase(await testPostgresUrl());
  const out = await timeProductLoads(db, list, grouped ? GROUP : undefined);
  await db.close();
  return out;
}

/** A value in COPY's CSV format: NULL unquoted and empty, everything else quoted with quotes doubled. */
function csvCell(v: Cell): string {
  if (v === null) return '';
  return `"${String(v).replace(/"/g, '""')}"`;
}

/**
 * The same rows, flattened inside the clock, then one COPY ... FROM STDIN (CSV) per table in one transaction, into
 * the tables our migrations create: no raw landing, no hashing, no upsert, no checks, no per-product transaction.
 */
async function baseline(list: readonly Product[]): Promise<Timing> {
  const url = await testPostgresUrl();
  await (await openDatabase(url)).close(); // migrated: the same tables, keys and indexes as ours
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const loadedAt = new Date().toISOString();
  let rows = 0;
  const t0 = process.hrtime.bigint();
  // Rows whose natural key repeats (a shop sold by many products) are written once, the last one winning, as
  // ours upserts them; `rows` counts every flattened row on both sides.
  const lines = new Map<DataTableName, Map<string, string>>();
  list.forEach((p, i) => {
    for (const [t, values] of baselineRows(p, i + 1, loadedAt)) {
      let out = lines.get(t);
      if (!out) lines.set(t, (out = new Map()));
      const cols = TABLE_META[t].columns;
      const keyAt = TABLE_META[t].key.map((k) => cols.indexOf(k));
      for (const [j, v] of values.entries()) {
        const key = keyAt.length > 0 ? keyAt.map((k) => String(v[k])).join('\u0001') : `${i}:${j}`;
        out.set(key, `${v.map(csvCell).join(',')}\n`);
      }
      rows += values.length;
    }
  });
  await client.query('BEGIN');
  for (const [t, byKey] of lines) {
    const text = [...byKey.values()];
    const cols = TABLE_META[t].columns.map((c) => `"${c}"`).join(', ');
    await pipeline(Readable.from(text), client.query(copyFrom(`COPY "${t}" (${cols}) FROM STDIN WITH (FORMAT csv)`)));
  }
  await client.query('COMMIT');
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  await client.end();
  return { seconds, rows };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

async function main(): Promise<void> {
  console.log(
    `# Postgres load benchmark: ${PRODUCTS} generated marketplace products, flattening timed on both sides; ${PAIRS} pairs, median ratio`,
  );
  const list = [...products(PRODUCTS)];
  const warm = list.slice(0, Math.min(200, list.length));
  await ours(warm, true);
  await baseline(warm);
  const line = (label: string, r: Timing) =>
    console.log(
      `${label.padEnd(46)} ${fmt(PRODUCTS / r.seconds)} products/s, ${fmt(r.rows / r.seconds)} rows/s (${r.rows} rows, ${r.seconds.toFixed(2)} s)`,
    );
  const rate = (r: Timing) => r.rows / r.seconds;
  const single = await ours(list, false);
  const singleCopy = await baseline(list);
  line('load, one transaction per product:', single);
  line('bare COPY per table (flatten included):', singleCopy);
  // On a shared machine one pair can be off by half: grouped loads and COPY alternate, each pair gives a ratio.
  const ratios: number[] = [];
  for (let pair = 1; pair <= PAIRS; pair++) {
    const grouped = await ours(list, true);
    const copy = await baseline(list);
    if (grouped.rows !== copy.rows || single.rows !== copy.rows)
      throw new Error(`row counts differ: ours ${single.rows}/${grouped.rows}, COPY ${copy.rows}`);
    line(`pair ${pair}: load, ${GROUP} products per transaction (as load):`, grouped);
    line(`pair ${pair}: bare COPY per table (flatten included):`, copy);
    ratios.push(rate(grouped) / rate(copy));
  }
  console.log(
    `ratio ours/COPY (rows/s): per product ${(rate(single) / rate(singleCopy)).toFixed(2)}, grouped ${ratios.map((r) => r.toFixed(2)).join(' / ')} -> median ${median(ratios).toFixed(2)}  (goal >= 0.5)`,
  );
}

await main();
process.exit(0); // the throwaway server's process handle would keep the bench alive
