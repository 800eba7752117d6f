// Price and stock drift of marketplace products between runs: the product of epoch 0 is generateProduct's; at a
// later epoch a product may change its prices (every model by one factor, so the product's price moves by it
// too), models may go out of or back into stock, a share of products may vanish (answered 404) and a share may
// lose fields (null). Each is a pure function of (seed, shop, item, epoch), so a test computes the truth of any
// epoch, and the same epoch always answers the same.
import { rngFor, unitFor } from '../random.js';
import type { JsonObject } from './results.js';

export interface DriftSettings {
  /** Prices and stock change with the epoch (off: every epoch answers epoch 0's product). */
  priceDrift: boolean;
  /** The current epoch; advanced by the admin call, or by the clock with `everyMs`. */
  epoch: number;
  /** Share of products answered 404 (product not found) at epochs > 0. */
  vanishRate: number;
  /** Share of products whose `nullFields` are null at epochs > 0. */
  nullRate: number;
  /** Dot paths under the response's `data.data`, e.g. `product_review.historical_sold` or `item.brand`. */
  nullFields: string[];
}

export const DEFAULT_DRIFT: DriftSettings = { priceDrift: false, epoch: 0, vanishRate: 0, nullRate: 0, nullFields: [] };

/** Share of products whose prices change from one epoch to the next, and of models whose stock flips. */
export const PRICE_CHANGE_SHARE = 0.5;
export const STOCK_FLIP_SHARE = 0.4;

export function vanished(seed: number, shopId: number, itemId: number, d: DriftSettings, epoch = d.epoch): boolean {
  return epoch > 0 && d.vanishRate > 0 && unitFor(seed, 'drift-vanish', shopId, itemId, epoch) < d.vanishRate;
}

/** The price factor of a product at an epoch (1: unchanged). Between 0.6 and 1.4, in steps of 5%. */
export function priceFactor(seed: number, shopId: number, itemId: number, epoch: number): number {
  if (epoch <= 0) return 1;
  const r = rngFor(seed, 'drift-price', shopId, itemId, epoch);
  if (!r.chance(PRICE_CHANGE_SHARE)) return 1;
  const steps = [-8, -7, -6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6, 7, 8];
  return 1 + (steps[r.int(0, steps.length - 1)] as number) * 0.05;
}

/** Whether model i's stock is flipped (in -> out, out -> in) at an epoch, against epoch 0. */
export function stockFlipped(seed: number, shopId: number, itemId: number, i: number, epoch: number): boolean {
  return epoch > 0 && rngFor(seed, 'drift-stock', shopId, itemId, i, epoch).chance(STOCK_FLIP_SHARE);
}

const scaled = (price: number, factor: number) =>
  factor === 1 ? price : Math.max(1000, Math.round((price * factor) / 1000) * 1000);

/** The epoch-0 product body changed as `d` says for `epoch` (a new object; the body given is not changed). */
export function driftProduct(
  body: JsonObject,
  seed: number,
  shopId: number,
  itemId: number,
  d: DriftSettings,
  epoch = d.epoch,
): JsonObject {
  if (epoch <= 0) return body;
  const out = structuredClone(body) as { data: { data: { item: JsonObject } } };
  const item = out.data.data.item as Record<string, unknown>;
  if (d.priceDrift) {
    const factor = priceFactor(seed, shopId, itemId, epoch);
    const models = (item['models'] ?? []) as Array<Record<string, unknown>>;
    let lo = Infinity;
    let hi = -Infinity;
    let pbdLo = Infinity;
    let pbdHi = -Infinity;
    for (const [i, m] of models.entries()) {
      m['price'] = scaled(Number(m['price']), factor);
      if (Number(m['price_before_discount']) > 0)
        m['price_before_discount'] = scaled(Number(m['price_before_discount']), factor);
      if (stockFlipped(seed, shopId, itemId, i, epoch)) {
        const stock = Number(m['stock']) > 0 ? 0 : rngFor(seed, 'drift-restock', shopId, itemId, i, epoch).int(1, 500);
        m['stock'] = stock;
        m['normal_stock'] = stock;
        const ps = (
          m['price_stocks'] as Array<{ stock_breakdown_by_location: Array<Record<string, unknown>> }> | undefined
        )?.[0];
        if (ps)
          ps.stock_breakdown_by_location = ps.stock_breakdown_by_location
            .slice(0, 1)
            .map((b) => ({ ...b, available_stock: stock }));
      }
      lo = Math.min(lo, Number(m['price']));
      hi = Math.max(hi, Number(m['price']));
      if (Number(m['price_before_discount']) > 0) {
        pbdLo = Math.min(pbdLo, Number(m['price_before_discount']));
        pbdHi = Math.max(pbdHi, Number(m['price_before_discount']));
      }
    }
    if (models.length > 0) {
      item['price'] = lo;
      item['price_min'] = lo;
      item['price_max'] = hi;
      if (Number(item['price_before_discount']) > 0 && pbdLo !== Infinity) {
        item['price_before_discount'] = pbdLo;
        item['price_min_before_discount'] = pbdLo;
        item['price_max_before_discount'] = pbdHi;
      }
      const pp = (out.data.data as Record<string, unknown>)['product_price'] as Record<string, unknown> | undefined;
      if (pp && pp['price'])
        pp['price'] = {
          single_value: lo === hi ? lo : -1,
          range_min: lo === hi ? -1 : lo,
          range_max: lo === hi ? -1 : hi,
          price_mask: null,
        };
    }
  }
  if (d.nullRate > 0 && d.nullFields.length > 0 && unitFor(seed, 'drift-null', shopId, itemId, epoch) < d.nullRate) {
    for (const f of d.nullFields) {
      const parts = f.split('.');
      let at = out.data.data as Record<string, unknown> | undefined;
      for (const p of parts.slice(0, -1))
        at = at && typeof at[p] === 'object' && at[p] !== null ? (at[p] as Record<string, unknown>) : undefined;
      if (at) at[parts[parts.length - 1] as string] = null;
    }
  }
  return out as unknown as JsonObject;
}
