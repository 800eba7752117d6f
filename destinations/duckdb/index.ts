// The DuckDB destination: a file one process opens at a time (a cross-process file lock queues the others,
// destinations/duckdb/file-lock.ts), no savepoints, statements with a fixed cost high enough that groups are written
// with typed lists bound per column. @duckdb/node-api is loaded when first used.
import type { LoadAttempt } from '../../db/store/load.js';
import { selectSql } from '../../export/rows.js';
import { postgresKind } from '../postgres/column-types.js';
import { DUCKDB_COLUMN_TYPES, DUCKDB_VALUE_FORMS } from './column-types.js';
import type { DestinationAdapter } from '../contract.js';
import { duckdbCapabilities } from './capabilities.js';
import { filePathOfUrl, URL_FORMS } from '../url-forms.js';
import { DatabaseConfigError } from '../config-error.js';
import { duckTransaction } from './tx.js';
import { engineErrorKind } from './engine-errors.js';
import { fileWaitNote } from './file-lock.js';
import { upsertDuckdb } from './upsert.js';
import { duckBatches, duckQuery } from './export-reader.js';
import { postgresTypeName } from './type-names.js';

// DuckDB's errors carry no code: a file that is not a DuckDB database, or one this user may not open.
const PERMANENT_DUCKDB_MESSAGES = /not a valid DuckDB database file|Permission denied|Read-only file system/i;

export const duckdbDestination: DestinationAdapter<'duckdb'> = {
  name: 'duckdb',
  capabilities: duckdbCapabilities,
  urlForm: URL_FORMS.duckdb.form,
  parseUrl(url) {
    const file = filePathOfUrl('duckdb', url);
    if (file === undefined) return undefined;
    // In memory, each process (and each session) would see a database of its own: nothing a load could share.
    if (file === ':memory:')
      throw new DatabaseConfigError(
        `database URL '${url.trim()}': a DuckDB destination must be a file (duckdb:<path>)`,
      );
    return { dialect: 'duckdb', file };
  },
  fileOf: (parsed) => parsed.file,
  async open(parsed, url) {
    const { openDuckDatabase } = await import('./database.js');
    return openDuckDatabase(parsed.file, url);
  },
  async probe(parsed) {
    const { probeDuckdb } = await import('./probe.js');
    probeDuckdb(parsed.file);
  },
  isPermanentOpenError: (err) =>
    err instanceof Error && !('code' in err) && PERMANENT_DUCKDB_MESSAGES.test(err.message),
  // The session holds the file's lock (one process at a time) and queues this process's transactions.
  transaction: (db, fn) => db.session((conn) => duckTransaction(conn, fn)),
  readTransaction: (db, fn) => db.session((conn) => duckTransaction(conn, fn)),
  // No savepoints: a group is one transaction (load-group.ts: a COMMIT and each statement cost DuckDB a fixed price,
  // so a transaction per response cost several times a group's; docs/measurements.md); when it cannot be, each response gets a transaction of its own (same
  // contract: a failing response leaves nothing, the ones before it stay committed). One session holds the file
  // open for the whole list.
  writeBatches: (db, w) =>
    db.session(async (conn) => {
      const attempt = async <T>(write: Parameters<typeof duckTransaction<T>>[1]): Promise<LoadAttempt<T>> => {
        try {
          return { ok: await duckTransaction(conn, write) };
        } catch (error) {
          // An engine error ends the session (database.ts): no response is tried on that instance again.
          if (engineErrorKind(error) !== undefined) throw error;
          return { error };
        }
      };
      return w.inGroups(
        (index) => attempt((tx) => w.one(tx, index)),
        async (preps) => {
          const { writeGroupDuckdb } = await import('./load-group.js');
          return attempt((tx) => writeGroupDuckdb(tx, preps));
        },
      );
    }),
  // A response alone as a group of one too: about a dozen statements instead of ~27, each at DuckDB's fixed price.
  loneLoadsAsLists: true,
  // Only the changed rows need ON CONFLICT, which DuckDB charges dearly for (upsert.ts).
  upsertRows: (tx, t, rows, chunks) => upsertDuckdb(tx, t, rows, chunks),
  // One writer per file: nothing to order.
  lockKeys: async () => {},
  lockTablesForWrite: async () => {},
  sql: {
    ph: (n) => `$${n}`,
    // Its plain numeric is DECIMAL(18,3), too small for 64-bit ids: HUGEINT holds them all.
    exactInteger: (expr) => `CAST(${expr} AS HUGEINT)`,
    textType: 'VARCHAR',
    // DuckDB takes the Postgres type names (ddl.ts).
    columnTypes: DUCKDB_COLUMN_TYPES,
  },
  catalog: {
    tablesSql: `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'main' AND table_type = 'BASE TABLE' ORDER BY table_name`,
    columnsSql: (ph1) =>
      `SELECT column_name AS name, data_type AS type, (is_nullable = 'NO') AS not_null FROM information_schema.columns WHERE table_schema = 'main' AND table_name = ${ph1} ORDER BY ordinal_position`,
    primaryKeySql: (ph1) =>
      `SELECT unnest(constraint_column_names) AS name FROM duckdb_constraints() WHERE schema_name = 'main' AND table_name = ${ph1} AND constraint_type = 'PRIMARY KEY'`,
  },
  exportReader: {
    query: (db, sql, params) => duckQuery(db, sql, params === undefined ? [] : [...params]),
    rowBatches: (db, query, params, batchSize) =>
      duckBatches(db, typeof query === 'string' ? query : selectSql(query), params, batchSize),
    // Converted to Postgres's text forms (export-reader.ts), so a DuckDB table is written exactly as a Postgres one.
    valueForms: DUCKDB_VALUE_FORMS,
    columnKind(type) {
      // Declared under Postgres's names: DuckDB columns are typed (and their values formatted) as Postgres's are.
      const declared = postgresTypeName(type);
      return { declared, kind: postgresKind(declared) };
    },
    readWatermark: async (db, p, t) => (await import('./export-watermarks.js')).readWatermark(db, p, t),
    readLastExportedFile: async (db, p, t) => (await import('./export-watermarks.js')).readLastExportedFile(db, p, t),
    advanceWatermark: async (db, p, t, id, w) =>
      (await import('./export-watermarks.js')).advanceWatermark(db, p, t, id, w),
  },
  // DuckDB writes its own rows to Parquet (COPY … TO): nothing streams through JavaScript.
  parquetCopy: async () => (await import('./parquet.js')).copyDuckdbParquet,
  async readOnlyQuery(db, query, o) {
    const { readOnlyQuery } = await import('./read-only-query.js');
    return readOnlyQuery(db, query, o);
  },
  async openReadOnly(parsed, url) {
    const { openDuckReadOnly } = await import('./read-only-source.js');
    return openDuckReadOnly(parsed.file, url);
  },
  // Opening the file takes its lock from a running worker; not worth it for a validation.
  schemaHistoryColumns: async () => undefined,
  waitNote: (parsed) => fileWaitNote(parsed.file),
};
