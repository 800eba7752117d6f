// The DuckDB schema, generated from the model's definition (db/model/schema/definition.ts) rather than by replaying the
// Postgres migrations: DuckDB cannot run their history (RENAME/DROP COLUMN on indexed tables, DROP CONSTRAINT, row
// level security), and drizzle has no DuckDB driver. The generated DDL is the *current* schema, so a fresh file
// gets the same tables, columns, types and keys as a fresh Postgres database (test/integration/db/db-duckdb.test.ts).
import { TABLES, type AnyTableDef, type ColumnDef, type IndexDef } from '../../db/model/schema/definition.js';
import { quoteIdent } from '../../db/store/sql.js';
import { commentOn, modelComments } from '../../db/model/schema/comments.js';
import { VIEW_SQL } from '../../db/model/schema/views.js';
import { DUCKDB_COLUMN_TYPES } from './column-types.js';

/**
 * Version of the baseline below. A later change to the model gets a hand-written step in STEPS (only ADD COLUMN and
 * CREATE INDEX are safe on DuckDB tables with indexes; a rename needs a table copy and swap), and `npm run
 * db:generate` records the new version's baseline in schema-snapshots/: test/fast/db/db-migrations-current.test.ts
 * fails while the definition differs from the last snapshot, or while the steps do not bring a file of the version
 * before it to what a new file gets.
 */
export const DUCKDB_SCHEMA_VERSION = 8;

/**
 * Steps after the baseline, by the version they bring the file to. A new file's baseline is already the current
 * definition, so each step is written to be a no-op there (IF NOT EXISTS).
 */
export const DUCKDB_SCHEMA_STEPS: ReadonlyArray<{ version: number; sql: () => readonly string[] }> = [
  // pipeline_runs.alert_status / alert_error: the outcome of the run's alert deliveries.
  {
    version: 2,
    sql: () => [
      'ALTER TABLE pipeline_runs ADD COLUMN IF NOT EXISTS alert_status text',
      'ALTER TABLE pipeline_runs ADD COLUMN IF NOT EXISTS alert_error text',
    ],
  },
  {
    // Hostile content (issue 30): the registry's source keys and root tables, and the quarantine table.
    version: 3,
    sql: () => [
      'ALTER TABLE schema_history ADD COLUMN IF NOT EXISTS source_key text',
      'ALTER TABLE schema_history ADD COLUMN IF NOT EXISTS root_table text',
      'CREATE INDEX IF NOT EXISTS schema_history_root_table_idx ON schema_history (root_table)',
      ...tableDdl('rejected_results', TABLES.rejected_results as AnyTableDef),
    ],
  },
  {
    // Checks and watches (checks/), and the run and previous major price on each price-history row.
    version: 4,
    sql: () => [
      'ALTER TABLE "marketplace_price_history" ADD COLUMN IF NOT EXISTS "workflow_id" text',
      'ALTER TABLE "marketplace_price_history" ADD COLUMN IF NOT EXISTS "previous_price_major" double precision',
      ...(['check_results', 'watch_events', 'watch_state'] as const).flatMap((t) =>
        tableDdl(t, TABLES[t] as AnyTableDef),
      ),
    ],
  },
  {
    // The model's non-unique indexes of several columns, which DuckDB never reads (duckdbBuildsIndex), made by
    // earlier baselines: dropped, so loads stop maintaining them.
    version: 5,
    sql: () =>
      Object.values(TABLES).flatMap((def) =>
        ((def as AnyTableDef).indexes ?? [])
          .filter((i) => !duckdbBuildsIndex(i))
          .map((i) => `DROP INDEX IF EXISTS ${quoteIdent(i.name)}`),
      ),
  },
  {
    // Rows seen beside rows changed (issue 36): each response's rows by table, and each run's sum of them.
    version: 6,
    sql: () => [
      'ALTER TABLE raw_responses ADD COLUMN IF NOT EXISTS rows_seen text',
      'ALTER TABLE pipeline_runs ADD COLUMN IF NOT EXISTS seen_by_table text',
    ],
  },
  {
    // Spend control (budget/): the billable calls, and the reason a run ended as it did ('budget').
    version: 7,
    sql: () => [
      'ALTER TABLE pipeline_runs ADD COLUMN IF NOT EXISTS status_reason text',
      ...tableDdl('spend_calls', TABLES.spend_calls as AnyTableDef),
    ],
  },
  // The analyst's views and the comments of every table, view and column (issue 40), as the Postgres migration
  // 0014_warehouse_docs writes them; after every table exists, so spend_calls's too.
  { version: 8, sql: () => warehouseDocsDdl() },
];

