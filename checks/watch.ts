// Watches: the data events of a run (prices that dropped or rose, items back in or out of stock, new rows of a
// table). Each watch's event of a run is computed once, in one transaction that also moves watch_state, and
// stored in watch_events; a retried activity (a worker killed during delivery) reads the stored event instead of
// computing again, so it delivers exactly the rows the first attempt found.
//
// Price watches read the run's rows of marketplace_price_history (workflow_id = the run, previous price known).
// Stock watches compare each item's stock with what the watch saw last (watch_state); an item seen for the first
// time only records its state. new_rows: rows whose key the watch has not seen; the first evaluation of a watch
// counts only the rows this run loaded, not the table's older rows.
import type { Database } from '../destinations/contract.js';
import { quoteIdent, withTransaction, type Param, type Tx } from '../db/sql.js';
import type { WatchSpec } from '../pipelines/spec.js';
import { columnsOf, parseExpression, toSql } from './expression.js';
import { sampleKey, tableColumns } from './columns.js';

/** Rows stored per event (and carried by the JSON body); `rowCount` has them all. */
export const MAX_EVENT_ROWS = 200;

export interface WatchEvent {
  watch: string;
  event: WatchSpec['type'];
  rowCount: number;
  rows: Array<Record<string, unknown>>;
}

function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (v instanceof Date) return v.toISOString();
  return v;
}
const plainRow = (r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, plain(v)]));
const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/** The product page of a marketplace item, from the product API URL it was scraped from (same host). */
export function productLink(apiUrl: unknown, shopId: unknown, itemId: unknown): string | null {
  if (typeof apiUrl !== 'string' || !URL.canParse(apiUrl)) return null;
  return `${new URL(apiUrl).origin}/product/${String(shopId)}/${String(itemId)}`;
}

/** `filter` as SQL over `alias.column`, its values appended to `params` (numbered from params.length + 1). */
function filterSql(tx: Tx, filter: string | undefined, alias: string, cols: ReadonlyMap<string, string>, params: Param[]): string {
  if (!filter) return '';
  const expr = parseExpression(filter);
  const missing = columnsOf(expr).filter((c) => !cols.has(c));
  if (missing.length > 0) throw new Error(`filter '${filter}': no column ${missing.join(', ')}`);
  return ` AND (${toSql(
    expr,
    (c) => `${alias}.${quoteIdent(c)}`,
    (v) => {
      params.push(v);
      return tx.ph(params.length);
    },
  )}) IS TRUE`;
}

