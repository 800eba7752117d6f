// What the loader needs to know about each data table (column order, natural key, column kinds), read from
// the Drizzle schema so the SQL the loader writes can never drift from the migrations.
import { getTableConfig, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as schema from '../destinations/sqlite/schema.js';

import { DATA_TABLES, type DataTableName } from './table-names.js';

export { DATA_TABLES, type DataTableName };

/**
 * Model tables whose unknown fields become inferred columns (db/evolve/) instead of being dropped: the job
 * records a request's schema shapes, and the marketplace levels that have a table of their own.
 */
export const EVOLVING_TABLES = ['job_records', 'marketplace_products', 'marketplace_product_models', 'marketplace_shops'] as const satisfies readonly DataTableName[];

export const RESULT_TABLES = ['scraper_results', 'pdf_results', 'leads_results'] as const;
export type ResultTableName = (typeof RESULT_TABLES)[number];

/** Columns the loader fills in on every row; flatteners never set them. */
export const LINEAGE_COLUMNS = ['pipeline', 'load_id', 'loaded_at', 'row_hash'] as const;

export type ColumnKind = 'int' | 'double' | 'text' | 'bool';

export interface TableMeta {
  name: DataTableName;
  /** All columns in declaration order. */
  columns: readonly string[];
  /** Columns a flattener provides (everything but lineage and a generated id). */
  dataColumns: readonly string[];
  /** Natural key (primary key); empty for append-only tables with a generated id. */
  key: readonly string[];
  kinds: Readonly<Record<string, ColumnKind>>;
}

function kindOf(sqlType: string, columnType: string): ColumnKind {
  if (columnType === 'SQLiteBoolean') return 'bool';
  const t = sqlType.toLowerCase();
  if (t.startsWith('integer')) return 'int';
  if (t.startsWith('real')) return 'double';
  return 'text';
}

function describe(name: DataTableName): TableMeta {
  const cfg = getTableConfig(schema[name] as SQLiteTable);
  const columns = cfg.columns.map((c) => c.name);
  const kinds: Record<string, ColumnKind> = {};
  for (const c of cfg.columns) kinds[c.name] = kindOf(c.getSQLType(), c.columnType);
  const pk = cfg.primaryKeys[0];
  const key = pk ? pk.columns.map((c) => c.name) : [];
  const generated = cfg.columns.filter((c) => c.primary && c.name === 'id' && key.length === 0).map((c) => c.name);
  const dataColumns = columns.filter((c) => !(LINEAGE_COLUMNS as readonly string[]).includes(c) && !generated.includes(c));
  return { name, columns: columns.filter((c) => !generated.includes(c)), dataColumns, key, kinds };
}

export const TABLE_META: Readonly<Record<DataTableName, TableMeta>> = Object.fromEntries(
  DATA_TABLES.map((t) => [t, describe(t)]),
) as Record<DataTableName, TableMeta>;
