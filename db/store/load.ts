// Transactional, idempotent loads. One call = one response = one transaction: the raw body is landed in
// raw_responses (its id is the batch's load id), the flattened rows are upserted on their natural keys, child
// rows that vanished from a product or result are deleted, and price changes are appended to the history.
// Upserts change a row only when its row_hash differs, so loading the same data again changes no table but
// raw_responses. What the rows are is decided in load-rows.ts; this module writes them.
import type { Database } from '../../destinations/contract.js';
import type { Row, RowsByTable } from '../model/flatten/values.js';
import type { RejectedResult } from '../model/flatten/content.js';
import { loadContent } from './evolve/content-load.js';
import { evolveFixedTables } from './evolve/fixed-tables.js';
import { insertRawResponse } from './raw-responses.js';
import { lockParents } from './load-locks.js';
import { alreadyLandedResult, landedAlready, landingLockKeys } from './land-once.js';
import { GroupChangesSchemaAt } from './load-group.js';
import {
  CHILD_GROUPS,
  completeRow,
  rawResponseOf,
  keyString,
  prepareBatch,
  priceChangesOf,
  WRITE_ORDER,
  type ChildGroup,
  type Lineage,
  type LoadBatchOptions,
  type LoadBatchResult,
  type PreparedBatch,
  type StoredPrices,
  type TableCounts,
} from './load-rows.js';
import { quoteIdent, withTransaction, type Param, type Tx } from './sql.js';
import { TABLE_META, type DataTableName } from '../model/tables.js';
import { upsertRows } from './upsert.js';
import { hasLastSeen, markSeen } from './last-seen.js';

export type { LoadKind } from '../model/flatten/index.js';
export type { LoadBatchOptions, LoadBatchResult, TableCounts } from './load-rows.js';

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

/** History rows for products and models whose price differs from what the tables hold before this load. */
async function priceChanges(
  tx: Tx,
  pipeline: string,
  rows: RowsByTable,
  divisor: number,
  workflowId: string | null,
): Promise<Row[]> {
  const history: Row[] = [];
  const productSql = `SELECT price, price_min, price_max, price_before_discount FROM marketplace_products WHERE ${whereEquals(tx, ['pipeline', 'shop_id', 'item_id'])}`;
  const modelSql = `SELECT model_id, price, price_before_discount FROM marketplace_product_models WHERE ${whereEquals(tx, ['pipeline', 'shop_id', 'item_id'])}`;
  for (const p of rows.marketplace_products ?? []) {
    const key = [pipeline, p['shop_id'] ?? null, p['item_id'] ?? null];
    const [product] = await tx.all(productSql, key);
    const models = new Map((await tx.all(modelSql, key)).map((m) => [keyString([m['model_id']]), m] as const));
    const before: StoredPrices = { product, models };
    history.push(...priceChangesOf(p, rows.marketplace_product_models ?? [], before, divisor, workflowId));
  }
  return history;
}

/** Per table and inferred-column list (the registry hands out the same list until a column is added): the upsert's columns. */
const upsertColumnLists = new Map<DataTableName, WeakMap<readonly string[], readonly string[]>>();
const NO_INFERRED: readonly string[] = [];

/** A table's columns then its inferred ones, the same array for every response while the list is the same (upsert.ts caches by it). */
function upsertColumns(table: DataTableName, inferred: readonly string[] = NO_INFERRED): readonly string[] {
  let byList = upsertColumnLists.get(table);
  if (!byList) upsertColumnLists.set(table, (byList = new WeakMap()));
  let columns = byList.get(inferred);
  if (!columns) byList.set(inferred, (columns = [...TABLE_META[table].columns, ...inferred]));
  return columns;
}

/**
 * One response's writes inside the caller's transaction: raw landing, schema evolution, upserts, content tables.
 * The per-response path, and the reference the group writer is tested against (test/integration/db/db-load-group.test.ts).
 */
