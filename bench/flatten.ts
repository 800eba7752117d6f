// What a worker does to one marketplace answer before any SQL, in CPU time per product: parsing (lib/json.ts),
// validating (the client's zod schema), flattening into rows (db/model/flatten/marketplace.ts) and checking the rows
// against their columns (db/store/load-rows.ts checkRow), each as a ratio to a bare JSON.parse of the same bodies measured
// in the same run. The simulator's products (bench/_marketplace-files.ts), warmed up first; steps are cumulative.
//   npx tsx bench/flatten.ts            (BENCH_FLATTEN_PRODUCTS, default 400; BENCH_FLATTEN_ROUNDS, default 10)
import { parseJson } from '../lib/json.js';
import { marketplaceResponseSchema } from '../client/schemas.js';
import { flattenMarketplace } from '../db/model/flatten/marketplace.js';
import type { Row } from '../db/model/flatten/values.js';
import { checkRow } from '../db/store/load-rows.js';
import { TABLE_META, type DataTableName } from '../db/model/tables.js';
import { products } from './_marketplace-files.js';

const N = Number(process.env['BENCH_FLATTEN_PRODUCTS'] ?? 400);
const ROUNDS = Number(process.env['BENCH_FLATTEN_ROUNDS'] ?? 10);
const bodies = [...products(N)].map((p) => p.raw);

/** CPU milliseconds per product of `fn` over every body, after three warm-up passes. */
function cpuMsPerProduct(fn: (raw: string) => unknown): number {
  for (let r = 0; r < 3; r++) for (const raw of bodies) fn(raw);
  const c0 = process.cpuUsage();
  for (let r = 0; r < ROUNDS; r++) for (const raw of bodies) fn(raw);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000 / (ROUNDS * N);
}

const validated = (raw: string) => marketplaceResponseSchema.parse(parseJson(raw));
const flattened = (raw: string) => flattenMarketplace(validated(raw));
function checked(raw: string): number {
  let rows = 0;
  for (const [table, list] of Object.entries(flattened(raw)) as Array<[DataTableName, Row[]]>) {
    for (const r of list) checkRow(TABLE_META[table], r);
    rows += list.length;
  }
  return rows;
}

const base = cpuMsPerProduct((raw) => JSON.parse(raw));
const rowsPerProduct = bodies.reduce((s, raw) => s + checked(raw), 0) / N;
console.log(
  `# prework of a marketplace answer: ${N} products x ${ROUNDS} rounds, ${rowsPerProduct.toFixed(1)} rows a product; CPU a product, ratio to JSON.parse`,
);
console.log(`JSON.parse (baseline)          ${base.toFixed(3)} ms`);
for (const [label, fn] of [
  ['parseJson', parseJson],
  ['+ zod validation', validated],
  ['+ flattening', flattened],
  ['+ row checks and hashes', checked],
] as const) {
  const ms = cpuMsPerProduct(fn);
  console.log(`${label.padEnd(30)} ${ms.toFixed(3)} ms  ${(ms / base).toFixed(2)}x`);
}
