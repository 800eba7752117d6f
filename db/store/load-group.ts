// A group of responses written as one, with about one statement per table instead of ~27 per response (a
// marketplace product cost 12 ms in Postgres round trips against 2 ms of flattening; in DuckDB ~2 ms per statement
// and ~10 ms per COMMIT). The tables end exactly as if the responses had been loaded one after another with
// writeBatch (load.ts): the same rows, lineage (each row's load id is the response it came from), price history
// (computed response by response against what the tables held and what the group wrote before), child replacement
// and raw landing. This module plans the group (which rows, keys and history to write per table, and each
// response's counts) and is dialect-neutral; the statements are a GroupDialect's: destinations/postgres/load-group.ts
// (unnest of array literals, ON CONFLICT, RETURNING) and destinations/duckdb/load-group.ts (unnest of bound lists, plain
// DELETE and INSERT). The caller runs this in a transaction of its own (Postgres, DuckDB) and, when
// it throws, writes the responses one by one instead, so anything this path does not handle (content tables, a
// schema change, a failing response) keeps the per-response behaviour and its messages.
import type { Row, RowsByTable, Scalar } from '../model/flatten/values.js';
import { evolveFixedTables, FixedTableChangesRefused } from './evolve/fixed-tables.js';
import { sqlTypeOf } from '../model/evolve/types.js';
import { lockParents } from './load-locks.js';
import { alreadyLandedResult, landedAlready, landingLockKeys } from './land-once.js';
import { hasLastSeen, markSeen, type SeenKey } from './last-seen.js';
import {
  CHILD_GROUPS,
  completeRow,
  keyString,
  priceChangesOf,
  rawResponseOf,
  WRITE_ORDER,
  type LoadBatchResult,
  type PreparedBatch,
  type StoredPrices,
  type TableCounts,
} from './load-rows.js';
import { TABLES, type ColumnType } from '../model/schema/definition.js';
import type { RawResponse } from './raw-responses.js';
import type { Param, Tx } from './sql.js';
import type { ColumnTypeNames } from '../../destinations/contract.js';
import { TABLE_META, type DataTableName } from '../model/tables.js';

/** The group cannot be written as one; the caller writes its responses one by one. */
export class GroupNotWritable extends Error {
  override name = 'GroupNotWritable';
}

/**
 * A response of the group brings a new column: the ones before it can go as a group, it must go alone (so
 * schema_history names its load), and the ones after it can be tried as a group again.
 */
export class GroupChangesSchemaAt extends GroupNotWritable {
  constructor(readonly response: number) {
    super(`response ${response} of the group changes the schema`);
  }
}

const PARENT: DataTableName = 'marketplace_products';
const CHILDREN = new Set<DataTableName>(CHILD_GROUPS.flatMap((g) => g.children));
export const PARENT_COLUMNS = Object.keys(CHILD_GROUPS[0]!.filter(PARENT, {})); // shop_id, item_id

const parentKeyOf = (r: Row) => keyString(PARENT_COLUMNS.map((c) => r[c]));

export interface UpsertEntry {
  values: Param[];
  /** Index of the response the row comes from. */
  from: number;
  /** keyString of its natural key (tables with one). */
  key?: string;
}

/** The SQL type of a model table's column on the engine whose `columnTypes` these are. */
export const columnType = (table: DataTableName, column: string, columnTypes: ColumnTypeNames): string => {
  const def = (TABLES[table].columns as Readonly<Record<string, { type: ColumnType }>>)[column];
  if (!def) throw new Error(`group writer: table ${table} has no column ${column}`);
  return columnTypes[def.type];
};

