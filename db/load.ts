// Transactional, idempotent loads. One call = one response = one transaction: the raw body is landed in
// raw_responses (its id is the batch's load id), the flattened rows are upserted on their natural keys, child
// rows that vanished from a product or result are deleted, and price changes are appended to the history.
// Upserts change a row only when its row_hash differs, so loading the same data again changes no table but
// raw_responses.
import crypto from 'node:crypto';
import type { Database } from './connect.js';
import { flattenResponse, type FlattenInput } from './flatten/index.js';
import { checkPriceDivisor, DEFAULT_PRICE_DIVISOR, toMajor } from './flatten/marketplace.js';
import type { Row, RowsByTable, Scalar } from './flatten/values.js';
import { flattenContentRows, type ContentRootRow } from './flatten/content.js';
import { OPEN_FIELDS } from './flatten/values.js';
import { loadContent, type ContentTarget } from './evolve/content-load.js';
import { evolveSchema, type SchemaChange, type SchemaMode } from './evolve/registry.js';
import { insertRawResponse } from './raw-responses.js';
import { isRetryableTxError, lockAdvisory, quoteIdent, withTransaction, type Param, type Tx } from './sql.js';
import { EVOLVING_TABLES, TABLE_META, type DataTableName, type ResultTableName, type TableMeta } from './tables.js';
import { upsertRows } from './upsert.js';
import { duckTransaction } from './duckdb/tx.js';

export type { LoadKind } from './flatten/index.js';

interface LoadBatchCommon {
  pipeline: string;
  /** `METHOD /path` of the call that returned the body. */
  endpoint: string;
  /** What identifies the request within the pipeline (a URL, a page number, a run id). */
  requestKey?: string | null;
  /** The response body exactly as received. */
  raw: string;
  /** Integer price / divisor = major-unit price (default 100000). */
  priceDivisor?: number;
  scrapingRunId?: number | bigint | null;
  /** Where result records go (pdf_results, leads_results; default scraper_results): the kind registry says. */
  resultTable?: ResultTableName;
  workflowId?: string | null;
  receivedAt?: Date;
  /** Called inside the transaction after each table is written; a throw aborts (and rolls back) the batch. */
  onTableWritten?: (table: string, changed: number) => void | Promise<void>;
  /**
   * The pipeline's inferred content tables (pdf, leads and results pipelines): result content is flattened into
   * them too. Absent: result content lands only in the result table's `content` column.
   */
  content?: ContentTarget | undefined;
  /** Contract for columns that unknown fields add to the model's tables (job_records, marketplace_*); default evolve. */
  schemaMode?: SchemaMode | undefined;
}

export type LoadBatchOptions = LoadBatchCommon & FlattenInput;

/** Per table: the model's tables and, for content pipelines, the inferred ones (`<pipeline>_items`, …). */
export type TableCounts = Partial<Record<string, number>>;

export interface LoadBatchResult {
  loadId: number;
  /** Rows the response flattened to, per table (after collapsing duplicate keys). */
  rowsByTable: TableCounts;
  /** Rows inserted or updated (history: appended) per table; 0 everywhere when the data was already loaded. */
  changedByTable: TableCounts;
  /** Child rows deleted because they disappeared from their product or result. */
  deletedByTable: TableCounts;
  /** Tables and columns this batch added (schema_history rows). */
  schemaChanges: SchemaChange[];
}

/** Upsert order: parents before children (there are no FK constraints; the order only keeps reads intuitive). */
const WRITE_ORDER: readonly DataTableName[] = [
  'scrapers', 'run_records', 'scraping_runs', 'scraper_results', 'pdf_results', 'leads_results', 'job_records', 'marketplace_shops', 'marketplace_products',
  'marketplace_product_models', 'marketplace_model_stocks', 'marketplace_product_attributes',
  'marketplace_product_categories', 'marketplace_product_tier_variations',
  'marketplace_product_tier_variation_options', 'marketplace_product_images', 'marketplace_price_history',
];

/**
 * Child tables whose rows are replaced as a set per parent: a child present before but absent from the new
 * response (a model removed, a content field gone) is deleted in the same transaction.
 */
