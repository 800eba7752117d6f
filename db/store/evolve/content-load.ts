// Writes the rows of a pipeline's inferred content tables (flatten/content.ts) inside the load's transaction:
// evolve the schema, upsert the root rows on (pipeline, row_key) with "newest result wins", and replace the
// child rows of every root that changed. An unchanged root (same content hash) keeps its row and children, so
// loading the same results again changes nothing, as for the model's fixed tables.
import {
  CHILD_SYSTEM_COLUMNS,
  ROOT_SYSTEM_COLUMNS,
  type ContentChildRow,
  type ContentRootRow,
} from '../../model/flatten/content.js';
import { quoteIdent, type Param, type Tx } from '../sql.js';
import { upsertRows } from '../upsert.js';
import { PATH_SEPARATOR } from '../../model/evolve/names.js';
import { evolveSchema, type SchemaChange, type SchemaMode, type TableTemplate } from './registry.js';

export const ROOT_TEMPLATE: TableTemplate = {
  systemColumns: ROOT_SYSTEM_COLUMNS,
  key: ['pipeline', 'row_key'],
  index: ['pipeline', 'load_id'],
};
export const CHILD_TEMPLATE: TableTemplate = {
  systemColumns: CHILD_SYSTEM_COLUMNS,
  key: ['pipeline', 'row_key'],
  index: ['pipeline', 'root_key'],
};

export interface ContentTarget {
  /** Root table (`<pipeline>_items`). */
  table: string;
  mergeKey?: readonly string[] | undefined;
  mode: SchemaMode;
}

export interface ContentLoadContext {
  pipeline: string;
  loadId: number;
  loadedAt: string;
  describeBatch: string;
}

export interface ContentLoadResult {
  /** Rows the batch flattened to, per table. */
  rowsByTable: Record<string, number>;
  /** Rows inserted or updated (children: rewritten) per table. */
  changedByTable: Record<string, number>;
  changes: SchemaChange[];
}

const ROOT_SYSTEM = new Set(ROOT_SYSTEM_COLUMNS.map(([c]) => c));
const CHILD_SYSTEM = new Set(CHILD_SYSTEM_COLUMNS.map(([c]) => c));

/** Data columns of a table in a stable order (system columns first in the statement, then these). */
function dataColumns(cols: ReadonlyMap<string, unknown> | undefined, system: ReadonlySet<string>): string[] {
  return [...(cols?.keys() ?? [])].filter((c) => !system.has(c)).sort();
}

function rowParams(
  system: Param[],
  data: readonly string[],
  resolved: ReadonlyArray<readonly [string, Param]>,
): Param[] {
  const byCol = new Map(resolved);
  return [...system, ...data.map((c) => byCol.get(c) ?? null)];
}

/** Deletes the children of `rootKeys` in `table`, in power-of-two chunks (few statement shapes). */
async function deleteChildren(tx: Tx, table: string, pipeline: string, rootKeys: readonly string[]): Promise<number> {
  let deleted = 0;
  let i = 0;
  while (i < rootKeys.length) {
    let n = 256;
    while (n > rootKeys.length - i) n /= 2;
    const keys = rootKeys.slice(i, i + n);
    const sql = `DELETE FROM ${quoteIdent(table)} WHERE pipeline = ${tx.ph(1)} AND root_key IN (${keys.map((_, j) => tx.ph(j + 2)).join(', ')})`;
    deleted += await tx.run(sql, [pipeline, ...keys]);
    i += n;
  }
  return deleted;
}

