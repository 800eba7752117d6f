// The export entry point used to live here, when CSV was the only format; callers (activities, benchmarks,
// tests, programs using the documented `export/csv.ts`) keep importing it from this path.
export {
  exportTables,
  exportTablesReport,
  type ExportOptions,
  type ExportReport,
  type ExportedFile,
} from './export.js';
