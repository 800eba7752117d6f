/**
 * zod v4 schemas for every request and response of the scraping service, field by field from
 * ../shared/spec/scraping-service-api.md.
 *
 * Strictness rule (so a reader can predict what fails):
 * - a field the spec gives a type for is required and must have that type;
 * - a field the spec lists as "null observed", or lists without any type, accepts any value or absence
 *   (`z.unknown()`), because the spec cannot tell us what a non-null value looks like;
 * - sections the spec spells out with braces (`price {single_value, ...}`) must be objects;
 * - response objects are loose: unknown keys are kept so raw landing and later flattening lose nothing;
 * - request objects are strict: an unknown key is almost always a typo in a pipeline file.
 * Integer fields accept `number | bigint` (see `int64`); bodies are parsed with `parseJson` from json.ts.
 */
import { z } from 'zod';

export type Int64 = number | bigint;

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing (field missing)';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number')
    return Number.isInteger(value) ? 'integer' : Number.isNaN(value) ? 'NaN' : 'non-integer number';
  return typeof value;
}

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

function digitsOf(v: bigint): string {
  const text = v.toString();
  return text.length > 40 ? `${text.slice(0, 24)}…(${text.replace('-', '').length} digits)` : text;
}

/**
 * A JSON integer: a safe-range `number`, or a `bigint` for the ones parseJson could not keep as numbers, within
 * the signed 64-bit range. Every integer field ends up in a bigint column, and a bigger one used to fail only
 * there ("The bound string, buffer, or bigint is too big"), naming no endpoint or field; here it is a contract
 * error with the endpoint and the JSON path. One check rather than a union of z.int() and z.bigint() with a
 * refinement: the same values and messages, about a quarter of the time, and a marketplace answer has a few hundred
 * integers to validate.
 */
export const int64 = z.custom<Int64>(
  (v) => (typeof v === 'number' ? Number.isSafeInteger(v) : typeof v === 'bigint' && v >= INT64_MIN && v <= INT64_MAX),
  {
    error: (issue) =>
      typeof issue.input === 'bigint'
        ? `integer ${digitsOf(issue.input)} is outside the signed 64-bit range (-2^63 .. 2^63-1)`
        : `expected integer, got ${describeValue(issue.input)}`,
  },
);

/** Any JSON number (integers beyond the safe range arrive as bigint). */
const numeric = z.union([z.number(), z.bigint()], {
  error: (issue) => `expected number, got ${describeValue(issue.input)}`,
});

/** Spec: "null observed" or listed without a type. */
const anyValue = z.unknown();

// Any string: the spec shows ISO 8601 with microseconds and Z, and the load takes any ISO 8601 instant (a change of
// precision or zone); a text that is not one is stored NULL with a warning while its response stays in
// raw_responses (lib/iso-timestamp.ts, db/load-rows.ts), rather than failing the whole response.
const timestamp = z.string({
  error: (issue) => `expected an ISO 8601 timestamp string, got ${describeValue(issue.input)}`,
});

function nullObserved<const K extends string>(keys: readonly K[]): Record<K, typeof anyValue> {
  return Object.fromEntries(keys.map((k) => [k, anyValue])) as Record<K, typeof anyValue>;
}
function typed<const K extends string, S extends z.ZodType>(keys: readonly K[], schema: S): Record<K, S> {
  return Object.fromEntries(keys.map((k) => [k, schema])) as Record<K, S>;
}

// ---------------------------------------------------------------------------------------------------------
// Job-board scrape (endpoint 1)

const jobSchemaProperty = z.looseObject({
  type: z.enum(['string', 'number', 'integer', 'boolean', 'array', 'object'], {
    error: "expected one of 'string', 'number', 'integer', 'boolean', 'array', 'object'",
  }),
  description: z.string().optional(),
});

