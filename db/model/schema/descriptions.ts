// What every table and column of the model means, for the people who query it: written once here, beside the
// definition (definition.ts), and read by every surface that shows it: the comments the database carries
// (Postgres and DuckDB COMMENT ON, SQLite's scrape_etl_comments), `schema show`, `schema export` (dbt, JSON, DBML,
// Mermaid) and docs/warehouse.md's tables (a test compares them). The mapped types make the compiler name a table
// or a column of the definition that has no description here, and one described here that the definition lacks.
// Light module (data only, no driver), so the read-only commands can import it.
import { ALERT_STATUSES, RECORDED_EXPORT_STATUSES, RECORDED_RUN_STATES } from '../../../lib/run-states.js';
import type { TABLES, TableName } from './definition.js';

/** A child table's reference to its parent: the child's columns, in the order of the parent's key columns. */
export interface RelationDoc {
  parent: string;
  columns: readonly string[];
  parentColumns: readonly string[];
  /** Why the relation holds (or when it does not), for the docs. */
  note?: string;
}

/** The values a status (or other closed) column holds, and whose word they are. */
export interface AcceptedValuesDoc {
  values: readonly string[];
  /**
   * `ours`: scrape-etl writes only these (a value outside them is a bug: dbt's test is an error). `service`: the
   * values the scraping service's contract shows; it may send others (the test warns).
   */
  source: 'ours' | 'service';
}

export interface TableDoc<C extends string = string> {
  description: string;
  columns: Readonly<Record<C, string>>;
  relations?: readonly RelationDoc[];
  acceptedValues?: Readonly<Partial<Record<C, AcceptedValuesDoc>>>;
}

type DocsOf = { readonly [T in TableName]: TableDoc<keyof (typeof TABLES)[T]['columns'] & string> };

/** Columns every data row carries; `pipeline` starts every natural key. */
export const LINEAGE_DOCS = {
  pipeline:
    'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.',
  load_id: 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).',
  loaded_at:
    'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).',
  row_hash: "SHA-1 of the row's data columns; a load rewrites the row only when it differs.",
} as const;

/** The lineage columns, in the order the model declares them. */
export const LINEAGE_COLUMNS = Object.keys(LINEAGE_DOCS) as ReadonlyArray<keyof typeof LINEAGE_DOCS>;

/** The column of every table with a natural key that moves when a run sees the row, changed or not (db/store/last-seen.ts). */
export const SEEN_DOCS = {
  last_seen_at:
    'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.',
} as const;

const SERVICE_TS =
  " An instant from the service's ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run counts it in pipeline_runs.kept_out and its log names it).";
const PRICE_INT = ' Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.';
const JSON_TEXT =
  ' JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.';

const resultColumns = (what: string) =>
  ({
    id: `The service's result id (64-bit).${what}`,
    scraper_id: 'The scraper that produced the result (scrapers.id).',
    scraping_run_id: 'The scraping run that produced the result (scraping_runs.id).',
    scraper_name: "The scraper's name at the service (a pipeline's `request.name`, by default the pipeline's name).",
    scraped_url: 'The URL (or keyword text) the result is for.',
    status: "The result's status as the service reported it ('succeeded' observed).",
    content_type:
      "What `content` held: 'object', 'array', 'json-string' (a string holding JSON, flattened as JSON), 'string' (plain text), 'number', 'boolean' or 'null'.",
    content: `The extracted data as received, in a text column (plain text for content_type 'string' is not JSON): otherwise JSON text; cast to json / JSON to query. Flattened into <pipeline>_items.`,
    created_at: `When the service created the result.${SERVICE_TS}`,
    updated_at: `When the service last updated the result.${SERVICE_TS}`,
    extra: `Fields of the result record beyond the typed ones, as${JSON_TEXT} NULL when there were none.`,
    ...LINEAGE_DOCS,
    ...SEEN_DOCS,
  }) as const;

const RESULT_STATUS: AcceptedValuesDoc = { values: ['succeeded'], source: 'service' };
const resultRelations = (table: string): RelationDoc[] => [
  {
    parent: 'scraping_runs',
    columns: ['pipeline', 'scraping_run_id'],
    parentColumns: ['pipeline', 'id'],
    note: `a ${table} row is loaded from its scraping run's detail, which lands the run too`,
  },
];