interface ChildGroup {
  parents: readonly DataTableName[];
  children: readonly DataTableName[];
  /** Child column -> value, selecting one parent's children. */
  filter(parentTable: DataTableName, parent: Row): Record<string, Scalar>;
}
const CHILD_GROUPS: readonly ChildGroup[] = [
  {
    parents: ['marketplace_products'],
    children: [
      'marketplace_product_models', 'marketplace_model_stocks', 'marketplace_product_attributes',
      'marketplace_product_categories', 'marketplace_product_tier_variations',
      'marketplace_product_tier_variation_options', 'marketplace_product_images',
    ],
    filter: (_t, p) => ({ shop_id: p['shop_id'] ?? null, item_id: p['item_id'] ?? null }),
  },
];

// ---- row preparation --------------------------------------------------------------------------------------

function typeError(table: string, column: string, expected: string, v: unknown): TypeError {
  const got = v === null ? 'null' : typeof v;
  return new TypeError(`${table}.${column}: expected ${expected}, got ${got} (${String(v).slice(0, 60)})`);
}

/** Checks a value against its column's kind so both dialects store the same thing (SQLite would accept anything). */
function checkValue(meta: TableMeta, column: string, v: unknown): Scalar {
  if (v === undefined || v === null) return null;
  switch (meta.kinds[column]) {
    case 'int':
      if (typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))) return v;
      throw typeError(meta.name, column, 'integer', v);
    case 'double':
      if (typeof v === 'number' && Number.isFinite(v)) return v;
      if (typeof v === 'bigint') return Number(v);
      throw typeError(meta.name, column, 'finite number', v);
    case 'bool':
      if (typeof v === 'boolean') return v;
      throw typeError(meta.name, column, 'boolean', v);
    default:
      if (typeof v !== 'string') throw typeError(meta.name, column, 'string', v);
      // Postgres text cannot hold NUL; replacing it in both dialects keeps them identical.
      return v.includes('\u0000') ? v.replace(/\u0000/g, '\uFFFD') : v;
  }
}

function hashValues(values: readonly Scalar[]): string {
  const h = crypto.createHash('sha1');
  for (const v of values) {
    // Type-tagged so that null, '' and 'null' differ; number and bigint of equal value hash the same.
    if (v === null) h.update('\u0000N\u0001');
    else if (typeof v === 'boolean') h.update(v ? 'b1\u0001' : 'b0\u0001');
    else if (typeof v === 'string') h.update(`s${v}\u0001`);
    else h.update(`n${String(v)}\u0001`);
  }
  return h.digest('hex');
}

interface Lineage {
  pipeline: string;
  load_id: number;
  loaded_at: string;
}

/**
 * Full row in table column order, then the inferred columns (`inferred`, sorted) from `open`: data columns
 * checked, lineage added, row_hash computed. Inferred values enter the hash by name, and only when not null, so
 * a column added later does not change the hash of rows that lack it.
 */
function completeRow(meta: TableMeta, row: Row, lineage: Lineage, inferred: readonly string[] = [], open: ReadonlyArray<readonly [string, Param]> = []): Scalar[] {
  const data = meta.dataColumns.map((c) => checkValue(meta, c, row[c]));
  const byName = new Map<string, Scalar>(meta.dataColumns.map((c, i) => [c, data[i] ?? null]));
  const openByName = new Map(open);
  const hashed: Scalar[] = [...data];
  for (const c of inferred) {
    const v = openByName.get(c);
    if (v !== null && v !== undefined) hashed.push(`\u0002${c}`, v);
  }
  const rowHash = hashValues(hashed);
  const fixed = meta.columns.map((c) => {
    if (c === 'pipeline') return lineage.pipeline;
    if (c === 'load_id') return lineage.load_id;
    if (c === 'loaded_at') return lineage.loaded_at;
    if (c === 'row_hash') return rowHash;
    return byName.get(c) ?? null;
  });
  return [...fixed, ...inferred.map((c) => openByName.get(c) ?? null)];
}

function keyString(values: readonly unknown[]): string {
  return values.map((v) => (v === null || v === undefined ? '\u0000' : String(v))).join('\u0001');
}

/**
 * Rows of one table with duplicate natural keys collapsed (the last wins, as a later page would), sorted by key:
 * concurrent loads whose key sets overlap then lock the rows they upsert in the same order, so they wait for
 * each other instead of deadlocking.
 */