async function priceEvent(tx: Tx, w: Extract<WatchSpec, { type: 'price_drop' | 'price_rise' }>, pipeline: string, workflowId: string) {
  const cols = await tableColumns(tx, 'marketplace_price_history');
  const params: Param[] = [pipeline, workflowId];
  const where = filterSql(tx, w.filter, 'h', cols, params);
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
  const by = Number(w.by.replace('%', ''));
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
    const hit = percent ? changePct >= by - 1e-9 : changeMajor !== null && changeMajor >= by - 1e-9;
    if (!hit) continue;
    out.push({
      ...plainRow({ shop_id: r['shop_id'], item_id: r['item_id'], model_id: r['model_id'], title: r['title'] ?? null, currency: r['currency'] ?? null }),
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

async function readState(tx: Tx, pipeline: string, watch: string): Promise<Map<string, string>> {
  const rows = await tx.all(`SELECT item_key, state FROM watch_state WHERE pipeline = ${tx.ph(1)} AND watch = ${tx.ph(2)}`, [pipeline, watch]);
  return new Map(rows.map((r) => [String(r['item_key']), String(r['state'])]));
}

async function writeState(tx: Tx, pipeline: string, watch: string, changes: ReadonlyMap<string, string>, at: string): Promise<void> {
  const sql = `INSERT INTO watch_state (pipeline, watch, item_key, state, updated_at) VALUES (${[1, 2, 3, 4, 5].map((i) => tx.ph(i)).join(', ')})
    ON CONFLICT (pipeline, watch, item_key) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`;
  for (const [key, state] of changes) await tx.run(sql, [pipeline, watch, key, state, at]);
}

async function stockEvent(tx: Tx, w: Extract<WatchSpec, { type: 'back_in_stock' | 'out_of_stock' }>, pipeline: string, at: string) {
  const model = w.level === 'model';
  const table = model ? 'marketplace_product_models' : 'marketplace_products';
  const cols = await tableColumns(tx, table);
  const params: Param[] = [pipeline];
  const where = filterSql(tx, w.filter, 't', cols, params);
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
  const before = await readState(tx, pipeline, w.name);
  const changes = new Map<string, string>();
  const out: Array<Record<string, unknown>> = [];
  for (const r of rows) {
    const key = model ? `${String(r['shop_id'])}:${String(r['item_id'])}:${String(r['model_id'])}` : `${String(r['shop_id'])}:${String(r['item_id'])}`;
    const s = n(r['stock']);
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
  await writeState(tx, pipeline, w.name, changes, at);
  return out;
}

async function newRowsEvent(tx: Tx, w: Extract<WatchSpec, { type: 'new_rows' }>, pipeline: string, workflowId: string, at: string) {
  const cols = await tableColumns(tx, w.table);
  if (cols.size === 0) return [];
  const key = sampleKey(w.table, cols).filter((k) => cols.has(k));
  const params: Param[] = [pipeline];
  const where = filterSql(tx, w.filter, 't', cols, params);
  const before = await readState(tx, pipeline, w.name);
  // The first evaluation: rows older than this run are the baseline, not news.
  const first = before.size === 0;
  const runLoads = first ? await tx.all(`SELECT id FROM raw_responses WHERE workflow_id = ${tx.ph(1)}`, [workflowId]) : [];
  const ofRun = new Set(runLoads.map((r) => String(r['id'])));
  const rows = await tx.all(`SELECT t.* FROM ${quoteIdent(w.table)} t WHERE t.pipeline = ${tx.ph(1)}${where} ORDER BY ${key.map((k) => `t.${quoteIdent(k)}`).join(', ')}`, params);
  const changes = new Map<string, string>();
  const out: Array<Record<string, unknown>> = [];
  for (const r of rows) {
    const k = JSON.stringify(key.map((c) => String(r[c])));
    if (before.has(k)) continue;
    changes.set(k, 'seen');
    if (first && !ofRun.has(String(r['load_id']))) continue;
    const { row_hash: _h, ...rest } = r;
    out.push(plainRow(rest));
  }
  await writeState(tx, pipeline, w.name, changes, at);
  return out;
}

/**
 * The events of the run's watches: stored ones for watches already evaluated for this run, computed (and
 * stored, with the watch's state) for the others. Events with no rows are stored too, so a retry does not find
 * news the first evaluation had already absorbed into the state.
 */
export async function evaluateWatches(db: Database, o: { pipeline: string; workflowId: string; watches: readonly WatchSpec[]; now?: Date }): Promise<WatchEvent[]> {
  const at = (o.now ?? new Date()).toISOString();
  const out: WatchEvent[] = [];
  for (const w of o.watches) {
    out.push(
      await withTransaction(db, async (tx) => {
        const [stored] = await tx.all(`SELECT event, row_count, rows FROM watch_events WHERE workflow_id = ${tx.ph(1)} AND watch = ${tx.ph(2)}`, [o.workflowId, w.name]);
        if (stored) {
          return { watch: w.name, event: String(stored['event']) as WatchSpec['type'], rowCount: Number(stored['row_count']), rows: JSON.parse(String(stored['rows'])) as Array<Record<string, unknown>> };
        }
        const rows =
          w.type === 'price_drop' || w.type === 'price_rise'
            ? await priceEvent(tx, w, o.pipeline, o.workflowId)
            : w.type === 'new_rows'
              ? await newRowsEvent(tx, w, o.pipeline, o.workflowId, at)
              : await stockEvent(tx, w as Extract<WatchSpec, { type: 'back_in_stock' | 'out_of_stock' }>, o.pipeline, at);
        const kept = rows.slice(0, MAX_EVENT_ROWS);
        await tx.run(
          `INSERT INTO watch_events (workflow_id, watch, pipeline, event, row_count, rows, created_at) VALUES (${[1, 2, 3, 4, 5, 6, 7].map((i) => tx.ph(i)).join(', ')})`,
          [o.workflowId, w.name, o.pipeline, w.type, rows.length, JSON.stringify(kept), at],
        );
        return { watch: w.name, event: w.type, rowCount: rows.length, rows: kept };
      }),
    );
  }
  return out;
}
