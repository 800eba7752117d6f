// What the duckdb destination can do (destinations/contract.ts DestinationCapabilities): a module of its own, light, so
// that naming and validation read it without loading the adapter.
import type { DestinationCapabilities } from '../contract.js';

export const duckdbCapabilities: DestinationCapabilities = {
  server: false,
  savepoints: false,
  onConflict: true,
  bulkWrite: 'unnest-bound-lists',
  // No fixed bound; it keeps the Postgres one (statements of 256 rows stay far below it anyway).
  maxParams: 65_535,
  // DuckDB holds thousands of columns, but every ALTER TABLE ADD COLUMN inside a transaction keeps another version
  // of the table's catalog entry until COMMIT, so one batch adding n columns costs memory growing with n squared.
  // 300 keeps the worst batch near the baseline (bench/wide-content.ts, docs/measurements.md).
  maxColumns: 300,
  // No identifier limit; names are capped so that they stay readable and portable.
  maxIdentifierBytes: 128,
  // Its rowid pseudo-column.
  reservedNames: new Set(['rowid']),
  oneWriterPerFile: true,
  concurrentWriters: false,
  addColumnIfNotExists: true,
  typedColumns: true,
  // A fixed cost per ON CONFLICT statement (milliseconds) dwarfs preparing one more statement shape.
  exactChunks: true,
  parallelExportReaders: false,
  commentOn: true,
};
