// Reads every table of a scrape-etl database into a dialect-neutral form, so SQLite, Postgres and DuckDB contents
// can be compared value for value: integers as decimal strings (exact beyond 2^53), booleans as booleans,
// rows sorted. `loaded_at` and `last_seen_at`, the wall-clock columns, are left out unless asked for.
import type { Database } from '../../destinations/contract.js';
import { duckQuery } from '../../destinations/duckdb/export-reader.js';
import { DATA_TABLES, TABLE_META, type DataTableName } from '../../db/model/tables.js';

export type Dump = Record<string, Array<Record<string, unknown>>>;

const RAW_COLUMNS = [
  'id',
  'pipeline',
  'kind',
  'endpoint',
  'request_key',
  'workflow_id',
  'scraping_run_id',
  'body_sha256',
  'body_bytes',
  'body',
];

async function select(db: Database, sql: string): Promise<Array<Record<string, unknown>>> {
  if (db.dialect === 'sqlite') return db.sqlite.prepare(sql).safeIntegers(true).all() as Array<Record<string, unknown>>;
  if (db.dialect === 'duckdb') return duckQuery(db, sql);
  return (await db.pool.query(sql)).rows as Array<Record<string, unknown>>;
}

function normalise(kind: string | undefined, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (kind === 'int' || kind === 'bigint') return BigInt(v as string | number | bigint).toString();
  if (kind === 'bool') return typeof v === 'boolean' ? v : Number(v) === 1;
  if (kind === 'double') return Number(v);
  // Postgres and DuckDB timestamptz read as a Date, SQLite's ISO text as a string: the same instant either way.
  if (v instanceof Date || kind === 'timestamp') return new Date(v as string | Date).toISOString();
  return v;
}

/** Inferred columns (schema_history) by table, with their logical types. */
async function inferredColumns(db: Database): Promise<Map<string, Map<string, string>>> {
  const out = new Map<string, Map<string, string>>();
  for (const r of await select(
    db,
    'SELECT table_name, column_name, data_type FROM schema_history ORDER BY table_name, column_name',
  )) {
    const t = String(r['table_name']);
    if (!out.has(t)) out.set(t, new Map());
    out.get(t)!.set(String(r['column_name']), String(r['data_type']));
  }
  return out;
}

function sortRows(rows: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  const keyed = rows.map((r) => [JSON.stringify(r), r] as const);
  keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return keyed.map(([, r]) => r);
}

/**
 * Which wall-clock columns a dump keeps. `keepLoadedAt`: `loaded_at` and `last_seen_at` as stored, for a check that
 * nothing was written at all. `keepLastSeen: false` beside it leaves `last_seen_at` out, for a check that a reload
 * rewrote no row: a reload moves `last_seen_at` of every row it saw, by design (assert that with lastSeenAt).
 */
export interface DumpOptions {
  keepLoadedAt?: boolean;
  keepLastSeen?: boolean;
}

/** A model table with its inferred columns, or an inferred table (`<pipeline>_items`, …) by name. */
export async function dumpTable(
  db: Database,
  table: string,
  opts: DumpOptions = {},
): Promise<Array<Record<string, unknown>>> {
  const inferred = (await inferredColumns(db)).get(table) ?? new Map<string, string>();
  const meta = (TABLE_META as Record<string, (typeof TABLE_META)[DataTableName] | undefined>)[table];
  const kinds = new Map<string, string>([...Object.entries(meta?.kinds ?? {}), ...inferred]);
  const keepLastSeen = opts.keepLastSeen ?? opts.keepLoadedAt ?? false;
  const cols = [...(meta?.columns ?? []), ...[...inferred.keys()].filter((c) => !meta?.columns.includes(c))].filter(
    (c) => (opts.keepLoadedAt || c !== 'loaded_at') && (keepLastSeen || c !== 'last_seen_at'),
  );
  const rows = await select(db, `SELECT ${cols.map((c) => `"${c}"`).join(', ')} FROM "${table}"`);
  return sortRows(
    rows.map((r) =>
      Object.fromEntries(cols.map((c) => [c, c === 'loaded_at' ? String(r[c]) : normalise(kinds.get(c), r[c])])),
    ),
  );
}

export async function dumpDatabase(db: Database, opts: DumpOptions = {}): Promise<Dump> {
  const out: Dump = {};
  for (const t of DATA_TABLES) out[t] = await dumpTable(db, t, opts);
  for (const t of (await inferredColumns(db)).keys())
    if (!(DATA_TABLES as readonly string[]).includes(t)) out[t] = await dumpTable(db, t, opts);
  out['schema_history'] = (
    await select(db, 'SELECT table_name, column_name, data_type, change, variant_of, pipeline FROM schema_history')
  ).map((r) => ({ ...r }));
  out['schema_history'] = sortRows(out['schema_history']);
  const raw = await select(db, `SELECT ${RAW_COLUMNS.join(', ')} FROM raw_responses`);
  out['raw_responses'] = sortRows(
    raw.map((r) =>
      Object.fromEntries(
        RAW_COLUMNS.map((c) => [
          c,
          ['id', 'scraping_run_id', 'body_bytes'].includes(c) ? normalise('int', r[c]) : r[c],
        ]),
      ),
    ),
  );
  return out;
}

/**
 * `last_seen_at` of every row of the given pipelines, as instants (ms since the epoch), by model table that carries
 * the column (tables without rows of those pipelines are left out).
 */
export async function lastSeenAt(db: Database, pipelines: readonly string[]): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = {};
  const list = pipelines.map((p) => `'${p.replace(/'/g, "''")}'`).join(', ');
  for (const t of DATA_TABLES) {
    if (!TABLE_META[t].columns.includes('last_seen_at')) continue;
    const rows = await select(db, `SELECT last_seen_at FROM "${t}" WHERE pipeline IN (${list})`);
    if (rows.length > 0) out[t] = rows.map((r) => new Date(r['last_seen_at'] as string | Date).getTime());
  }
  return out;
}

export async function countRows(db: Database, table: string): Promise<number> {
  const [row] = await select(db, `SELECT COUNT(*) AS n FROM "${table}"`);
  return Number(row?.['n']);
}
