// What a load writes, prepared before any SQL: the response flattened, rows checked against their columns' kinds,
// duplicate keys collapsed, lineage added and row hashes computed, and the price-history rule as a pure function.
// Shared by the per-response writer (load.ts) and the group writer (load-group.ts), so both
// write exactly the same rows.
import { hexDigest } from '../model/hash.js';
import { canonicalTimestamp } from '../../lib/iso-timestamp.js';
import { KEPT_OUT_SAMPLE, KEPT_OUT_VALUE_CHARS, type KeptOut, type KeptOutValue } from '../../lib/kept-out.js';
import { flattenResponse, type FlattenInput } from '../model/flatten/index.js';
import { checkPriceDivisor, DEFAULT_PRICE_DIVISOR, toMajor } from '../model/flatten/marketplace.js';
import { OPEN_FIELDS, type Row, type RowsByTable, type Scalar } from '../model/flatten/values.js';
import { flattenContent, type ContentRootRow, type RejectedResult } from '../model/flatten/content.js';
import type { ContentTarget } from './evolve/content-load.js';
import type { SchemaChange, SchemaMode } from './evolve/registry.js';
import { sha256Of, type RawResponse } from './raw-responses.js';
import type { Param } from './sql.js';
import { TABLE_META, type DataTableName, type ResultTableName, type TableMeta } from '../model/tables.js';
import { DATA_TABLES } from '../model/table-names.js';

export interface LoadBatchCommon {
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
  /**
   * The request's answer is fixed for the run (a URL of a URL-list run, a slice of a finished scraping run): landed
   * once per workflow and request key, a load that finds it landed leaves it (land-once.ts).
   */
  landOnce?: boolean;
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
  /** Results of the response that could not be loaded (recorded in rejected_results); the others loaded. */
  rejected?: RejectedResult[];
  /** Values stored NULL because they do not fit their column (a timestamp that is not one); raw_responses has them. */
  warnings?: string[];
  /** The same values counted (exactly) with the first few named; recorded on the landing (raw_responses.kept_out). */
  keptOut?: KeptOut;
  /**
   * Landed by its run already (landOnce: another attempt of the activity loaded it whole): nothing was written and
   * `loadId` is that landing's.
   */
  alreadyLanded?: true;
}

/** Upsert order: parents before children, the order DATA_TABLES lists them in (there are no FK constraints; the
 * order only keeps reads intuitive). */
export const WRITE_ORDER: readonly DataTableName[] = DATA_TABLES;

/**
 * Child tables whose rows are replaced as a set per parent: a child present before but absent from the new
 * response (a model removed, a content field gone) is deleted in the same transaction.
 */
export interface ChildGroup {
  parents: readonly DataTableName[];
  children: readonly DataTableName[];
  /** Child column -> value, selecting one parent's children. */
  filter(parentTable: DataTableName, parent: Row): Record<string, Scalar>;
}
export const CHILD_GROUPS: readonly ChildGroup[] = [
  {
    parents: ['marketplace_products'],
    children: [
      'marketplace_product_models',
      'marketplace_model_stocks',
      'marketplace_product_attributes',
      'marketplace_product_categories',
      'marketplace_product_tier_variations',
      'marketplace_product_tier_variation_options',
      'marketplace_product_images',
    ],
    filter: (_t, p) => ({ shop_id: p['shop_id'] ?? null, item_id: p['item_id'] ?? null }),
  },
];

// ---- row preparation --------------------------------------------------------------------------------------

function typeError(table: string, column: string, expected: string, v: unknown): TypeError {
  const got = v === null ? 'null' : typeof v;
  return new TypeError(`${table}.${column}: expected ${expected}, got ${got} (${String(v).slice(0, 60)})`);
}

/** Told of a value the load keeps out of its column (the raw response keeps it): which column, and the value. */
export type LoadWarn = (column: string, value: unknown) => void;

/** The sentence the worker's log says for a kept-out value (activities/load-warnings.ts). */
export function keptOutSentence(v: Pick<KeptOutValue, 'table' | 'column' | 'value'>): string {
  return `${v.table}.${v.column}: ${JSON.stringify(v.value)} is not an ISO 8601 timestamp with a zone; stored NULL (raw_responses keeps the response as sent)`;
}

