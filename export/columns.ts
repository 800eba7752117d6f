// What the exporter knows about a column: enough to format its cells, nothing about the table's meaning.
import type { ExportDatabase } from './database.js';
import { quoteIdent } from './database.js';
import { SQLITE_COMMENTS_TABLE } from '../db/model/schema/comments-table.js';

/**
 * How a column's values are written. SQLite stores any value in any column, so for SQLite the kind only refines
 * formatting (0/1 in a boolean column, epoch numbers in a timestamp column); the runtime type of each value decides
 * the rest. Postgres values arrive as the server's text and are formatted by kind alone.
 */
export type { ColumnInfo, ColumnKind } from '../destinations/contract.js';
import type { ColumnInfo, ColumnKind } from '../destinations/contract.js';

/** Per table, per column: kinds that the database's own type information cannot reveal (from the Drizzle schema). */
export type ColumnHints = Record<string, Record<string, ColumnKind>>;

/** Tables that are bookkeeping, never data to export unless named explicitly. */
// schema_history has pipeline and load_id columns but is the registry of inferred columns, not data.
// SQLite's catalog of comments is the database's description of the others, as pg_description is Postgres's.
const INTERNAL_TABLES = new Set([
  'export_watermarks',
  '__drizzle_migrations',
  'schema_history',
  'notify_deliveries',
  'rejected_results',
  SQLITE_COMMENTS_TABLE,
]);

export async function listTables(db: ExportDatabase): Promise<string[]> {
  const dest = db.adapter;
  return (await dest.exportReader.query(db, dest.catalog.tablesSql)).map((r) => String(r['name']));
}

export function isInternalTable(name: string): boolean {
  return INTERNAL_TABLES.has(name);
}

/** Columns of `table` in declaration order; throws a clear error when the table does not exist. */
export async function describeTable(db: ExportDatabase, table: string, hints?: ColumnHints): Promise<ColumnInfo[]> {
  const dest = db.adapter;
  const rows = await dest.exportReader.query(db, dest.catalog.columnsSql(dest.sql.ph(1)), [table]);
  const cols: ColumnInfo[] = rows.map((r) => ({
    name: String(r['name']),
    ...dest.exportReader.columnKind(String(r['type'] ?? '')),
  }));
  if (cols.length === 0) {
    const known = (await listTables(db)).filter((t) => !isInternalTable(t));
    throw new Error(
      `export: table "${table}" does not exist in the ${db.dialect} database (tables: ${known.join(', ') || 'none'})`,
    );
  }
  const tableHints = hints?.[table];
  if (tableHints) {
    for (const c of cols) {
      const hinted = tableHints[c.name];
      // Postgres and DuckDB report their types exactly, except JSON kept as text; hints exist for SQLite, whose
      // declared types are only affinities, and for those JSON columns.
      if (hinted && (!dest.capabilities.typedColumns || (hinted === 'json' && c.kind === 'text'))) c.kind = hinted;
    }
  }
  return cols;
}

/** True when `table` holds at least one row of `pipeline` (cheap: stops at the first match). */
/** Whether `table` holds any row (of any pipeline). */
export async function tableHasRows(db: ExportDatabase, table: string): Promise<boolean> {
  const dest = db.adapter;
  return (await dest.exportReader.query(db, `select 1 as one from ${quoteIdent(table)} limit 1`, [])).length > 0;
}

export async function tableHasPipelineRows(db: ExportDatabase, table: string, pipeline: string): Promise<boolean> {
  const dest = db.adapter;
  return (
    (
      await dest.exportReader.query(
        db,
        `select 1 as one from ${quoteIdent(table)} where pipeline = ${dest.sql.ph(1)} limit 1`,
        [pipeline],
      )
    ).length > 0
  );
}