export async function loadContent(
  tx: Tx,
  target: ContentTarget,
  roots: readonly ContentRootRow[],
  ctx: ContentLoadContext,
): Promise<ContentLoadResult> {
  // No results, nothing to evolve or write (a run detail still running, an empty page): no registry read either.
  if (roots.length === 0) return { rowsByTable: {}, changedByTable: {}, changes: [] };
  const root = target.table;
  const childPrefix = `${root}${PATH_SEPARATOR}`;
  const children: ContentChildRow[] = roots.flatMap((r) => r.children);
  const rows = [...roots, ...children];
  const evolved = await evolveSchema(tx, {
    pipeline: ctx.pipeline,
    mode: target.mode,
    // Its tables are those recorded with it as their root (a shortened child name need not start with the
    // root's), and, for tables recorded before root_table was, those whose name starts with it.
    scope: { tables: [root], prefixes: [childPrefix], roots: [root] },
    rootTable: root,
    rows,
    templateOf: (t) => (t === root ? ROOT_TEMPLATE : t.startsWith(childPrefix) ? CHILD_TEMPLATE : undefined),
    fixedColumnsOf: () => undefined,
    describeBatch: ctx.describeBatch,
    loadId: ctx.loadId,
    changedAt: ctx.loadedAt,
  });
  const reg = evolved.registry;
  const rowsByTable: Record<string, number> = {};
  const changedByTable: Record<string, number> = {};

  // Roots: newest result wins. A row is rewritten only when its content hash differs and the incoming result is
  // not older than the one stored, so a replayed older page never undoes a newer run.
  const rootData = dataColumns(reg.get(root), ROOT_SYSTEM);
  const rootColumns = [...ROOT_SYSTEM_COLUMNS.map(([c]) => c), ...rootData];
  const q = quoteIdent(root);
  const rootParams = roots.map((r, i) =>
    rowParams(
      [
        ctx.pipeline,
        r.rowKey,
        r.resultId,
        r.scrapingRunId,
        r.scrapedUrl,
        r.resultCreatedAt,
        ctx.loadId,
        ctx.loadedAt,
        r.rowHash,
      ],
      rootData,
      evolved.resolved[i]!,
    ),
  );
  const written = await upsertRows(
    tx,
    {
      table: root,
      columns: rootColumns,
      key: ['pipeline', 'row_key'],
      updateWhere: `${q}.result_id IS NULL OR excluded.result_id >= ${q}.result_id`,
      returning: 'row_key',
    },
    rootParams,
  );
  rowsByTable[root] = roots.length;
  changedByTable[root] = written.changed;
  const changedRoots = new Set(written.returned.map(String));

  // Children of changed roots are replaced as a set: first every descendant table's rows of those roots go (a
  // root that existed before may have had children in tables this batch does not touch), then the new ones.
  const childTables = [...reg.keys()].filter((t) => t !== root).sort();
  if (!evolved.created.has(root)) {
    const keys = [...changedRoots].sort();
    for (const t of childTables) if (!evolved.created.has(t)) await deleteChildren(tx, t, ctx.pipeline, keys);
  }
  const byTable = new Map<string, Param[][]>();
  children.forEach((c, j) => {
    const i = roots.length + j;
    if (evolved.discardedRows.has(i)) return;
    // The table the registry gave this row's list (its candidate name may belong to another key).
    const table = evolved.tables[i]!;
    rowsByTable[table] = (rowsByTable[table] ?? 0) + 1;
    if (!changedRoots.has(c.rootKey)) return;
    const data = dataColumns(reg.get(table), CHILD_SYSTEM);
    let list = byTable.get(table);
    if (!list) byTable.set(table, (list = []));
    list.push(
      rowParams(
        [ctx.pipeline, c.rowKey, c.rootKey, c.parentKey, c.listIndex, ctx.loadId, ctx.loadedAt],
        data,
        evolved.resolved[i]!,
      ),
    );
  });
  for (const [t, params] of [...byTable.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const columns = [...CHILD_SYSTEM_COLUMNS.map(([c]) => c), ...dataColumns(reg.get(t), CHILD_SYSTEM)];
    const out = await upsertRows(tx, { table: t, columns, key: [] }, params);
    changedByTable[t] = out.changed;
  }
  return { rowsByTable, changedByTable, changes: evolved.changes };
}
