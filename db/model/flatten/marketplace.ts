// Marketplace product response -> product, shop and child-list rows. Prices stay the integers the service
// sends; `*_major` columns divide by the pipeline's price divisor (see db/README.md for why 100000).
import type { MarketplaceResponse } from '../../../client/schemas.js';
import { TABLE_META } from '../tables.js';
import {
  asBool,
  asDouble,
  asInt,
  asJson,
  asText,
  epochSecondsToIso,
  isRecord,
  OPEN_FIELDS,
  openFields,
  push,
  type Row,
  type RowsByTable,
} from './values.js';

export const DEFAULT_PRICE_DIVISOR = 100_000;

export interface MarketplaceFlattenOptions {
  priceDivisor?: number;
}

/** -1 (and null) mark an absent price: no major-unit value for those. */
export function toMajor(price: unknown, divisor: number): number | null {
  const p = asInt(price);
  if (p === null || p === -1 || p === -1n) return null;
  return Number(p) / divisor;
}

export function checkPriceDivisor(divisor: number): number {
  if (!Number.isFinite(divisor) || divisor <= 0) {
    throw new RangeError(`price divisor must be a positive number, got ${String(divisor)}`);
  }
  return divisor;
}

// Item fields that have their own column or child table; every other field becomes an inferred column.
const ITEM_TYPED = new Set([
  'item_id',
  'shop_id',
  'item_status',
  'status',
  'item_type',
  'reference_item_id',
  'title',
  'image',
  'brand',
  'brand_id',
  'cat_id',
  'condition',
  'flag',
  'currency',
  'description',
  'shop_location',
  'ctime',
  'price',
  'price_min',
  'price_max',
  'price_before_discount',
  'price_min_before_discount',
  'price_max_before_discount',
  'show_discount',
  'raw_discount',
  'stock',
  'normal_stock',
  'discount_stock',
  'estimated_days',
  'min_purchase_limit',
  'max_quantity',
  'is_adult',
  'is_preview',
  'is_unavailable',
  'is_pre_order',
  'is_free_shipping',
  'is_hide_stock',
  'item_has_video',
  'can_use_wholesale',
  'label_ids',
  'attributes',
  'categories',
  'fe_categories',
  'models',
  'tier_variations',
  'item_rating',
]);
const MODEL_TYPED = new Set([
  'item_id',
  'model_id',
  'name',
  'status',
  'price',
  'price_before_discount',
  'promotion_id',
  'stock',
  'normal_stock',
  'sold',
  'current_promotion_reserved_stock',
  'extinfo',
  'has_gimmick_tag',
  'price_stocks',
]);
const SHOP_TYPED = new Set([
  'shopid',
  'userid',
  'name',
  'account',
  'place',
  'shop_location',
  'last_active_time',
  'ctime',
  'vacation',
  'status',
  'is_shopee_verified',
  'is_preferred_plus_seller',
  'is_official_shop',
  'is_individual_seller',
  'is_mart',
  'item_count',
  'rating_star',
  'rating_bad',
  'rating_good',
  'rating_normal',
  'response_rate',
  'response_time',
  'follower_count',
  'sold_total',
]);

// Fixed columns, which inferred columns never take (an unknown field of that name gets a leading `_`).
const PRODUCT_COLUMNS = new Set(TABLE_META.marketplace_products.columns);
const MODEL_COLUMNS = new Set(TABLE_META.marketplace_product_models.columns);
const SHOP_COLUMNS = new Set(TABLE_META.marketplace_shops.columns);

