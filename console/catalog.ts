// What tables and columns a destination has, in its own catalog (the adapter's catalog statements). Every statement here reads the
// catalog only; none touches a data table.
import { quoteIdent } from '../db/store/sql.js';
import type { Reader, Row } from './source.js';
import { num, text } from './values.js';
import { SQLITE_COMMENTS_TABLE } from '../db/model/schema/comments-table.js';
import { catalogTableOf, type CatalogTable } from '../db/model/schema/catalog.js';
import { selectSchemaHistory } from '../db/store/evolve/history.js';
import { contentTableName } from '../db/model/evolve/names.js';

export interface ColumnMeta {
  name: string;
  /** The type as the database declares it. */
  type: string;
  notNull: boolean;
}

export interface TableMeta {
  name: string;
  columns: ColumnMeta[];
  /** Primary key columns in key order (empty when the table has none). */
  primaryKey: string[];
}

/** Bookkeeping that is never a pipeline's data (SQLite's catalog of comments included: Postgres keeps its in pg_description). */
const INTERNAL = new Set(['__drizzle_migrations', 'url_lists', 'scrape_etl_duckdb_schema', SQLITE_COMMENTS_TABLE]);

export async function listTables(r: Reader): Promise<string[]> {
  const rows = await r.all(r.adapter.catalog.tablesSql);
  return rows.map((x) => String(x['name'])).filter((t) => !INTERNAL.has(t));
}

export async function tableExists(r: Reader, table: string): Promise<boolean> {
  return (await listTables(r)).includes(table);
}

/** A catalog flag as any driver gives it: boolean, 0/1 (bigint or number), or Postgres's text 't'/'f'. */
function flag(v: unknown): boolean {
  return v === true || v === 't' || v === 'true' || num(v) === 1;
}

export async function describe(r: Reader, table: string): Promise<TableMeta | undefined> {
  const dest = r.adapter;
  const rows = await r.all(dest.catalog.columnsSql(r.ph(1)), [table]);
  if (rows.length === 0) return undefined;
  // Declared types are shown as declared; typed catalogs' names in lower case (DuckDB says VARCHAR, Postgres text).
  const typeOf = (x: Row) =>
    dest.capabilities.typedColumns ? (text(x['type']) ?? '').toLowerCase() : text(x['type']) || '(any)';
  const columns: ColumnMeta[] = rows.map((x) => ({
    name: String(x['name']),
    type: typeOf(x),
    notNull: flag(x['not_null']),
  }));
  const primaryKey = (await r.all(dest.catalog.primaryKeySql(r.ph(1)), [table])).map((x) => String(x['name']));
  return { name: table, columns, primaryKey };
}

/** Tables holding at least one row of `pipeline` (each checked by its key or pipeline index, stopping at one row). */
export async function tablesOfPipeline(r: Reader, pipeline: string): Promise<string[]> {
  const out: string[] = [];
  for (const t of await listTables(r)) {
    if (t === 'pipeline_runs' || t === 'export_watermarks' || t === 'sync_watermarks' || t === 'schema_history')
      continue;
    const meta = await describe(r, t);
    if (!meta?.columns.some((c) => c.name === 'pipeline')) continue;
    const hit = await r.all(`SELECT 1 AS one FROM ${quoteIdent(t)} WHERE pipeline = ${r.ph(1)} LIMIT 1`, [pipeline]);
    if (hit.length > 0) out.push(t);
  }
  return out;
}

/** Tables the loader created for a pipeline's open content (schema_history: `create_table`). */
export async function contentTables(r: Reader, pipeline: string): Promise<string[]> {
  if (!(await tableExists(r, 'schema_history'))) return [];
  const rows = await r.all(
    `SELECT DISTINCT table_name FROM schema_history WHERE pipeline = ${r.ph(1)} AND change = 'create_table' ORDER BY table_name`,
    [pipeline],
  );
  return rows.map((x) => String(x['table_name']));
}

/**
 * What a table of a pipeline and its columns mean, as `schema show`, `schema export` and the database's comments say it
 * (db/model/schema/catalog.ts: the model's descriptions, and for the tables loads inferred, their schema_history rows).
 */
export async function tableDocs(r: Reader, pipeline: string, table: string): Promise<CatalogTable | undefined> {
  const content = contentTableName(pipeline);
  const history = (await tableExists(r, 'schema_history')) ? await selectSchemaHistory(r, pipeline, content) : [];
  return catalogTableOf(pipeline, table, history, r.adapter.sql.columnTypes, content);
}