const shopItem = {
  shop_id: 'The shop (marketplace_shops.shop_id; `shopid` in the API).',
  item_id: 'The product (the `itemid` of its URL).',
} as const;
const productKey = {
  parent: 'marketplace_products',
  columns: ['pipeline', 'shop_id', 'item_id'],
  parentColumns: ['pipeline', 'shop_id', 'item_id'],
} as const;

export const TABLE_DOCS: DocsOf = {
  pipeline_runs: {
    description:
      'One row per run (Temporal workflow execution) of a pipeline, idempotent on workflow_id: what it loaded, how it ended, what it cost.',
    columns: {
      id: 'Generated row id.',
      workflow_id: 'The Temporal workflow id of the run (unique).',
      pipeline: 'The pipeline that ran.',
      kind: "The pipeline's kind (pdf, leads-search-engine, leads-social, job-board, marketplace, results) or the `scrape-etl load` input kind.",
      status: `The run's state, from lib/run-states.ts: ${RECORDED_RUN_STATES.join(', ')} (docs/warehouse.md says what each means).`,
      started_at: 'When the run started (UTC).',
      finished_at: 'When the run ended (UTC); NULL while it runs.',
      rows_by_table: `Rows the run wrote, by table, as${JSON_TEXT}`,
      error: 'Why the run failed, or the URLs that failed for good in a partial run.',
      export_status: `The exports' own outcome: ${RECORDED_EXPORT_STATUSES.join(', ')} (no_new_rows: an incremental export found nothing new); NULL when the pipeline has no exports. A failed export leaves \`status\` (the data's) as it is.`,
      export_error: 'Why the exports failed.',
      scheduled_at: 'For a run a schedule started: the time it was scheduled for (UTC).',
      token_usage:
        "Sum of the service's `tokenUsage` over the run's responses: the run's cost; NULL when no answer reported one.",
      alert_status:
        "The run's alerts once their deliveries ended: 'delivered' or 'failed'; NULL when there was nothing to send.",
      alert_error: 'Which alerts were not delivered, and why.',
      seen_by_table: `Rows the run's responses held (fetched), by table, changed or not, as${JSON_TEXT} NULL for runs finished before it was recorded.`,
      status_reason:
        "Why the run ended as it did when its status alone does not say: 'budget' (a budget limit stopped its calls, docs/budgets.md); NULL otherwise.",
      kept_out:
        "Values the run's loads kept out of their columns (a service timestamp that is not one, stored NULL; raw_responses keeps it as sent): the sum of its raw_responses' kept_out counts. NULL for runs finished before it was counted.",
      kept_out_sample: `The first kept-out values (table, column, the row's natural key, the value as sent cut at 60 characters, the raw_responses id holding it as rawResponseId), as${JSON_TEXT} NULL when none.`,
    },
    acceptedValues: {
      status: { values: RECORDED_RUN_STATES, source: 'ours' },
      export_status: { values: RECORDED_EXPORT_STATUSES, source: 'ours' },
      alert_status: { values: ALERT_STATUSES, source: 'ours' },
    },
  },
  raw_responses: {
    description:
      'Every data-carrying response of the service, exactly as received; its id is the load_id of the rows it produced.',
    columns: {
      id: 'Generated id: the load id of the rows this response wrote.',
      pipeline: 'The pipeline whose run received it.',
      kind: 'What the body is (marketplace, job-board, create-run, scraping-run, results).',
      endpoint: 'The service endpoint called (METHOD /path).',
      request_key:
        'What was asked for: the URL of a synchronous call, the scraping run id, the page of a results list.',
      workflow_id: 'The run (pipeline_runs.workflow_id); NULL for `scrape-etl load`.',
      scraping_run_id: 'The scraping run the body belongs to, when there is one.',
      received_at: 'When the body arrived (UTC).',
      loaded_at: 'When it was landed (UTC).',
      body_sha256: 'SHA-256 of the body.',
      body_bytes: 'Size of the body in bytes.',
      body: "The body as received; '' when body_ref names the earlier row holding the same bytes.",
      body_ref: 'An identical body is stored once: the id of the row that holds it.',
      token_usage: 'The `tokenUsage` the service reported for this call (job-board answers carry it), else NULL.',
      rows_seen: `Rows this response held, by table (changed or not), as${JSON_TEXT} NULL before it was recorded.`,
      kept_out: `Values of this response its load kept out of their columns (stored NULL): {"count": n, "sample": [the first few]}, as${JSON_TEXT} NULL when none.`,
    },
    relations: [
      {
        parent: 'pipeline_runs',
        columns: ['workflow_id'],
        parentColumns: ['workflow_id'],
        note: 'NULL for responses `scrape-etl load` landed',
      },
    ],
  },
  scrapers: {
    description:
      'The scrapers a create-and-run call created at the service (pdf and leads pipelines), as its answer described them.',
    columns: {
      id: "The service's scraper id.",
      name: "The scraper's name at the service.",
      type: 'The scraper type (pdf, leads generator, …).',
      urls: `The scraper's URLs or keywords, as${JSON_TEXT}`,
      scheduled: 'Whether the service runs the scraper on its own schedule.',
      schedule: "The service's schedule text, if any.",
      schedule_explanation: "The service's explanation of its schedule.",
      created_at: `When the service created the scraper.${SERVICE_TS}`,
      updated_at: `When the service last updated the scraper.${SERVICE_TS}`,
      ...LINEAGE_DOCS,
      ...SEEN_DOCS,
    },
  },
  scraping_runs: {
    description:
      'The scraping runs a create-and-run started, as their detail read when loading their results (only a run that succeeded is loaded).',
    columns: {
      id: "The service's scraping run id.",
      scraper_id: 'The scraper it ran (scrapers.id).',
      status:
        "The run's status at the service when its results were loaded: 'succeeded' (a run ending otherwise fails the pipeline run and lands nothing).",
      created_at: `When the service created the run.${SERVICE_TS}`,
      ...LINEAGE_DOCS,
      ...SEEN_DOCS,
    },
    relations: [{ parent: 'scrapers', columns: ['pipeline', 'scraper_id'], parentColumns: ['pipeline', 'id'] }],
    acceptedValues: { status: { values: ['succeeded'], source: 'ours' } },
  },
  run_records: {
    description:
      "The run records of a create-and-run answer: one per URL or keyword queued, AS QUEUED. They are not updated later: a run's outcome is scraping_runs.status (join on pipeline, scraping_run_id).",
    columns: {
      id: "The service's run record id.",
      scraping_run_id: 'The scraping run the record queued (scraping_runs.id).',
      user_id: 'The account that created it.',
      scraper_id: 'The scraper (scrapers.id).',
      scraper_name: "The scraper's name at the service.",
      scrapped_url:
        "The URL or keyword text as the service spells this field (misspelled in the service's contract); 'Default' for leads scrapers.",
      scraped_url: "The URL or keyword text; 'Default' for leads scrapers.",
      status:
        "The record's status in the create-and-run answer: always 'running' (queued). It records the queueing, not the outcome: see scraping_runs.status.",
      created_at: `When the service created the record.${SERVICE_TS}`,
      updated_at: `When the service last updated the record.${SERVICE_TS}`,
      scraper: `The full-form scraper nested in the record (pdf scrapers), as${JSON_TEXT}`,
      ...LINEAGE_DOCS,
      ...SEEN_DOCS,
    },
    relations: [{ parent: 'scrapers', columns: ['pipeline', 'scraper_id'], parentColumns: ['pipeline', 'id'] }],
    acceptedValues: { status: { values: ['running'], source: 'service' } },
  },
  job_records: {
    description:
      "Records of job-board pipelines: one per job, the six typed properties of the pipeline's schema (others as added columns).",
    columns: {
      job_key: "The job's key: job_url when non-empty, else `sha256:` + the hash of the record with sorted keys.",
      job_title: 'Job title.',
      job_url: 'Link to the job posting.',
      job_location: 'Location as the page states it.',
      job_salary_number: 'Salary as a number, when the page gave one.',
      job_salary_text: 'Salary as text, when the page gave text.',
      job_type: 'Type of position (full-time, contract, …).',
      job_currency: 'Currency of the salary.',
      ...LINEAGE_DOCS,
      ...SEEN_DOCS,
    },
  },
  scraper_results: {
    description:
      'Result records of the `results` sync (every result of the account) and of kinds without a table of their own. The sync lands results a pdf or leads pipeline may already hold in pdf_results / leads_results (same id): see results_landed for a union that counts each once.',
    columns: resultColumns(' The same result may be in pdf_results or leads_results under another pipeline.'),
    acceptedValues: { status: RESULT_STATUS },
  },
  pdf_results: {
    description: 'Result records of pdf pipelines.',
    columns: resultColumns(''),
    relations: resultRelations('pdf_results'),
    acceptedValues: { status: RESULT_STATUS },
  },
  leads_results: {
    description:
      'Result records of leads pipelines (leads-search-engine, leads-social); their content is flattened into <pipeline>_items.',
    columns: resultColumns(''),
    relations: resultRelations('leads_results'),
    acceptedValues: { status: RESULT_STATUS },
  },
  marketplace_products: {
    description:
      'One row per product of marketplace pipelines (the newest answer wins); prices in minor units and in major units (*_major).',
    columns: {
      ...shopItem,
      item_status: "The product's status text ('normal' observed).",
      status: "The product's status code as the service sends it.",
      item_type: 'Product type code.',
      reference_item_id: 'Reference item id (text).',
      title: 'Product title.',
      image: 'Main image key.',
      brand: 'Brand name.',
      brand_id: 'Brand id.',
      cat_id: 'Category id.',
      condition: 'Condition code.',
      flag: 'Flag bits as sent.',
      currency: 'Currency code of the prices (TWD, …).',
      description: 'Product description text.',
      shop_location: "The shop's location text.",
      ctime: 'Creation time of the listing, epoch seconds (see ctime_at).',
      price: `Current price.${PRICE_INT}`,
      price_min: `Lowest model price.${PRICE_INT}`,
      price_max: `Highest model price.${PRICE_INT}`,
      price_before_discount: `Price before discount (0: no discount).${PRICE_INT}`,
      price_min_before_discount: `Lowest model price before discount.${PRICE_INT}`,
      price_max_before_discount: `Highest model price before discount.${PRICE_INT}`,
      price_divisor: "The pipeline's divisor from minor to major units (`price_divisor:`, default 100000).",
      price_major: "price / price_divisor: the price in the currency's units; NULL when price is -1 or absent.",
      price_min_major: 'price_min / price_divisor; NULL when absent.',
      price_max_major: 'price_max / price_divisor; NULL when absent.',
      price_before_discount_major: 'price_before_discount / price_divisor; NULL when absent or 0 (no discount).',
      show_discount: 'Discount shown, in percent.',
      raw_discount: 'Discount as sent.',
      rating_star: 'Average rating (0-5).',
      rating_count: `Ratings per star (the API's list, total first), as${JSON_TEXT}`,
      total_rating_count: 'Number of ratings.',
      cmt_count: 'Number of comments.',
      liked_count: 'Number of likes.',
      historical_sold: 'Units sold, all time.',
      global_sold: 'Units sold across regions.',
      stock: 'Units in stock.',
      normal_stock: 'Units in normal (non-promotion) stock.',
      discount_stock: 'Units in promotion stock.',
      estimated_days: 'Estimated shipping days.',
      min_purchase_limit: 'Minimum units per purchase.',
      max_quantity: 'Maximum units per purchase.',
      is_adult: 'Adult product.',
      is_preview: 'Preview listing.',
      is_unavailable: 'Not available now.',
      is_pre_order: 'Pre-order product.',
      is_free_shipping: 'Free shipping.',
      is_hide_stock: 'Stock hidden from buyers.',
      item_has_video: 'The listing has a video.',
      can_use_wholesale: 'Wholesale prices apply.',
      label_ids: `Label ids, as${JSON_TEXT}`,
      ...LINEAGE_DOCS,
      ctime_at: 'ctime as a timestamp (UTC): the same instant, queryable as a date.',
      ...SEEN_DOCS,
    },
    relations: [
      {
        parent: 'marketplace_shops',
        columns: ['pipeline', 'shop_id'],
        parentColumns: ['pipeline', 'shop_id'],
        note: 'every product answer carries its shop',
      },
    ],
  },
  marketplace_product_models: {
    description:
      "A product's models (variants: size, colour, …), replaced as a set by each answer: a model that vanished is deleted (its price history stays).",
    columns: {
      ...shopItem,
      model_id: 'The model id.',
      list_index: "Position in the answer's model list.",
      name: 'Model name (e.g. "Red,XL").',
      status: 'Model status code.',
      price: `Current model price.${PRICE_INT}`,
      price_before_discount: `Model price before discount (0: no discount).${PRICE_INT}`,
      price_major: "price / the product's price_divisor; NULL when absent.",
      price_before_discount_major: 'price_before_discount / price_divisor; NULL when absent or 0.',
      promotion_id: 'Promotion the price belongs to.',
      stock: 'Units in stock.',
      normal_stock: 'Units in normal stock.',
      sold: 'Units sold.',
      current_promotion_reserved_stock: 'Units reserved for the current promotion.',
      tier_index: `Index of the model's option in each tier variation, as${JSON_TEXT}`,
      is_pre_order: 'Pre-order model.',
      estimated_days: 'Estimated shipping days.',
      has_gimmick_tag: 'Gimmick tag shown.',
      ...LINEAGE_DOCS,
      ...SEEN_DOCS,
    },
    relations: [productKey],
  },
  marketplace_model_stocks: {
    description:
      "A model's stock by price-stock entry and location (price_stocks × stock_breakdown_by_location); location_index -1 is a price-stock entry without locations.",
    columns: {
      ...shopItem,
      model_id: 'The model (marketplace_product_models.model_id).',
      price_stock_index: "Position in the model's price_stocks list.",
      location_index: 'Position in its stock_breakdown_by_location list; -1 for an entry without locations.',
      allocated_stock: "The price-stock entry's allocated units.",
      promotion_type: 'Promotion type code of the entry.',
      location_id: 'Warehouse location id.',
      available_stock: 'Units available at the location.',
      fulfilment_type: 'Fulfilment type code.',
      address_id: 'Warehouse address id.',
      location_allocated_stock: 'Units allocated at the location.',
      ...LINEAGE_DOCS,
      ...SEEN_DOCS,
    },
    relations: [
      {
        parent: 'marketplace_product_models',
        columns: ['pipeline', 'shop_id', 'item_id', 'model_id'],
        parentColumns: ['pipeline', 'shop_id', 'item_id', 'model_id'],
      },
    ],
  },
  marketplace_product_attributes: {
    description: "A product's attributes from both lists the answer carries, told apart by `source`.",
    columns: {
      ...shopItem,
      source: "Which list: 'item.attributes' or 'product_attributes.attrs'.",
      list_index: 'Position in that list.',
      name: 'Attribute name.',
      value: 'Attribute value.',
      attribute_id: 'Attribute id.',
      val_id: 'Value id.',
      is_timestamp: 'The value is an epoch time.',
      brand_id: 'Brand id (brand attributes).',
      brand_option: `Brand option, as${JSON_TEXT}`,
      url: 'Link of the attribute value.',
      full_url: 'Absolute link of the attribute value.',
      type: 'Attribute type code.',
      ...LINEAGE_DOCS,
      ...SEEN_DOCS,
    },
    relations: [productKey],
    acceptedValues: { source: { values: ['item.attributes', 'product_attributes.attrs'], source: 'ours' } },
  },
  marketplace_product_categories: {
    description: "A product's categories from the three lists the answer carries, told apart by `source`.",
    columns: {
      ...shopItem,
      source: "Which list: 'item.categories', 'item.fe_categories' or 'product_attributes.categories'.",
      list_index: 'Position in that list (the category path, top first).',
      catid: 'Category id.',
      display_name: 'Category name.',
      no_sub: 'The category has no subcategories.',
      is_default_subcat: 'Default subcategory.',
      ...LINEAGE_DOCS,
      ...SEEN_DOCS,
    },
    relations: [productKey],
    acceptedValues: {
      source: { values: ['item.categories', 'item.fe_categories', 'product_attributes.categories'], source: 'ours' },
    },
  },
  marketplace_product_tier_variations: {
    description:
      "A product's tier variations (e.g. colour, size): one row per tier, its options in marketplace_product_tier_variation_options.",
    columns: {
      ...shopItem,
      tier_index: 'Position of the tier.',
      name: 'Tier name (e.g. "Colour").',
      type: 'Tier type code.',
      option_count: 'Number of options.',
      images: `Image keys per option, as${JSON_TEXT}`,
      properties: `Tier properties, as${JSON_TEXT}`,
      summed_stocks: `Stock per option, as${JSON_TEXT}`,
      display_indicators: `Display indicators, as${JSON_TEXT}`,
      ...LINEAGE_DOCS,
      ...SEEN_DOCS,
    },
    relations: [productKey],
  },
  marketplace_product_tier_variation_options: {
    description: 'The options of a tier variation, one row each.',
    columns: {
      ...shopItem,
      tier_index: 'The tier (marketplace_product_tier_variations.tier_index).',
      option_index: 'Position of the option in the tier.',
      option: 'Option text (e.g. "Red").',
      image: "The option's image key.",
      ...LINEAGE_DOCS,
      ...SEEN_DOCS,
    },
    relations: [
      {
        parent: 'marketplace_product_tier_variations',
        columns: ['pipeline', 'shop_id', 'item_id', 'tier_index'],
        parentColumns: ['pipeline', 'shop_id', 'item_id', 'tier_index'],
      },
    ],
  },
  marketplace_product_images: {
    description: "A product's images, in order.",
    columns: { ...shopItem, list_index: 'Position of the image.', image: 'Image key.', ...LINEAGE_DOCS, ...SEEN_DOCS },
    relations: [productKey],
  },
  marketplace_shops: {
    description: 'One row per shop seen in marketplace answers (the newest answer wins).',
    columns: {
      shop_id: 'The shop id (`shopid` in the API).',
      userid: "The shop owner's user id.",
      name: 'Shop name.',
      username: "The owner's username.",
      place: 'Place text.',
      shop_location: 'Location text.',
      last_active_time: 'Last activity, epoch seconds (see last_active_time_at).',
      ctime: 'Shop creation, epoch seconds (see ctime_at).',
      vacation: 'The shop is on vacation.',
      status: 'Shop status code.',
      is_shopee_verified: 'Verified shop.',
      is_preferred_plus_seller: 'Preferred-plus seller.',
      is_official_shop: 'Official shop.',
      is_individual_seller: 'Individual seller.',
      is_mart: 'Mart shop.',
      item_count: 'Number of products.',
      rating_star: 'Average rating (0-5).',
      rating_bad: 'Number of bad ratings.',
      rating_good: 'Number of good ratings.',
      rating_normal: 'Number of normal ratings.',
      response_rate: 'Chat response rate, percent.',
      response_time: 'Chat response time, seconds.',
      follower_count: 'Followers.',
      sold_total: 'Units sold, all time.',
      ...LINEAGE_DOCS,
      last_active_time_at: 'last_active_time as a timestamp (UTC).',
      ctime_at: 'ctime as a timestamp (UTC).',
      ...SEEN_DOCS,
    },
  },
  marketplace_price_history: {
    description:
      "Append-only: a row whenever a product's price (model_id NULL) or a model's price differs from the previous load, the first load included. The current price is the row with the highest id per (pipeline, shop_id, item_id, model_id).",
    columns: {
      id: 'Generated id, increasing in load order.',
      ...shopItem,
      model_id: "The model whose price changed; NULL for the product's own price.",
      price: `The new price.${PRICE_INT}`,
      price_min: `The new lowest model price (product rows).${PRICE_INT}`,
      price_max: `The new highest model price (product rows).${PRICE_INT}`,
      price_before_discount: `The new price before discount.${PRICE_INT}`,
      price_major: 'The new price in major units (price / price_divisor).',
      previous_price: `The price before this change; NULL for the first price seen.${PRICE_INT}`,
      currency: 'Currency code.',
      ...LINEAGE_DOCS,
      workflow_id:
        'The run whose load found the change (pipeline_runs.workflow_id); NULL on rows older than the column.',
      previous_price_major:
        'previous_price in major units; NULL for the first price and on rows older than the column.',
    },
    relations: [productKey],
  },
  schema_history: {
    description:
      'Every table and column the loader created at run time (inferred <pipeline>_items tables and columns added to model tables): the change history, and the registry mapping a content key to its column.',
    columns: {
      table_name: 'The table.',
      column_name: 'The column.',
      data_type:
        'Logical type: bigint, double, bool, text, timestamp, json or number_text (a number no SQL type holds exactly, as text).',
      change:
        "'create_table' (the columns a new table starts with), 'add_column' (a new field) or 'add_variant' (a value that did not fit the column's type).",
      variant_of: 'For a variant column: the column whose type the values did not fit.',
      pipeline: 'The pipeline whose load made the change.',
      load_id: 'The load that made it (raw_responses.id).',
      changed_at: 'When (UTC).',
      source_key: "The original key path the column holds (JSON array), or a table's list path.",
      root_table: 'The content root table (<pipeline>_items) a content table belongs to; NULL for model tables.',
    },
    acceptedValues: { change: { values: ['create_table', 'add_column', 'add_variant'], source: 'ours' } },
  },
  rejected_results: {
    description:
      'Results a load could not write (nested too deep, merge key missing, over a limit): the rest of their response loaded and the run ended partial. The result itself is in raw_responses.',
    columns: {
      id: 'Generated id.',
      pipeline: 'The pipeline.',
      load_id: 'The response that carried the result (raw_responses.id).',
      workflow_id: 'The run.',
      result_id: 'The result id (decimal text: 64-bit).',
      scraping_run_id: 'Its scraping run (decimal text).',
      table_name: 'The table it was meant for.',
      reason: 'Why it was rejected.',
      rejected_at: 'When (UTC).',
    },
  },
  export_watermarks: {
    description: 'The highest load id each pipeline exported per table: an incremental export takes the rows above it.',
    columns: {
      pipeline: 'The pipeline.',
      table_name: 'The table exported.',
      last_load_id: 'The highest load id exported.',
      exported_at: 'When (UTC).',
      last_run: 'The run that moved the watermark last.',
      last_file: 'The file it wrote.',
      last_rows: 'Rows in that file.',
    },
  },
  sync_watermarks: {
    description: 'Where each incremental `results` sync resumes: the highest result id of its last complete pass.',
    columns: {
      pipeline: 'The pipeline.',
      stream: 'The stream synced.',
      watermark: 'The highest result id of the last complete pass (decimal text).',
      updated_at: 'When it moved (UTC).',
    },
  },
  notify_deliveries: {
    description:
      'Webhook deliveries the receiver accepted (2xx), one per run, event and webhook, so a retried alert is not sent twice.',
    columns: {
      workflow_id: 'The run.',
      run_id: 'First run id of the workflow execution chain.',
      event: 'The alert event (succeeded, failed, partial, price_drop, …).',
      target: "Hash of the webhook's URL template and format (never the URL, which may hold a secret).",
      http_status: "The receiver's HTTP status.",
      sent_at: 'When (UTC).',
    },
  },
  check_results: {
    description:
      'The outcome of every data check (`checks:`) per run, or per `scrape-etl check` / freshness evaluation.',
    columns: {
      id: 'Generated id.',
      pipeline: 'The pipeline.',
      workflow_id: 'The run, or check:<time> / freshness:<time> for evaluations without a run.',
      check_name: "The check's name.",
      check_type: 'row_count, not_null, null_rate, unique, accepted_values, range, sql, freshness or schema.',
      severity: "'error' (a failure ends the run failed_checks) or 'warn' (an alert only).",
      status: "'pass', 'fail', 'error' (could not be evaluated) or 'skipped'.",
      observed: 'What was observed, as shown to people.',
      observed_value: 'The observed figure as a number (a rate in %, a count, an age in seconds).',
      threshold: 'The threshold, as shown to people.',
      failing_keys: `A sample of the failing rows' keys, as${JSON_TEXT}`,
      message: 'Explanation.',
      checked_at: 'When (UTC).',
    },
    acceptedValues: {
      severity: { values: ['error', 'warn'], source: 'ours' },
      status: { values: ['pass', 'fail', 'error', 'skipped'], source: 'ours' },
    },
  },
  watch_events: {
    description: 'The events a watch (`watch:`) found in one run, computed once.',
    columns: {
      workflow_id: 'The run.',
      watch: 'The watch.',
      pipeline: 'The pipeline.',
      event: 'price_drop, price_rise, back_in_stock, out_of_stock or new_rows.',
      row_count: 'Rows that triggered it.',
      rows: `The triggering rows, as${JSON_TEXT}`,
      created_at: 'When (UTC).',
    },
    acceptedValues: {
      event: { values: ['price_drop', 'price_rise', 'back_in_stock', 'out_of_stock', 'new_rows'], source: 'ours' },
    },
  },
  watch_state: {
    description: 'What each watch last saw of each item.',
    columns: {
      pipeline: 'The pipeline.',
      watch: 'The watch.',
      item_key: "The item's key.",
      state: 'What was seen (in stock or not; present).',
      updated_at: 'When (UTC).',
    },
  },
  spend_calls: {
    description:
      "Every billable call to the scraping service, recorded before it is sent, in the transaction that checks the budget's limits (docs/budgets.md): what spend control counts.",
    columns: {
      call_key:
        'What makes a call unique: workflow, activity, attempt and its execution, URL or create, and client attempt.',
      pipeline: 'The pipeline whose run made the call.',
      project: 'The project file (its path) whose budget also counts this call; NULL outside a budgeted project.',
      workflow_id: 'The Temporal workflow id of the run.',
      endpoint: '`METHOD /path` of the call.',
      request_key: "The URL of a synchronous call, 'create-and-run' for a create.",
      creates_scraper: 'Whether the call creates a scraper (create-and-run).',
      called_at: 'When the call was recorded (UTC), just before it was sent.',
      tokens: 'The `tokenUsage` its answer reported; NULL until it arrives or when the answer reports none.',
    },
  },
  url_lists: {
    description: 'URL lists of job-board and marketplace runs, in chunks (a list too long for a workflow input).',
    columns: {
      list_id: 'SHA-256 of the list.',
      chunk_index: 'Position of the chunk.',
      urls: `The chunk's URLs in order, as${JSON_TEXT}`,
      created_at: 'When stored (UTC).',
    },
  },
};