export async function writeBatch(tx: Tx, prepared: PreparedBatch): Promise<LoadBatchResult> {
  const { opts, divisor, contentRoots, contentRejected, loadedAt } = prepared;
  // Copies: the price history is added to them, and a retried transaction writes the same prepared batch again.
  const rows: RowsByTable = { ...prepared.rows };
  const rowsByTable: TableCounts = { ...prepared.rowsByTable };
  const pipeline = opts.pipeline;
  const content = opts.content;
  await lockParents(tx, pipeline, rows, landingLockKeys([opts]));
  const landed = (await landedAlready(tx, [opts])).get(0);
  if (landed !== undefined) return alreadyLandedResult(prepared, landed);
  const loadId = await insertRawResponse(tx, rawResponseOf(prepared));
  const lineage: Lineage = { pipeline, load_id: loadId, loaded_at: loadedAt };
  const changedByTable: TableCounts = {};
  const deletedByTable: TableCounts = {};
  const describeBatch = `load ${loadId} (${opts.endpoint}${opts.requestKey ? `, ${opts.requestKey}` : ''}${opts.scrapingRunId != null ? `, scraping run ${opts.scrapingRunId}` : ''})`;

  // Schema changes first: DDL must precede every other statement on the tables it alters (evolve/registry.ts).
  const fixed = await evolveFixedTables(
    tx,
    pipeline,
    rows,
    opts.schemaMode ?? 'evolve',
    describeBatch,
    loadId,
    loadedAt,
  );
  const schemaChanges = [...fixed.changes];

  if (rows.marketplace_products) {
    const history = await priceChanges(tx, pipeline, rows, divisor, opts.workflowId ?? null);
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
    const checked = prepared.checked[table];
    const params = tableRows.map((r, i) =>
      completeRow(meta, r, lineage, inferred?.columns, inferred?.open[i], checked?.[i]),
    );
    const { changed } = await upsertRows(
      tx,
      { table, columns: upsertColumns(table, inferred?.columns), key: meta.key },
      params,
    );
    // Every row written already carries the load's time; when some were left as they were, they are marked seen.
    if (changed < params.length && hasLastSeen(table)) {
      const keyAt = meta.key.map((k) => meta.columns.indexOf(k));
      await markSeen(
        tx,
        table,
        params.map((row) => ({ key: keyAt.map((i) => row[i] ?? null), at: loadedAt })),
      );
    }
    changedByTable[table] = changed;
    await opts.onTableWritten?.(table, changed);
  }

  if (content) {
    const out = await loadContent(tx, content, contentRoots, { pipeline, loadId, loadedAt, describeBatch });
    schemaChanges.push(...out.changes);
    for (const [t, n] of Object.entries(out.rowsByTable)) rowsByTable[t] = n;
    // Content rows are known only now, flattened against the registry: the landing's rows seen gain them.
    await tx.run(`UPDATE raw_responses SET rows_seen = ${tx.ph(1)} WHERE id = ${tx.ph(2)}`, [
      JSON.stringify({ ...prepared.rowsByTable, ...out.rowsByTable }),
      loadId,
    ]);
    for (const [t, n] of Object.entries(out.changedByTable)) {
      changedByTable[t] = n;
      await opts.onTableWritten?.(t, n);
    }
    await recordRejected(
      tx,
      { pipeline, loadId, workflowId: opts.workflowId ?? null, table: content.table, rejectedAt: loadedAt },
      contentRejected,
    );
  }
  return {
    loadId,
    rowsByTable,
    changedByTable,
    deletedByTable,
    schemaChanges,
    ...(contentRejected.length > 0 ? { rejected: contentRejected } : {}),
    ...(prepared.warnings.length > 0 ? { warnings: prepared.warnings, keptOut: prepared.keptOut } : {}),
  };
}

/** Quarantines the results of a batch that could not be loaded: one rejected_results row each, in its transaction. */
async function recordRejected(
  tx: Tx,
  at: { pipeline: string; loadId: number; workflowId: string | null; table: string; rejectedAt: string },
  rejected: readonly RejectedResult[],
): Promise<void> {
  for (const r of rejected) {
    await tx.run(
      `INSERT INTO rejected_results (pipeline, load_id, workflow_id, result_id, scraping_run_id, table_name, reason, rejected_at) ` +
        `VALUES (${[1, 2, 3, 4, 5, 6, 7, 8].map((n) => tx.ph(n)).join(', ')}) ON CONFLICT (load_id, result_id) DO NOTHING`,
      [
        at.pipeline,
        at.loadId,
        at.workflowId,
        r.resultId,
        r.scrapingRunId,
        at.table,
        r.reason.slice(0, 2000),
        at.rejectedAt,
      ],
    );
  }
}

/** Loads one response in a transaction of its own. */
export async function loadBatch(db: Database, opts: LoadBatchOptions): Promise<LoadBatchResult> {
  const prepared = prepareBatch(opts);
  if (db.adapter.loneLoadsAsLists) {
    // Still one response in one transaction (writeBatches), written however the adapter writes lists.
    const out = await loadBatches(db, [{ opts, prepared }]);
    if (out.failed) throw out.failed.error;
    return out.results[0]!;
  }
  return withTransaction(db, (tx) => writeBatch(tx, prepared));
}

export type { LoadAttempt, LoadBatchesResult } from '../../destinations/contract.js';
import type { LoadAttempt, LoadBatchesResult } from '../../destinations/contract.js';

/** A response prepared for loading ahead of its transaction (flattened), or the error preparing it raised. */
export interface PreparedLoad {
  opts: LoadBatchOptions;
  prepared?: PreparedBatch;
  error?: unknown;
}

/** Flattens a response for a later loadBatches; never throws (a bad response fails when its turn comes). */
export function prepareLoad(opts: LoadBatchOptions): PreparedLoad {
  try {
    return { opts, prepared: prepareBatch(opts) };
  } catch (error) {
    return { opts, error };
  }
}

function preparedOf(load: PreparedLoad): PreparedBatch {
  if (load.error !== undefined) throw load.error;
  return load.prepared ?? prepareBatch(load.opts);
}

