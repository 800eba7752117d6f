// Marketplace product responses (endpoint 5), shaped like the real example
// (fixtures/real/shopee-sync-response-1.json): every section present, the observed-null ones null.
// The product is a function of (seed, shopid, itemid); the model count of sim_models, or 2..8 by hash.
import { rngFor, type Rng } from '../random.js';
import type { MarketplaceInput } from '../validate.js';
import type { JsonObject, JsonValue } from './results.js';

/** Integer prices are major units x PRICE_SCALE, as in the real example (16900000 for 169 TWD). */
export const PRICE_SCALE = 100_000;

interface Region {
  code: string;
  currency: string;
  location: string;
  domain: string;
  priceMin: number;
  priceMax: number;
  /** Smallest price step in major units. */
  step: number;
  lang: 'zh' | 'en';
  places: readonly string[];
}

const REGIONS: readonly Region[] = [
  {
    code: 'tw',
    currency: 'TWD',
    location: 'TWZ',
    domain: 'shopee.tw',
    priceMin: 49,
    priceMax: 2990,
    step: 1,
    lang: 'zh',
    places: ['高雄市大樹區', '臺北市中正區', '新北市板橋區', '台中市西屯區', '台南市東區'],
  },
  {
    code: 'id',
    currency: 'IDR',
    location: 'IDZ',
    domain: 'shopee.co.id',
    priceMin: 15_000,
    priceMax: 900_000,
    step: 500,
    lang: 'en',
    places: ['KOTA JAKARTA BARAT', 'KOTA SURABAYA', 'KAB. BANDUNG', 'KOTA MEDAN'],
  },
  {
    code: 'sg',
    currency: 'SGD',
    location: 'SGZ',
    domain: 'shopee.sg',
    priceMin: 2,
    priceMax: 400,
    step: 0.1,
    lang: 'en',
    places: ['Singapore', 'Mainland China', 'Johor Bahru'],
  },
];

interface Vocab {
  brands: readonly string[];
  nouns: readonly string[];
  tierNames: readonly string[];
  colors: readonly string[];
  sizes: readonly string[];
  attrs: ReadonlyArray<readonly [string, readonly string[]]>;
  categories: ReadonlyArray<readonly string[]>;
  quantity: string;
  brand: string;
  shipFrom: string;
  shopSuffix: readonly string[];
  warning: string;
  description: readonly string[];
}

const VOCAB: Record<'zh' | 'en', Vocab> = {
  zh: {
    brands: ['GREEN 綠的', '花王 Kao', '獅王 LION', '雪芙蘭', '白蘭', '無印風格'],
    nouns: ['抗菌沐浴露', '洗髮精', '濃縮洗衣精', '保濕乳液', '美白牙膏', '保濕面膜', '純棉T恤', '陶瓷馬克杯'],
    tierNames: ['顏色', '規格'],
    colors: ['白色', '黑色', '粉紅色', '天空藍', '薄荷綠', '奶茶色', '灰色', '紅色', '洋梨與小蒼蘭', '蘋果玫瑰'],
    sizes: ['250ml', '500ml', '1000ml', '補充包', '組合包', 'S', 'M', 'L', 'XL'],
    attrs: [
      ['質地', ['液', '乳霜', '凝膠']],
      ['產地', ['台灣', '日本', '韓國']],
      ['保存期限', ['24個月', '36個月']],
      ['容量', ['500ml', '1000ml']],
    ],
    categories: [
      ['美妝保養', '身體清潔、保養', '沐浴乳、香皂、手工皂'],
      ['居家生活', '清潔用品', '洗衣用品'],
      ['女生衣著', '上衣', 'T恤'],
    ],
    quantity: '商品數量',
    brand: '品牌',
    shipFrom: '出貨地',
    shopSuffix: ['柑仔店', '生活館', '小舖', '百貨'],
    warning: '沒有適用的物流選項, 請與賣家聯繫確認',
    description: [
      '溫和潔淨肌膚，洗後清新舒服',
      '溫和抗菌，保護肌膚健康',
      '綻放的花香,清新優雅溫暖迷人',
      '台灣製造 品質保證',
      '現貨供應 快速出貨',
    ],
  },
  en: {
    brands: ['Nusantara Home', 'Crème Belle', 'Ōkami Gear', 'Zenbu', 'Kopi Kenangan', 'Bright&Co'],
    nouns: [
      'Anti-bacterial Body Wash',
      'Cotton T-Shirt',
      'Wireless Earbuds',
      'Café Latte Sachets',
      'Ceramic Mug',
      'Shampoo Refill',
      'Phone Case',
    ],
    tierNames: ['Color', 'Size'],
    colors: ['White', 'Black', 'Rosé', 'Sky Blue', 'Mint', 'Café', 'Grey', 'Red', 'Navy', 'Olive'],
    sizes: ['S', 'M', 'L', 'XL', 'XXL', '250ml', '500ml', '1L', 'Pack of 3'],
    attrs: [
      ['Material', ['Cotton', 'Ceramic', 'Plastic']],
      ['Country of Origin', ['Indonesia', 'China', 'Japan']],
      ['Shelf Life', ['24 Months', '36 Months']],
      ['Volume', ['500ml', '1L']],
    ],
    categories: [
      ['Health & Beauty', 'Bath & Body', 'Body Wash'],
      ['Fashion', 'Tops', 'T-Shirts'],
      ['Electronics', 'Audio', 'Earbuds'],
    ],
    quantity: 'Stock',
    brand: 'Brand',
    shipFrom: 'Ships From',
    shopSuffix: ['Official Store', 'Mart', 'Shop', 'Outlet'],
    warning: 'No shipping channel available, please contact the seller',
    description: [
      'Gentle on skin ✨',
      'Ready stock, ships in 24h',
      'Original product, 100% authentic',
      'Crème de la crème quality',
      'Best seller 🔥',
    ],
  },
};