/** The system columns of inferred content tables (db/model/flatten/content.ts), for every surface that shows them. */
export const CONTENT_ROOT_DOCS: Readonly<Record<string, string>> = {
  pipeline: LINEAGE_DOCS.pipeline,
  row_key: 'The row\'s key: the merge key\'s values as a JSON array (e.g. ["ada@example.com"]), else the result id.',
  result_id: 'The result the row came from (the newest one when a merge key joins several).',
  scraping_run_id: "The result's scraping run.",
  scraped_url: "The result's URL or keyword text.",
  result_created_at: `When the service created the result.${SERVICE_TS}`,
  load_id: LINEAGE_DOCS.load_id,
  loaded_at: LINEAGE_DOCS.loaded_at,
  row_hash: LINEAGE_DOCS.row_hash,
};
export const CONTENT_CHILD_DOCS: Readonly<Record<string, string>> = {
  pipeline: LINEAGE_DOCS.pipeline,
  row_key: "The row's key: parent_key#list_index.",
  root_key: 'The row_key of the root (<pipeline>_items) row it belongs to.',
  parent_key: 'The row_key of the parent row (the root, or the child table one level up).',
  list_index: "Position in the parent's list.",
  load_id: LINEAGE_DOCS.load_id,
  loaded_at: LINEAGE_DOCS.loaded_at,
};

