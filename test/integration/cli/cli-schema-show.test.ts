// `scrape-etl schema show` lists a marketplace pipeline's model tables with their fixed columns (marked fixed, the
// natural key said), not only the columns its loads added (issue 36: it listed only evolved columns, and a table
// with none, marketplace_product_images, not at all). The compiled CLI on a SQLite file loaded from a real answer.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLES } from '../../../db/model/schema/definition.js';
import { runCli } from '../../support/cli.js';
import { REAL_FIXTURES } from '../../support/fixtures.js';

let dir: string;
let dbUrl: string;
const MARKETPLACE = [
  'marketplace_shops',
  'marketplace_products',
  'marketplace_product_models',
  'marketplace_model_stocks',
  'marketplace_product_attributes',
  'marketplace_product_categories',
  'marketplace_product_tier_variations',
  'marketplace_product_tier_variation_options',
  'marketplace_product_images',
  'marketplace_price_history',
];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schema-show-'));
  dbUrl = `sqlite:${path.join(dir, 'd.sqlite')}`;
  const r = await runCli([
    'load',
    'marketplace',
    path.join(REAL_FIXTURES, 'shopee-sync-response-1.json'),
    '--db',
    dbUrl,
    '--pipeline',
    'shop',
  ]);
  expect(r.code, r.stderr).toBe(0);
}, 60_000);

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Shown {
  tables: Array<{
    table: string;
    fixed: boolean;
    natural_key?: string[];
    fixed_columns?: Array<{ column: string; type: string; natural_key: boolean }>;
    columns: Array<{ column: string; change: string }>;
  }>;
}

describe('schema show of a marketplace pipeline', () => {
  it('--json: every marketplace table with the model fixed columns and natural key, then the columns loads added', async () => {
    const r = await runCli(['schema', 'show', 'shop', '--database', dbUrl, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const shown = JSON.parse(r.stdout) as Shown;
    expect(shown.tables.map((t) => t.table).sort()).toEqual([...MARKETPLACE].sort());
    const products = shown.tables.find((t) => t.table === 'marketplace_products')!;
    expect(products.fixed).toBe(true);
    expect(products.natural_key).toEqual(['shop_id', 'item_id']);
    const def = TABLES.marketplace_products.columns as Record<string, { type: string }>;
    expect(products.fixed_columns).toEqual(
      Object.entries(def).map(([column, c]) => ({
        column,
        type: c.type,
        natural_key: column === 'shop_id' || column === 'item_id',
      })),
    );
    // The evolved columns stay listed, apart from the fixed ones.
    expect(products.columns.length).toBeGreaterThan(0);
    expect(products.columns.every((c) => !(c.column in def))).toBe(true);
    // A table whose loads added nothing is listed with its fixed columns.
    expect(shown.tables.find((t) => t.table === 'marketplace_product_images')?.fixed_columns?.length).toBeGreaterThan(
      0,
    );
  });

  it('the text lists fixed columns marked as such, the natural key said on the table line and the key columns', async () => {
    const r = await runCli(['schema', 'show', 'shop', '--database', dbUrl]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^marketplace_products {2}\(model table; natural key: shop_id, item_id\)$/m);
    expect(r.stdout).toMatch(/^ {2}item_id +int64 +fixed, natural key$/m);
    expect(r.stdout).toMatch(/^ {2}price +\w+ +fixed$/m);
    expect(r.stdout).toMatch(/^ {2}load_id +int64 +fixed, lineage$/m);
    expect(r.stdout).toMatch(/^marketplace_product_images {2}\(model table; natural key: /m);
    expect(r.stdout).toMatch(/column added, load 1, /);
  });
});
