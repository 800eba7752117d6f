// What tables and columns a destination has, in each dialect's own catalog. Every statement here reads the
// catalog only; none touches a data table.
import { quoteIdent } from '../db/sql.js';
import type { Reader } from './source.js';
import { num, text } from './values.js';

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

/** Bookkeeping that is never a pipeline's data. */
const INTERNAL = new Set(['__drizzle_migrations', 'url_lists', 'scrape_etl_duckdb_schema']);

export async function listTables(r: Reader): Promise<string[]> {
  let rows;
  if (r.dialect === 'sqlite') {
    rows = await r.all(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`);
    return rows.map((x) => String(x['name'])).filter((t) => !INTERNAL.has(t));
  }
  const schema = r.dialect === 'duckdb' ? `'main'` : 'current_schema()';
  rows = await r.all(`SELECT table_name FROM information_schema.tables WHERE table_schema = ${schema} AND table_type = 'BASE TABLE' ORDER BY table_name`);
  return rows.map((x) => String(x['table_name'])).filter((t) => !INTERNAL.has(t));
}

export async function tableExists(r: Reader, table: string): Promise<boolean> {
  return (await listTables(r)).includes(table);
}

export async function describe(r: Reader, table: string): Promise<TableMeta | undefined> {
  let columns: ColumnMeta[];
  let primaryKey: string[];
  if (r.dialect === 'sqlite') {
    const rows = await r.all(`SELECT name, type, "notnull" AS nn, pk FROM pragma_table_info(?) ORDER BY cid`, [table]);
    columns = rows.map((x) => ({ name: String(x['name']), type: text(x['type']) || '(any)', notNull: num(x['nn']) === 1 || num(x['pk'])! > 0 }));
    primaryKey = rows
      .filter((x) => num(x['pk'])! > 0)
      .sort((a, b) => num(a['pk'])! - num(b['pk'])!)
      .map((x) => String(x['name']));
  } else {
    const schema = r.dialect === 'duckdb' ? `'main'` : 'current_schema()';
    const rows = await r.all(
      `SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = ${schema} AND table_name = ${r.ph(1)} ORDER BY ordinal_position`,
      [table],
    );
    columns = rows.map((x) => ({ name: String(x['column_name']), type: String(x['data_type']).toLowerCase(), notNull: String(x['is_nullable']) === 'NO' }));
    if (r.dialect === 'postgres') {
      const pk = await r.all(
        `SELECT a.attname AS name FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
          WHERE i.indrelid = to_regclass(quote_ident(${r.ph(1)})) AND i.indisprimary ORDER BY array_position(i.indkey::int2[], a.attnum)`,
        [table],
      );
      primaryKey = pk.map((x) => String(x['name']));
    } else {
      const pk = await r.all(
        `SELECT constraint_column_names AS cols FROM duckdb_constraints() WHERE schema_name = 'main' AND table_name = $1 AND constraint_type = 'PRIMARY KEY'`,
        [table],
      );
      const cols = pk[0]?.['cols'];
      primaryKey = Array.isArray(cols) ? cols.map(String) : [];
    }
  }
  if (columns.length === 0) return undefined;
  return { name: table, columns, primaryKey };
}

/** Tables holding at least one row of `pipeline` (each checked by its key or pipeline index, stopping at one row). */
export async function tablesOfPipeline(r: Reader, pipeline: string): Promise<string[]> {
  const out: string[] = [];
  for (const t of await listTables(r)) {
    if (t === 'pipeline_runs' || t === 'export_watermarks' || t === 'sync_watermarks' || t === 'schema_history') continue;
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