/** The statements of one dialect: everything the group writer sends to the database goes through these. */
export interface GroupDialect {
  /**
   * Postgres: the writes are sent without awaiting each (the connection runs them in order) and awaited together.
   * DuckDB: each is awaited before the next is sent.
   */
  readonly pipelined: boolean;
  /**
   * Every key the group writes has its stored row hash read, and every change is counted here rather than by the
   * database (DuckDB, where the writes are plain DELETE and INSERT); otherwise only keys touched more than once.
   */
  readonly hashEveryKey: boolean;
  /** Rows of the parents named by `keys` (values of PARENT_COLUMNS), selected from `table`. */
  selectByParents(
    table: DataTableName,
    columns: readonly string[],
    pipeline: string,
    keys: ReadonlyArray<readonly Scalar[]>,
  ): Promise<Array<Record<string, unknown>>>;
  /** keyString(key) -> row_hash of the stored rows among `keys` (values of the table's natural key). */
  storedHashes(table: DataTableName, keys: ReadonlyArray<readonly Scalar[]>): Promise<Map<string, string>>;
  /** Lands the raw bodies as insertRawResponse called for each in order would; `landed` must be awaited before the end. */
  landRaw(list: readonly RawResponse[]): Promise<{ ids: number[]; landed: Promise<unknown> }>;
  /**
   * Deletes the rows with the natural keys `keys` (children that vanished from their product), given in the order
   * of their keyString, which is the order any locks on them are taken in.
   */
  remove(table: DataTableName, keys: ReadonlyArray<readonly Scalar[]>): Promise<unknown>;
  /**
   * Writes `entries` (values in `columns` order, SQL types `types`, sorted by key: their rows are locked in that
   * order), changing a keyed row only when its hash differs, or when its key is in `replace` (a stored row written
   * again after its deletion or a revert: the row must carry this write's lineage even if its hash is the stored
   * one); resolves to how many rows each response changed, leaving out the keys in `counted` (the caller counts
   * those).
   */
  upsert(
    table: DataTableName,
    columns: readonly string[],
    types: readonly string[],
    entries: readonly UpsertEntry[],
    counted: ReadonlySet<string>,
    replace: ReadonlyArray<readonly Scalar[]>,
  ): Promise<Map<number, number>>;
}

/** What the tables hold for the group's products before it is written. */
interface Stored {
  /** Parent key string -> key values (PARENT_COLUMNS), for every product of the group. */
  parents: Map<string, Scalar[]>;
  /** Prices of the products already stored and of their models. */
  prices: Map<string, StoredPrices>;
  /** Child table -> parent key -> own key string -> own key values. */
  children: Map<DataTableName, Map<string, Map<string, Scalar[]>>>;
  /**
   * The products table and each child table -> keyString(natural key) -> row_hash of the stored rows, complete for
   * the group's products (their keys, and their children's): decideWrites reads no more for those.
   */
  hashes: Map<DataTableName, Map<string, string>>;
}

const ownKeyOf = (t: DataTableName) => TABLE_META[t].key.filter((k) => k !== 'pipeline' && !PARENT_COLUMNS.includes(k));

async function readStored(d: GroupDialect, pipeline: string, merged: RowsByTable): Promise<Stored> {
  const parents = new Map<string, Scalar[]>();
  for (const r of merged[PARENT] ?? [])
    parents.set(
      parentKeyOf(r),
      PARENT_COLUMNS.map((c) => r[c] ?? null),
    );
  const prices = new Map<string, StoredPrices & { models: Map<string, Record<string, unknown>> }>();
  const children = new Map<DataTableName, Map<string, Map<string, Scalar[]>>>();
  const hashes = new Map<DataTableName, Map<string, string>>(
    [PARENT, ...CHILDREN].map((t) => [t, new Map<string, string>()] as const),
  );
  const stored = { parents, prices, children, hashes };
  const hashOf = (table: DataTableName, r: Record<string, unknown>) =>
    hashes
      .get(table)!
      .set(keyString(TABLE_META[table].key.map((k) => (k === 'pipeline' ? pipeline : r[k]))), String(r['row_hash']));
  if (parents.size === 0) return stored;
  for (const r of await d.selectByParents(
    PARENT,
    ['price', 'price_min', 'price_max', 'price_before_discount', 'row_hash'],
    pipeline,
    [...parents.values()],
  )) {
    prices.set(parentKeyOf(r as Row), { product: r, models: new Map() });
    hashOf(PARENT, r);
  }
  // A product new to the table has no children (both are written together): nothing more to read for those.
  const existing = [...prices.keys()].map((k) => parents.get(k)!);
  if (existing.length === 0) return stored;
  for (const child of CHILDREN) {
    const byParent = new Map<string, Map<string, Scalar[]>>();
    const extra = child === 'marketplace_product_models' ? ['price', 'price_before_discount'] : [];
    for (const r of await d.selectByParents(child, [...ownKeyOf(child), ...extra, 'row_hash'], pipeline, existing)) {
      const own = ownKeyOf(child).map((k) => r[k] as Scalar);
      const parent = parentKeyOf(r as Row);
      let keys = byParent.get(parent);
      if (!keys) byParent.set(parent, (keys = new Map()));
      keys.set(keyString(own), own);
      hashOf(child, r);
      if (child === 'marketplace_product_models') prices.get(parent)?.models.set(keyString([r['model_id']]), r);
    }
    children.set(child, byParent);
  }
  return stored;
}

