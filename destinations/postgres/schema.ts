// Postgres dialect (node-postgres, the warehouse) of the relational model. Every table is instantiated from its one definition in
// db/model/schema/definition.ts (columns, keys and indexes written once as data) by db/model/schema/build.ts; destinations/sqlite/schema.ts
// does the same for the other dialect. drizzle-kit reads this file to generate the migrations, connect.ts and
// db/model/tables.ts import the tables by name, so every table stays a named export here.
import { pgTableFrom as table } from '../../db/model/schema/build.js';
import { TABLES } from '../../db/model/schema/definition.js';

export const pipeline_runs = table('pipeline_runs', TABLES.pipeline_runs);
export const raw_responses = table('raw_responses', TABLES.raw_responses);
export const scrapers = table('scrapers', TABLES.scrapers);
export const scraping_runs = table('scraping_runs', TABLES.scraping_runs);
export const run_records = table('run_records', TABLES.run_records);
export const job_records = table('job_records', TABLES.job_records);
export const scraper_results = table('scraper_results', TABLES.scraper_results);
export const pdf_results = table('pdf_results', TABLES.pdf_results);
export const leads_results = table('leads_results', TABLES.leads_results);
export const marketplace_products = table('marketplace_products', TABLES.marketplace_products);
export const marketplace_product_models = table('marketplace_product_models', TABLES.marketplace_product_models);
export const marketplace_model_stocks = table('marketplace_model_stocks', TABLES.marketplace_model_stocks);
export const marketplace_product_attributes = table(
  'marketplace_product_attributes',
  TABLES.marketplace_product_attributes,
);
export const marketplace_product_categories = table(
  'marketplace_product_categories',
  TABLES.marketplace_product_categories,
);
export const marketplace_product_tier_variations = table(
  'marketplace_product_tier_variations',
  TABLES.marketplace_product_tier_variations,
);
export const marketplace_product_tier_variation_options = table(
  'marketplace_product_tier_variation_options',
  TABLES.marketplace_product_tier_variation_options,
);
export const marketplace_product_images = table('marketplace_product_images', TABLES.marketplace_product_images);
export const marketplace_shops = table('marketplace_shops', TABLES.marketplace_shops);
export const marketplace_price_history = table('marketplace_price_history', TABLES.marketplace_price_history);
export const export_watermarks = table('export_watermarks', TABLES.export_watermarks);
export const sync_watermarks = table('sync_watermarks', TABLES.sync_watermarks);
export const notify_deliveries = table('notify_deliveries', TABLES.notify_deliveries);
export const url_lists = table('url_lists', TABLES.url_lists);
export const spend_calls = table('spend_calls', TABLES.spend_calls);
export const schema_history = table('schema_history', TABLES.schema_history);
export const rejected_results = table('rejected_results', TABLES.rejected_results);
export const check_results = table('check_results', TABLES.check_results);
export const watch_events = table('watch_events', TABLES.watch_events);
export const watch_state = table('watch_state', TABLES.watch_state);