/** The data schema sent with a job-board request: an array of objects whose properties are scalar fields. */
export const jobDataSchemaSchema = z
  .looseObject({
    type: z.literal('array', { error: "expected 'array' (the schema describes a list of records)" }),
    description: z.string().optional(),
    items: z.looseObject({
      type: z.literal('object', { error: "expected 'object' (each record is an object)" }),
      description: z.string().optional(),
      properties: z.record(z.string(), jobSchemaProperty),
      required: z.array(z.string()).optional(),
    }),
    required: z.array(z.string()).optional(),
  })
  .superRefine((schema, ctx) => {
    const props = Object.keys(schema.items.properties);
    if (props.length === 0)
      ctx.addIssue({ code: 'custom', path: ['items', 'properties'], message: 'needs at least one property' });
    for (const [i, name] of (schema.items.required ?? []).entries()) {
      if (!props.includes(name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['items', 'required', i],
          message: `'${name}' is required but not defined in items.properties`,
        });
      }
    }
  });
export type JobDataSchema = z.infer<typeof jobDataSchemaSchema>;

export const jobBoardRequestSchema = z.strictObject({
  urls: z.array(z.url({ error: 'expected an absolute URL' })).min(1, 'needs at least one listing URL'),
  min: z.int().optional(),
  max: z.int().optional(),
  timeout: z.int().positive().optional(),
  schema: jobDataSchemaSchema,
});
export type JobBoardRequest = z.infer<typeof jobBoardRequestSchema>;

/**
 * A job record with the spec's six properties. The record shape really follows the request's `schema`, so the
 * fields are optional here and the client additionally checks every record against the request's own
 * schema (`jobRecordSchemaFor`): required properties present, number/string types as declared.
 */
export const jobRecordSchema = z.looseObject({
  job_title: z.string().optional(),
  job_url: z.string().optional(),
  job_location: z.string().optional(),
  job_salary: z.union([z.string(), z.number()], { error: 'expected string or number' }).optional(),
  job_type: z.string().optional(),
  job_currency: z.string().optional(),
});
export type JobRecord = z.infer<typeof jobRecordSchema>;

const JOB_PROPERTY_TYPES: Record<z.infer<typeof jobSchemaProperty>['type'], z.ZodType> = {
  string: z.string(),
  number: numeric,
  integer: int64,
  boolean: z.boolean(),
  array: z.array(z.unknown()),
  object: z.record(z.string(), z.unknown()),
};

/** Schema for the records of one job-board call, derived from the data schema that call sent. */
export function jobRecordSchemaFor(dataSchema: JobDataSchema): z.ZodType<JobRecord> {
  const required = new Set([...(dataSchema.items.required ?? [])]);
  const shape: Record<string, z.ZodType> = {};
  for (const [name, prop] of Object.entries(dataSchema.items.properties)) {
    const base = JOB_PROPERTY_TYPES[prop.type];
    shape[name] = required.has(name) ? base : base.optional();
  }
  return jobRecordSchema.extend(shape) as unknown as z.ZodType<JobRecord>;
}

export const jobBoardResponseSchema = z.looseObject({
  result: z.array(jobRecordSchema),
  tokenUsage: int64,
  totalDone: int64,
});
export type JobBoardResponse = z.infer<typeof jobBoardResponseSchema>;

// ---------------------------------------------------------------------------------------------------------
// Create-and-run requests (endpoints 2, 3, 4)

const nonEmpty = (what: string) =>
  z
    .string({ error: `expected ${what} (string)` })
    .trim()
    .min(1, `${what} must not be empty`);

export const pdfKeywordSchema = z.strictObject({
  keyword: nonEmpty('keyword'),
  prompt: nonEmpty('prompt'),
});

export const pdfCreateRequestSchema = z.strictObject({
  name: nonEmpty('name'),
  keywords: z.array(pdfKeywordSchema).min(1, 'needs at least one keyword'),
  unique: z.boolean().optional(),
  expected_pdf: z.number().positive().optional(),
});
export type PdfCreateRequest = z.infer<typeof pdfCreateRequestSchema>;

