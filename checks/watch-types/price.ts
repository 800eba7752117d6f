// price_drop, price_rise: the run's rows of marketplace_price_history whose price changed by at least `by` (a
// percentage, or an amount in major units) against the previous price.
import { z } from 'zod';
import { builtOnce } from '../../lib/built-once.js';
import type { Param } from '../../db/store/sql.js';
import type { WatchDefinition, WatchEnv, WatchOf } from '../definition.js';
import { level, watchBase } from '../fields.js';
import { plain, plainRow } from '../values.js';
import { productLink } from './links.js';

type PriceWatchType = 'price_drop' | 'price_rise';

const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));

const by = z
  .union([
    z.number().positive(),
    z.string().regex(/^[0-9]+(\.[0-9]+)?%?$/, "expected a percentage ('10%') or an amount in major units ('5')"),
  ])
  .transform(String)
  .describe("a percentage ('10%') or an amount in major units ('5')");

async function priceRows(w: WatchOf<PriceWatchType>, env: WatchEnv): Promise<Array<Record<string, unknown>>> {
  const { tx } = env;
  const cols = await env.columns('marketplace_price_history');
  const params: Param[] = [env.pipeline, env.workflowId];
  const where = env.filterSql(w.filter, 'h', cols, params);
  const rows = await tx.all(
    `SELECT h.shop_id, h.item_id, h.model_id, h.price, h.previous_price, h.price_major, h.previous_price_major, h.currency, p.title, r.request_key AS api_url
       FROM marketplace_price_history h
       LEFT JOIN marketplace_products p ON p.pipeline = h.pipeline AND p.shop_id = h.shop_id AND p.item_id = h.item_id
       LEFT JOIN raw_responses r ON r.id = h.load_id
      WHERE h.pipeline = ${tx.ph(1)} AND h.workflow_id = ${tx.ph(2)} AND h.model_id IS ${w.level === 'product' ? '' : 'NOT '}NULL
        AND h.previous_price IS NOT NULL AND h.price IS NOT NULL${where}
      ORDER BY h.shop_id, h.item_id, h.model_id, h.id`,
    params,
  );
  const percent = w.by.endsWith('%');
  const amount = Number(w.by.replace('%', ''));
  const out: Array<Record<string, unknown>> = [];
  for (const r of rows) {
    const price = Number(r['price']);
    const prev = Number(r['previous_price']);
    const major = n(r['price_major']);
    const prevMajor = n(r['previous_price_major']);
    const change = w.type === 'price_drop' ? prev - price : price - prev;
    if (change <= 0 || prev <= 0) continue;
    const changePct = (change / prev) * 100;
    // An amount is in major units; the history's major prices carry the pipeline's divisor.
    const changeMajor = major !== null && prevMajor !== null ? Math.abs(prevMajor - major) : null;
    const hit = percent ? changePct >= amount - 1e-9 : changeMajor !== null && changeMajor >= amount - 1e-9;
    if (!hit) continue;
    out.push({
      ...plainRow({
        shop_id: r['shop_id'],
        item_id: r['item_id'],
        model_id: r['model_id'],
        title: r['title'] ?? null,
        currency: r['currency'] ?? null,
      }),
      price_major: major,
      previous_price_major: prevMajor,
      change_percent: Math.round(changePct * 100) / 100,
      link: productLink(r['api_url'], plain(r['shop_id']), plain(r['item_id'])),
    });
  }
  // Largest changes first: what a Slack message's top N shows.
  out.sort((a, b) => Number(b['change_percent']) - Number(a['change_percent']));
  return out;
}

function priceWatch<T extends PriceWatchType>(type: T, description: string): WatchDefinition<T> {
  const schema = builtOnce(
    () =>
      z.strictObject({
        type: z.literal(type),
        ...watchBase,
        by,
        level,
      }) as unknown as WatchDefinition<T>['schema'],
  );
  return {
    type,
    description,
    onlyKinds: { kinds: ['marketplace'], watches: 'watches marketplace prices and stock' },
    filterTable: () => 'marketplace_price_history',
    get schema() {
      return schema();
    },
    rows: (w, env) => priceRows(w, env),
  };
}

export const priceDropWatch = priceWatch('price_drop', 'marketplace prices of this run that dropped by at least `by`');
export const priceRiseWatch = priceWatch('price_rise', 'marketplace prices of this run that rose by at least `by`');