/** The views (replaced, so the step is a no-op on a new file) and every comment of the model. */
export function warehouseDocsDdl(): string[] {
  return [
    ...Object.values(VIEW_SQL).map((sql) => sql.replace(/^CREATE VIEW /, 'CREATE OR REPLACE VIEW ')),
    ...modelComments().map(commentOn),
  ];
}

/**
 * Whether the DuckDB schema has the model's index `i`. DuckDB answers a query through an ART index only for a
 * filter on one column (equality or IN); a query filtering on the columns of an index of several columns is a
 * sequential scan (docs/measurements.md), and zone maps (min/max per row group) already skip what `load_id > ?` does
 * not need, rows being appended in load order. Such an index only costs: every insert maintains it, and the file
 * stores it (bench/duckdb-size.ts). Unique indexes stay whatever their width: they are constraints
 * (rejected_results' ON CONFLICT needs its own).
 */
export function duckdbBuildsIndex(i: IndexDef): boolean {
  return i.unique || i.columns.length === 1;
}

function literal(value: unknown): string {
  if (typeof value === 'string') return `'${value.replace(/'/g, "''")}'`;
  return String(value);
}

/** DuckDB accepts the Postgres type names the model uses (bigint, double precision, timestamp with time zone …). */
export function duckdbType(c: ColumnDef): string {
  return DUCKDB_COLUMN_TYPES[c.type];
}

export function sequenceName(table: string): string {
  return `${table}_id_seq`;
}

/** CREATE statements of one table: its identity sequence (DuckDB has no identity columns), the table, its indexes. */
export function tableDdl(name: string, def: AnyTableDef): string[] {
  const out: string[] = [];
  const cols: string[] = [];
  let identity: string | undefined;
  for (const [col, c] of Object.entries(def.columns)) {
    let sql = `${quoteIdent(col)} ${duckdbType(c)}`;
    if (c.identity) {
      identity = col;
      out.push(`CREATE SEQUENCE IF NOT EXISTS ${quoteIdent(sequenceName(name))} START 1`);
      sql += ` DEFAULT nextval('${sequenceName(name)}')`;
    } else if (c.default !== undefined) {
      sql += ` DEFAULT ${literal(c.default)}`;
    }
    if (c.notNull) sql += ' NOT NULL';
    cols.push(sql);
  }
  const key = identity !== undefined ? [identity] : def.primaryKey;
  if (key) cols.push(`PRIMARY KEY (${key.map(quoteIdent).join(', ')})`);
  out.push(`CREATE TABLE IF NOT EXISTS ${quoteIdent(name)} (${cols.join(', ')})`);
  // No `USING btree`: DuckDB builds ART indexes and refuses the Postgres method name.
  for (const i of def.indexes ?? []) {
    if (!duckdbBuildsIndex(i)) continue;
    out.push(
      `CREATE ${i.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${quoteIdent(i.name)} ON ${quoteIdent(name)} (${i.columns.map(quoteIdent).join(', ')})`,
    );
  }
  return out;
}

/** Every statement of the baseline schema, table by table in definition order (of `tables`: the model's). */
export function baselineDdl(tables: Readonly<Record<string, AnyTableDef>> = TABLES): string[] {
  return [...Object.entries(tables).flatMap(([name, def]) => tableDdl(name, def)), ...warehouseDocsDdl()];
}

/** The steps a file of schema version `version` takes, in order (of `steps`: the product's). */
export function stepsAfter(
  version: number,
  steps: ReadonlyArray<{ version: number; sql: () => readonly string[] }> = DUCKDB_SCHEMA_STEPS,
): ReadonlyArray<{ version: number; sql: () => readonly string[] }> {
  return steps.filter((s) => s.version > version);
}

export const SCHEMA_VERSION_TABLE = 'scrape_etl_duckdb_schema';