export const leadsSearchEngineRequestSchema = z
  .strictObject({
    name: nonEmpty('name'),
    search_type: z.enum(['url', 'keywords'], { error: "expected 'url' or 'keywords'" }),
    limit_pages: z.int().positive(),
    keywords: z.string().optional(),
    url: z.url({ error: 'expected an absolute URL' }).optional(),
  })
  .superRefine((req, ctx) => {
    if (req.search_type === 'url' && req.url === undefined) {
      ctx.addIssue({ code: 'custom', path: ['url'], message: "required when search_type is 'url'" });
    }
    if (req.search_type === 'keywords' && (req.keywords === undefined || req.keywords.trim() === '')) {
      ctx.addIssue({
        code: 'custom',
        path: ['keywords'],
        message: "required (non-empty) when search_type is 'keywords'",
      });
    }
  });
export type LeadsSearchEngineRequest = z.infer<typeof leadsSearchEngineRequestSchema>;

export const sentimentTypes = ['all', 'positive', 'neutral', 'negative'] as const;
export const leadsSocialRequestSchema = z.strictObject({
  name: nonEmpty('name'),
  keywords: nonEmpty('keywords'),
  sentiment_type: z.enum(sentimentTypes, { error: "expected one of 'all', 'positive', 'neutral', 'negative'" }),
  expected_data: z.int().positive(),
});
export type LeadsSocialRequest = z.infer<typeof leadsSocialRequestSchema>;

export const marketplaceSyncRequestSchema = z.strictObject({
  url: z.url({ error: "expected the absolute URL of the marketplace's product-detail API" }),
});
export type MarketplaceSyncRequest = z.infer<typeof marketplaceSyncRequestSchema>;

// ---------------------------------------------------------------------------------------------------------
// Scrapers, runs, results

export const shortScraperSchema = z.looseObject({
  id: int64,
  name: z.string(),
  url: z.array(z.string()),
  urls: z.array(z.string()),
  scheduled: z.boolean(),
  schedule: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});
export type ShortScraper = z.infer<typeof shortScraperSchema>;

export const listScraperSchema = z.looseObject({
  id: int64,
  name: z.string(),
  urls: z.array(z.string()),
  scheduled: z.boolean(),
  schedule: z.string().nullable(),
  schedule_explanation: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});
export type ListScraper = z.infer<typeof listScraperSchema>;

export const scraperWorkflowStepSchema = z.looseObject({
  type: z.string(),
  data: z.looseObject({
    keywords: z.array(
      z.looseObject({
        type: z.string(),
        data: z.looseObject({ keyword: z.string(), prompt: z.string() }),
      }),
    ),
  }),
});

export const fullScraperSchema = z.looseObject({
  id: int64,
  user_id: int64,
  sharing: z.boolean(),
  name: z.string(),
  type: z.string(),
  urls: z.string(),
  pdf_urls: z.string(),
  delay: int64,
  html_wanted: z.boolean(),
  screenshot_wanted: z.boolean(),
  scheduled: z.boolean(),
  cron_timezone: z.string(),
  paginate: int64,
  ...typed(['cron_minutes', 'cron_hours', 'cron_day_of_month', 'cron_month', 'cron_day_of_week'], z.string()),
  click_action_enabled: z.boolean(),
  click_action_wait: z.string(),
  workflow: z.array(scraperWorkflowStepSchema),
  version: int64,
  proxy_type: z.string(),
  created_at: timestamp,
  updated_at: timestamp,
  ...nullObserved([
    'share_uuid',
    'ai_prompt',
    'ai_scope',
    'headers',
    'cookies',
    'user_agent',
    'disabled_resources',
    'locale',
    'screenshot_type',
    'cron',
    'pagination_type',
    'infinite_pagination_type',
    'infinite_pagination_seconds',
    'infinite_pagination_text',
    'infinite_pagination_css_selector',
    'infinite_pagination_n_selector',
    'load_more_selector',
    'pagination_query_parameter',
    'pagination_next_page_selector',
    'pagination_limit_type',
    'pagination_max_page',
    'max_next_page',
    'pagination_max_variable',
    'cron_minutes_n_detail',
    'cron_minutes_x_detail',
    'cron_hours_n_detail',
    'cron_hours_x_detail',
    'cron_day_of_month_x_detail',
    'cron_month_x_detail',
    'cron_day_of_week_x_detail',
    'click_action_selector',
    'proxy_host',
    'proxy_port',
    'proxy_username',
    'proxy_password',
    'parsers',
    'deleted_at',
    'external_auth',
  ]),
});
export type FullScraper = z.infer<typeof fullScraperSchema>;

