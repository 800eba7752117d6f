// The SQLite destination: a file written by one connection per process, one writer at a time across processes
// (BEGIN IMMEDIATE), WAL so readers go on meanwhile. Drivers are loaded when first used (open, export), so naming
// the registry costs nothing.
import fs from 'node:fs';
import { lazyExportReader } from '../lazy-export-reader.js';
import type { DestinationAdapter } from '../contract.js';
import { sqliteCapabilities } from './capabilities.js';
import { filePathOfUrl, URL_FORMS } from '../url-forms.js';
import { sqliteReadTransaction, sqliteWriteTransaction } from './tx.js';
import { SQLITE_COLUMN_TYPES, SQLITE_VALUE_FORMS, sqliteKind } from './column-types.js';

const PERMANENT_SQLITE_CODES = new Set([
  'SQLITE_NOTADB',
  'SQLITE_CANTOPEN',
  'SQLITE_READONLY',
  'SQLITE_CORRUPT',
  'SQLITE_PERM',
  'SQLITE_AUTH',
]);

const exportReader = () => import('./export-reader.js');

export const sqliteDestination: DestinationAdapter<'sqlite'> = {
  name: 'sqlite',
  capabilities: sqliteCapabilities,
  urlForm: URL_FORMS.sqlite.form,
  parseUrl(url) {
    const file = filePathOfUrl('sqlite', url);
    return file === undefined ? undefined : { dialect: 'sqlite', file };
  },
  fileOf: (parsed) => parsed.file,
  async open(parsed, url) {
    const { openSqlite } = await import('./open.js');
    return openSqlite(parsed.file, url);
  },
  async readCurrent(parsed, fn) {
    const { readSqlite } = await import('./read-only.js');
    return readSqlite(parsed.file, fn);
  },
  async openCurrentForExport(parsed) {
    const { openCurrentSqlite } = await import('./open-current.js');
    return openCurrentSqlite(parsed.file);
  },
  async probe(parsed) {
    const { probeSqlite } = await import('./open.js');
    probeSqlite(parsed.file);
  },
  isPermanentOpenError(err) {
    const code = (err as { code?: unknown } | null)?.code;
    return typeof code === 'string' && PERMANENT_SQLITE_CODES.has(code);
  },
  transaction: (db, fn) => sqliteWriteTransaction(db.sqlite, fn),
  readTransaction: (db, fn) => sqliteReadTransaction(db.sqlite, fn),
  // One writer at a time: no lock order to keep, so the list is one transaction (one BEGIN/COMMIT, write lock and
  // WAL sync) and each response a savepoint of it.
  writeBatches: (db, w) =>
    sqliteWriteTransaction(db.sqlite, async (tx) =>
      w.inGroups(async (index) => {
        try {
          return { ok: await tx.savepoint(async () => w.one(tx, index)) };
        } catch (error) {
          return { error };
        }
      }, undefined),
    ),
  lockKeys: async () => {},
  lockTablesForWrite: async () => {},
  sql: {
    ph: () => '?',
    exactInteger: (expr) => `CAST(${expr} AS INTEGER)`,
    textType: 'TEXT',
    columnTypes: SQLITE_COLUMN_TYPES,
  },
  catalog: {
    tablesSql: `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`,
    columnsSql: (ph1) =>
      `SELECT name, type, ("notnull" = 1 OR pk > 0) AS not_null FROM pragma_table_info(${ph1}) ORDER BY cid`,
    primaryKeySql: (ph1) => `SELECT name FROM pragma_table_info(${ph1}) WHERE pk > 0 ORDER BY pk`,
  },
  exportReader: lazyExportReader(exportReader, {
    valueForms: SQLITE_VALUE_FORMS,
    columnKind: (type) => ({ declared: type, kind: sqliteKind(type) }),
    csvThreads: () => import('./csv-threads.js'),
  }),
  // SQLite writes each row as a CSV record for DuckDB's CSV reader and Parquet writer: no cell as a JavaScript value.
  parquetCopy: async () => (await import('./parquet.js')).copySqliteParquet,
  async readOnlyQuery(db, query, o) {
    const { readOnlyQuery } = await import('./read-only-query.js');
    return readOnlyQuery(db, query, o);
  },
  async openReadOnly(parsed, url) {
    const { openSqliteReadOnly } = await import('./read-only-source.js');
    return openSqliteReadOnly(parsed.file, url);
  },
  async schemaHistoryColumns(parsed, tables) {
    if (!fs.existsSync(parsed.file)) return undefined;
    const { default: Sqlite } = await import('better-sqlite3');
    const db = new Sqlite(parsed.file, { readonly: true, fileMustExist: true });
    try {
      const has = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_history'`).get();
      if (!has) return undefined;
      const out = new Map<string, Set<string>>();
      for (const r of db
        .prepare(
          `SELECT table_name, column_name FROM schema_history WHERE table_name IN (${tables.map(() => '?').join(', ')})`,
        )
        .all(...tables) as Array<Record<string, unknown>>) {
        const set = out.get(String(r['table_name'])) ?? new Set<string>();
        set.add(String(r['column_name']));
        out.set(String(r['table_name']), set);
      }
      return out;
    } finally {
      db.close();
    }
  },
};
