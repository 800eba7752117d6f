// Schema evolution of the model's own tables (job_records, marketplace_*): unknown fields of their rows become
// inferred columns, through the same registry as the inferred content tables.
import type { RowsByTable } from '../../model/flatten/values.js';
import { OPEN_FIELDS } from '../../model/flatten/values.js';
import type { Param, Tx } from '../sql.js';
import { EVOLVING_TABLES, TABLE_META, type DataTableName } from '../../model/tables.js';
import { evolveSchema, SchemaChangesRefused, type SchemaChange, type SchemaMode } from './registry.js';
import type { LogicalType } from '../../model/evolve/types.js';

/** Refused changes (refuseChanges) located in the batch: each changing row as its table and index there. */
export class FixedTableChangesRefused extends SchemaChangesRefused {
  constructor(
    message: string,
    rows: readonly number[],
    readonly at: ReadonlyArray<{ table: DataTableName; index: number }>,
  ) {
    super(message, rows);
  }
}

/** Each model table's fixed columns, which inferred columns never take: built once, not once a response. */
const FIXED_COLUMNS = new Map<string, ReadonlySet<string>>(
  EVOLVING_TABLES.map((t) => [t, new Set(TABLE_META[t].columns)]),
);

/**
 * A table's inferred columns sorted, with their types, per registry map: a kept registry state (SQLite,
 * registry.ts) hands out the same maps until a column is added, so the list is not rebuilt for every response.
 */
const sortedColumns = new WeakMap<ReadonlyMap<string, LogicalType>, { columns: string[]; types: LogicalType[] }>();
const NO_COLUMNS = { columns: [] as string[], types: [] as LogicalType[] };

function columnsOf(registered: ReadonlyMap<string, LogicalType> | undefined): {
  columns: string[];
  types: LogicalType[];
} {
  if (!registered) return NO_COLUMNS;
  let out = sortedColumns.get(registered);
  if (!out) {
    const columns = [...registered.keys()].sort();
    out = { columns, types: columns.map((c) => registered.get(c)!) };
    sortedColumns.set(registered, out);
  }
  return out;
}

/**
 * Brings the inferred columns of the model's evolving tables (job_records, marketplace_*) up to this batch and
 * resolves each row's unknown fields to them. Run for every such table the batch writes, with or without unknown
 * fields: the upsert then sets every inferred column, so a field that disappeared from the newest answer reads
 * NULL instead of its old value.
 */
export async function evolveFixedTables(
  tx: Tx,
  pipeline: string,
  rows: RowsByTable,
  mode: SchemaMode,
  describeBatch: string,
  loadId: number,
  changedAt: string,
  refuseChanges = false,
) {
  const tables = EVOLVING_TABLES.filter((t) => rows[t] !== undefined);
  const inferred = new Map<
    DataTableName,
    { columns: string[]; types: LogicalType[]; open: Array<Array<readonly [string, Param]>> }
  >();
  if (tables.length === 0) return { inferred, changes: [] as SchemaChange[] };
  // One registry read (and, in Postgres, one round of locks) for every evolving table of the batch.
  const evolving = tables.flatMap((table) => rows[table]!.map((r) => ({ table, fields: r[OPEN_FIELDS] ?? [] })));
  let out: Awaited<ReturnType<typeof evolveSchema>>;
  try {
    out = await evolveSchema(tx, {
      pipeline,
      mode,
      scope: { tables, prefixes: [] },
      rows: evolving,
      templateOf: () => undefined,
      fixedColumnsOf: (t) => ((tables as readonly string[]).includes(t) ? FIXED_COLUMNS.get(t) : undefined),
      describeBatch,
      loadId,
      changedAt,
      refuseChanges,
    });
  } catch (err) {
    if (!(err instanceof SchemaChangesRefused)) throw err;
    const positions = tables.flatMap((table) => rows[table]!.map((_, index) => ({ table, index })));
    throw new FixedTableChangesRefused(
      err.message,
      err.rows,
      err.rows.map((i) => positions[i]!),
    );
  }
  let offset = 0;
  for (const table of tables) {
    const n = rows[table]!.length;
    // Shared lists (columnsOf): the callers only read them.
    inferred.set(table, { ...columnsOf(out.registry.get(table)), open: out.resolved.slice(offset, offset + n) });
    offset += n;
  }
  return { inferred, changes: out.changes };
}