function dedupe(meta: TableMeta, rows: readonly Row[], pipeline: string): Row[] {
  if (meta.key.length === 0) return [...rows];
  const byKey = new Map<string, Row>();
  for (const r of rows) byKey.set(keyString(meta.key.map((k) => (k === 'pipeline' ? pipeline : r[k]))), r);
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
}

// ---- SQL --------------------------------------------------------------------------------------------------

function whereEquals(tx: Tx, columns: readonly string[], offset = 0): string {
  return columns.map((c, i) => `${quoteIdent(c)} = ${tx.ph(offset + i + 1)}`).join(' AND ');
}

// ---- child replacement and price history -------------------------------------------------------------------

async function deleteVanishedChildren(
  tx: Tx,
  pipeline: string,
  parentTable: DataTableName,
  parents: readonly Row[],
  group: ChildGroup,
  incoming: RowsByTable,
): Promise<TableCounts> {
  const deleted: TableCounts = {};
  // Children only ever exist with their parent (both are written in one transaction), so a parent that is
  // new to the table has nothing to delete: one lookup instead of one per child table.
  const parentMeta = TABLE_META[parentTable];
  const parentCols = parentMeta.key.filter((k) => k !== 'pipeline');
  const existsSql = `SELECT 1 AS x FROM ${quoteIdent(parentTable)} WHERE ${whereEquals(tx, ['pipeline', ...parentCols])}`;
  const existing: Row[] = [];
  for (const p of parents) {
    if ((await tx.all(existsSql, [pipeline, ...parentCols.map((c) => p[c] ?? null)])).length > 0) existing.push(p);
  }
  if (existing.length === 0) return deleted;
  for (const child of group.children) {
    const meta = TABLE_META[child];
    const filterCols = Object.keys(group.filter(parentTable, {}));
    const ownKey = meta.key.filter((k) => k !== 'pipeline' && !filterCols.includes(k));
    // New child keys grouped by parent.
    const newKeys = new Map<string, Set<string>>();
    for (const r of incoming[child] ?? []) {
      const parentKey = keyString(filterCols.map((c) => r[c]));
      let set = newKeys.get(parentKey);
      if (!set) newKeys.set(parentKey, (set = new Set()));
      set.add(keyString(ownKey.map((k) => r[k])));
    }
    const selectSql = `SELECT ${ownKey.map(quoteIdent).join(', ')} FROM ${quoteIdent(child)} WHERE ${whereEquals(tx, ['pipeline', ...filterCols])}`;
    const deleteSql = `DELETE FROM ${quoteIdent(child)} WHERE ${whereEquals(tx, ['pipeline', ...filterCols, ...ownKey])}`;
    for (const parent of existing) {
      const filter = group.filter(parentTable, parent);
      const filterVals = filterCols.map((c) => filter[c] ?? null);
      const keep = newKeys.get(keyString(filterVals)) ?? new Set<string>();
      const existing = await tx.all(selectSql, [pipeline, ...filterVals]);
      for (const e of existing) {
        const vals = ownKey.map((k) => e[k] as Param);
        if (keep.has(keyString(vals))) continue;
        deleted[child] = (deleted[child] ?? 0) + (await tx.run(deleteSql, [pipeline, ...filterVals, ...vals]));
      }
    }
  }
  return deleted;
}

const same = (a: unknown, b: unknown) => keyString([a]) === keyString([b]);

