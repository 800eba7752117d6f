// CSV text into DuckDB's CSV reader and out as Parquet (DuckDB's COPY with parquet-sql.ts's casts, the ones every
// destination's export uses): the path of the Postgres and SQLite exports (destinations/postgres/parquet.ts, destinations/sqlite/parquet.ts).
// The database makes the text, DuckDB parses it on its own threads; no cell becomes a JavaScript value on the way.
//
// The text goes through a named pipe, so DuckDB writes row groups while the rows are still being read and memory
// stays flat in rows (the pipe holds what DuckDB has not yet read; COPY keeps a row group or two). Where no named
// pipe can be made (mkfifo missing), the CSV goes to a file in the scratch folder first and DuckDB reads it after.
import { execFile } from 'node:child_process';
import { constants, createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import type { DuckDBResultReader } from '@duckdb/node-api';
import type { TypedColumn } from '../typed.js';
import { parquetCopySql, parquetSelectList, sqlLiteral } from './parquet-sql.js';

/** DuckDB's buffer pool while it converts: it holds row groups being encoded and the CSV buffers, not the table. */
const DUCK_MEMORY = '192MB';
/**
 * One DuckDB thread: a pipe is read by one thread whatever the setting, and the database making the CSV already
 * has the other core; a second thread cost CPU and memory and was no faster (docs/measurements.md).
 */
const DUCK_THREADS = '1';
/**
 * The longest CSV record DuckDB accepts (its default is 2 MB; a raw_responses row holds a whole web page), and the
 * size of the buffers it reads in (at least as large; they count against DUCK_MEMORY). A table with a longer row
 * is exported through the row path (formats/parquet.ts) instead: see CsvDeclined.
 */
const MAX_RECORD_BYTES = 16 * 1024 * 1024;

export interface CsvPipeJob {
  /** The Parquet file. */
  path: string;
  /** An existing folder of this export's scratch files (the pipe, DuckDB's spill). */
  scratch: string;
  /** The file's columns; the CSV's fields are these, in order, as text (NULL unquoted empty, "" the empty string). */
  columns: TypedColumn[];
  /** The DuckDB expression of a blob column's bytes from its field `c<i>` (the database's hex text). */
  blobBytes: (field: string) => string;
  /** The CSV: records ending in \n. */
  source: Readable | AsyncIterable<string | Buffer>;
  /** Ends the source early (DuckDB failed before reading). */
  stop: () => void;
}

/** Why the CSV path cannot write a table: the caller then takes the row path (formats/parquet.ts). */
export class CsvDeclined extends Error {}

/** Rows written. Throws CsvDeclined for a record DuckDB's CSV reader refuses (too long, not CSV) or a value its casts refuse. */
export async function csvToParquet(job: CsvPipeJob): Promise<number> {
  const duck = await import('@duckdb/node-api');
  const instance = await duck.DuckDBInstance.create(':memory:', {
    memory_limit: DUCK_MEMORY,
    temp_directory: job.scratch,
    threads: DUCK_THREADS,
  });
  const con = await instance.connect();
  try {
    const csvPath = join(job.scratch, 'rows.csv');
    const piped = await makeFifo(csvPath);
    const fields = `{${job.columns.map((_c, i) => `'c${i}': 'varchar'`).join(', ')}}`;
    const reader =
      `read_csv(${sqlLiteral(csvPath)}, columns = ${fields}, header = false, auto_detect = false, delim = ',', quote = '"', escape = '"', ` +
      `allow_quoted_nulls = false, strict_mode = true, new_line = '\\n', max_line_size = ${MAX_RECORD_BYTES}, buffer_size = ${MAX_RECORD_BYTES})`;
    const copySql = parquetCopySql(
      `select ${parquetSelectList(job.columns, (c, i) => (c.type === 'blob' ? job.blobBytes(`c${i}`) : `c${i}`))} from ${reader}`,
      job.path,
    );
    try {
      if (piped) return await bothEnds(csvPath, job, () => con.runAndReadAll(copySql));
      await pipeline(job.source, createWriteStream(csvPath));
      return await countOf(con.runAndReadAll(copySql));
    } catch (err) {
      const message = (err as Error).message;
      // DuckDB's cast error names the value, not the column; the row path names the column (explainCastFailure).
      // A record longer than MAX_RECORD_BYTES, or one the database wrote as not CSV on purpose (destinations/sqlite/parquet.ts ODD).
      if (/maximum line size|CSV Error/i.test(message)) throw new CsvDeclined(message, { cause: err });
      if (/conver|cast|malformed|json/i.test(message) && !(err as { code?: string }).code)
        throw new CsvDeclined(message, { cause: err });
      throw err;
    }
  } finally {
    con.closeSync();
    instance.closeSync();
  }
}

async function countOf(copy: Promise<DuckDBResultReader>): Promise<number> {
  return Number((await copy).getRows()[0]?.[0] ?? 0);
}

/** A named pipe at `path`; false when the system cannot make one. */
async function makeFifo(path: string): Promise<boolean> {
  if (process.platform === 'win32') return false;
  try {
    await promisify(execFile)('mkfifo', ['-m', '600', path]);
    return true;
  } catch {
    return false;
  }
}

/**
 * The CSV into the pipe while DuckDB's COPY reads it. Each side's failure releases the other: DuckDB failing
 * before it opened the pipe would leave our open waiting for a reader forever, so the pipe is then opened for
 * reading here; the source failing closes the pipe (DuckDB reads an end and finishes a file that is thrown away).
 */
async function bothEnds(fifo: string, job: CsvPipeJob, copy: () => Promise<DuckDBResultReader>): Promise<number> {
  const copied = countOf(copy());
  copied.catch(() => {});
  const opening = open(fifo, 'w');
  opening.catch(() => {});
  const first = await Promise.race([
    opening.then(() => 'open' as const),
    copied.then(
      () => 'copied' as const,
      () => 'copied' as const,
    ),
  ]);
  if (first === 'copied') {
    // DuckDB is done without reading: unblock our pending open, then report its error.
    const unblock = await open(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    await (await opening).close();
    await unblock.close();
    job.stop();
    await copied;
    throw new Error('export: DuckDB finished the Parquet file without reading the rows');
  }
  const fd = await opening;
  let streamError: (Error & { code?: string }) | undefined;
  try {
    await pipeline(job.source, fd.createWriteStream());
  } catch (err) {
    streamError = err as Error;
  } finally {
    await fd.close().catch(() => {});
  }
  const result = await copied.then(
    (rows) => ({ rows }),
    (err: unknown) => ({ err }),
  );
  // The source's own error (or an abort) comes first; a broken pipe is DuckDB's error, which explains it better.
  if (streamError !== undefined && streamError.code !== 'EPIPE') throw streamError;
  if ('err' in result) throw result.err;
  if (streamError !== undefined) throw streamError;
  return result.rows;
}