/** A response of the group writing a key (its row), or dropping it as a vanished child (null). */
interface Touch {
  from: number;
  entry: UpsertEntry | null;
}

interface Touched {
  key: Scalar[];
  touches: Touch[];
}

/** The group's writes, replayed response by response in memory. */
interface Plan {
  /** Per keyed table: every key the group writes or drops, with each touch in response order. */
  keyed: Map<DataTableName, Map<string, Touched>>;
  /** Price history rows, in order (append-only: no key). */
  history: UpsertEntry[];
  /** Per response: the price history rows it appends (prepared batches are left as they are). */
  historyOf: Row[][];
  deleted: TableCounts[];
}

function planGroup(
  preps: readonly PreparedBatch[],
  loadIds: readonly number[],
  fixed: FixedTables,
  stored: Stored,
  pipeline: string,
): Plan {
  const deleted: TableCounts[] = preps.map(() => ({}));
  const keyed = new Map<DataTableName, Map<string, Touched>>();
  const history: UpsertEntry[] = [];
  const historyOf: Row[][] = preps.map(() => []);
  const touch = (table: DataTableName, key: Scalar[], t: Touch, k = keyString(key)) => {
    const byKey = keyed.get(table) ?? keyed.set(table, new Map()).get(table)!;
    (byKey.get(k) ?? byKey.set(k, { key, touches: [] }).get(k)!).touches.push(t);
  };
  // Child keys of each parent as the tables would hold them after each response, with their values.
  const current = new Map<DataTableName, Map<string, Map<string, Scalar[]>>>();
  const prices = new Map(stored.prices);
  const offsets = new Map<DataTableName, number>();
  preps.forEach((p, i) => {
    for (const product of p.rows[PARENT] ?? []) {
      const parent = parentKeyOf(product);
      const models = (p.rows.marketplace_product_models ?? []).filter((m) => parentKeyOf(m) === parent);
      historyOf[i]!.push(
        ...priceChangesOf(
          product,
          models,
          prices.get(parent) ?? { product: undefined, models: new Map() },
          p.divisor,
          p.opts.workflowId ?? null,
        ),
      );
      prices.set(parent, { product, models: new Map(models.map((m) => [keyString([m['model_id']]), m] as const)) });
      for (const child of CHILDREN) {
        const now = new Map<string, Scalar[]>();
        for (const r of p.rows[child] ?? []) {
          if (parentKeyOf(r) !== parent) continue;
          const own = ownKeyOf(child).map((k) => r[k] ?? null);
          now.set(keyString(own), own);
        }
        const byParent = current.get(child) ?? current.set(child, new Map()).get(child)!;
        const had = byParent.get(parent) ?? stored.children.get(child)?.get(parent) ?? new Map<string, Scalar[]>();
        for (const [k, own] of had) {
          if (now.has(k)) continue;
          deleted[i]![child] = (deleted[i]![child] ?? 0) + 1;
          touch(child, [pipeline, ...stored.parents.get(parent)!, ...own], { from: i, entry: null });
        }
        byParent.set(parent, now);
      }
    }
    const lineage = { pipeline, load_id: loadIds[i]!, loaded_at: p.loadedAt };
    for (const table of WRITE_ORDER) {
      const rows = table === 'marketplace_price_history' ? historyOf[i] : p.rows[table];
      if (!rows?.length) continue;
      const meta = TABLE_META[table];
      const inferred = fixed.inferred.get(table);
      const offset = offsets.get(table) ?? 0;
      if (table !== 'marketplace_price_history') offsets.set(table, offset + rows.length);
      const keyAt = meta.key.map((k) => meta.columns.indexOf(k));
      const checked = table === 'marketplace_price_history' ? undefined : p.checked[table];
      rows.forEach((r, j) => {
        const values = completeRow(meta, r, lineage, inferred?.columns, inferred?.open[offset + j], checked?.[j]);
        if (meta.key.length === 0) {
          history.push({ values, from: i });
          return;
        }
        const keyValues = keyAt.map((k) => values[k] ?? null);
        const entry = { values, from: i, key: keyString(keyValues) };
        touch(table, keyValues, { from: i, entry }, entry.key);
      });
    }
  });
  return { keyed, history, historyOf, deleted };
}