function regionFor(url: string, shopId: number, seed: number): Region {
  let host = '';
  try {
    host = new URL(url).hostname;
  } catch {
    // validated earlier; fall through to the hash pick
  }
  const byHost = REGIONS.find((r) => host === r.domain || host.endsWith(`.${r.code}`));
  return byHost ?? (REGIONS[rngFor(seed, 'region', shopId).int(0, REGIONS.length - 1)] as Region);
}

/** An option label that stays unique past the end of the vocabulary ("Red", ..., "Red 2", ...). */
function optionLabel(vocab: readonly string[], i: number): string {
  const base = vocab[i % vocab.length] as string;
  const round = Math.floor(i / vocab.length);
  return round === 0 ? base : `${base} ${round + 1}`;
}

function toScaled(major: number, step: number): number {
  const steps = Math.max(1, Math.round(major / step));
  return Math.round(steps * step * PRICE_SCALE);
}

function imageKey(rng: Rng): string {
  return rng.hex(32);
}

/** Number of models: sim_models when given, else 2..8 by hash of the ids. */
export function modelCount(seed: number, input: MarketplaceInput): number {
  return input.models ?? rngFor(seed, 'model-count', input.shopId, input.itemId).int(2, 8);
}

/**
 * Tier layout for n models: one model -> one empty tier (as in the real example); up to 6 -> one tier of n
 * options; more -> two tiers a x b with a*b >= n, model i at tier_index [floor(i/b), i mod b].
 */
export function tierLayout(n: number): { sizes: number[]; indexOf: (i: number) => number[] } {
  if (n <= 1) return { sizes: [1], indexOf: () => [0] };
  if (n <= 6) return { sizes: [n], indexOf: (i) => [i] };
  const a = Math.ceil(Math.sqrt(n));
  const b = Math.ceil(n / a);
  return { sizes: [a, b], indexOf: (i) => [Math.floor(i / b), i % b] };
}