/** Checks a value against its column's kind so both dialects store the same thing (SQLite would accept anything). */
function checkValue(meta: TableMeta, column: string, v: unknown, warn?: LoadWarn): Scalar {
  if (v === undefined || v === null) return null;
  switch (meta.kinds[column]) {
    case 'timestamp': {
      // A timestamp column holds instants on Postgres and DuckDB: text that is not one would fail the whole load
      // there. It is stored NULL on every destination alike, and stays in raw_responses as the service sent it.
      const instant = typeof v === 'string' ? canonicalTimestamp(v) : null;
      if (instant === null) warn?.(column, v);
      return instant;
    }
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

/**
 * One value's part of the text a row hash is taken of: type-tagged so that null, '' and 'null' differ; number and
 * bigint of equal value hash the same. The parts are joined and hashed in one update: the same bytes (hence the same
 * hashes as stored rows) for far fewer calls.
 */
function hashPart(v: Param): string {
  if (v === null) return '\u0000N\u0001';
  if (typeof v === 'boolean') return v ? 'b1\u0001' : 'b0\u0001';
  if (typeof v === 'string') return `s${v}\u0001`;
  return `n${String(v)}\u0001`;
}

function hashText(values: readonly Scalar[]): string {
  let text = '';
  for (const v of values) text += hashPart(v);
  return text;
}

export interface Lineage {
  pipeline: string;
  load_id: number;
  loaded_at: string;
}

/**
 * Full row in table column order, then the inferred columns (`inferred`, sorted) from `open`: data columns
 * checked, lineage added, row_hash computed. Inferred values enter the hash by name, and only when not null, so
 * a column added later does not change the hash of rows that lack it.
 */
/** Where each of a table's columns comes from in a completed row: a data column's index, or a lineage field. */
type LineageSource = 'pipeline' | 'load_id' | 'loaded_at' | 'row_hash' | 'last_seen_at';
const columnSources = new WeakMap<TableMeta, Array<number | LineageSource>>();
const LINEAGE_SOURCES: ReadonlySet<string> = new Set<LineageSource>([
  'pipeline',
  'load_id',
  'loaded_at',
  'row_hash',
  'last_seen_at',
]);

function sourcesOf(meta: TableMeta) {
  let sources = columnSources.get(meta);
  if (!sources) {
    sources = meta.columns.map((c) => (LINEAGE_SOURCES.has(c) ? (c as LineageSource) : meta.dataColumns.indexOf(c)));
    columnSources.set(meta, sources);
  }
  return sources;
}

/**
 * A row's data columns checked against their kinds, and its hash, or for a row with inferred values (whose hash
 * takes them in under the names the registry gives them, in the load's transaction) the text of its own values that
 * completeRow adds them to.
 */
export type CheckedRow = { data: Scalar[]; hash: string } | { data: Scalar[]; hashText: string };

export function checkRow(meta: TableMeta, row: Row, warn?: LoadWarn): { data: Scalar[]; hash: string } {
  const data = meta.dataColumns.map((c) => checkValue(meta, c, row[c], warn));
  return { data, hash: hexDigest('sha1', hashText(hashedValues(meta, row, data))) };
}

/** checkRow of a row with inferred values: its checked values and the text of them its hash begins with. */
export function checkOpenRow(meta: TableMeta, row: Row, warn?: LoadWarn): { data: Scalar[]; hashText: string } {
  const data = meta.dataColumns.map((c) => checkValue(meta, c, row[c], warn));
  return { data, hashText: hashText(hashedValues(meta, row, data)) };
}

/** A row's natural key as a kept-out value names it: the key columns but `pipeline`, ids beyond 2^53 as text. */
function naturalKeyOf(meta: TableMeta, row: Row): KeptOutValue['key'] {
  const key: KeptOutValue['key'] = {};
  for (const k of meta.key) {
    if (k === 'pipeline') continue;
    const v = row[k];
    key[k] =
      v === undefined || v === null ? null : typeof v === 'bigint' ? String(v) : (v as string | number | boolean);
  }
  return key;
}

/**
 * The values a row's hash is taken of: its checked values, except that a timestamp enters as the text the service
 * sent. Rows stored before timestamps were written in one form (lib/iso-timestamp.ts) keep their hashes, so a load
 * rewrites them only when the service's data did change.
 */
function hashedValues(meta: TableMeta, row: Row, data: Scalar[]): Scalar[] {
  if (meta.timestampColumns.length === 0) return data;
  const out = [...data];
  for (const [i, c] of meta.timestampColumns) {
    const raw = row[c];
    if (typeof raw === 'string') out[i] = raw;
  }
  return out;
}

export function completeRow(
  meta: TableMeta,
  row: Row,
  lineage: Lineage,
  inferred: readonly string[] = [],
  open: ReadonlyArray<readonly [string, Param]> = [],
  /** checkRow or checkOpenRow of the row, done earlier (prepareBatch, outside the transaction). */
  checked?: CheckedRow,
): Scalar[] {
  const openByName = open.length > 0 ? new Map(open) : undefined;
  let data: Scalar[];
  let rowHash: string;
  if (checked && 'hash' in checked && !openByName) {
    ({ data, hash: rowHash } = checked);
  } else {
    data = checked?.data ?? meta.dataColumns.map((c) => checkValue(meta, c, row[c]));
    let text = checked && 'hashText' in checked ? checked.hashText : hashText(hashedValues(meta, row, data));
    if (openByName)
      for (const c of inferred) {
        const v = openByName.get(c);
        if (v !== null && v !== undefined) text += hashPart(`\u0002${c}`) + hashPart(v);
      }
    rowHash = hexDigest('sha1', text);
  }
  const out: Scalar[] = [];
  for (const src of sourcesOf(meta)) {
    if (typeof src === 'number') out.push(src < 0 ? null : (data[src] ?? null));
    else if (src === 'pipeline') out.push(lineage.pipeline);
    else if (src === 'load_id') out.push(lineage.load_id);
    // A row written is seen when it is written: a row the load leaves unchanged is marked seen by last-seen.ts.
    else if (src === 'loaded_at' || src === 'last_seen_at') out.push(lineage.loaded_at);
    else out.push(rowHash);
  }
  for (const c of inferred) out.push(openByName?.get(c) ?? null);
  return out;
}

export function keyString(values: readonly unknown[]): string {
  return values.map((v) => (v === null || v === undefined ? '\u0000' : String(v))).join('\u0001');
}

/**
 * Rows of one table with duplicate natural keys collapsed (the last wins, as a later page would), sorted by key:
 * concurrent loads whose key sets overlap then lock the rows they upsert in the same order, so they wait for
 * each other instead of deadlocking.
 */
export function dedupe(meta: TableMeta, rows: readonly Row[], pipeline: string): Row[] {
  if (meta.key.length === 0) return [...rows];
  const byKey = new Map<string, Row>();
  for (const r of rows) byKey.set(keyString(meta.key.map((k) => (k === 'pipeline' ? pipeline : r[k]))), r);
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
}

export const same = (a: unknown, b: unknown) => keyString([a]) === keyString([b]);

/** What the tables hold for one product before a load: its prices and its models' prices by model id. */
export interface StoredPrices {
  product: Record<string, unknown> | undefined;
  models: ReadonlyMap<string, Record<string, unknown>>;
}

const PRODUCT_PRICE_FIELDS = ['price', 'price_min', 'price_max', 'price_before_discount'] as const;

/**
 * History rows for one product of a response and its models whose price differs from the stored ones: a product
 * or model seen for the first time always gets one. Integer columns come back as numbers or bigints.
 */
export function priceChangesOf(
  product: Row,
  models: readonly Row[],
  before: StoredPrices,
  divisor: number,
  workflowId: string | null = null,
): Row[] {
  const history: Row[] = [];
  const shop_id = product['shop_id'] ?? null;
  const item_id = product['item_id'] ?? null;
  const currency = product['currency'] ?? null;
  const prev = before.product;
  if (!prev || PRODUCT_PRICE_FIELDS.some((f) => !same(prev[f], product[f]))) {
    history.push({
      shop_id,
      item_id,
      model_id: null,
      price: product['price'] ?? null,
      price_min: product['price_min'] ?? null,
      price_max: product['price_max'] ?? null,
      price_before_discount: product['price_before_discount'] ?? null,
      price_major: toMajor(product['price'], divisor),
      previous_price: prev ? (prev['price'] as Param) : null,
      currency,
      workflow_id: workflowId,
      previous_price_major: prev ? toMajor(toIntScalar((prev['price'] ?? null) as Scalar), divisor) : null,
    });
  }
  for (const m of models) {
    if (!same(m['shop_id'], shop_id) || !same(m['item_id'], item_id)) continue;
    const old = before.models.get(keyString([m['model_id']]));
    if (old && same(old['price'], m['price']) && same(old['price_before_discount'], m['price_before_discount']))
      continue;
    history.push({
      shop_id,
      item_id,
      model_id: m['model_id'] ?? null,
      price: m['price'] ?? null,
      price_min: null,
      price_max: null,
      price_before_discount: m['price_before_discount'] ?? null,
      price_major: toMajor(m['price'], divisor),
      previous_price: old ? (old['price'] as Param) : null,
      currency,
      workflow_id: workflowId,
      previous_price_major: old ? toMajor(toIntScalar((old['price'] ?? null) as Scalar), divisor) : null,
    });
  }
  return history.map((h) => {
    const out: Row = {};
    for (const [k, v] of Object.entries(h))
      out[k] = TABLE_META.marketplace_price_history.kinds[k] === 'int' ? toIntScalar(v ?? null) : (v ?? null);
    return out;
  });
}

/** Postgres int8 arrives as a string; price columns compared to history need numbers or bigints back. */
export function toIntScalar(v: Scalar): Scalar {
  if (typeof v !== 'string') return v;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : BigInt(v);
}

/** Result records of a batch, for the content tables. */
function contentRecordsOf(opts: LoadBatchOptions) {
  if (opts.kind === 'results') return opts.data.data;
  if (opts.kind === 'scraping-run') return opts.data.data.results;
  return [];
}

/** A response flattened and ready to write: the pure, possibly slow part of a load, done outside any lock. */
export interface PreparedBatch {
  opts: LoadBatchOptions;
  divisor: number;
  rows: RowsByTable;
  rowsByTable: TableCounts;
  contentRoots: ContentRootRow[];
  /** Results left out of the content tables, with their reasons (flatten/content.ts flattenContent). */
  contentRejected: RejectedResult[];
  loadedAt: string;
  /** The raw body's SHA-256, taken here rather than in the transaction that lands it. */
  bodySha256: string;
  /** Per table and row (same order as `rows`): its checked values and hash, when they need no registry. */
  checked: Partial<Record<DataTableName, Array<CheckedRow | undefined>>>;
  /** Values kept out of their columns (stored NULL; the raw response has them), in sentences for the run's log. */
  warnings: string[];
  /** The same values, counted exactly, with the first few named: the landing records them (raw_responses.kept_out). */
  keptOut: KeptOut;
}

/**
 * The raw_responses row of a prepared response. Its rows seen are the flattened rows it holds; a response with
 * content tables has those counted once they are flattened in the transaction (writeBatch).
 */
export function rawResponseOf(p: PreparedBatch): RawResponse {
  return {
    pipeline: p.opts.pipeline,
    kind: p.opts.kind,
    endpoint: p.opts.endpoint,
    requestKey: p.opts.requestKey ?? null,
    workflowId: p.opts.workflowId ?? null,
    scrapingRunId: p.opts.scrapingRunId ?? null,
    receivedAt: p.opts.receivedAt ?? new Date(),
    loadedAt: p.loadedAt,
    body: p.opts.raw,
    bodySha256: p.bodySha256,
    rowsSeen: p.rowsByTable,
    keptOut: p.keptOut.count > 0 ? p.keptOut : null,
  };
}

// What the destination contract passes between loadBatches and an engine's group writer (destinations/contract.ts).
// (Inside the block, names resolve in the contract first: hence the aliases.)
type StorePreparedBatch = PreparedBatch;
type StoreLoadBatchResult = LoadBatchResult;
declare module '../../destinations/contract.js' {
  interface LoadTypes {
    prepared: StorePreparedBatch;
    result: StoreLoadBatchResult;
  }
}

export function prepareBatch(opts: LoadBatchOptions): PreparedBatch {
  if (!opts.pipeline) throw new Error('loadBatch: pipeline name is required');
  const divisor = checkPriceDivisor(opts.priceDivisor ?? DEFAULT_PRICE_DIVISOR);
  // Pure and possibly slow: done before the transaction takes its locks.
  const flat = flattenResponse({ kind: opts.kind, data: opts.data } as FlattenInput, {
    priceDivisor: divisor,
    ...(opts.resultTable ? { resultTable: opts.resultTable } : {}),
  });
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
  const { roots: contentRoots, rejected: contentRejected } = content
    ? flattenContent(contentRecordsOf(opts), content)
    : { roots: [], rejected: [] };
  // Rows without unknown fields are checked and hashed now, outside the transaction: a writer that prepares the
  // next group while one is being written (loadGroups) does this work while it waits for the database.
  const checked: PreparedBatch['checked'] = {};
  // Every value kept out is counted here, once per response: the count is what the run records, so it must not
  // depend on which writer (per response, grouped) or which row path (with inferred fields or not) writes the row.
  const keptOut: KeptOut = { count: 0, sample: [] };
  // One callback for every row (the row it is told of is the one being checked), not a closure per row.
  let atTable: DataTableName | undefined;
  let atRow: Row = {};
  const warn: LoadWarn = (column, value) => {
    keptOut.count++;
    if (atTable && keptOut.sample.length < KEPT_OUT_SAMPLE)
      keptOut.sample.push({
        table: atTable,
        column,
        key: naturalKeyOf(TABLE_META[atTable], atRow),
        value: String(value).slice(0, KEPT_OUT_VALUE_CHARS),
      });
  };
  for (const [table, list] of Object.entries(rows) as Array<[DataTableName, Row[]]>) {
    const meta = TABLE_META[table];
    atTable = table;
    checked[table] = list.map((row) => {
      atRow = row;
      // A row with inferred fields has its hash completed as it is written (completeRow), when their names are known.
      return row[OPEN_FIELDS]?.length ? checkOpenRow(meta, row, warn) : checkRow(meta, row, warn);
    });
  }
  return {
    opts,
    divisor,
    rows,
    rowsByTable,
    contentRoots,
    contentRejected,
    loadedAt: new Date().toISOString(),
    bodySha256: sha256Of(opts.raw),
    checked,
    warnings: keptOut.sample.map(keptOutSentence),
    keptOut,
  };
}