export const runRecordSchema = z.looseObject({
  id: int64,
  scraping_run_id: int64,
  user_id: int64,
  scraper_id: int64,
  scraper_name: z.string(),
  scrapped_url: z.string(),
  scraped_url: z.string(),
  status: z.string(),
  created_at: timestamp,
  updated_at: timestamp,
  // Present for PDF scrapers, absent for leads-generator ones.
  scraper: fullScraperSchema.optional(),
});
export type RunRecord = z.infer<typeof runRecordSchema>;

export const createAndRunResponseSchema = z.looseObject({
  message: z.string(),
  scraper: shortScraperSchema,
  results: z.array(runRecordSchema),
});
export type CreateAndRunResponse = z.infer<typeof createAndRunResponseSchema>;

export const resultRecordSchema = z.looseObject({
  id: int64,
  scraper_id: int64,
  scraping_run_id: int64,
  scraper_name: z.string(),
  scraped_url: z.string(),
  status: z.string(),
  // Structure depends on the scraper; documented as a string, null while the run is still running.
  content: anyValue,
  created_at: timestamp,
  updated_at: timestamp,
});
export type ResultRecord = z.infer<typeof resultRecordSchema>;

export const scrapingRunDetailSchema = z.looseObject({
  id: int64,
  scraper_id: int64,
  status: z.string(),
  results: z.array(resultRecordSchema),
  created_at: timestamp,
});
export type ScrapingRunDetail = z.infer<typeof scrapingRunDetailSchema>;

export const scrapingRunResponseSchema = z.looseObject({ data: scrapingRunDetailSchema });
export type ScrapingRunResponse = z.infer<typeof scrapingRunResponseSchema>;

export const resultsListResponseSchema = z.looseObject({ data: z.array(resultRecordSchema) });
export type ResultsListResponse = z.infer<typeof resultsListResponseSchema>;

export const scrapersListResponseSchema = z.looseObject({ data: z.array(listScraperSchema) });
export type ScrapersListResponse = z.infer<typeof scrapersListResponseSchema>;

// ---------------------------------------------------------------------------------------------------------
// Marketplace product (endpoint 5)

const intOrNull = int64.nullable();
const stringOrNull = z.string().nullable();

export const marketplaceAttributeSchema = z.looseObject({
  name: z.string(),
  value: z.string(),
  id: intOrNull,
  is_timestamp: z.boolean().nullable(),
  brand_option: anyValue,
  val_id: intOrNull,
  url: stringOrNull,
  brand_id: intOrNull,
  full_url: stringOrNull,
  type: intOrNull,
});
export type MarketplaceAttribute = z.infer<typeof marketplaceAttributeSchema>;

export const marketplaceCategorySchema = z.looseObject({
  catid: int64,
  display_name: z.string(),
  no_sub: z.boolean(),
  is_default_subcat: z.boolean(),
});
export type MarketplaceCategory = z.infer<typeof marketplaceCategorySchema>;