export function generateProduct(seed: number, input: MarketplaceInput): JsonObject {
  const { itemId, shopId } = input;
  const region = regionFor(input.url, shopId, seed);
  const v = VOCAB[region.lang];
  const rng = rngFor(seed, 'product', shopId, itemId);
  const shop = generateShop(seed, shopId, region);
  const place = shop['shop_location'] as string;

  const brandId = rng.int(1_000_000, 9_999_999);
  const brand = rng.pick(v.brands);
  const noun = rng.pick(v.nouns);
  const volume = rng.pick(v.sizes);
  const title =
    region.lang === 'zh'
      ? `${brand}-${noun}（${rng.pick(v.colors)}）${volume}`
      : `${brand} ${noun} – ${rng.pick(v.colors)} ${volume}`;
  const images = Array.from({ length: rng.int(1, 9) }, () => imageKey(rng));
  const ctime = rng.int(1_450_000_000, 1_760_000_000);
  const estimatedDays = rng.int(2, 7);
  const hasDiscount = rng.chance(0.35);
  const discountPct = hasDiscount ? rng.int(5, 50) : 0;
  const baseMajor = region.priceMin + rng.next() * (region.priceMax - region.priceMin);

  // Categories: a three-level path; fe_categories are the storefront's copy with their own ids.
  const catPath = rng.pick(v.categories);
  const catBase = 100_000 + rng.int(0, 9_000) * 10;
  const feBase = 11_000_000 + rng.int(0, 90_000) * 10;
  const category = (base: number, name: string, level: number): JsonObject => ({
    catid: base + level * 3,
    display_name: name,
    no_sub: level === catPath.length - 1,
    is_default_subcat: false,
  });
  const categories = catPath.map((name, level) => category(catBase, name, level));
  const feCategories = catPath.map((name, level) => category(feBase, name, level));

  // Models and tier variations.
  const n = modelCount(seed, input);
  const layout = tierLayout(n);
  const tierVocab = [v.colors, v.sizes];
  const tiers: JsonObject[] = layout.sizes.map((size, t) => {
    const single = n <= 1;
    const options = Array.from({ length: size }, (_, i) => (single ? '' : optionLabel(tierVocab[t] ?? v.sizes, i)));
    return {
      name: single ? '' : (v.tierNames[t] ?? ''),
      options,
      images: t === 0 && !single ? options.map(() => imageKey(rng)) : null,
      properties: null,
      type: 0,
      summed_stocks: null,
      display_indicators: options.map(() => 0),
    };
  });
  const modelIdBase = 10_000_000_000 + rng.int(0, 20_000_000) * 1000;
  const locations = [region.location, `${region.location.slice(0, 2)}N`];
  const models: JsonObject[] = new Array(n);
  let priceMin = Infinity;
  let priceMax = -Infinity;
  let pbdMin = Infinity;
  let pbdMax = -Infinity;
  let totalStock = 0;
  let totalSold = 0;
  for (let i = 0; i < n; i++) {
    const mr = rngFor(seed, 'model', shopId, itemId, i);
    const tierIndex = layout.indexOf(i);
    const name = n <= 1 ? '' : tierIndex.map((ti, t) => optionLabel(tierVocab[t] ?? v.sizes, ti)).join(',');
    const listPrice = toScaled(baseMajor * (1 + 0.05 * mr.int(0, 6)), region.step);
    const price = hasDiscount
      ? toScaled(((listPrice / PRICE_SCALE) * (100 - discountPct)) / 100, region.step)
      : listPrice;
    const pbd = hasDiscount ? listPrice : 0;
    const stock = mr.chance(0.1) ? 0 : mr.int(1, 500);
    const split = mr.chance(0.3) ? mr.int(0, stock) : stock;
    const breakdown: JsonObject[] = [
      {
        location_id: locations[0] as string,
        available_stock: split,
        fulfilment_type: 2,
        address_id: shopId % 100_000,
        allocated_stock: null,
      },
    ];
    if (split !== stock) {
      breakdown.push({
        location_id: locations[1] as string,
        available_stock: stock - split,
        fulfilment_type: 1,
        address_id: 0,
        allocated_stock: null,
      });
    }
    const sold = mr.int(0, 2000);
    const preOrder = mr.chance(0.05);
    models[i] = {
      item_id: itemId,
      status: 1,
      current_promotion_reserved_stock: null,
      name,
      promotion_id: 0,
      price,
      price_stocks: [{ allocated_stock: 0, stock_breakdown_by_location: breakdown, promotion_type: 0 }],
      current_promotion_has_reserve_stock: false,
      normal_stock: stock,
      extinfo: {
        tier_index: tierIndex,
        is_pre_order: preOrder,
        estimated_days: preOrder ? estimatedDays + 7 : estimatedDays,
      },
      price_before_discount: pbd,
      model_id: modelIdBase + i * 7 + 1,
      stock,
      has_gimmick_tag: false,
      key_measurement: null,
      sold,
      is_lowest_price_at_shopee: false,
    };
    priceMin = Math.min(priceMin, price);
    priceMax = Math.max(priceMax, price);
    if (hasDiscount) {
      pbdMin = Math.min(pbdMin, pbd);
      pbdMax = Math.max(pbdMax, pbd);
    }
    totalStock += stock;
    totalSold += sold;
  }

  const attrPicks = rng.sample(v.attrs, rng.int(2, v.attrs.length));
  const attributes: JsonObject[] = attrPicks.map(([name, values], k) => ({
    name,
    value: rng.pick(values),
    id: 100_036 + k,
    is_timestamp: false,
    brand_option: null,
    val_id: rng.int(100, 9999),
    url: null,
    brand_id: null,
    full_url: null,
    type: null,
  }));
  const attr = (
    name: string,
    value: string,
    extra: Partial<Record<'id' | 'url' | 'brand_id' | 'full_url' | 'type', JsonValue>>,
  ): JsonObject => ({
    name,
    value,
    id: null,
    is_timestamp: null,
    brand_option: null,
    val_id: null,
    url: null,
    brand_id: null,
    full_url: null,
    type: null,
    ...extra,
  });
  const attrs: JsonObject[] = [
    attr(v.quantity, String(totalStock), { type: 7 }),
    attr(v.brand, brand, {
      url: `/search?brands=${brandId}`,
      brand_id: brandId,
      full_url: `https://${region.domain}/search?brands=${brandId}`,
      type: 1,
    }),
    ...attributes.map((a) => attr(a['name'] as string, a['value'] as string, { id: a['id'] ?? null, type: 5 })),
    attr(v.shipFrom, place, { type: 6 }),
  ];

  const ratingCounts = [0, 0, 0, 0, 0].map((_, k) => rng.int(0, k >= 3 ? 400 : 20));
  const totalRatings = ratingCounts.reduce((s, x) => s + x, 0);
  const ratingStar = totalRatings === 0 ? 0 : ratingCounts.reduce((s, x, k) => s + x * (k + 1), 0) / totalRatings;
  const singlePrice = priceMin === priceMax;
  const priceBlock = (lo: number, hi: number): JsonObject => ({
    single_value: lo === hi ? lo : -1,
    range_min: lo === hi ? -1 : lo,
    range_max: lo === hi ? -1 : hi,
    price_mask: null,
  });
  const noShipping = rng.chance(0.2);
  const labelIds: number[] = [];
  for (let k = rng.int(3, 9); k > 0; k--) {
    // Real label ids mix small integers with ~8.4e14 ones (still below 2^53).
    labelIds.push(
      rng.chance(0.4)
        ? 820_000_000_000_000 + rng.int(0, 30_000_000) * 1_000_000 + rng.int(0, 999_999)
        : rng.int(1_000_000, 2_000_000_000),
    );
  }
  const descriptionLines = [
    title,
    ...rng.sample(v.description, rng.int(2, v.description.length)).map((l) => `*${l}`),
    `#${brand.replace(/\s+/g, '')} #${noun.replace(/\s+/g, '')}`,
  ];

  const item: JsonObject = {
    item_id: itemId,
    shop_id: shopId,
    item_status: 'normal',
    status: 1,
    item_type: 0,
    reference_item_id: '',
    title,
    image: images[0] as string,
    label_ids: labelIds,
    is_adult: false,
    is_preview: false,
    flag: rng.pick([0, 65536, 131072, 196608]),
    is_service_by_shopee: false,
    condition: 1,
    cat_id: categories[0]?.['catid'] ?? catBase,
    has_low_fulfillment_rate: false,
    is_live_streaming_price: null,
    currency: region.currency,
    brand,
    brand_id: brandId,
    show_discount: discountPct,
    ctime,
    item_rating: { rating_star: Math.round(ratingStar * 1e6) / 1e6 },
    cb_option: 0,
    has_model_with_available_shopee_stock: false,
    shop_location: place,
    attributes,
    rich_text_description: null,
    invoice_option: null,
    is_category_failed: null,
    is_prescription_item: false,
    preview_info: null,
    show_prescription_feed: false,
    is_alcohol_product: false,
    is_infant_milk_formula_product: false,
    is_unavailable: false,
    is_partial_fulfilled: false,
    is_presale: false,
    is_presale_deposit_item: null,
    is_presale_deposit_made: null,
    description: descriptionLines.join('\n'),
    categories,
    fe_categories: feCategories,
    item_has_video: false,
    presale_dday_start_time: null,
    is_lowest_price_at_shopee: null,
    models,
    tier_variations: tiers,
    size_chart: null,
    size_chart_info: null,
    welcome_package_type: 0,
    is_free_gift: false,
    deep_discount: null,
    is_low_price_eligible: null,
    bundle_deal_info: null,
    add_on_deal_info: null,
    shipping_icon_type: 0,
    badge_icon_type: 0,
    spl_info: {
      installment_info: null,
      user_credit_info: null,
      channel_id: null,
      show_spl: false,
      show_spl_lite: null,
      spl_xtra: null,
    },
    estimated_days: estimatedDays,
    is_pre_order: false,
    is_free_shipping: false,
    overall_purchase_limit: null,
    min_purchase_limit: 1,
    is_hide_stock: false,
    stock: null,
    normal_stock: null,
    current_promotion_reserved_stock: 0,
    can_use_wholesale: false,
    wholesale_tier_list: [],
    price: priceMin,
    raw_discount: discountPct,
    hidden_price_display: null,
    price_min: priceMin,
    price_max: priceMax,
    price_before_discount: hasDiscount ? pbdMin : 0,
    price_min_before_discount: hasDiscount ? pbdMin : -1,
    price_max_before_discount: hasDiscount ? pbdMax : -1,
    other_stock: null,
    discount_stock: 0,
    current_promotion_has_reserve_stock: false,
    complaint_policy: null,
    show_recycling_info: false,
    should_show_amp_tag: rng.chance(0.5),
    all_models_has_pre_order: false,
    is_item_inherited: false,
    max_quantity: totalStock,
  };

  const data: JsonObject = {
    item,
    account: {
      user_id: null,
      is_new_user: null,
      default_address: {
        state: region.lang === 'zh' ? '臺北市' : null,
        city: region.lang === 'zh' ? '中正區' : null,
        district: '',
        town: '',
        zip_code: '',
        address: null,
        region: null,
        longitude: null,
        latitude: null,
      },
      adult_consent: null,
      birth_timestamp: null,
    },
    product_images: {
      video: null,
      images,
      first_tier_variations: [],
      sorted_variation_image_index_list: [],
      overlay: null,
      makeup_preview: null,
      abnormal_status: '',
      promotion_images: [],
      long_images: null,
      shopee_video_info_list: [],
      shopee_video_rcmd_info: null,
      shopee_video_req_id: null,
      skincam: null,
      pdp_top_info_list: null,
      has_long_image: null,
    },
    product_price: {
      discount: hasDiscount ? `${discountPct}%` : null,
      installment_info: null,
      spl_installment_info: null,
      pack_size: '',
      hide_price: false,
      price: priceBlock(priceMin, priceMax),
      price_before_discount: hasDiscount ? priceBlock(pbdMin, pbdMax) : null,
      presale_price: null,
      lowest_past_price: null,
      labels: null,
      hide_discount: false,
      discount_text: null,
      show_final_price_indicator: false,
    },
    flash_sale: null,
    flash_sale_preview: null,
    deep_discount: null,
    exclusive_price: null,
    exclusive_price_cta: null,
    product_meta: {
      show_lowest_price_guarantee: false,
      show_original_guarantee: false,
      show_best_price_guarantee: false,
      show_official_shop_label_in_title: shop['is_official_shop'] === true,
      show_shopee_verified_label: shop['is_shopee_verified'] === true,
      show_lowest_installment_guarantee: false,
      hide_sharing_button: false,
      hide_sold_count: false,
    },
    product_review: {
      rating_star: Math.round(ratingStar * 1e6) / 1e6,
      rating_count: [totalRatings, ...ratingCounts],
      total_rating_count: totalRatings,
      historical_sold: totalSold,
      global_sold: totalSold,
      liked: false,
      liked_count: rng.int(0, 5000),
      cmt_count: Math.floor(totalRatings * 0.6),
      should_move_ratings_above: null,
      review_rcmd_exp_group: null,
      display_global_sold: false,
      hide_rating: false,
      hide_buyer_gallery: false,
      hide_reviews: false,
      hide_other_product_reviews_in_shop: false,
    },
    promotion_info: {
      spl: null,
      spl_lite: null,
      installment: null,
      wholesale: null,
      insurance: null,
      item_installment_eligibility: {
        is_cc_installment_payment_eligible: false,
        is_non_cc_installment_payment_eligible: false,
      },
    },
    age_gate: { kyc: null },
    shipping_meta: null,
    product_shipping: {
      free_shipping: null,
      shipping_fee_info: {
        ship_from_location: noShipping ? null : place,
        price: noShipping
          ? null
          : priceBlock(toScaled(region.priceMin, region.step), toScaled(region.priceMin, region.step)),
        shipping_icon_type: 0,
        warning: noShipping ? { type: 'no_shipping_channel', warning_msg: v.warning } : null,
      },
      show_shipping_to: null,
      ungrouped_channel_infos: null,
      grouped_channel_infos_by_service_type: null,
      also_available_channel_name: null,
      pre_selected_shipping_channel: null,
      show_grouped_channel_first: null,
      is_item_with_price_range: singlePrice ? null : true,
      also_available_channel_icon_type: null,
      pre_order_text: null,
      selected_late_delivery_compensation_for_drawer: null,
      shipping_info_text: null,
    },
    shop_vouchers: [],
    free_return: null,
    coin_info: { spend_cash_unit: PRICE_SCALE, coin_earn_items: [], coin_earn_label: null },
    product_attributes: { attrs, categories: feCategories, related_items: [] },
    shop_detailed: shop,
    age_gate_control: null,
    abnormal_popup: null,
    return_on_spot: null,
    display_sections: {
      add_on_deal: null,
      bundle_deal: null,
      exclusive_price_label: null,
      free_return: null,
      coin: null,
      wholesale: null,
    },
    ineligible_ep: null,
    tax_disclaimer: null,
    alcohol_disclaimer: null,
    design_control: {
      use_new_revamp_first_screen: null,
      display_on_time_delivery_guarantee: false,
      disable_price_with_variation: true,
      display_direct_delivery: false,
      use_new_featured_video_revamp: null,
      first_screen_revamp_abtest_group: null,
      display_choice_customised_section: false,
      is_support_fbs_enabled: false,
      top_section_featured_video_ab_test_group: null,
      enable_ksp_config: null,
    },
    shopee_free_return: null,
    detail_level: 0,
    removed_fields: null,
    size_guide: null,
    designer_info: null,
    shipping_info: null,
    vehicle_compatibility_info: null,
    nea: null,
    button_group: { buy_with_voucher: null },
    installment_drawer: null,
    ongoing_banner: null,
    teaser_banner: null,
    price_breakdown: null,
    membership_exclusive: null,
    membership_exclusive_teaser: null,
  };
  return { success: true, message: 'URL scrapped', data: { bff_meta: null, error: null, error_msg: null, data } };
}

