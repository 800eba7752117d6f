// Parquet from an SQLite destination: SQLite itself writes each row as a CSV record (one string per row, built by
// the SELECT), pages of records go into DuckDB's CSV reader and Parquet writer (parquet-csv-pipe.ts). Reading the
// cells as JavaScript values (a bigint per integer) and copying them into DuckDB's appender (formats/parquet.ts)
// cost several times the CPU of SQLite's records, and DuckDB parses those on its own threads (docs/measurements.md).
//
// Every value is written by SQL: integers as their decimal text, reals with 17 significant digits (exact round
// trip: `%!.17g`; without `!` SQLite's printf stops at 16 digits, and many doubles come back different), text quoted, blobs as hex, booleans 0/1 as false/true. A value of another storage
// class than its column's (a real in an INTEGER column, epoch numbers in a timestamp column, a blob in a text
// column …) is written as a field DuckDB's CSV reader refuses (ODD), so the table is declined and written by the
// row path (formats/parquet.ts), which converts such values as typed.ts says or names the column it refuses.
// Checking in SQL is what it costs: a JavaScript function in the records' SQL, even one never called, cost more than
// the type checks, each a large share of the records' own CPU (docs/measurements.md).
import { mkdir, rm } from 'node:fs/promises';
import type { ExportDatabase } from '../../export/database.js';
import { hasRowids } from './rowids.js';
import { sqliteOf } from './handle.js';
import { readerOf } from './export-reader.js';
import { sqliteRowidPages } from './pages.js';
import type { TypedColumn } from '../../export/typed.js';
import type { DuckParquetJob } from '../duckdb/parquet.js';
import { CsvDeclined, csvToParquet } from '../../export/formats/parquet-csv-pipe.js';
import { spillFolderFor } from '../../export/formats/parquet-spill.js';

/** A field DuckDB's CSV reader refuses (text after a closing quote; strict mode): the value is left to the row path. */
const ODD = `'"odd"!'`;
/** Cells per page of records: one statement call each, and the page's records live until written. */
const PAGE_CELLS = 65_536;

const quotedSql = (x: string) => `'"' || replace(${x}, '"', '""') || '"'`;

/** A column's CSV field, as SQL over its expression `x`. */
function fieldSql(c: TypedColumn, x: string): string {
  const other = `else ${ODD} end`;
  switch (c.type) {
    case 'int64':
      return `case typeof(${x}) when 'integer' then ${x} when 'null' then '' ${other}`;
    case 'double':
      return `case typeof(${x}) when 'real' then printf('%!.17g', ${x}) when 'integer' then ${x} when 'null' then '' ${other}`;
    case 'bool':
      return `case when typeof(${x}) = 'integer' and ${x} = 1 then 'true' when typeof(${x}) = 'integer' and ${x} = 0 then 'false' when ${x} is null then '' ${other}`;
    case 'blob':
      return `case typeof(${x}) when 'blob' then '"' || hex(${x}) || '"' when 'null' then '' ${other}`;
    case 'timestamp_utc':
    case 'timestamp_local':
      // Epoch seconds or milliseconds (timestamp_s / timestamp_ms hints) are ODD: the row path writes them as ISO text.
      return `case typeof(${x}) when 'text' then ${quotedSql(x)} when 'null' then '' ${other}`;
    default:
      return `case typeof(${x}) when 'text' then ${quotedSql(x)} when 'integer' then ${x} when 'null' then '' ${other}`;
  }
}

/**
 * The SQL of one row's CSV record (DuckDB's CSV reader reads it as the columns' text) over the columns' expressions.
 * concat_ws builds the record in one pass; `||` copied it once per field (docs/measurements.md).
 */
export const recordSql = (columns: DuckParquetJob['columns']) =>
  `concat_ws(',', ${columns.map((c) => fieldSql(c.typed, c.expr)).join(', ')})`;

/**
 * The rows of `job` written to `job.path`; null when this path cannot take the table (an in-memory database, a
 * table without rowids, a value of another storage class than its column's, a record longer than DuckDB's CSV
 * reader takes, a value DuckDB's casts refuse): the caller then streams the rows through the row path, which also
 * names the column of a refused value.
 */
export async function copySqliteParquet(
  db: ExportDatabase,
  job: DuckParquetJob,
): Promise<{ rows: number; maxLoadId: bigint | null } | null> {
  if (sqliteOf(db).memory || !hasRowids(sqliteOf(db), job.table)) return null;
  const typed = job.columns.map((c) => c.typed);
  const record = recordSql(job.columns);
  const pageRows = Math.max(64, Math.min(4096, Math.floor(PAGE_CELLS / Math.max(1, typed.length))));
  const scratch = spillFolderFor(job.path);
  await mkdir(scratch);
  const { reader, own } = readerOf(db);
  let maxLoadId: bigint | null = null;
  let read = 0;
  try {
    // The pages are read in one read transaction: one snapshot, as one statement would see.
    reader.exec('BEGIN');
    try {
      const query = {
        table: job.table,
        columns: [`${record} as r`, ...(job.maxLoadId ? ['load_id'] : [])],
        where: job.where,
        params: job.params,
      };
      const pages = sqliteRowidPages(reader, query, pageRows, null, null);
      async function* records(): AsyncGenerator<string> {
        for (const page of pages) {
          job.signal?.throwIfAborted();
          let text = '';
          for (const row of page) {
            text += `${row[0] as string}\n`;
            if (job.maxLoadId) {
              const id = row[1] as bigint;
              if (maxLoadId === null || id > maxLoadId) maxLoadId = id;
            }
          }
          read += page.length;
          // After every page, as the row path reports every batch: a caller may heartbeat, or stop the export.
          job.onRows?.(read);
          yield text;
        }
      }
      const source = records();
      const rows = await csvToParquet({
        path: job.path,
        scratch,
        columns: typed,
        blobBytes: (field) => `unhex(${field})`,
        source,
        stop: () => void source.return(undefined),
      });
      job.signal?.throwIfAborted();
      return { rows, maxLoadId };
    } finally {
      if (reader.inTransaction) reader.exec('COMMIT');
    }
  } catch (err) {
    if (err instanceof CsvDeclined) return null;
    throw err;
  } finally {
    if (own) reader.close();
    await rm(scratch, { recursive: true, force: true });
  }
}
