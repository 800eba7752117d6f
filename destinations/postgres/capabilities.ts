// What the postgres destination can do (destinations/types.ts DestinationCapabilities): a module of its own, light, so
// that naming and validation read it without loading the adapter.
import type { DestinationCapabilities } from '../contract.js';

export const postgresCapabilities: DestinationCapabilities = {
  server: true,
  savepoints: true,
  onConflict: true,
  bulkWrite: 'unnest-array-literals',
  // The wire protocol's Int16 parameter count.
  maxParams: 65_535,
  // Postgres allows 1600 columns and rows within a page; the byte budget (maxRowBytes) is what binds first.
  maxColumns: 1000,
  // NAMEDATALEN - 1: longer identifiers are silently truncated by the server.
  maxIdentifierBytes: 63,
  maxRowBytes: 7000,
  // The system columns every table has (oid is no longer one since 12, but older tools still treat it so).
  reservedNames: new Set(['ctid', 'xmin', 'xmax', 'cmin', 'cmax', 'tableoid', 'oid']),
  oneWriterPerFile: false,
  concurrentWriters: true,
  addColumnIfNotExists: true,
  typedColumns: true,
  exactChunks: false,
  parallelExportReaders: false,
};
