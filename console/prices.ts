// Price history of a marketplace pipeline: marketplace_price_history holds a row whenever a product's
// (model_id NULL) or a model's price differs from the previous load, so its rows are exactly the points of the
// price line. Stock is not historised in a table; out-of-stock changes compare the stock in the last run's raw
// responses with the previous response for the same URL (raw_responses keeps every body as received).
import { parseJson } from '../lib/json.js';
import { tableExists } from './catalog.js';
import type { Reader } from './source.js';
import { isoTime, num, text, timeMs } from './values.js';

export interface ProductRef {
  shopId: string;
  itemId: string;
  title: string | null;
  currency: string | null;
}

export async function productsOf(r: Reader, pipeline: string, limit = 500): Promise<ProductRef[]> {
  if (!(await tableExists(r, 'marketplace_products'))) return [];
  const rows = await r.all(
    `SELECT shop_id, item_id, title, currency FROM marketplace_products WHERE pipeline = ${r.ph(1)} ORDER BY shop_id, item_id LIMIT ${limit}`,
    [pipeline],
  );
  return rows.map((x) => ({
    shopId: text(x['shop_id'])!,
    itemId: text(x['item_id'])!,
    title: text(x['title']),
    currency: text(x['currency']),
  }));
}

export interface HistoryPoint {
  id: number;
  modelId: string | null;
  price: number | null;
  priceMajor: number | null;
  currency: string | null;
  loadedAt: string | null;
}

export interface PriceSeries {
  /** 'product' for the product's own price, else the model's name (or id). */
  label: string;
  modelId: string | null;
  points: HistoryPoint[];
}

export interface ProductHistory {
  product: ProductRef;
  series: PriceSeries[];
  currency: string | null;
  /** uPlot's data: x (seconds) then one array per series, null where a series has no point at that x. */
  chart: Array<Array<number | null>>;
}

export const HISTORY_POINTS_LIMIT = 5000;

export async function productHistory(
  r: Reader,
  pipeline: string,
  shopId: string,
  itemId: string,
): Promise<ProductHistory | undefined> {
  if (!(await tableExists(r, 'marketplace_price_history'))) return undefined;
  const [p] = (await tableExists(r, 'marketplace_products'))
    ? await r.all(
        `SELECT title, currency FROM marketplace_products WHERE pipeline = ${r.ph(1)} AND shop_id = ${r.ph(2)} AND item_id = ${r.ph(3)}`,
        [pipeline, shopId, itemId],
      )
    : [];
  const rows = await r.all(
    `SELECT id, model_id, price, price_major, currency, loaded_at FROM marketplace_price_history
      WHERE pipeline = ${r.ph(1)} AND shop_id = ${r.ph(2)} AND item_id = ${r.ph(3)} ORDER BY id LIMIT ${HISTORY_POINTS_LIMIT}`,
    [pipeline, shopId, itemId],
  );
  if (rows.length === 0 && !p) return undefined;
  const names = new Map<string, string>();
  if (await tableExists(r, 'marketplace_product_models')) {
    for (const m of await r.all(
      `SELECT model_id, name FROM marketplace_product_models WHERE pipeline = ${r.ph(1)} AND shop_id = ${r.ph(2)} AND item_id = ${r.ph(3)} LIMIT 2000`,
      [pipeline, shopId, itemId],
    )) {
      names.set(text(m['model_id'])!, text(m['name']) ?? text(m['model_id'])!);
    }
  }
  const bySeries = new Map<string, PriceSeries>();
  for (const x of rows) {
    const modelId = text(x['model_id']);
    const k = modelId ?? '';
    let s = bySeries.get(k);
    if (!s)
      bySeries.set(
        k,
        (s = {
          label: modelId === null ? 'product' : `${names.get(modelId) ?? 'model'} (${modelId})`,
          modelId,
          points: [],
        }),
      );
    s.points.push({
      id: num(x['id'])!,
      modelId,
      price: num(x['price']),
      priceMajor: num(x['price_major']),
      currency: text(x['currency']),
      loadedAt: isoTime(x['loaded_at']),
    });
  }
  // The product's own line first, then the models in id order.
  const series = [...bySeries.values()].sort((a, b) =>
    a.modelId === null ? -1 : b.modelId === null ? 1 : a.modelId.localeCompare(b.modelId, 'en', { numeric: true }),
  );
  const product: ProductRef = { shopId, itemId, title: text(p?.['title']), currency: text(p?.['currency']) };
  const currency = product.currency ?? series.flatMap((s) => s.points).find((pt) => pt.currency)?.currency ?? null;
  return { product, series, currency, chart: alignSeries(series) };
}

/** uPlot wants one x array shared by every series: the union of the series' times, nulls where one has no point. */
export function alignSeries(series: PriceSeries[]): Array<Array<number | null>> {
  const xs = [...new Set(series.flatMap((s) => s.points.map((p) => (timeMs(p.loadedAt) ?? 0) / 1000)))].sort(
    (a, b) => a - b,
  );
  const at = new Map(xs.map((x, i) => [x, i]));
  const data: Array<Array<number | null>> = [xs];
  for (const s of series) {
    const ys: Array<number | null> = xs.map(() => null);
    for (const p of s.points) ys[at.get((timeMs(p.loadedAt) ?? 0) / 1000)!] = p.priceMajor;
    data.push(ys);
  }
  return data;
}

export interface PriceMove {
  shopId: string;
  itemId: string;
  modelId: string | null;
  title: string | null;
  model: string | null;
  currency: string | null;
  previousMajor: number | null;
  priceMajor: number | null;
  /** (price - previous) / previous, from the integer prices. */
  change: number;
}

