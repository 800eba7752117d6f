// Postgres dialect of the relational model. db/schema/sqlite.ts holds the same tables and columns for SQLite;
// the table definitions below the helpers are kept textually identical in both files (test/db-schema.test.ts
// checks that the two agree), so only the helpers differ.
import {
  bigint,
  boolean,
  customType,
  doublePrecision,
  index,
  integer,
  pgTable as table,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

/** bigint (int8): ids beyond 2^53 stay exact; node-postgres returns int8 as a decimal string. */
const int64 = customType<{ data: number | bigint; driverData: string | number | bigint }>({
  dataType: () => 'bigint',
  fromDriver: (value) => BigInt(value),
});
const i64 = () => int64();
const int = () => integer();
const dbl = () => doublePrecision();
const txt = () => text();
const bool = () => boolean();
/** JSON kept as text written by the bigint-safe serializer: exact, and byte-identical across dialects. */
const json = () => text();
/** Times we stamp ourselves; the service's own timestamps stay text as received. */
const ts = () => timestamp({ withTimezone: true, mode: 'string' });
const serialId = () => bigint({ mode: 'number' }).primaryKey().generatedByDefaultAsIdentity();
const loadId = () => bigint({ mode: 'number' });

/** Columns every data row carries: which pipeline and load wrote it, and a hash of its content. */
const lineage = () => ({
  pipeline: txt().notNull(),
  load_id: loadId().notNull(),
  loaded_at: ts().notNull(),
  row_hash: txt().notNull(),
});

// ---------------------------------------------------------------------------------------------------------
// Lineage and control

export const pipeline_runs = table(
  'pipeline_runs',
  {
    id: serialId(),
    workflow_id: txt().notNull(),
    pipeline: txt().notNull(),
    kind: txt().notNull(),
    status: txt().notNull(),
    started_at: ts().notNull(),
    finished_at: ts(),
    rows_by_table: json(),
    error: txt(),
  },
  (t) => [uniqueIndex('pipeline_runs_workflow_id_uq').on(t.workflow_id), index('pipeline_runs_pipeline_idx').on(t.pipeline)],
);

/** Every data-carrying response, exactly as received; its id is the load id of the rows it produced. */
export const raw_responses = table(
  'raw_responses',
  {
    id: serialId(),
    pipeline: txt().notNull(),
    kind: txt().notNull(),
    endpoint: txt().notNull(),
    request_key: txt(),
    workflow_id: txt(),
    scraping_run_id: i64(),
    received_at: ts().notNull(),
    loaded_at: ts().notNull(),
    body_sha256: txt().notNull(),
    body_bytes: int().notNull(),
    body: txt().notNull(),
  },
  (t) => [index('raw_responses_pipeline_idx').on(t.pipeline, t.id)],
);

export const scrapers = table(
  'scrapers',
  {
    id: i64().notNull(),
    name: txt(),
    type: txt(),
    urls: json(),
    scheduled: bool(),
    schedule: txt(),
    schedule_explanation: txt(),
    created_at: txt(),
    updated_at: txt(),
    ...lineage(),
  },
  (t) => [primaryKey({ columns: [t.pipeline, t.id] }), index('scrapers_load_idx').on(t.pipeline, t.load_id)],
);

export const scraping_runs = table(
  'scraping_runs',
  {
    id: i64().notNull(),
    scraper_id: i64(),
    status: txt(),
    created_at: txt(),
    ...lineage(),
  },
  (t) => [primaryKey({ columns: [t.pipeline, t.id] }), index('scraping_runs_load_idx').on(t.pipeline, t.load_id)],
);

export const run_records = table(
  'run_records',
  {
    id: i64().notNull(),
    scraping_run_id: i64(),
    user_id: i64(),
    scraper_id: i64(),
    scraper_name: txt(),
    scrapped_url: txt(),
    scraped_url: txt(),
    status: txt(),
    created_at: txt(),
    updated_at: txt(),
    scraper: json(),
    ...lineage(),
  },
  (t) => [primaryKey({ columns: [t.pipeline, t.id] }), index('run_records_load_idx').on(t.pipeline, t.load_id)],
);

// ---------------------------------------------------------------------------------------------------------
// Job board

export const job_records = table(
  'job_records',
  {
    job_key: txt().notNull(),
    job_title: txt(),
    job_url: txt(),
    job_location: txt(),
    job_salary_number: dbl(),
    job_salary_text: txt(),
    job_type: txt(),
    job_currency: txt(),
    extra: json(),
    ...lineage(),
  },
  (t) => [primaryKey({ columns: [t.pipeline, t.job_key] }), index('job_records_load_idx').on(t.pipeline, t.load_id)],
);

// ---------------------------------------------------------------------------------------------------------
// Results of asynchronous scrapers (same columns in the three tables; see db/README.md for which gets what)

const resultColumns = () => ({
  id: i64().notNull(),
  scraper_id: i64(),
  scraping_run_id: i64(),
  scraper_name: txt(),
  scraped_url: txt(),
  status: txt(),
  content_type: txt().notNull(),
  content: json(),
  created_at: txt(),
  updated_at: txt(),
  extra: json(),
  ...lineage(),
});

export const scraper_results = table('scraper_results', resultColumns(), (t) => [
  primaryKey({ columns: [t.pipeline, t.id] }),
  index('scraper_results_load_idx').on(t.pipeline, t.load_id),
  index('scraper_results_run_idx').on(t.scraping_run_id),
]);
export const pdf_results = table('pdf_results', resultColumns(), (t) => [
  primaryKey({ columns: [t.pipeline, t.id] }),
  index('pdf_results_load_idx').on(t.pipeline, t.load_id),
  index('pdf_results_run_idx').on(t.scraping_run_id),
]);
export const leads_results = table('leads_results', resultColumns(), (t) => [
  primaryKey({ columns: [t.pipeline, t.id] }),
  index('leads_results_load_idx').on(t.pipeline, t.load_id),
  index('leads_results_run_idx').on(t.scraping_run_id),
]);

/** One row per scalar leaf of a result's content (objects walked, arrays of scalars indexed). */
export const result_content_fields = table(
  'result_content_fields',
  {
    result_table: txt().notNull(),
    result_id: i64().notNull(),
    path: txt().notNull(),
    value_type: txt().notNull(),
    value_text: txt(),
    value_number: dbl(),
    value_bool: bool(),
    scraping_run_id: i64(),
    ...lineage(),
  },
  (t) => [
    primaryKey({ columns: [t.pipeline, t.result_table, t.result_id, t.path] }),
    index('result_content_fields_load_idx').on(t.pipeline, t.load_id),
  ],
);

/** One row per element of an array of objects inside a result's content, the element kept whole as JSON. */
export const result_content_items = table(
  'result_content_items',
  {
    result_table: txt().notNull(),
    result_id: i64().notNull(),
    array_path: txt().notNull(),
    list_index: int().notNull(),
    item: json().notNull(),
    scraping_run_id: i64(),
    ...lineage(),
  },
  (t) => [
    primaryKey({ columns: [t.pipeline, t.result_table, t.result_id, t.array_path, t.list_index] }),
    index('result_content_items_load_idx').on(t.pipeline, t.load_id),
  ],
);

// ---------------------------------------------------------------------------------------------------------
// Marketplace

export const marketplace_products = table(
  'marketplace_products',
  {
    shop_id: i64().notNull(),
    item_id: i64().notNull(),
    item_status: txt(),
    status: i64(),
    item_type: i64(),
    reference_item_id: txt(),
    title: txt(),
    image: txt(),
    brand: txt(),
    brand_id: i64(),
    cat_id: i64(),
    condition: i64(),
    flag: i64(),
    currency: txt(),
    description: txt(),
    shop_location: txt(),
    ctime: i64(),
    price: i64(),
    price_min: i64(),
    price_max: i64(),
    price_before_discount: i64(),
    price_min_before_discount: i64(),
    price_max_before_discount: i64(),
    price_divisor: i64().notNull(),
    price_major: dbl(),
    price_min_major: dbl(),
    price_max_major: dbl(),
    price_before_discount_major: dbl(),
    show_discount: i64(),
    raw_discount: dbl(),
    rating_star: dbl(),
    rating_count: json(),
    total_rating_count: i64(),
    cmt_count: i64(),
    liked_count: i64(),
    historical_sold: i64(),
    global_sold: i64(),
    stock: i64(),
    normal_stock: i64(),
    discount_stock: dbl(),
    estimated_days: dbl(),
    min_purchase_limit: dbl(),
    max_quantity: dbl(),
    is_adult: bool(),
    is_preview: bool(),
    is_unavailable: bool(),
    is_pre_order: bool(),
    is_free_shipping: bool(),
    is_hide_stock: bool(),
    item_has_video: bool(),
    can_use_wholesale: bool(),
    label_ids: json(),
    extra: json(),
    ...lineage(),
  },
  (t) => [
    primaryKey({ columns: [t.pipeline, t.shop_id, t.item_id] }),
    index('marketplace_products_load_idx').on(t.pipeline, t.load_id),
  ],
);

export const marketplace_product_models = table(
  'marketplace_product_models',
  {
    shop_id: i64().notNull(),
    item_id: i64().notNull(),
    model_id: i64().notNull(),
    list_index: int().notNull(),
    name: txt(),
    status: i64(),
    price: i64(),
    price_before_discount: i64(),
    price_major: dbl(),
    price_before_discount_major: dbl(),
    promotion_id: i64(),
    stock: i64(),
    normal_stock: i64(),
    sold: i64(),
    current_promotion_reserved_stock: i64(),
    tier_index: json(),
    is_pre_order: bool(),
    estimated_days: i64(),
    has_gimmick_tag: bool(),
    extra: json(),
    ...lineage(),
  },
  (t) => [
    primaryKey({ columns: [t.pipeline, t.shop_id, t.item_id, t.model_id] }),
    index('marketplace_product_models_load_idx').on(t.pipeline, t.load_id),
  ],
);

/** price_stocks x stock_breakdown_by_location; location_index -1 marks a price-stock entry without locations. */
export const marketplace_model_stocks = table(
  'marketplace_model_stocks',
  {
    shop_id: i64().notNull(),
    item_id: i64().notNull(),
    model_id: i64().notNull(),
    price_stock_index: int().notNull(),
    location_index: int().notNull(),
    allocated_stock: i64(),
    promotion_type: i64(),
    location_id: txt(),
    available_stock: i64(),
    fulfilment_type: i64(),
    address_id: i64(),
    location_allocated_stock: i64(),
    ...lineage(),
  },
  (t) => [
    primaryKey({ columns: [t.pipeline, t.shop_id, t.item_id, t.model_id, t.price_stock_index, t.location_index] }),
    index('marketplace_model_stocks_load_idx').on(t.pipeline, t.load_id),
  ],
);

/** source: 'item.attributes' or 'product_attributes.attrs' (the response carries both lists). */
export const marketplace_product_attributes = table(
  'marketplace_product_attributes',
  {
    shop_id: i64().notNull(),
    item_id: i64().notNull(),
    source: txt().notNull(),
    list_index: int().notNull(),
    name: txt(),
    value: txt(),
    attribute_id: i64(),
    val_id: i64(),
    is_timestamp: bool(),
    brand_id: i64(),
    brand_option: json(),
    url: txt(),
    full_url: txt(),
    type: i64(),
    ...lineage(),
  },
  (t) => [
    primaryKey({ columns: [t.pipeline, t.shop_id, t.item_id, t.source, t.list_index] }),
    index('marketplace_product_attributes_load_idx').on(t.pipeline, t.load_id),
  ],
);

/** source: 'item.categories', 'item.fe_categories' or 'product_attributes.categories'. */
export const marketplace_product_categories = table(
  'marketplace_product_categories',
  {
    shop_id: i64().notNull(),
    item_id: i64().notNull(),
    source: txt().notNull(),
    list_index: int().notNull(),
    catid: i64(),
    display_name: txt(),
    no_sub: bool(),
    is_default_subcat: bool(),
    ...lineage(),
  },
  (t) => [
    primaryKey({ columns: [t.pipeline, t.shop_id, t.item_id, t.source, t.list_index] }),
    index('marketplace_product_categories_load_idx').on(t.pipeline, t.load_id),
  ],
);

export const marketplace_product_tier_variations = table(
  'marketplace_product_tier_variations',
  {
    shop_id: i64().notNull(),
    item_id: i64().notNull(),
    tier_index: int().notNull(),
    name: txt(),
    type: i64(),
    option_count: int().notNull(),
    images: json(),
    properties: json(),
    summed_stocks: json(),
    display_indicators: json(),
    ...lineage(),
  },
  (t) => [
    primaryKey({ columns: [t.pipeline, t.shop_id, t.item_id, t.tier_index] }),
    index('marketplace_product_tier_variations_load_idx').on(t.pipeline, t.load_id),
  ],
);

export const marketplace_product_tier_variation_options = table(
  'marketplace_product_tier_variation_options',
  {
    shop_id: i64().notNull(),
    item_id: i64().notNull(),
    tier_index: int().notNull(),
    option_index: int().notNull(),
    option: txt(),
    image: txt(),
    ...lineage(),
  },
  (t) => [
    primaryKey({ columns: [t.pipeline, t.shop_id, t.item_id, t.tier_index, t.option_index] }),
    index('marketplace_product_tier_variation_options_load_idx').on(t.pipeline, t.load_id),
  ],
);

export const marketplace_product_images = table(
  'marketplace_product_images',
  {
    shop_id: i64().notNull(),
    item_id: i64().notNull(),
    list_index: int().notNull(),
    image: txt().notNull(),
    ...lineage(),
  },
  (t) => [
    primaryKey({ columns: [t.pipeline, t.shop_id, t.item_id, t.list_index] }),
    index('marketplace_product_images_load_idx').on(t.pipeline, t.load_id),
  ],
);

export const marketplace_shops = table(
  'marketplace_shops',
  {
    shopid: i64().notNull(),
    userid: i64(),
    name: txt(),
    username: txt(),
    place: txt(),
    shop_location: txt(),
    last_active_time: i64(),
    ctime: i64(),
    vacation: bool(),
    status: i64(),
    is_shopee_verified: bool(),
    is_preferred_plus_seller: bool(),
    is_official_shop: bool(),
    is_individual_seller: bool(),
    is_mart: bool(),
    item_count: i64(),
    rating_star: dbl(),
    rating_bad: i64(),
    rating_good: i64(),
    rating_normal: i64(),
    response_rate: dbl(),
    response_time: dbl(),
    follower_count: i64(),
    sold_total: i64(),
    extra: json(),
    ...lineage(),
  },
  (t) => [primaryKey({ columns: [t.pipeline, t.shopid] }), index('marketplace_shops_load_idx').on(t.pipeline, t.load_id)],
);

/** Append-only: a row when a product's (model_id null) or a model's price differs from the previous load. */
export const marketplace_price_history = table(
  'marketplace_price_history',
  {
    id: serialId(),
    shop_id: i64().notNull(),
    item_id: i64().notNull(),
    model_id: i64(),
    price: i64(),
    price_min: i64(),
    price_max: i64(),
    price_before_discount: i64(),
    price_major: dbl(),
    previous_price: i64(),
    currency: txt(),
    ...lineage(),
  },
  (t) => [
    index('marketplace_price_history_item_idx').on(t.pipeline, t.shop_id, t.item_id, t.model_id),
    index('marketplace_price_history_load_idx').on(t.pipeline, t.load_id),
  ],
);

/** Highest load id each pipeline has exported per table; an incremental CSV export takes the rows above it. */
export const export_watermarks = table(
  'export_watermarks',
  {
    pipeline: txt().notNull(),
    table_name: txt().notNull(),
    last_load_id: loadId().notNull(),
    exported_at: ts().notNull(),
  },
  (t) => [primaryKey({ columns: [t.pipeline, t.table_name] })],
);

/**
 * Where each incremental sync of /api/results resumes: the highest result id of its last COMPLETE pass, per
 * pipeline and stream. Kept as decimal text (compared as BigInt by activities/watermark-store.ts) so the
 * definition matches the table earlier versions created on first use.
 */
export const sync_watermarks = table(
  'sync_watermarks',
  {
    pipeline: txt().notNull(),
    stream: txt().notNull(),
    watermark: txt().notNull(),
    updated_at: ts().notNull(),
  },
  (t) => [primaryKey({ columns: [t.pipeline, t.stream] })],
);