/** History rows for products and models whose price differs from what the tables hold before this load. */
async function priceChanges(tx: Tx, pipeline: string, rows: RowsByTable, divisor: number): Promise<Row[]> {
  const history: Row[] = [];
  const productSql = `SELECT price, price_min, price_max, price_before_discount FROM marketplace_products WHERE ${whereEquals(tx, ['pipeline', 'shop_id', 'item_id'])}`;
  const modelSql = `SELECT model_id, price, price_before_discount FROM marketplace_product_models WHERE ${whereEquals(tx, ['pipeline', 'shop_id', 'item_id'])}`;
  const models = rows.marketplace_product_models ?? [];
  for (const p of rows.marketplace_products ?? []) {
    const shop_id = p['shop_id'] ?? null;
    const item_id = p['item_id'] ?? null;
    const currency = p['currency'] ?? null;
    const [prev] = await tx.all(productSql, [pipeline, shop_id, item_id]);
    const fields = ['price', 'price_min', 'price_max', 'price_before_discount'] as const;
    if (!prev || fields.some((f) => !same(prev[f], p[f]))) {
      history.push({
        shop_id, item_id, model_id: null, price: p['price'] ?? null, price_min: p['price_min'] ?? null,
        price_max: p['price_max'] ?? null, price_before_discount: p['price_before_discount'] ?? null,
        price_major: toMajor(p['price'], divisor), previous_price: prev ? (prev['price'] as Param) : null, currency,
      });
    }
    const prevModels = new Map<string, Record<string, unknown>>();
    for (const m of await tx.all(modelSql, [pipeline, shop_id, item_id])) prevModels.set(keyString([m['model_id']]), m);
    for (const m of models) {
      if (!same(m['shop_id'], shop_id) || !same(m['item_id'], item_id)) continue;
      const before = prevModels.get(keyString([m['model_id']]));
      if (before && same(before['price'], m['price']) && same(before['price_before_discount'], m['price_before_discount'])) continue;
      history.push({
        shop_id, item_id, model_id: m['model_id'] ?? null, price: m['price'] ?? null, price_min: null, price_max: null,
        price_before_discount: m['price_before_discount'] ?? null, price_major: toMajor(m['price'], divisor),
        previous_price: before ? (before['price'] as Param) : null, currency,
      });
    }
  }
  return history;
}

/** Postgres int8 arrives as a string; price columns compared to history need numbers or bigints back. */
function toIntScalar(v: Scalar): Scalar {
  if (typeof v !== 'string') return v;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : BigInt(v);
}

// ---- concurrent loads of the same parents ------------------------------------------------------------------

/** A 64-bit advisory lock key for one parent row; a collision only makes two unrelated loads wait. */
function parentLockKey(table: DataTableName, key: readonly unknown[]): bigint {
  const digest = crypto.createHash('sha1').update(`${table}\u0002${keyString(key)}`).digest('hex');
  return BigInt.asIntN(64, BigInt(`0x${digest.slice(0, 16)}`));
}

/**
 * Products whose rows a load reads before it writes. The price history compares a product's new prices with
 * the stored ones, so two loads of the same product must not interleave (both would see "no earlier price"
 * and append the first price twice), and child replacement must see the other load's models.
 * Results are left out: their content is fixed once their run finished, and one batch carries up to a thousand
 * of them, each lock a slot in Postgres's shared lock table. A marketplace response carries one product.
 */
const LOCKED_PARENTS: readonly DataTableName[] = ['marketplace_products'];

/**
 * Postgres only (SQLite writers are serialised by BEGIN IMMEDIATE). Each load takes a transaction-scoped
 * advisory lock per product it writes, all of them first and in one sorted order, so loads of the same product
 * queue and loads of different ones run in parallel.
 */
async function lockParents(tx: Tx, pipeline: string, rows: RowsByTable): Promise<void> {
  if (tx.dialect !== 'postgres') return;
  const keys = new Set<bigint>();
  for (const table of LOCKED_PARENTS) {
    const meta = TABLE_META[table];
    for (const r of rows[table] ?? []) keys.add(parentLockKey(table, meta.key.map((k) => (k === 'pipeline' ? pipeline : r[k]))));
  }
  await lockAdvisory(tx, keys);
}

// ---- entry point ------------------------------------------------------------------------------------------

/** Result records of a batch, for the content tables. */
function contentRecordsOf(opts: LoadBatchOptions) {
  if (opts.kind === 'results') return opts.data.data;
  if (opts.kind === 'scraping-run') return opts.data.data.results;
  return [];
}

/**
 * Brings the inferred columns of the model's evolving tables (job_records, marketplace_*) up to this batch and
 * resolves each row's unknown fields to them. Run for every such table the batch writes, with or without unknown
 * fields: the upsert then sets every inferred column, so a field that disappeared from the newest answer reads
 * NULL instead of its old value.
 */