/** Views the migrations create beside the tables (SQL in db/model/schema/views.ts), described for the same surfaces. */
export const VIEW_DOCS: Readonly<Record<string, { description: string; columns: Readonly<Record<string, string>> }>> = {
  pipeline_freshness: {
    description:
      "When each pipeline last loaded: one row per pipeline, moved by every run that finished its load (succeeded, partial, failed_checks) whether or not a row changed. dbt's source freshness reads it.",
    columns: {
      pipeline: 'The pipeline.',
      last_seen_at: 'When its last run that finished its load ended (UTC): every row it saw was seen then.',
      loaded_runs: 'How many of its runs finished their load.',
    },
  },
  results_landed: {
    description:
      "Every result record once: pdf_results, leads_results and scraper_results together, with the `results` sync's copies of a result another pipeline landed marked `is_copy` (count `WHERE NOT is_copy`).",
    columns: {
      result_table: 'The table the row is in.',
      pipeline: 'The pipeline that landed it.',
      id: "The service's result id.",
      scraping_run_id: 'Its scraping run.',
      scraper_name: "The scraper's name.",
      status: "The result's status.",
      created_at: `When the service created it.${SERVICE_TS}`,
      is_copy: 'True for a scraper_results row whose result (same id) is also in pdf_results or leads_results.',
    },
  },
};