export const marketplaceModelSchema = z.looseObject({
  item_id: int64,
  name: z.string(),
  model_id: int64,
  // Untyped in the model list, but they are the same integer prices as the item's (and -1 = absent).
  price: int64,
  price_before_discount: int64,
  price_stocks: z.array(
    z.looseObject({
      allocated_stock: anyValue,
      stock_breakdown_by_location: z.array(
        z.looseObject({
          location_id: z.string(),
          available_stock: anyValue,
          fulfilment_type: int64,
          address_id: int64,
          allocated_stock: anyValue,
        }),
      ),
      promotion_type: int64,
    }),
  ),
  extinfo: z.looseObject({
    tier_index: z.array(int64),
    is_pre_order: z.boolean(),
    estimated_days: int64,
  }),
  ...nullObserved([
    'status',
    'current_promotion_reserved_stock',
    'promotion_id',
    'current_promotion_has_reserve_stock',
    'normal_stock',
    'stock',
    'has_gimmick_tag',
    'key_measurement',
    'sold',
    'is_lowest_price_at_shopee',
  ]),
});
export type MarketplaceModel = z.infer<typeof marketplaceModelSchema>;

export const marketplaceTierVariationSchema = z.looseObject({
  name: z.string(),
  options: z.array(z.string()),
  images: anyValue,
  properties: anyValue,
  type: int64,
  summed_stocks: anyValue,
  display_indicators: z.array(int64),
});
export type MarketplaceTierVariation = z.infer<typeof marketplaceTierVariationSchema>;

export const marketplaceShopSchema = z.looseObject({
  // Ids and epoch seconds are integers even where the spec's list omits the word.
  shopid: int64,
  userid: int64,
  last_active_time: int64,
  vacation: z.boolean(),
  account: z.looseObject({ ...nullObserved(['portrait', 'username', 'status']) }),
  rating_star: z.number(),
  banner: z.looseObject({ ...nullObserved(['shopee_choice']) }),
  ...nullObserved([
    'place',
    'is_shopee_verified',
    'is_preferred_plus_seller',
    'is_official_shop',
    'shop_location',
    'item_count',
    'response_rate',
    'session_info',
    'name',
    'ctime',
    'response_time',
    'follower_count',
    'show_official_shop_label',
    'rating_bad',
    'rating_good',
    'rating_normal',
    'session_infos',
    'status',
    'is_individual_seller',
    'is_mart',
    'favorite_shop_info',
    'is_3pf',
    'sold_total',
    'is_shopee_choice',
    'is_high_end',
    'authorized_brand',
    'is_scs',
  ]),
});
export type MarketplaceShop = z.infer<typeof marketplaceShopSchema>;