async function evolveFixedTables(tx: Tx, pipeline: string, rows: RowsByTable, mode: SchemaMode, describeBatch: string, loadId: number, changedAt: string) {
  const tables = EVOLVING_TABLES.filter((t) => rows[t] !== undefined);
  const inferred = new Map<DataTableName, { columns: string[]; open: Array<Array<readonly [string, Param]>> }>();
  if (tables.length === 0) return { inferred, changes: [] as SchemaChange[] };
  // One registry read (and, in Postgres, one round of locks) for every evolving table of the batch.
  const evolving = tables.flatMap((table) => rows[table]!.map((r) => ({ table, fields: r[OPEN_FIELDS] ?? [] })));
  const out = await evolveSchema(tx, {
    pipeline,
    mode,
    scope: { tables, prefixes: [] },
    rows: evolving,
    templateOf: () => undefined,
    fixedColumnsOf: (t) => (tables as readonly string[]).includes(t) ? new Set(TABLE_META[t as DataTableName].columns) : undefined,
    describeBatch,
    loadId,
    changedAt,
  });
  let offset = 0;
  for (const table of tables) {
    const n = rows[table]!.length;
    inferred.set(table, { columns: [...(out.registry.get(table)?.keys() ?? [])].sort(), open: out.resolved.slice(offset, offset + n) });
    offset += n;
  }
  return { inferred, changes: out.changes };
}

/** A response flattened and ready to write: the pure, possibly slow part of a load, done outside any lock. */
interface PreparedBatch {
  opts: LoadBatchOptions;
  divisor: number;
  rows: RowsByTable;
  rowsByTable: TableCounts;
  contentRoots: ContentRootRow[];
  loadedAt: string;
}

function prepareBatch(opts: LoadBatchOptions): PreparedBatch {
  if (!opts.pipeline) throw new Error('loadBatch: pipeline name is required');
  const divisor = checkPriceDivisor(opts.priceDivisor ?? DEFAULT_PRICE_DIVISOR);
  // Pure and possibly slow: done before the transaction takes its locks.
  const flat = flattenResponse(
    { kind: opts.kind, data: opts.data } as FlattenInput,
    { priceDivisor: divisor, ...(opts.resultTable ? { resultTable: opts.resultTable } : {}) },
  );
  const pipeline = opts.pipeline;
  const rows: RowsByTable = {};
  const rowsByTable: TableCounts = {};
  for (const table of WRITE_ORDER) {
    const r = flat[table];
    if (!r || r.length === 0) continue;
    rows[table] = dedupe(TABLE_META[table], r, pipeline);
    rowsByTable[table] = rows[table].length;
  }
  const content = opts.content;
  const contentRoots: ContentRootRow[] = content ? flattenContentRows(contentRecordsOf(opts), content) : [];
  return { opts, divisor, rows, rowsByTable, contentRoots, loadedAt: new Date().toISOString() };
}

