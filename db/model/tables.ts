// What the loader needs to know about each data table (column order, natural key, column kinds), read from the
// model's one definition (db/model/schema/definition.ts), which the engines' tables and migrations are built from, so the
// SQL the loader writes can never drift from the migrations.
import { TABLES, type AnyTableDef, type ColumnType } from './schema/definition.js';

import { DATA_TABLES, type DataTableName } from './table-names.js';

export { DATA_TABLES, type DataTableName };

/**
 * Model tables whose unknown fields become inferred columns (db/store/evolve/) instead of being dropped: the job
 * records a request's schema shapes, and the marketplace levels that have a table of their own.
 */
export const EVOLVING_TABLES = [
  'job_records',
  'marketplace_products',
  'marketplace_product_models',
  'marketplace_shops',
] as const satisfies readonly DataTableName[];

export const RESULT_TABLES = ['scraper_results', 'pdf_results', 'leads_results'] as const;
export type ResultTableName = (typeof RESULT_TABLES)[number];

/**
 * Columns the loader fills in on every row; flatteners never set them. `last_seen_at` only on the tables with a
 * natural key (db/store/last-seen.ts moves it for the rows a load saw unchanged).
 */
export const LINEAGE_COLUMNS = ['pipeline', 'load_id', 'loaded_at', 'row_hash', 'last_seen_at'] as const;

/** `timestamp`: an instant, written in lib/iso-timestamp.ts's form (a value that is not one is stored NULL). */
export type ColumnKind = 'int' | 'double' | 'text' | 'bool' | 'timestamp';

export interface TableMeta {
  name: DataTableName;
  /** All columns in declaration order. */
  columns: readonly string[];
  /** Columns a flattener provides (everything but lineage and a generated id). */
  dataColumns: readonly string[];
  /** Natural key (primary key); empty for append-only tables with a generated id. */
  key: readonly string[];
  kinds: Readonly<Record<string, ColumnKind>>;
  /** The data columns of kind timestamp, with their index in `dataColumns`. */
  timestampColumns: ReadonlyArray<readonly [number, string]>;
}

/** The loader's kind of each neutral column type (db/model/schema/definition.ts): how a value is checked before it is bound. */
const KIND_OF: Readonly<Record<ColumnType, ColumnKind>> = {
  int64: 'int',
  int32: 'int',
  double: 'double',
  bool: 'bool',
  text: 'text',
  json: 'text',
  timestamp: 'timestamp',
};

function describe(name: DataTableName): TableMeta {
  const def = TABLES[name] as AnyTableDef;
  const entries = Object.entries(def.columns);
  const columns = entries.map(([c]) => c);
  const kinds: Record<string, ColumnKind> = {};
  for (const [c, d] of entries) kinds[c] = KIND_OF[d.type];
  const key: readonly string[] = def.primaryKey ?? [];
  // A generated id (identity) is the key of a table without a natural one; the database fills it in.
  const generated = entries
    .filter(([c, d]) => d.type === 'int64' && d.identity === true && c === 'id' && key.length === 0)
    .map(([c]) => c);
  const dataColumns = columns.filter(
    (c) => !(LINEAGE_COLUMNS as readonly string[]).includes(c) && !generated.includes(c),
  );
  const timestampColumns = dataColumns.flatMap((c, i) => (kinds[c] === 'timestamp' ? [[i, c] as const] : []));
  return { name, columns: columns.filter((c) => !generated.includes(c)), dataColumns, key, kinds, timestampColumns };
}

export const TABLE_META: Readonly<Record<DataTableName, TableMeta>> = Object.fromEntries(
  DATA_TABLES.map((t) => [t, describe(t)]),
) as Record<DataTableName, TableMeta>;