export function flattenMarketplace(response: MarketplaceResponse, opts: MarketplaceFlattenOptions = {}): RowsByTable {
  const divisor = checkPriceDivisor(opts.priceDivisor ?? DEFAULT_PRICE_DIVISOR);
  const out: RowsByTable = {};
  const data = response.data.data;
  const item = data.item;
  const shop_id = item.shop_id;
  const item_id = item.item_id;
  // Every row names its product's keys as plain properties, never by spreading a shared `{ shop_id, item_id }`:
  // V8 (Node 20) builds a literal that starts with a spread slowly, property by property, and it was most of this
  // function's time (0.44 ms a product against 0.08 without, on the simulator's products), in a worker that
  // flattens hundreds of products a second.
  const review = data.product_review;

  push(out, 'marketplace_products', {
    shop_id,
    item_id,
    item_status: item.item_status,
    status: asInt(item.status),
    item_type: asInt(item.item_type),
    reference_item_id: item.reference_item_id,
    title: item.title,
    image: item.image,
    brand: item.brand,
    brand_id: asInt(item.brand_id),
    cat_id: asInt(item.cat_id),
    condition: asInt(item.condition),
    flag: asInt(item.flag),
    currency: item.currency,
    description: item.description,
    shop_location: item.shop_location,
    ctime: asInt(item.ctime),
    ctime_at: epochSecondsToIso(item.ctime),
    price: asInt(item.price),
    price_min: asInt(item.price_min),
    price_max: asInt(item.price_max),
    price_before_discount: asInt(item.price_before_discount),
    price_min_before_discount: asInt(item.price_min_before_discount),
    price_max_before_discount: asInt(item.price_max_before_discount),
    price_divisor: divisor,
    price_major: toMajor(item.price, divisor),
    price_min_major: toMajor(item.price_min, divisor),
    price_max_major: toMajor(item.price_max, divisor),
    // 0 is what the service sends for "no before-discount price" on the item (the ranges use -1).
    price_before_discount_major:
      asInt(item.price_before_discount) === 0 ? null : toMajor(item.price_before_discount, divisor),
    show_discount: asInt(item.show_discount),
    raw_discount: asDouble(item.raw_discount),
    rating_star: asDouble(review.rating_star) ?? asDouble(item.item_rating.rating_star),
    rating_count: asJson(review.rating_count),
    total_rating_count: asInt(review.total_rating_count),
    cmt_count: asInt(review.cmt_count),
    liked_count: asInt(review.liked_count),
    historical_sold: asInt(review.historical_sold),
    global_sold: asInt(review.global_sold),
    stock: asInt(item.stock),
    normal_stock: asInt(item.normal_stock),
    discount_stock: asDouble(item.discount_stock),
    estimated_days: asDouble(item.estimated_days),
    min_purchase_limit: asDouble(item.min_purchase_limit),
    max_quantity: asDouble(item.max_quantity),
    is_adult: item.is_adult,
    is_preview: item.is_preview,
    is_unavailable: item.is_unavailable,
    is_pre_order: item.is_pre_order,
    is_free_shipping: item.is_free_shipping,
    is_hide_stock: item.is_hide_stock,
    item_has_video: item.item_has_video,
    can_use_wholesale: item.can_use_wholesale,
    label_ids: asJson(item.label_ids),
    [OPEN_FIELDS]: openFields(item, ITEM_TYPED, PRODUCT_COLUMNS),
  });

  item.models.forEach((m, list_index) => {
    const model_id = m.model_id;
    push(out, 'marketplace_product_models', {
      shop_id,
      item_id,
      model_id,
      list_index,
      name: m.name,
      status: asInt(m.status),
      price: asInt(m.price),
      price_before_discount: asInt(m.price_before_discount),
      price_major: toMajor(m.price, divisor),
      price_before_discount_major:
        asInt(m.price_before_discount) === 0 ? null : toMajor(m.price_before_discount, divisor),
      promotion_id: asInt(m.promotion_id),
      stock: asInt(m.stock),
      normal_stock: asInt(m.normal_stock),
      sold: asInt(m.sold),
      current_promotion_reserved_stock: asInt(m.current_promotion_reserved_stock),
      tier_index: asJson(m.extinfo.tier_index),
      is_pre_order: m.extinfo.is_pre_order,
      estimated_days: asInt(m.extinfo.estimated_days),
      has_gimmick_tag: asBool(m.has_gimmick_tag),
      [OPEN_FIELDS]: openFields(m, MODEL_TYPED, MODEL_COLUMNS),
    });
    m.price_stocks.forEach((ps, price_stock_index) => {
      const allocated_stock = asInt(ps.allocated_stock);
      const promotion_type = asInt(ps.promotion_type);
      const locations = ps.stock_breakdown_by_location;
      if (locations.length === 0) {
        push(out, 'marketplace_model_stocks', {
          shop_id,
          item_id,
          model_id,
          price_stock_index,
          allocated_stock,
          promotion_type,
          location_index: -1,
          location_id: null,
          available_stock: null,
          fulfilment_type: null,
          address_id: null,
          location_allocated_stock: null,
        });
      }
      locations.forEach((loc, location_index) => {
        push(out, 'marketplace_model_stocks', {
          shop_id,
          item_id,
          model_id,
          price_stock_index,
          allocated_stock,
          promotion_type,
          location_index,
          location_id: loc.location_id,
          available_stock: asInt(loc.available_stock),
          fulfilment_type: asInt(loc.fulfilment_type),
          address_id: asInt(loc.address_id),
          location_allocated_stock: asInt(loc.allocated_stock),
        });
      });
    });
  });

  const attributeLists = [
    ['item.attributes', item.attributes],
    ['product_attributes.attrs', data.product_attributes.attrs],
  ] as const;
  for (const [source, attrs] of attributeLists) {
    attrs.forEach((a, list_index) => {
      push(out, 'marketplace_product_attributes', {
        shop_id,
        item_id,
        source,
        list_index,
        name: a.name,
        value: a.value,
        attribute_id: asInt(a.id),
        val_id: asInt(a.val_id),
        is_timestamp: asBool(a.is_timestamp),
        brand_id: asInt(a.brand_id),
        brand_option: asJson(a.brand_option),
        url: asText(a.url),
        full_url: asText(a.full_url),
        type: asInt(a.type),
      });
    });
  }

  const categoryLists = [
    ['item.categories', item.categories],
    ['item.fe_categories', item.fe_categories],
    ['product_attributes.categories', data.product_attributes.categories],
  ] as const;
  for (const [source, cats] of categoryLists) {
    cats.forEach((c, list_index) => {
      push(out, 'marketplace_product_categories', {
        shop_id,
        item_id,
        source,
        list_index,
        catid: c.catid,
        display_name: c.display_name,
        no_sub: c.no_sub,
        is_default_subcat: c.is_default_subcat,
      });
    });
  }

  item.tier_variations.forEach((tv, tier_index) => {
    push(out, 'marketplace_product_tier_variations', {
      shop_id,
      item_id,
      tier_index,
      name: tv.name,
      type: asInt(tv.type),
      option_count: tv.options.length,
      images: asJson(tv.images),
      properties: asJson(tv.properties),
      summed_stocks: asJson(tv.summed_stocks),
      display_indicators: asJson(tv.display_indicators),
    });
    const images = Array.isArray(tv.images) ? (tv.images as unknown[]) : [];
    tv.options.forEach((option, option_index) => {
      push(out, 'marketplace_product_tier_variation_options', {
        shop_id,
        item_id,
        tier_index,
        option_index,
        option,
        image: asText(images[option_index]),
      });
    });
  });

  data.product_images.images.forEach((image, list_index) => {
    push(out, 'marketplace_product_images', { shop_id, item_id, list_index, image });
  });

  const shop = data.shop_detailed;
  push(out, 'marketplace_shops', {
    shop_id: shop.shopid,
    userid: asInt(shop.userid),
    name: asText(shop.name),
    username: isRecord(shop.account) ? asText(shop.account['username']) : null,
    place: asText(shop.place),
    shop_location: asText(shop.shop_location),
    last_active_time: asInt(shop.last_active_time),
    last_active_time_at: epochSecondsToIso(shop.last_active_time),
    ctime: asInt(shop.ctime),
    ctime_at: epochSecondsToIso(shop.ctime),
    vacation: shop.vacation,
    status: asInt(shop.status),
    is_shopee_verified: asBool(shop.is_shopee_verified),
    is_preferred_plus_seller: asBool(shop.is_preferred_plus_seller),
    is_official_shop: asBool(shop.is_official_shop),
    is_individual_seller: asBool(shop.is_individual_seller),
    is_mart: asBool(shop.is_mart),
    item_count: asInt(shop.item_count),
    rating_star: asDouble(shop.rating_star),
    rating_bad: asInt(shop.rating_bad),
    rating_good: asInt(shop.rating_good),
    rating_normal: asInt(shop.rating_normal),
    response_rate: asDouble(shop.response_rate),
    response_time: asDouble(shop.response_time),
    follower_count: asInt(shop.follower_count),
    sold_total: asInt(shop.sold_total),
    [OPEN_FIELDS]: openFields(shop, SHOP_TYPED, SHOP_COLUMNS),
  });

  return out;
}
