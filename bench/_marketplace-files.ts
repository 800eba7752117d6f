// Shared by the benchmarks (not a benchmark itself: run.ts skips files starting with '_'): writes N saved
// marketplace responses, one JSON file each, from the simulator's own deterministic generator, as a backfill
// would have them on disk (`{"request": {"url": ...}, "response": ...}`, the form `load` accepts with lineage).
import fs from 'node:fs';
import path from 'node:path';
import { stringifyJson } from '../client/json.js';
import { generateProduct } from '../simulator/generate/marketplace.js';

export const SEED = 42;

export function productUrl(i: number): { url: string; itemId: number; shopId: number } {
  const itemId = 1_000_000 + i;
  const shopId = 500 + (i % 97);
  return { url: `https://shop.example.tw/api/v4/pdp/get_pc?itemid=${itemId}&shopid=${shopId}`, itemId, shopId };
}

/** Writes products 0..n-1 into `dir` (created), spread over subfolders of 1,000 as a large backfill would be. */
export function writeMarketplaceFiles(dir: string, n: number): void {
  for (let i = 0; i < n; i++) {
    const sub = path.join(dir, `part-${String(Math.floor(i / 1000)).padStart(3, '0')}`);
    if (i % 1000 === 0) fs.mkdirSync(sub, { recursive: true });
    const input = productUrl(i);
    const doc = { request: { url: input.url }, response: generateProduct(SEED, input) };
    fs.writeFileSync(path.join(sub, `product-${String(i).padStart(6, '0')}.json`), stringifyJson(doc));
  }
}
