// A DuckDB destination stays compact (issue #39): DuckDB never gives a file's free blocks back, and every checkpoint
// leaves the blocks of the row groups and indexes it rewrote free, so a file grown by loads and runs was a third free
// blocks. After each `scrape-etl load` and each `run` (the compiled command, a real file, the embedded Temporal
// server and the simulator), the file's free blocks, as DuckDB itself counts them in a read-only session of this
// test, are at most 10% of its blocks, and every row loaded is still there.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringifyJson } from '../../../lib/json.js';
import { generateProduct } from '../../../simulator/generate/marketplace.js';
import { startCliBed, type CliBed } from '../../support/cli-bed.js';
import { runCli } from '../../support/cli.js';

const TOKEN = 'db-duckdb-free-blocks-token';
let bed: CliBed;
let file: string;

beforeAll(async () => {
  bed = await startCliBed({ name: 'duckdb-free-blocks', token: TOKEN, seed: 23 });
  file = path.join(bed.dir, 'dest.duckdb');
}, 60_000);
afterAll(async () => {
  await bed?.close();
});

/** Blocks and rows as DuckDB reads them from the closed file. */
async function inspect(): Promise<{ total: number; free: number; products: number; raw: number }> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  try {
    const conn = await instance.connect();
    const [total, free] = (await conn.runAndReadAll('select total_blocks, free_blocks from pragma_database_size()'))
      .getRows()[0]!
      .map(Number);
    const products = Number((await conn.runAndReadAll('select count(*) from marketplace_products')).getRows()[0]![0]);
    const raw = Number((await conn.runAndReadAll('select count(*) from raw_responses')).getRows()[0]![0]);
    conn.closeSync();
    return { total: total!, free: free!, products, raw };
  } finally {
    instance.closeSync();
  }
}

/** Saved product answers `from`..`to`-1 in `load`'s form with lineage; `price` shifts their prices (a changed product). */
function writeProducts(dir: string, from: number, to: number, price = 0): string[] {
  fs.mkdirSync(dir, { recursive: true });
  const files: string[] = [];
  for (let i = from; i < to; i++) {
    const input = {
      url: `https://shop.example.tw/api/v4/pdp/get_pc?itemid=${2_000_000 + i}&shopid=${700 + (i % 13)}`,
      itemId: 2_000_000 + i,
      shopId: 700 + (i % 13),
    };
    const response = generateProduct(31, input) as { data?: { item?: { price?: number } } };
    if (price !== 0 && response.data?.item && typeof response.data.item.price === 'number')
      response.data.item.price += price;
    const f = path.join(dir, `product-${i}.json`);
    fs.writeFileSync(f, stringifyJson({ request: { url: input.url }, response }));
    files.push(f);
  }
  return files;
}

describe('DuckDB destination free blocks', () => {
  it('after each load, new and changed products, at most 10% of the file is free blocks', async () => {
    const rounds: Array<[from: number, to: number, price: number]> = [
      [0, 600, 0],
      [600, 660, 0],
      [0, 80, 1],
      [660, 720, 0],
      [100, 180, 2],
    ];
    let raw = 0;
    const items = new Set<number>();
    for (const [k, [from, to, price]] of rounds.entries()) {
      const files = writeProducts(path.join(bed.dir, `load-${k}`), from, to, price);
      const res = await runCli(
        ['load', 'marketplace', ...files, '--db', `duckdb:${file}`, '--pipeline', 'shop', '--price-divisor', '100000'],
        { timeoutMs: 300_000 },
      );
      expect(res.code, res.stderr).toBe(0);
      raw += files.length;
      for (let i = from; i < to; i++) items.add(i);
      const seen = await inspect();
      expect({ round: k, products: seen.products, raw: seen.raw }).toEqual({ round: k, products: items.size, raw });
      expect(seen.free, `round ${k}: ${seen.free} of ${seen.total} blocks free`).toBeLessThanOrEqual(0.1 * seen.total);
    }
  }, 600_000);

  it('after each run of a pipeline into the same file, at most 10% of the file is free blocks', async () => {
    const urls = Array.from(
      { length: 40 },
      (_, i) => `https://shopee.tw/api/v2/item/get?itemid=${3_000_000 + i}&shopid=${10_000 + (i % 7)}`,
    );
    const pipeline = path.join(bed.dir, 'shop.yaml');
    fs.writeFileSync(
      pipeline,
      `name: free-blocks\nkind: marketplace\nrequest:\n  urls:\n${urls.map((u) => `    - ${u}\n`).join('')}destination:\n  database: duckdb:${file}\n`,
    );
    const before = await inspect();
    for (let k = 0; k < 3; k++) {
      const res = await runCli(['run', '--json', ...(k > 0 ? ['--new'] : []), pipeline], {
        cwd: bed.dir,
        env: bed.env,
        timeoutMs: 240_000,
      });
      expect(res.code, res.stderr).toBe(0);
      const seen = await inspect();
      expect(seen.raw).toBe(before.raw + 40 * (k + 1));
      expect(seen.free, `run ${k}: ${seen.free} of ${seen.total} blocks free`).toBeLessThanOrEqual(0.1 * seen.total);
    }
  }, 900_000);
});
