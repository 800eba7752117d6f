// Shared by the benchmarks (not a benchmark itself: run.ts skips files starting with '_'): generated marketplace
// products from the simulator's own deterministic generator, in memory or as saved files the way a backfill would
// have them on disk (`{"request": {"url": ...}, "response": ...}`, the form `load` accepts with lineage), and the
// rows a bare baseline writes for them, and the bare prepared-INSERT writer that baseline uses (bareInsert).
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { parseJson, stringifyJson } from '../lib/json.js';
import { marketplaceResponseSchema, type MarketplaceResponse } from '../client/schemas.js';
import type { Database } from '../destinations/contract.js';
import { flattenMarketplace } from '../db/model/flatten/marketplace.js';
import { loadBatch, loadGroups } from '../db/store/load.js';
import { TABLE_META, type DataTableName } from '../db/model/tables.js';
import { generateProduct } from '../simulator/generate/marketplace.js';

export const SEED = 42;

export function productUrl(i: number): { url: string; itemId: number; shopId: number } {
  const itemId = 1_000_000 + i;
  const shopId = 500 + (i % 97);
  return { url: `https://shop.example.tw/api/v4/pdp/get_pc?itemid=${itemId}&shopid=${shopId}`, itemId, shopId };
}

/** Writes products 0..n-1 into `dir` (created), spread over subfolders of 1,000 as a large backfill would be. */
export function writeMarketplaceFiles(dir: string, n: number): void {
  for (let i = 0; i < n; i++) {
    const sub = path.join(dir, `part-${String(Math.floor(i / 1000)).padStart(3, '0')}`);
    if (i % 1000 === 0) fs.mkdirSync(sub, { recursive: true });
    const input = productUrl(i);
    const doc = { request: { url: input.url }, response: generateProduct(SEED, input) };
    fs.writeFileSync(path.join(sub, `product-${String(i).padStart(6, '0')}.json`), stringifyJson(doc));
  }
}

export interface Product {
  raw: string;
  data: MarketplaceResponse;
}

/** The response bodies of products 0..n-1 as the service sends them, one at a time. */
export function* productBodies(n: number): Generator<string> {
  for (let i = 0; i < n; i++) yield stringifyJson(generateProduct(SEED, productUrl(i)));
}

/** Products 0..n-1 in memory, validated as the client would. */
export function* products(n: number): Generator<Product> {
  for (const raw of productBodies(n)) yield { raw, data: marketplaceResponseSchema.parse(parseJson(raw)) };
}

export type Cell = string | number | bigint | null;

/**
 * The rows a baseline writes for one product, per table, as value lists in TABLE_META column order: the flattened
 * rows plus the price history a first load appends, lineage filled with plain values and no row hash.
 */
export function baselineRows(p: Product, loadId: number, loadedAt: string): Array<[DataTableName, Cell[][]]> {
  const flat = flattenMarketplace(p.data);
  const history = [...(flat.marketplace_products ?? []), ...(flat.marketplace_product_models ?? [])].map((r) => ({
    shop_id: r['shop_id'] ?? null,
    item_id: r['item_id'] ?? null,
    model_id: r['model_id'] ?? null,
    price: r['price'] ?? null,
  }));
  const all = { ...flat, marketplace_price_history: history } as Partial<
    Record<DataTableName, Array<Record<string, unknown>>>
  >;
  return (Object.entries(all) as Array<[DataTableName, Array<Record<string, unknown>>]>).map(([t, list]) => {
    const cols = TABLE_META[t].columns;
    return [
      t,
      list.map((r) =>
        cols.map((c) => {
          if (c === 'pipeline') return 'bench';
          if (c === 'load_id') return loadId;
          if (c === 'loaded_at') return loadedAt;
          if (c === 'row_hash') return 'x';
          const v = r[c];
          return v === undefined ? null : typeof v === 'boolean' ? (v ? 1 : 0) : (v as Cell);
        }),
      ),
    ];
  });
}

/**
 * Times loading `list` into `db` the way a pipeline or `scrape-etl load` does: one transaction per product, or
 * `group` products per transaction with a savepoint each. Rows are the flattened rows of every product.
 */