/**
 * Loads several responses, each atomic: SQLite in one transaction with a savepoint per response (the BEGIN/COMMIT,
 * write lock and WAL sync paid once per list); Postgres and DuckDB as groups written with about one statement per
 * table (load-group.ts), each group a transaction of its own. A response that fails is rolled back alone and the
 * list stops there: the responses before it are committed and reported, the failure is returned (not thrown) in
 * `failed`. Responses not prepared ahead (prepareLoad) are flattened when their turn comes.
 *
 * Postgres: a transaction takes all its locks in one round, in one global order (load-locks.ts), so concurrent
 * loads wait for each other instead of deadlocking. A list written in several parts (a group split around a
 * response that adds a column, or written one by one after its group failed) therefore commits each part in a
 * transaction of its own: as savepoints of one transaction, a later part took its product locks, its schema locks
 * and ALTER TABLE's ACCESS EXCLUSIVE while still holding what the earlier parts locked, and two such loads
 * deadlocked (test/integration/db/db-postgres-group-locks.test.ts). A deadlock or serialization failure is retried with its
 * transaction (withTransaction); one that outlasts the retries fails the response like any other error.
 */
export async function loadBatches(
  db: Database,
  list: ReadonlyArray<LoadBatchOptions | PreparedLoad>,
): Promise<LoadBatchesResult> {
  const loads = list.map((l): PreparedLoad => ('opts' in l ? l : { opts: l }));
  // Transactions, savepoints and group writes are the destination's strategy (destinations/<name>/index.ts).
  return db.adapter.writeBatches(db, {
    one: (tx, index) => writeBatch(tx, preparedOf(loads[index]!)),
    inGroups: (one, group) => loadInGroups(loads, one, group, db.adapter.loneLoadsAsLists === true),
  });
}

/** What writing a response or a group came to: its result, or the error that rolled it back. */
type Attempt<T> = LoadAttempt<T>;

/**
 * The responses of `loads` written as groups where `group` can, one by one with `one` otherwise. A response that
 * adds a column is written alone between the groups before and after it (so schema_history names its load); any
 * other failure of a group (which rolled that attempt back) has the rest written one by one, which names the
 * failing response and stops there.
 */
async function loadInGroups(
  loads: readonly PreparedLoad[],
  one: (index: number) => Promise<Attempt<LoadBatchResult>>,
  group: ((preps: PreparedBatch[]) => Promise<Attempt<LoadBatchResult[]>>) | undefined,
  alone: boolean,
): Promise<LoadBatchesResult> {
  const results: LoadBatchResult[] = [];
  let start = 0;
  /** Writes the responses [from, to) as a group; undefined when done, else the error. */
  const tryGroup = async (from: number, to: number): Promise<unknown> => {
    let preps: PreparedBatch[];
    try {
      preps = loads.slice(from, to).map(preparedOf);
    } catch (error) {
      return error;
    }
    const out = await group!(preps);
    if (out.ok) results.push(...out.ok);
    return out.ok ? undefined : out.error;
  };
  /** Writes response `index` alone; undefined when done, else what loadBatches reports as failed. */
  const single = async (index: number): Promise<LoadBatchesResult['failed']> => {
    const out = await one(index);
    if (out.ok) results.push(out.ok);
    return out.ok ? undefined : { index, error: out.error };
  };
  // A lone response goes as a group of one when the destination asks for it (loneLoadsAsLists), unless it has content
  // tables, which the group writer never takes (load-group.ts): no attempt that is bound to be rolled back.
  const groupable = () =>
    loads.length - start > 1 || (alone && loads.length - start === 1 && loads[start]!.opts.content === undefined);
  while (group && groupable()) {
    const error = await tryGroup(start, loads.length);
    if (error === undefined) return { results };
    if (!(error instanceof GroupChangesSchemaAt)) break;
    if (error.response > 0) {
      if ((await tryGroup(start, start + error.response)) !== undefined) break;
      start += error.response;
    }
    const failed = await single(start);
    if (failed) return { results, failed };
    start += 1;
  }
  for (let index = start; index < loads.length; index++) {
    const failed = await single(index);
    if (failed) return { results, failed };
  }
  return { results };
}

/**
 * Loads groups of responses one after another, each with loadBatches, flattening the next group while the
 * current one is written: a Postgres write is mostly waiting for the server, and that wait is spent preparing
 * (and, for a caller reading files, reading) what comes next. Yields each group's result in order and stops
 * after a group that failed; at most two groups are in memory.
 */
export async function* loadGroups(
  db: Database,
  groups: AsyncIterable<readonly LoadBatchOptions[]> | Iterable<readonly LoadBatchOptions[]>,
): AsyncGenerator<LoadBatchesResult> {
  let writing: Promise<LoadBatchesResult> | undefined;
  try {
    for await (const group of groups) {
      const loads: PreparedLoad[] = [];
      for (const opts of group) {
        loads.push(prepareLoad(opts));
        // Let the write in flight take its turns on the event loop (its replies, its next statement).
        if (writing) await new Promise((r) => setImmediate(r));
      }
      if (writing) {
        const out = await writing;
        writing = undefined;
        yield out;
        if (out.failed) return;
      }
      writing = loadBatches(db, loads);
    }
  } catch (err) {
    // The source failed (a file that cannot be read): the group being written still lands and is reported.
    if (writing) yield await writing;
    throw err;
  }
  if (writing) yield await writing;
}
