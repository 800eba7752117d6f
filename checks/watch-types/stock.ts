// back_in_stock, out_of_stock: items (products, or models with level: model) whose stock moved between in and out
// since the watch last saw them (watch_state); an item seen for the first time only records its state.
import { z } from 'zod';
import { builtOnce } from '../../lib/built-once.js';
import type { Param } from '../../db/store/sql.js';
import type { WatchDefinition, WatchEnv, WatchOf } from '../definition.js';
import { level, watchBase } from '../fields.js';
import { plain, plainRow } from '../values.js';
import { productLink } from './links.js';

type StockWatchType = 'back_in_stock' | 'out_of_stock';

const stockTable = (w: { level: 'product' | 'model' }) =>
  w.level === 'model' ? 'marketplace_product_models' : 'marketplace_products';

async function stockRows(w: WatchOf<StockWatchType>, env: WatchEnv): Promise<Array<Record<string, unknown>>> {
  const { tx } = env;
  const model = w.level === 'model';
  const table = stockTable(w);
  const cols = await env.columns(table);
  const params: Param[] = [env.pipeline];
  const where = env.filterSql(w.filter, 't', cols, params);
  // A product's stock is its models' sum (the product row's own `stock` is often null); a model's is its own.
  const stock = model
    ? 't.stock'
    : `COALESCE((SELECT sum(m.stock) FROM marketplace_product_models m WHERE m.pipeline = t.pipeline AND m.shop_id = t.shop_id AND m.item_id = t.item_id), t.stock)`;
  const rows = await tx.all(
    `SELECT t.shop_id, t.item_id, ${model ? 't.model_id, t.name AS model_name, p.title' : 't.title'}, t.price_major, ${stock} AS stock, r.request_key AS api_url
       FROM ${table} t ${model ? 'LEFT JOIN marketplace_products p ON p.pipeline = t.pipeline AND p.shop_id = t.shop_id AND p.item_id = t.item_id' : ''}
       LEFT JOIN raw_responses r ON r.id = t.load_id
      WHERE t.pipeline = ${tx.ph(1)}${where}
      ORDER BY t.shop_id, t.item_id${model ? ', t.model_id' : ''}`,
    params,
  );
  const before = await env.readState(w.name);
  const changes = new Map<string, string>();
  const out: Array<Record<string, unknown>> = [];
  for (const r of rows) {
    const key = model
      ? `${String(r['shop_id'])}:${String(r['item_id'])}:${String(r['model_id'])}`
      : `${String(r['shop_id'])}:${String(r['item_id'])}`;
    const s = r['stock'] === null || r['stock'] === undefined ? null : Number(r['stock']);
    if (s === null) continue; // stock unknown: neither in nor out
    const now = s > 0 ? 'in' : 'out';
    const prev = before.get(key);
    if (prev !== now) changes.set(key, now);
    if (prev === undefined) continue;
    const fired = w.type === 'back_in_stock' ? prev === 'out' && now === 'in' : prev === 'in' && now === 'out';
    if (!fired) continue;
    const { api_url, ...rest } = r;
    out.push({ ...plainRow(rest), link: productLink(api_url, plain(r['shop_id']), plain(r['item_id'])) });
  }
  await env.writeState(w.name, changes);
  return out;
}

function stockWatch<T extends StockWatchType>(type: T, description: string): WatchDefinition<T> {
  const schema = builtOnce(
    () => z.strictObject({ type: z.literal(type), ...watchBase, level }) as unknown as WatchDefinition<T>['schema'],
  );
  return {
    type,
    description,
    onlyKinds: { kinds: ['marketplace'], watches: 'watches marketplace prices and stock' },
    // Stock watches filter the models (or products) they compare.
    filterTable: (w) => stockTable(w),
    get schema() {
      return schema();
    },
    rows: (w, env) => stockRows(w, env),
  };
}

export const backInStockWatch = stockWatch(
  'back_in_stock',
  'marketplace items that were out of stock and are in stock again',
);
export const outOfStockWatch = stockWatch(
  'out_of_stock',
  'marketplace items that were in stock and are out of stock now',
);