/** The shop is a function of (seed, shopid) alone, so every product of a shop shows the same shop. */
export function generateShop(seed: number, shopId: number, region: Region): JsonObject {
  const rng = rngFor(seed, 'shop', shopId);
  const v = VOCAB[region.lang];
  const place = rng.pick(region.places);
  const official = rng.chance(0.15);
  const good = rng.int(0, 20_000);
  return {
    shopid: shopId,
    userid: shopId + rng.int(1, 5000),
    last_active_time: rng.int(1_730_000_000, 1_760_000_000),
    vacation: rng.chance(0.03),
    place,
    account: { portrait: rng.hex(32), username: `shop_${rng.hex(8)}`, status: 1 },
    is_shopee_verified: rng.chance(0.6),
    is_preferred_plus_seller: rng.chance(0.2),
    is_official_shop: official,
    shop_location: place,
    item_count: rng.int(1, 5000),
    rating_star: rng.float(3.5, 5, 6),
    response_rate: rng.int(40, 100),
    session_info: null,
    name: `${rng.pick(['🏠', '⭐', '🛍️', ''])}${rng.pick(v.brands)} ${rng.pick(v.shopSuffix)}`,
    ctime: rng.int(1_400_000_000, 1_600_000_000),
    response_time: rng.int(60, 86_400),
    follower_count: rng.int(0, 500_000),
    show_official_shop_label: official,
    rating_bad: rng.int(0, Math.floor(good / 50) + 1),
    rating_good: good,
    rating_normal: rng.int(0, Math.floor(good / 20) + 1),
    session_infos: null,
    status: 1,
    is_individual_seller: null,
    is_mart: false,
    favorite_shop_info: null,
    is_3pf: false,
    sold_total: null,
    is_shopee_choice: false,
    is_high_end: false,
    banner: { shopee_choice: null },
    authorized_brand: null,
    is_scs: false,
  };
}