/** What to do with one table's keys, decided from the plan and (for keys touched more than once) stored hashes. */
interface TableWrites {
  /** Keys of stored rows the group leaves deleted: vanished children. */
  remove: Scalar[][];
  upsert: UpsertEntry[];
  /** Keys of stored rows the upsert overwrites whatever their hash: written again after a deletion or a revert. */
  replace: Scalar[][];
  /** Keys whose changes are counted here rather than from the upsert's RETURNING. */
  counted: Set<string>;
}

/**
 * Replays the touches of each key as one-by-one loads would see them. A key touched once is simply written (or
 * deleted), unless the dialect has every key replayed (hashEveryKey). A key touched more than once is decided against its stored row hash: the row the tables end with is
 * the one the last *changing* write brought (a later identical write keeps its lineage), a row written again
 * after a deletion or a revert is replaced (overwritten whatever its hash) so it carries that write's load id, and
 * each response's changes are counted as one-by-one loads count them. With `lockSeen` (concurrent writers), a key
 * the group saw and left as stored is written too, unchanged: the upsert locks its row in key order with the rest
 * (ON CONFLICT … WHERE locks a row it does not change), so marking it seen afterwards (last-seen.ts) waits for no
 * other load; marked out of that order, two groups sharing shops deadlocked.
 */
async function decideWrites(
  d: GroupDialect,
  table: DataTableName,
  touched: ReadonlyMap<string, Touched>,
  changedBy: TableCounts[],
  stored: Stored,
  lockSeen: boolean,
): Promise<TableWrites> {
  const meta = TABLE_META[table];
  const out: TableWrites = { remove: [], upsert: [], replace: [], counted: new Set() };
  const replayed = d.hashEveryKey ? [...touched] : [...touched].filter(([, t]) => t.touches.length > 1);
  // Hashes readStored already has (keys of the group's products and of their children); the others are read here.
  const known = stored.hashes.get(table);
  const parentAt = known ? PARENT_COLUMNS.map((c) => meta.key.indexOf(c)) : [];
  const isKnown = (key: readonly Scalar[]) =>
    known !== undefined && stored.parents.has(keyString(parentAt.map((i) => key[i])));
  const unknown = replayed.filter(([, t]) => !isKnown(t.key));
  const storedHash = new Map(known ?? []);
  if (unknown.length > 0)
    for (const [k, h] of await d.storedHashes(
      table,
      unknown.map(([, t]) => t.key),
    ))
      storedHash.set(k, h);
  const hashAt = meta.columns.indexOf('row_hash');
  for (const [key, t] of touched) {
    if (t.touches.length === 1 && !d.hashEveryKey) {
      const only = t.touches[0]!;
      if (only.entry) out.upsert.push(only.entry);
      else out.remove.push(t.key);
      continue;
    }
    out.counted.add(key);
    const wasStored = storedHash.has(key);
    let state: string | undefined = storedHash.get(key);
    let last: UpsertEntry | undefined;
    for (const { from, entry } of t.touches) {
      if (!entry) {
        state = undefined;
        last = undefined;
        continue;
      }
      const hash = String(entry.values[hashAt]);
      if (state !== hash) {
        changedBy[from]![table] = (changedBy[from]![table] ?? 0) + 1;
        last = entry;
      }
      state = hash;
    }
    const endsPresent = state !== undefined;
    if (wasStored && !endsPresent) out.remove.push(t.key);
    if (endsPresent && last) {
      out.upsert.push(last);
      if (wasStored) out.replace.push(t.key);
    } else if (endsPresent && lockSeen && hasLastSeen(table)) {
      out.upsert.push(t.touches[t.touches.length - 1]!.entry!);
    }
  }
  return out;
}

