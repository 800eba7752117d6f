// What the sqlite destination can do (destinations/types.ts DestinationCapabilities): a module of its own, light, so
// that naming and validation read it without loading the adapter.
import type { DestinationCapabilities } from '../contract.js';

export const sqliteCapabilities: DestinationCapabilities = {
  server: false,
  savepoints: true,
  onConflict: true,
  bulkWrite: 'values-in-savepoints',
  // SQLITE_MAX_VARIABLE_NUMBER's default since 3.32.
  maxParams: 32_766,
  // SQLite's default SQLITE_MAX_COLUMN is 2000; each inferred column also costs every statement that names it.
  maxColumns: 1000,
  // SQLite has no identifier limit; names are capped so that they stay readable and portable.
  maxIdentifierBytes: 128,
  // The rowid aliases of every rowid table.
  reservedNames: new Set(['rowid', 'oid', '_rowid_']),
  // Processes share the file; BEGIN IMMEDIATE lets one of them write at a time (busy_timeout waits for it).
  oneWriterPerFile: false,
  concurrentWriters: false,
  addColumnIfNotExists: false,
  typedColumns: false,
  exactChunks: false,
  parallelExportReaders: true,
};
