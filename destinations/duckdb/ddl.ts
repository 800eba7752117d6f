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
export const DUCKDB_SCHEMA_VERSION = 11;

/**
 * Steps after the baseline, by the version they bring the file to. A new file's baseline is already the current
 * definition, so each step is written to be a no-op there (IF NOT EXISTS).
 */
/** Runs a read-only query on the file being migrated, for a step whose statements depend on what it holds. */
export type SchemaRead = (sql: string) => Promise<Array<Record<string, unknown>>>;

export const DUCKDB_SCHEMA_STEPS: ReadonlyArray<{
  version: number;
  sql: (read: SchemaRead) => readonly string[] | Promise<readonly string[]>;
}> = [
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
  // 0014_warehouse_docs writes them; after every table exists, so spend_calls's too. Only on the columns the file has
  // at this version: the descriptions are today's, and columns later steps add (last_seen_at, step 9) get theirs there.
  { version: 8, sql: (read) => existingColumnsOnly(warehouseDocsDdl(), read) },
  // Columns typed for what they hold (issue 40), as the Postgres migration 0016_typed_columns types them. DuckDB
  // alters no column of a table with an index, and a dropped index's name is free only once its transaction has
  // committed: step 9 drops the indexes of the tables it alters (keeping their statements in PENDING_INDEXES), and
  // step 10, in a transaction of its own, makes them again.
  { version: 9, sql: (read) => typedColumnsDdl(read) },
  { version: 10, sql: (read) => pendingIndexesDdl(read) },
  {
    // Values kept out of their columns (issue 40): each response's, and each run's sum with the first few named.
    version: 11,
    // The comments of every column the file has or this step adds: the service timestamps' now say where they are counted.
    sql: async (read) => [
      'ALTER TABLE raw_responses ADD COLUMN IF NOT EXISTS kept_out JSON',
      'ALTER TABLE pipeline_runs ADD COLUMN IF NOT EXISTS kept_out integer',
      'ALTER TABLE pipeline_runs ADD COLUMN IF NOT EXISTS kept_out_sample JSON',
      ...(await existingColumnsOnly(warehouseDocsDdl(), read, [
        'raw_responses.kept_out',
        'pipeline_runs.kept_out',
        'pipeline_runs.kept_out_sample',
      ])),
    ],
  },
];

/** The indexes step 9 dropped, made again by step 10 (each step commits on its own). */
const PENDING_INDEXES = 'scrape_etl_duckdb_pending_indexes';

/** The service's timestamps, text before version 9 (the model's own timestamps were timestamptz from the start). */
const SERVICE_TIMESTAMPS: Readonly<Record<string, readonly string[]>> = {
  scrapers: ['created_at', 'updated_at'],
  scraping_runs: ['created_at'],
  run_records: ['created_at', 'updated_at'],
  scraper_results: ['created_at', 'updated_at'],
  pdf_results: ['created_at', 'updated_at'],
  leads_results: ['created_at', 'updated_at'],
};

// Only a date and time with seconds and a zone is an instant (lib/iso-timestamp.ts takes the same forms): a text
// without a zone would be read in the session's time zone. Anything else becomes NULL (raw_responses keeps it).
const INSTANT_TEXT = String.raw`^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d([.,]\d+)?(Z|z|[+-]\d\d(:?\d\d)?)$`;
const toInstant = (c: string) =>
  `CASE WHEN regexp_full_match(${quoteIdent(c)}, '${INSTANT_TEXT}') THEN try_cast(${quoteIdent(c)} AS TIMESTAMPTZ) END`;

/**
 * Version 9: the service's timestamps as TIMESTAMPTZ, JSON text as JSON (the model's columns and the inferred
 * ones schema_history types json), each content root's result_created_at as TIMESTAMPTZ, and last_seen_at on the
 * tables with a natural key. Only columns still VARCHAR are altered, so the step is a no-op on a current file. The
 * views are dropped first (DuckDB refuses to alter what a view reads) and made again with every comment.
 */