/** Sorted by key, like dedupe() in load-rows.ts: concurrent loads lock overlapping rows in the same order. */
function sortedByKey(table: DataTableName, list: readonly UpsertEntry[]): UpsertEntry[] {
  const meta = TABLE_META[table];
  const keyAt = meta.key.map((k) => meta.columns.indexOf(k));
  const keyed = list.map((e) => [e.key ?? keyString(keyAt.map((i) => e.values[i])), e] as const);
  keyed.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return keyed.map(([, e]) => e);
}

/** Natural keys in keyString order, the order every load locks a table's rows in. */
function sortedKeys(keys: readonly Scalar[][]): Scalar[][] {
  return keys
    .map((k) => [keyString(k), k] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, k]) => k);
}

type FixedTables = Awaited<ReturnType<typeof evolveFixedTables>>;

/**
 * Writes `preps` (responses of one pipeline, without content tables) as one, with `d`'s statements inside the
 * caller's transaction `tx`; results in list order.
 */
export async function writeGroup(tx: Tx, d: GroupDialect, preps: readonly PreparedBatch[]): Promise<LoadBatchResult[]> {
  const first = preps[0];
  if (!first) return [];
  const pipeline = first.opts.pipeline;
  const mode = first.opts.schemaMode ?? 'evolve';
  if (
    preps.some(
      (p) => p.opts.pipeline !== pipeline || (p.opts.schemaMode ?? 'evolve') !== mode || p.opts.content !== undefined,
    )
  ) {
    throw new GroupNotWritable('responses of several pipelines or schema modes, or with content tables');
  }
  const merged: RowsByTable = {};
  for (const p of preps) {
    for (const t of WRITE_ORDER) {
      const rows = p.rows[t];
      if (rows) (merged[t] ??= []).push(...rows);
    }
  }
  await lockParents(tx, pipeline, merged, landingLockKeys(preps.map((p) => p.opts)));
  const landed = await landedAlready(
    tx,
    preps.map((p) => p.opts),
  );
  if (landed.size > 0) return writeGroupLeaving(tx, d, preps, landed);
  // Inferred columns of the model's tables: one registry read for the group. A group that would add a column goes
  // one by one (refuseChanges), so schema_history names the load that brought it; asked before any load id is
  // drawn, so a refused group leaves no gap in them. (No change is made here, so no load id is needed yet.)
  let fixed: FixedTables;
  try {
    fixed = await evolveFixedTables(
      tx,
      pipeline,
      merged,
      mode,
      `a group of ${preps.length} responses`,
      0,
      first.loadedAt,
      true,
    );
  } catch (err) {
    if (!(err instanceof FixedTableChangesRefused)) throw err;
    // merged[table] holds the responses' rows in order: the index of a row there names its response.
    const responseOf = (table: DataTableName, index: number) => {
      let seen = 0;
      for (const [i, p] of preps.entries()) {
        seen += p.rows[table]?.length ?? 0;
        if (index < seen) return i;
      }
      return preps.length - 1;
    };
    throw new GroupChangesSchemaAt(Math.min(...err.at.map((a) => responseOf(a.table, a.index))));
  }
  const stored = await readStored(d, pipeline, merged);
  // The bodies are sent now and (Postgres) stored by the server while the group is planned below (JS work).
  const raw = await d.landRaw(preps.map(rawResponseOf));
  const loadIds = raw.ids;
  const plan = planGroup(preps, loadIds, fixed, stored, pipeline);

  const changedBy: TableCounts[] = preps.map(() => ({}));
  const writes = new Map<DataTableName, TableWrites>();
  for (const [table, touched] of plan.keyed)
    writes.set(
      table,
      await decideWrites(d, table, touched, changedBy, stored, tx.adapter.capabilities.concurrentWriters),
    );
  // Lock order (Postgres), the same as a one-by-one load's, so that concurrent loads of overlapping data wait for
  // each other instead of deadlocking: the products' advisory locks, all at once and sorted (lockParents, above);
  // the schema locks (evolveFixedTables); then table by table in WRITE_ORDER, each table's rows in key order, in
  // one pass: a stored row written again is replaced by the upsert itself rather than deleted first, which locked
  // it ahead of the keys sorted before it (two groups rewriting job_records deadlocked so). The only deletes left
  // are of vanished children, whose product this transaction holds the advisory lock of: no other load can hold or
  // wait for those rows. Pipelined (Postgres), the writes are sent one after another without waiting for each while
  // the next statement's arrays are built; the first failure is the one reported, the ones after it only say that
  // the transaction is aborted.
  const sent: Array<Promise<unknown>> = [raw.landed];
  const send = async (write: () => Promise<unknown>) => {
    if (d.pipelined) sent.push(write());
    else await write();
  };
  for (const table of WRITE_ORDER) {
    const meta = TABLE_META[table];
    const w = writes.get(table);
    if (w && w.remove.length > 0) await send(() => d.remove(table, sortedKeys(w.remove)));
    const list = table === 'marketplace_price_history' ? plan.history : w ? sortedByKey(table, w.upsert) : [];
    if (list.length === 0) continue;
    const inferred = fixed.inferred.get(table);
    const columns = [...meta.columns, ...(inferred?.columns ?? [])];
    const types = [
      ...meta.columns.map((c) => columnType(table, c, tx.adapter.sql.columnTypes)),
      ...(inferred?.types ?? []).map((t) => sqlTypeOf(t, tx.adapter.sql.columnTypes)),
    ];
    await send(() =>
      d.upsert(table, columns, types, list, w?.counted ?? new Set(), sortedKeys(w?.replace ?? [])).then((changed) => {
        for (const [i, n] of changed) changedBy[i]![table] = (changedBy[i]![table] ?? 0) + n;
      }),
    );
  }
  // The keys the group saw and left unchanged are marked seen at the time of the last response that held them
  // (the rows it wrote carry that time already, and are left alone by markSeen's condition).
  for (const table of WRITE_ORDER) {
    const touched = plan.keyed.get(table);
    if (!touched || !hasLastSeen(table)) continue;
    const seen: SeenKey[] = [];
    for (const t of touched.values()) {
      const last = t.touches[t.touches.length - 1]!;
      if (last.entry) seen.push({ key: t.key, at: preps[last.from]!.loadedAt });
    }
    if (seen.length > 0) await send(() => markSeen(tx, table, seen));
  }
  const failed = (await Promise.allSettled(sent)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;

  const results: LoadBatchResult[] = [];
  for (const [i, p] of preps.entries()) {
    const history = plan.historyOf[i]!;
    const rowsByTable: TableCounts = {
      ...p.rowsByTable,
      ...(history.length > 0 ? { marketplace_price_history: history.length } : {}),
    };
    const changedByTable: TableCounts = {};
    for (const table of WRITE_ORDER) {
      if (rowsByTable[table] === undefined) continue;
      changedByTable[table] = changedBy[i]![table] ?? 0;
      await p.opts.onTableWritten?.(table, changedByTable[table]);
    }
    results.push({
      loadId: loadIds[i]!,
      rowsByTable,
      changedByTable,
      deletedByTable: plan.deleted[i]!,
      schemaChanges: [],
      ...(p.warnings.length > 0 ? { warnings: p.warnings, keptOut: p.keptOut } : {}),
    });
  }
  return results;
}

/**
 * The group without the responses its run landed already (land-once.ts): the others written as a group (their locks
 * are held already), the left ones reported with the load id of the landing that holds them.
 */
async function writeGroupLeaving(
  tx: Tx,
  d: GroupDialect,
  preps: readonly PreparedBatch[],
  landed: ReadonlyMap<number, number>,
): Promise<LoadBatchResult[]> {
  const kept = preps.map((_, i) => i).filter((i) => !landed.has(i));
  let written: LoadBatchResult[];
  try {
    written =
      kept.length > 0
        ? await writeGroup(
            tx,
            d,
            kept.map((i) => preps[i]!),
          )
        : [];
  } catch (err) {
    // The caller splits the group at the response that changes the schema: its index in the whole group.
    if (err instanceof GroupChangesSchemaAt) throw new GroupChangesSchemaAt(kept[err.response]!);
    throw err;
  }
  const results = new Map(kept.map((i, k) => [i, written[k]!]));
  const same = (a: PreparedBatch, b: PreparedBatch) =>
    a.opts.workflowId === b.opts.workflowId && a.opts.requestKey === b.opts.requestKey;
  return preps.map((p, i) => {
    const own = results.get(i);
    if (own) return own;
    const id = landed.get(i)!;
    // -1: an earlier response of this group lands it; its load id is known now.
    const first = id >= 0 ? id : (results.get(preps.findIndex((q) => same(q, p)))?.loadId ?? id);
    return alreadyLandedResult(p, first);
  });
}
