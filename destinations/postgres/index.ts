// The Postgres destination: a server that several workers write at once, so loads keep one lock order (advisory
// locks, then ROW EXCLUSIVE, then rows in key order) and deadlock victims are retried. Drivers are loaded when
// first used.
import type { Tx } from '../../db/store/sql.js';
import type { LoadAttempt } from '../../db/store/load.js';
import { quoteIdent } from '../../db/store/sql.js';
import { POSTGRES_COLUMN_TYPES, POSTGRES_VALUE_FORMS, postgresKind } from './column-types.js';
import { lazyExportReader } from '../lazy-export-reader.js';
import type { DestinationAdapter } from '../contract.js';
import { postgresCapabilities } from './capabilities.js';
import { URL_FORMS } from '../url-forms.js';
import { lockAdvisory, pgTransactionWithRetries } from './tx.js';

// 28000/28P01: authentication; 3D000: no such database; 42501: insufficient privilege; 3F000: no such schema.
const PERMANENT_PG_CODES = new Set(['28000', '28P01', '3D000', '42501', '3F000']);

const exportReader = () => import('./export-reader.js');

export const postgresDestination: DestinationAdapter<'postgres'> = {
  name: 'postgres',
  capabilities: postgresCapabilities,
  urlForm: URL_FORMS.postgres.form,
  parseUrl(url) {
    const trimmed = url.trim();
    return URL_FORMS.postgres.prefix.test(trimmed) ? { dialect: 'postgres', url: trimmed } : undefined;
  },
  fileOf: () => undefined,
  async open(parsed, _url, opts) {
    const { openPostgres } = await import('./open.js');
    const { pgPoolSize } = await import('./pool-size.js');
    return openPostgres(parsed.url, opts.poolSize ?? pgPoolSize());
  },
  async probe(parsed, opts) {
    const { probePostgres } = await import('./open.js');
    await probePostgres(parsed.url, opts.timeoutMs ?? 5000);
  },
  isPermanentOpenError(err) {
    const code = (err as { code?: unknown } | null)?.code;
    return typeof code === 'string' && PERMANENT_PG_CODES.has(code);
  },
  transaction: (db, fn) => pgTransactionWithRetries(db.pool, fn),
  readTransaction: (db, fn) => pgTransactionWithRetries(db.pool, fn),
  // Each part of a list (a group, or a response alone) commits in a transaction of its own: as savepoints of one
  // transaction a later part would take its locks while holding the earlier parts', and two loads deadlocked.
  writeBatches(db, w) {
    const attempt = async <T>(write: (tx: Tx) => Promise<T>): Promise<LoadAttempt<T>> => {
      try {
        return { ok: await pgTransactionWithRetries(db.pool, write) };
      } catch (error) {
        return { error };
      }
    };
    return w.inGroups(
      (index) => attempt((tx) => w.one(tx, index)),
      async (preps) => {
        const { writeGroupPostgres } = await import('./load-group.js');
        return attempt((tx) => writeGroupPostgres(tx, preps));
      },
    );
  },
  lockKeys: (tx, keys) => lockAdvisory(tx, keys),
  async lockTablesForWrite(tx, tables) {
    // One statement for all of them; Postgres takes the locks in the order listed.
    if (tables.length > 0) await tx.all(`LOCK TABLE ${tables.map(quoteIdent).join(', ')} IN ROW EXCLUSIVE MODE`, []);
  },
  sql: {
    ph: (n) => `$${n}`,
    exactInteger: (expr) => `${expr}::numeric`,
    textType: 'VARCHAR',
    columnTypes: POSTGRES_COLUMN_TYPES,
  },
  catalog: {
    tablesSql: `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
    columnsSql: (ph1) =>
      `SELECT column_name AS name, data_type AS type, (is_nullable = 'NO') AS not_null FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ${ph1} ORDER BY ordinal_position`,
    primaryKeySql: (ph1) =>
      `SELECT a.attname AS name FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
        WHERE i.indrelid = to_regclass(quote_ident(${ph1})) AND i.indisprimary ORDER BY array_position(i.indkey::int2[], a.attnum)`,
  },
  exportReader: lazyExportReader(exportReader, {
    valueForms: POSTGRES_VALUE_FORMS,
    columnKind: (type) => ({ declared: type, kind: postgresKind(type) }),
  }),
  // Postgres's COPY … TO STDOUT (CSV) straight into DuckDB's CSV reader and Parquet writer: no row in JavaScript.
  parquetCopy: async () => (await import('./parquet.js')).copyPostgresParquet,
  async readOnlyQuery(db, query, o) {
    const { readOnlyQuery } = await import('./read-only-query.js');
    return readOnlyQuery(db, query, o);
  },
  async openReadOnly(parsed) {
    const { openPostgresReadOnly } = await import('./read-only-source.js');
    return openPostgresReadOnly(parsed.url);
  },
  async schemaHistoryColumns(parsed, tables) {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: parsed.url, connectionTimeoutMillis: 5000 });
    await client.connect();
    try {
      const has = await client.query(`SELECT to_regclass('schema_history') AS t`);
      if (!has.rows[0]?.t) return undefined;
      const r = await client.query(`SELECT table_name, column_name FROM schema_history WHERE table_name = ANY($1)`, [
        tables,
      ]);
      const out = new Map<string, Set<string>>();
      for (const row of r.rows as Array<Record<string, unknown>>) {
        const set = out.get(String(row['table_name'])) ?? new Set<string>();
        set.add(String(row['column_name']));
        out.set(String(row['table_name']), set);
      }
      return out;
    } finally {
      await client.end();
    }
  },
};