async function typedColumnsDdl(read: SchemaRead): Promise<string[]> {
  const varchar = new Set(
    (
      await read(
        `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'main' AND data_type = 'VARCHAR'`,
      )
    ).map((r) => `${String(r['table_name'])}.${String(r['column_name'])}`),
  );
  const out = ['DROP VIEW IF EXISTS results_landed', 'DROP VIEW IF EXISTS pipeline_freshness'];
  const alters: string[] = [];
  const altered = new Set<string>();
  const alter = (table: string, column: string, type: string, using: string) => {
    if (!varchar.has(`${table}.${column}`)) return;
    altered.add(table);
    alters.push(
      `ALTER TABLE ${quoteIdent(table)} ALTER COLUMN ${quoteIdent(column)} SET DATA TYPE ${type} USING ${using}`,
    );
  };
  for (const [table, def] of Object.entries(TABLES) as Array<[string, AnyTableDef]>) {
    for (const [column, c] of Object.entries(def.columns)) {
      if (c.type === 'json') alter(table, column, 'JSON', `CAST(${quoteIdent(column)} AS JSON)`);
      if (SERVICE_TIMESTAMPS[table]?.includes(column)) alter(table, column, 'TIMESTAMPTZ', toInstant(column));
    }
    if ('last_seen_at' in def.columns)
      out.push(`ALTER TABLE ${quoteIdent(table)} ADD COLUMN IF NOT EXISTS last_seen_at TIMESTAMPTZ`);
  }
  const inferred = await read(
    `SELECT table_name, column_name, data_type, change FROM schema_history WHERE data_type = 'json' OR (column_name = 'result_created_at' AND change = 'create_table')`,
  );
  for (const r of inferred) {
    const table = String(r['table_name']);
    const column = String(r['column_name']);
    if (r['data_type'] === 'json') alter(table, column, 'JSON', `CAST(${quoteIdent(column)} AS JSON)`);
    else alter(table, column, 'TIMESTAMPTZ', toInstant(column));
  }
  const indexes = await read(
    `SELECT table_name, index_name, sql FROM duckdb_indexes() WHERE schema_name = 'main' AND sql IS NOT NULL`,
  );
  out.push(`CREATE TABLE IF NOT EXISTS ${PENDING_INDEXES} (index_name text PRIMARY KEY, sql text NOT NULL)`);
  for (const i of indexes) {
    if (!altered.has(String(i['table_name']))) continue;
    const name = String(i['index_name']);
    out.push(
      `INSERT INTO ${PENDING_INDEXES} VALUES (${literal(name)}, ${literal(String(i['sql']))}) ON CONFLICT DO NOTHING`,
      `DROP INDEX ${quoteIdent(name)}`,
    );
  }
  out.push(
    ...alters,
    `UPDATE schema_history SET data_type = 'timestamp' WHERE column_name = 'result_created_at' AND change = 'create_table' AND data_type = 'text'`,
  );
  // Comments only on the columns the file has after this step: those later steps add get theirs there.
  const lastSeen = Object.entries(TABLES)
    .filter(([, def]) => 'last_seen_at' in (def as AnyTableDef).columns)
    .map(([table]) => `${table}.last_seen_at`);
  return [...out, ...(await existingColumnsOnly(warehouseDocsDdl(), read, lastSeen))];
}

/** Version 10: the indexes step 9 dropped, each made again as it was. */
async function pendingIndexesDdl(read: SchemaRead): Promise<string[]> {
  const exists = await read(
    `SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'main' AND table_name = '${PENDING_INDEXES}'`,
  );
  if (Number(exists[0]?.['n']) === 0) return [];
  const pending = await read(`SELECT sql FROM ${PENDING_INDEXES} ORDER BY index_name`);
  return [
    ...pending.map((p) =>
      String(p['sql'])
        .replace(/;\s*$/, '')
        .replace(/^CREATE (UNIQUE )?INDEX /, 'CREATE $1INDEX IF NOT EXISTS '),
    ),
    `DROP TABLE ${PENDING_INDEXES}`,
  ];
}

/**
 * `statements` without the comments on columns of the file's tables that the file does not have (yet). Columns of a
 * view the statements make keep theirs.
 */
async function existingColumnsOnly(
  statements: string[],
  read: SchemaRead,
  /** `table.column`s the same step adds before these statements run. */
  added: readonly string[] = [],
): Promise<string[]> {
  const rows = await read(`SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'main'`);
  const tables = new Set(rows.map((r) => String(r['table_name'])));
  const columns = new Set([...rows.map((r) => `${String(r['table_name'])}.${String(r['column_name'])}`), ...added]);
  const onColumn = /^COMMENT ON COLUMN "((?:[^"]|"")+)"\."((?:[^"]|"")+)" IS /;
  return statements.filter((sql) => {
    const m = onColumn.exec(sql);
    if (!m) return true;
    const [table, column] = [m[1]!.replace(/""/g, '"'), m[2]!.replace(/""/g, '"')];
    return !tables.has(table) || columns.has(`${table}.${column}`);
  });
}

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
  steps: typeof DUCKDB_SCHEMA_STEPS = DUCKDB_SCHEMA_STEPS,
): typeof DUCKDB_SCHEMA_STEPS {
  return steps.filter((s) => s.version > version);
}

export const SCHEMA_VERSION_TABLE = 'scrape_etl_duckdb_schema';