/** One response's writes inside the caller's transaction: raw landing, schema evolution, upserts, content tables. */
async function writeBatch(tx: Tx, prepared: PreparedBatch): Promise<LoadBatchResult> {
  const { opts, divisor, rows, rowsByTable, contentRoots, loadedAt } = prepared;
  const pipeline = opts.pipeline;
  const content = opts.content;
  const body = opts.raw;
  await lockParents(tx, pipeline, rows);
  const loadId = await insertRawResponse(tx, {
    pipeline,
    kind: opts.kind,
    endpoint: opts.endpoint,
    requestKey: opts.requestKey ?? null,
    workflowId: opts.workflowId ?? null,
    scrapingRunId: opts.scrapingRunId ?? null,
    receivedAt: opts.receivedAt ?? new Date(),
    loadedAt,
    body,
  });
  const lineage: Lineage = { pipeline, load_id: loadId, loaded_at: loadedAt };
  const changedByTable: TableCounts = {};
  const deletedByTable: TableCounts = {};
  const describeBatch = `load ${loadId} (${opts.endpoint}${opts.requestKey ? `, ${opts.requestKey}` : ''}${opts.scrapingRunId != null ? `, scraping run ${opts.scrapingRunId}` : ''})`;

  // Schema changes first: DDL must precede every other statement on the tables it alters (evolve/registry.ts).
  const fixed = await evolveFixedTables(tx, pipeline, rows, opts.schemaMode ?? 'evolve', describeBatch, loadId, loadedAt);
  const schemaChanges = [...fixed.changes];

  if (rows.marketplace_products) {
    const history = (await priceChanges(tx, pipeline, rows, divisor)).map((h) => {
      const out: Row = {};
      for (const [k, v] of Object.entries(h)) out[k] = TABLE_META.marketplace_price_history.kinds[k] === 'int' ? toIntScalar(v ?? null) : (v ?? null);
      return out;
    });
    if (history.length > 0) {
      rows.marketplace_price_history = history;
      rowsByTable.marketplace_price_history = history.length;
    }
  }

  for (const group of CHILD_GROUPS) {
    for (const parentTable of group.parents) {
      const parents = rows[parentTable];
      if (!parents) continue;
      const deleted = await deleteVanishedChildren(tx, pipeline, parentTable, parents, group, rows);
      for (const [t, n] of Object.entries(deleted) as Array<[DataTableName, number]>) {
        deletedByTable[t] = (deletedByTable[t] ?? 0) + n;
      }
    }
  }

  for (const table of WRITE_ORDER) {
    const tableRows = rows[table];
    if (!tableRows) continue;
    const meta = TABLE_META[table];
    const inferred = fixed.inferred.get(table);
    const params = tableRows.map((r, i) => completeRow(meta, r, lineage, inferred?.columns, inferred?.open[i]));
    const { changed } = await upsertRows(tx, { table, columns: [...meta.columns, ...(inferred?.columns ?? [])], key: meta.key }, params);
    changedByTable[table] = changed;
    await opts.onTableWritten?.(table, changed);
  }

  if (content) {
    const out = await loadContent(tx, content, contentRoots, { pipeline, loadId, loadedAt, describeBatch });
    schemaChanges.push(...out.changes);
    for (const [t, n] of Object.entries(out.rowsByTable)) rowsByTable[t] = n;
    for (const [t, n] of Object.entries(out.changedByTable)) {
      changedByTable[t] = n;
      await opts.onTableWritten?.(t, n);
    }
  }
  return { loadId, rowsByTable, changedByTable, deletedByTable, schemaChanges };
}

/** Loads one response in a transaction of its own. */
export async function loadBatch(db: Database, opts: LoadBatchOptions): Promise<LoadBatchResult> {
  const prepared = prepareBatch(opts);
  return withTransaction(db, (tx) => writeBatch(tx, prepared));
}

export interface LoadBatchesResult {
  /** One result per response loaded, in order: all of them, or those before `failed`. */
  results: LoadBatchResult[];
  /** The response that could not be loaded (nothing of it written); the ones before it are committed. */
  failed?: { index: number; error: unknown };
}

/**
 * Loads several responses in one transaction, each in a savepoint of its own: the BEGIN/COMMIT (and in SQLite the
 * write lock and WAL sync) is paid once per group instead of once per response, and each response stays atomic.
 * A response that fails is rolled back alone and the group stops there: the responses before it are committed
 * and reported, the failure is returned (not thrown) in `failed`. A Postgres serialization failure or deadlock
 * is thrown instead, so the whole group is retried like any transaction. Each response is flattened just before
 * it is written, so a group holds one flattened response at a time.
 */
export async function loadBatches(db: Database, list: readonly LoadBatchOptions[]): Promise<LoadBatchesResult> {
  if (db.dialect === 'duckdb') return loadEachInOwnTransaction(db, list);
  return withTransaction(db, async (tx) => {
    const results: LoadBatchResult[] = [];
    for (const [index, opts] of list.entries()) {
      try {
        results.push(await tx.savepoint(async () => writeBatch(tx, prepareBatch(opts))));
      } catch (error) {
        if (isRetryableTxError(error)) throw error;
        return { results, failed: { index, error } };
      }
    }
    return { results };
  });
}

/**
 * DuckDB has no savepoints, so each response gets a transaction of its own (same contract: a failing response
 * leaves nothing, the ones before it stay committed). One session holds the file open for the whole list.
 */
async function loadEachInOwnTransaction(db: Extract<Database, { dialect: 'duckdb' }>, list: readonly LoadBatchOptions[]): Promise<LoadBatchesResult> {
  return db.session(async (conn) => {
    const results: LoadBatchResult[] = [];
    for (const [index, opts] of list.entries()) {
      try {
        results.push(await duckTransaction(conn, (tx) => writeBatch(tx, prepareBatch(opts))));
      } catch (error) {
        return { results, failed: { index, error } };
      }
    }
    return { results };
  });
}