export async function timeProductLoads(
  db: Database,
  list: readonly Product[],
  group?: number,
): Promise<{ seconds: number; rows: number }> {
  const batch = (p: Product) => ({
    pipeline: 'bench',
    kind: 'marketplace' as const,
    endpoint: 'POST /api/marketplace/sync',
    raw: p.raw,
    data: p.data,
  });
  let rows = 0;
  const count = (rowsByTable: Partial<Record<string, number>>) => {
    for (const n of Object.values(rowsByTable)) rows += n ?? 0;
  };
  const t0 = process.hrtime.bigint();
  if (group !== undefined) {
    // As `scrape-etl load` does: the next group is flattened while one is written (db/store/load.ts loadGroups).
    const groups = function* () {
      for (let i = 0; i < list.length; i += group) yield list.slice(i, i + group).map(batch);
    };
    for await (const out of loadGroups(db, groups())) {
      if (out.failed) throw out.failed.error;
      for (const res of out.results) count(res.rowsByTable);
    }
  } else {
    for (const p of list) count((await loadBatch(db, batch(p))).rowsByTable);
  }
  return { seconds: Number(process.hrtime.bigint() - t0) / 1e9, rows };
}

/** One unit of a bare write: per table, its column names and the rows (values in that order). */
export type BareUnit = Iterable<readonly [table: string, columns: readonly string[], rows: readonly Cell[][]]>;

/**
 * The physical baseline of a SQLite load: `units` written into `file` (which already has the schema) with one
 * prepared single-row INSERT per table and column list and one transaction per unit, WAL and synchronous=NORMAL
 * as the loader's connections: no raw landing logic, no hashing, no upsert, no checks. Whatever `units` computes
 * while it is iterated (bench/load.ts flattens there) is on the clock.
 */
export function bareInsert(file: string, units: Iterable<BareUnit>): { seconds: number; rows: number } {
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const stmts = new Map<string, BetterSqlite3.Statement>();
  const stmt = (t: string, cols: readonly string[]) => {
    const key = `${t}\u0001${cols.join(',')}`;
    let s = stmts.get(key);
    if (!s) {
      s = db.prepare(
        `INSERT OR REPLACE INTO "${t}" (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
      );
      stmts.set(key, s);
    }
    return s;
  };
  let rows = 0;
  const t0 = process.hrtime.bigint();
  for (const unit of units) {
    db.transaction(() => {
      for (const [t, cols, list] of unit) {
        const s = stmt(t, cols);
        for (const values of list) {
          s.run(values);
          rows++;
        }
      }
    })();
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  db.close();
  return { seconds, rows };
}

/**
 * What a loaded SQLite file holds, as bare-write units: its schema (tables and indexes, to create a fresh file
 * like it) and, per load (one URL or file: raw_responses.id, else load_id) in load order, every row of
 * raw_responses and of the tables with a load_id, read outside any clock. The rows a machine floor writes again.
 */
export function loadedUnits(file: string): {
  schema: string[];
  perLoad: Array<Array<readonly [string, readonly string[], Cell[][]]>>;
} {
  const src = new BetterSqlite3(file, { readonly: true });
  const schema = src
    .prepare(`select sql from sqlite_master where sql is not null and name not like 'sqlite_%' order by type desc`)
    .pluck()
    .all() as string[];
  const tables = (
    src
      .prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`)
      .pluck()
      .all() as string[]
  ).filter(
    (t) =>
      t === 'raw_responses' ||
      (src.prepare(`select name from pragma_table_info(?)`).pluck().all(t) as string[]).includes('load_id'),
  );
  const byLoad = new Map<number, Array<readonly [string, readonly string[], Cell[][]]>>();
  for (const t of tables) {
    const stmt = src.prepare(`select * from "${t}"`).raw(true).safeIntegers(true);
    const cols = stmt.columns().map((c) => c.name);
    const at = cols.indexOf(t === 'raw_responses' ? 'id' : 'load_id');
    const perLoad = new Map<number, Cell[][]>();
    for (const row of stmt.iterate() as Iterable<Cell[]>) {
      const id = Number(row[at]);
      let list = perLoad.get(id);
      if (!list) perLoad.set(id, (list = []));
      list.push(row);
    }
    for (const [id, list] of perLoad) {
      let unit = byLoad.get(id);
      if (!unit) byLoad.set(id, (unit = []));
      unit.push([t, cols, list]);
    }
  }
  src.close();
  return { schema, perLoad: [...byLoad.keys()].sort((a, b) => a - b).map((id) => byLoad.get(id)!) };
}

/** A new SQLite file at `file` (WAL, as the loader's) with `schema`'s tables and indexes and no rows. */
export function emptyCopy(file: string, schema: readonly string[]): void {
  const dst = new BetterSqlite3(file);
  dst.pragma('journal_mode = WAL');
  for (const sql of schema) dst.exec(sql);
  dst.close();
}