export const marketplaceItemSchema = z.looseObject({
  // Identity
  item_id: int64,
  shop_id: int64,
  item_status: z.string(),
  status: int64,
  item_type: int64,
  reference_item_id: z.string(),
  title: z.string(),
  image: z.string(),
  label_ids: z.array(int64),
  flag: int64,
  condition: int64,
  cat_id: int64,
  cb_option: int64,
  // Booleans
  ...typed(
    [
      'is_adult',
      'is_preview',
      'is_service_by_shopee',
      'has_low_fulfillment_rate',
      'has_model_with_available_shopee_stock',
      'is_prescription_item',
      'show_prescription_feed',
      'is_alcohol_product',
      'is_infant_milk_formula_product',
      'is_unavailable',
      'is_partial_fulfilled',
      'is_presale',
      'item_has_video',
      'is_free_gift',
      'is_pre_order',
      'is_free_shipping',
      'is_hide_stock',
      'can_use_wholesale',
      'show_recycling_info',
      'should_show_amp_tag',
      'all_models_has_pre_order',
      'is_item_inherited',
      'current_promotion_has_reserve_stock',
    ],
    z.boolean(),
  ),
  // Text and brand
  currency: z.string(),
  brand: z.string(),
  brand_id: int64,
  description: z.string(),
  shop_location: z.string(),
  show_discount: int64,
  ctime: int64,
  item_rating: z.looseObject({ rating_star: anyValue }),
  welcome_package_type: int64,
  shipping_icon_type: int64,
  badge_icon_type: int64,
  // Null observed
  ...nullObserved([
    'is_live_streaming_price',
    'rich_text_description',
    'invoice_option',
    'is_category_failed',
    'preview_info',
    'is_presale_deposit_item',
    'is_presale_deposit_made',
    'presale_dday_start_time',
    'is_lowest_price_at_shopee',
    'size_chart',
    'size_chart_info',
    'deep_discount',
    'is_low_price_eligible',
    'bundle_deal_info',
    'add_on_deal_info',
    'overall_purchase_limit',
    'stock',
    'normal_stock',
    'hidden_price_display',
    'other_stock',
    'complaint_policy',
  ]),
  // Lists
  attributes: z.array(marketplaceAttributeSchema),
  categories: z.array(marketplaceCategorySchema),
  fe_categories: z.array(marketplaceCategorySchema),
  models: z.array(marketplaceModelSchema),
  tier_variations: z.array(marketplaceTierVariationSchema),
  wholesale_tier_list: z.array(anyValue),
  // Numbers: counts are any number; prices are integers (-1 = absent range / before-discount price)
  ...typed(
    [
      'estimated_days',
      'min_purchase_limit',
      'current_promotion_reserved_stock',
      'raw_discount',
      'discount_stock',
      'max_quantity',
    ],
    numeric,
  ),
  ...typed(
    [
      'price',
      'price_min',
      'price_max',
      'price_before_discount',
      'price_min_before_discount',
      'price_max_before_discount',
    ],
    int64,
  ),
  spl_info: z.looseObject({
    ...nullObserved(['installment_info', 'user_credit_info', 'channel_id', 'show_spl', 'show_spl_lite', 'spl_xtra']),
  }),
});
export type MarketplaceItem = z.infer<typeof marketplaceItemSchema>;