/** The price changes the pipeline's last run recorded, biggest drops and rises first. */
export async function movesOfRun(
  r: Reader,
  pipeline: string,
  workflowId: string,
  limit = 10,
): Promise<{ drops: PriceMove[]; rises: PriceMove[] }> {
  if (!(await tableExists(r, 'marketplace_price_history')) || !(await tableExists(r, 'raw_responses')))
    return { drops: [], rises: [] };
  const joinProducts = await tableExists(r, 'marketplace_products');
  const joinModels = await tableExists(r, 'marketplace_product_models');
  const rows = await r.all(
    `SELECT h.shop_id, h.item_id, h.model_id, h.price, h.previous_price, h.price_major, h.currency
            ${joinProducts ? ', p.title' : ''}${joinModels ? ', m.name AS model_name' : ''}
       FROM marketplace_price_history h
       ${joinProducts ? 'LEFT JOIN marketplace_products p ON p.pipeline = h.pipeline AND p.shop_id = h.shop_id AND p.item_id = h.item_id' : ''}
       ${joinModels ? 'LEFT JOIN marketplace_product_models m ON m.pipeline = h.pipeline AND m.shop_id = h.shop_id AND m.item_id = h.item_id AND m.model_id = h.model_id' : ''}
      WHERE h.pipeline = ${r.ph(1)} AND h.previous_price IS NOT NULL
        AND h.load_id IN (SELECT id FROM raw_responses WHERE workflow_id = ${r.ph(2)})
      LIMIT 20000`,
    [pipeline, workflowId],
  );
  const moves: PriceMove[] = [];
  for (const x of rows) {
    const price = num(x['price']);
    const prev = num(x['previous_price']);
    if (price === null || prev === null || prev === 0) continue;
    const major = num(x['price_major']);
    moves.push({
      shopId: text(x['shop_id'])!,
      itemId: text(x['item_id'])!,
      modelId: text(x['model_id']),
      title: text(x['title']),
      model: text(x['model_name']),
      currency: text(x['currency']),
      priceMajor: major,
      previousMajor: major === null || price === 0 ? null : (major * prev) / price,
      change: (price - prev) / prev,
    });
  }
  const drops = moves
    .filter((m) => m.change < 0)
    .sort((a, b) => a.change - b.change)
    .slice(0, limit);
  const rises = moves
    .filter((m) => m.change > 0)
    .sort((a, b) => b.change - a.change)
    .slice(0, limit);
  return { drops, rises };
}

export interface StockChange {
  requestKey: string;
  title: string | null;
  model: string | null;
  modelId: string | null;
  previous: number;
  current: number;
  change: 'out of stock' | 'back in stock';
}

interface StockOf {
  title: string | null;
  product: number | null;
  models: Map<string, { name: string | null; stock: number | null }>;
}

function stockOf(body: string): StockOf | undefined {
  let doc: unknown;
  try {
    doc = parseJson(body);
  } catch {
    return undefined;
  }
  const item = (doc as { data?: { data?: { item?: Record<string, unknown> } } })?.data?.data?.item;
  if (!item || typeof item !== 'object') return undefined;
  const models = new Map<string, { name: string | null; stock: number | null }>();
  if (Array.isArray(item['models'])) {
    for (const m of item['models'] as Array<Record<string, unknown>>) {
      if (m && m['model_id'] !== undefined && m['model_id'] !== null)
        models.set(String(m['model_id']), { name: text(m['name']), stock: num(m['stock']) });
    }
  }
  return { title: text(item['title']), product: num(item['stock']), models };
}

/** Products and models whose stock went to 0 or from 0 between the previous response of a URL and the run's. */
export async function stockChangesOfRun(
  r: Reader,
  pipeline: string,
  workflowId: string,
  limit = 200,
): Promise<StockChange[]> {
  if (!(await tableExists(r, 'raw_responses'))) return [];
  const body = async (x: Record<string, unknown>) => {
    if (x['body_ref'] === null || x['body_ref'] === undefined) return String(x['body']);
    const [b] = await r.all(`SELECT body FROM raw_responses WHERE id = ${r.ph(1)}`, [x['body_ref']]);
    return String(b?.['body'] ?? '');
  };
  const current = await r.all(
    `SELECT id, request_key, body, body_ref FROM raw_responses WHERE workflow_id = ${r.ph(1)} AND kind = 'marketplace' ORDER BY id LIMIT ${limit}`,
    [workflowId],
  );
  const out: StockChange[] = [];
  for (const c of current) {
    const [prev] = await r.all(
      `SELECT id, body, body_ref FROM raw_responses WHERE pipeline = ${r.ph(1)} AND kind = 'marketplace' AND request_key = ${r.ph(2)} AND id < ${r.ph(3)}
          AND (workflow_id IS NULL OR workflow_id <> ${r.ph(4)}) ORDER BY id DESC LIMIT 1`,
      [pipeline, c['request_key'], c['id'], workflowId],
    );
    if (!prev) continue;
    const now = stockOf(await body(c));
    const before = stockOf(await body(prev));
    if (!now || !before) continue;
    const push = (model: string | null, modelId: string | null, a: number | null, b: number | null) => {
      if (a === null || b === null) return;
      if (a > 0 && b === 0)
        out.push({
          requestKey: String(c['request_key']),
          title: now.title,
          model,
          modelId,
          previous: a,
          current: b,
          change: 'out of stock',
        });
      if (a === 0 && b > 0)
        out.push({
          requestKey: String(c['request_key']),
          title: now.title,
          model,
          modelId,
          previous: a,
          current: b,
          change: 'back in stock',
        });
    };
    push(null, null, before.product, now.product);
    for (const [id, m] of now.models) push(m.name, id, before.models.get(id)?.stock ?? null, m.stock);
  }
  return out;
}
