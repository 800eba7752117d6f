// What the lake tests share: a generated marketplace product loaded as a sync answer would be, and the files a
// folder holds. No server: the fast tier's lake tests use it.
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { marketplaceResponseSchema } from '../../client/schemas.js';
import type { Database } from '../../destinations/contract.js';
import { loadBatch } from '../../db/store/load.js';
import { parseJson, stringifyJson } from '../../lib/json.js';
import { generateProduct } from '../../simulator/generate/marketplace.js';

/** Loads one generated product (`seed` 42 unless given; another seed gives the same product other values). */
export async function loadMarketplaceProduct(
  db: Database,
  p: { pipeline: string; itemId: number; shopId: number; requestKey: string; seed?: number },
): Promise<void> {
  const raw = stringifyJson(
    generateProduct(p.seed ?? 42, {
      url: `https://shop.example.tw/api/v4/pdp/get_pc?itemid=${p.itemId}&shopid=${p.shopId}`,
      itemId: p.itemId,
      shopId: p.shopId,
    }),
  );
  await loadBatch(db, {
    pipeline: p.pipeline,
    kind: 'marketplace',
    endpoint: 'POST /api/marketplace/sync',
    requestKey: p.requestKey,
    raw,
    data: marketplaceResponseSchema.parse(parseJson(raw)),
  });
}

/** Every file under `root`, as paths relative to it, sorted. */
export async function filesUnder(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      if (e.isDirectory()) await walk(join(d, e.name));
      else out.push(relative(root, join(d, e.name)));
    }
  };
  await walk(root);
  return out.sort();
}