export const marketplaceProductDataSchema = z.looseObject({
  item: marketplaceItemSchema,
  account: z.looseObject({
    ...nullObserved(['user_id', 'is_new_user', 'adult_consent', 'birth_timestamp']),
    default_address: z.looseObject({
      ...nullObserved(['state', 'city', 'district', 'town', 'zip_code', 'address', 'region', 'longitude', 'latitude']),
    }),
  }),
  product_images: z.looseObject({
    images: z.array(z.string()),
    ...nullObserved([
      'video',
      'first_tier_variations',
      'sorted_variation_image_index_list',
      'overlay',
      'makeup_preview',
      'abnormal_status',
      'promotion_images',
      'long_images',
      'shopee_video_info_list',
      'shopee_video_rcmd_info',
      'shopee_video_req_id',
      'skincam',
      'pdp_top_info_list',
      'has_long_image',
    ]),
  }),
  product_price: z.looseObject({
    price: z.looseObject({ single_value: int64, range_min: int64, range_max: int64, price_mask: anyValue }),
    ...nullObserved([
      'discount',
      'installment_info',
      'spl_installment_info',
      'pack_size',
      'hide_price',
      'price_before_discount',
      'presale_price',
      'lowest_past_price',
      'labels',
      'hide_discount',
      'discount_text',
      'show_final_price_indicator',
    ]),
  }),
  product_meta: z.looseObject(
    typed(
      [
        'show_lowest_price_guarantee',
        'show_original_guarantee',
        'show_best_price_guarantee',
        'show_official_shop_label_in_title',
        'show_shopee_verified_label',
        'show_lowest_installment_guarantee',
        'hide_sharing_button',
        'hide_sold_count',
      ],
      z.boolean(),
    ),
  ),
  product_review: z.looseObject({
    rating_count: z.array(int64),
    ...nullObserved([
      'rating_star',
      'total_rating_count',
      'historical_sold',
      'global_sold',
      'liked',
      'liked_count',
      'cmt_count',
      'should_move_ratings_above',
      'review_rcmd_exp_group',
      'display_global_sold',
      'hide_rating',
      'hide_buyer_gallery',
      'hide_reviews',
      'hide_other_product_reviews_in_shop',
    ]),
  }),
  promotion_info: z.looseObject({
    ...nullObserved(['spl', 'spl_lite', 'installment', 'wholesale', 'insurance']),
    item_installment_eligibility: z.looseObject({
      ...nullObserved(['is_cc_installment_payment_eligible', 'is_non_cc_installment_payment_eligible']),
    }),
  }),
  age_gate: z.looseObject({ kyc: anyValue }),
  product_shipping: z.looseObject({
    shipping_fee_info: z.looseObject({
      ...nullObserved(['ship_from_location', 'price', 'shipping_icon_type']),
      // "may carry a warning object": absent or null when shipping is available.
      warning: z.looseObject({ type: anyValue, warning_msg: anyValue }).nullish(),
    }),
    ...nullObserved([
      'free_shipping',
      'show_shipping_to',
      'ungrouped_channel_infos',
      'grouped_channel_infos_by_service_type',
      'also_available_channel_name',
      'pre_selected_shipping_channel',
      'show_grouped_channel_first',
      'is_item_with_price_range',
      'also_available_channel_icon_type',
      'pre_order_text',
      'selected_late_delivery_compensation_for_drawer',
      'shipping_info_text',
    ]),
  }),
  shop_vouchers: z.array(anyValue),
  coin_info: z.looseObject({
    spend_cash_unit: int64,
    coin_earn_items: z.array(anyValue),
    coin_earn_label: anyValue,
  }),
  product_attributes: z.looseObject({
    attrs: z.array(marketplaceAttributeSchema),
    categories: z.array(marketplaceCategorySchema),
    related_items: z.array(anyValue),
  }),
  shop_detailed: marketplaceShopSchema,
  display_sections: z.looseObject({
    ...nullObserved(['add_on_deal', 'bundle_deal', 'exclusive_price_label', 'free_return', 'coin', 'wholesale']),
  }),
  design_control: z.looseObject({
    ...typed(
      [
        'display_on_time_delivery_guarantee',
        'disable_price_with_variation',
        'display_direct_delivery',
        'display_choice_customised_section',
        'is_support_fbs_enabled',
      ],
      z.boolean(),
    ),
    ...nullObserved([
      'use_new_revamp_first_screen',
      'use_new_featured_video_revamp',
      'first_screen_revamp_abtest_group',
      'top_section_featured_video_ab_test_group',
      'enable_ksp_config',
    ]),
  }),
  detail_level: int64,
  button_group: z.looseObject({ buy_with_voucher: anyValue }),
  ...nullObserved([
    'flash_sale',
    'flash_sale_preview',
    'deep_discount',
    'exclusive_price',
    'exclusive_price_cta',
    'shipping_meta',
    'free_return',
    'age_gate_control',
    'abnormal_popup',
    'return_on_spot',
    'ineligible_ep',
    'tax_disclaimer',
    'alcohol_disclaimer',
    'shopee_free_return',
    'removed_fields',
    'size_guide',
    'designer_info',
    'shipping_info',
    'vehicle_compatibility_info',
    'nea',
    'installment_drawer',
    'ongoing_banner',
    'teaser_banner',
    'price_breakdown',
    'membership_exclusive',
    'membership_exclusive_teaser',
  ]),
});
export type MarketplaceProductData = z.infer<typeof marketplaceProductDataSchema>;

export const marketplaceResponseSchema = z.looseObject({
  success: z.boolean(),
  message: z.string(),
  data: z.looseObject({
    bff_meta: anyValue,
    error: anyValue,
    error_msg: anyValue,
    data: marketplaceProductDataSchema,
  }),
});
export type MarketplaceResponse = z.infer<typeof marketplaceResponseSchema>;
