// `marketplace`: synchronous product syncs. One call per product-detail API URL; each answer is flattened into
// the marketplace_* tables (products, models, stocks, attributes, ..., and the price history).
import { z } from 'zod';
import { absoluteUrl } from '../pipelines/fields.js';
import { builtOnce } from '../lib/built-once.js';
import type { UrlListKind } from './types.js';

const marketplaceUrl = () =>
  absoluteUrl.refine((s) => {
    if (!URL.canParse(s)) return true; // reported by absoluteUrl
    const q = new URL(s).searchParams;
    // v2 URLs carry itemid/shopid, v4 ones item_id/shop_id.
    return (q.has('itemid') || q.has('item_id')) && (q.has('shopid') || q.has('shop_id'));
  }, 'expected the product-detail API URL with itemid and shopid (or item_id and shop_id) query parameters');

const request = builtOnce(() =>
  z.strictObject({
    urls: z.array(marketplaceUrl()).min(1, 'needs at least one product URL'),
  }),
);

export const marketplaceKind: UrlListKind<'marketplace'> = {
  kind: 'marketplace',
  mode: 'url-list',
  summary: 'marketplace products, one synchronous sync per product URL, with price history',
  get request() {
    return request();
  },
  defaultsRequestName: false,
  requestOptional: false,
  endpoints: ['POST /api/marketplace/sync'],
  tables: [
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
  ],
  resultTable: 'scraper_results',
  async fetch(client, _req, url, o) {
    const api = await client.marketplaceSync({ url }, o);
    return { api, load: { kind: 'marketplace', data: api.data } };
  },
};
