// Parquet from a Postgres destination: Postgres writes the rows as CSV (`COPY (select …) TO STDOUT`), the bytes go
// unparsed through a named pipe into DuckDB's CSV reader, and DuckDB's COPY writes the Parquet file with the casts
// of parquet-sql.ts, the ones every destination's export uses (same schema, same encoder). No value is turned into a
// JavaScript object on the way: the rows streamed through a cursor (pg-query-stream, one array and a string per cell)
// and DuckDB's appender (formats/parquet.ts) ran at 0.46x pyarrow streaming the same rows; this path does none of
// that work (bench/export-parquet.ts: see the commit that made it).
//
// Memory is flat in rows: the pipe holds what neither side has consumed yet, DuckDB's COPY keeps a row group or two,
// and nothing is staged. Where no named pipe can be made (mkfifo missing), the CSV goes to a file beside the output
// first, and DuckDB reads it after.
import { execFile } from 'node:child_process';
import { constants, createWriteStream } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import type pg from 'pg';
import { quoteIdent, type ExportDatabase } from '../database.js';
import { poolOf } from '../../destinations/postgres/handle.js';
import type { DuckParquetJob } from './parquet-duckdb.js';
import { parquetCopySql, parquetSelectList, sqlLiteral } from './parquet-sql.js';
import { spillFolderFor } from './parquet-spill.js';

/** DuckDB's buffer pool while it converts: it holds row groups being encoded, not the table. */
const DUCK_MEMORY = '192MB';
/**
 * The longest CSV record DuckDB accepts (its default is 2 MB; a raw_responses row holds a whole web page), and the
 * size of the buffers it reads in (at least as large; they count against DUCK_MEMORY). A table with a longer row
 * is exported through the cursor and DuckDB's appender instead (formats/parquet.ts): see copyPostgresParquet.
 */
const MAX_RECORD_BYTES = 32 * 1024 * 1024;

/** A parameter as a Postgres literal: COPY takes no bind parameters. */
function literal(client: pg.PoolClient, v: unknown): string {
  if (typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))) return String(v);
  if (typeof v === 'string') return client.escapeLiteral(v);
  throw new Error(`export: cannot write ${typeof v} as a SQL literal`);
}

/**
 * The rows of `job` written to `job.path`; null when a row is longer than DuckDB's CSV reader takes
 * (MAX_RECORD_BYTES): the caller then streams the rows through the cursor reader instead.
 */
export async function copyPostgresParquet(db: ExportDatabase, job: DuckParquetJob): Promise<{ rows: number; maxLoadId: bigint | null } | null> {
  const duck = await import('@duckdb/node-api');
  const { to: copyTo } = await import('pg-copy-streams');
  const scratch = spillFolderFor(job.path);
  await mkdir(scratch);
  const client = await poolOf(db).connect();
  let connectionError: Error | undefined;
  const onError = (err: Error) => (connectionError ??= err);
  client.on('error', onError);
  let finished = false;
  // A COPY that did not end leaves the connection in the middle of its output: it is dropped, not reused.
  let copying = false;
  try {
    // One snapshot for the count of load ids and the rows; session settings that make the server's text ISO 8601
    // in UTC, as the cursor reader (destinations/postgres/export-reader.ts) sets them.
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await client.query(`SET LOCAL TIME ZONE 'UTC'`);
    await client.query(`SET LOCAL datestyle = 'ISO, YMD'`);
    await client.query(`SET LOCAL intervalstyle = 'iso_8601'`);
    const where = job.where.map((w) => w.replace(/\$(\d+)/g, (_m, n: string) => literal(client, job.params[Number(n) - 1])));
    const from = `from ${quoteIdent(job.table)}${where.length > 0 ? ` where ${where.join(' and ')}` : ''}`;
    let maxLoadId: bigint | null = null;
    if (job.maxLoadId) {
      const max = (await client.query<{ m: string | null }>(`select max(load_id)::text as m ${from}`)).rows[0]?.m;
      maxLoadId = max === null || max === undefined ? null : BigInt(max);
    }
    const csvSql = `copy (select ${job.columns.map((c, i) => `${c.expr} as c${i}`).join(', ')} ${from}) to stdout (format csv)`;

    const instance = await duck.DuckDBInstance.create(':memory:', { memory_limit: DUCK_MEMORY, temp_directory: scratch, threads: String(Math.max(1, availableParallelism())) });
    const con = await instance.connect();
    try {
      const csvPath = join(scratch, 'rows.csv');
      const piped = await makeFifo(csvPath);
      // Every column read as text; unquoted empty is NULL, Postgres's "" an empty string. bytea arrives in its hex
      // output (\x0102).
      const columns = `{${job.columns.map((_c, i) => `'c${i}': 'varchar'`).join(', ')}}`;
      const reader =
        `read_csv(${sqlLiteral(csvPath)}, columns = ${columns}, header = false, auto_detect = false, delim = ',', quote = '"', escape = '"', ` +
        `allow_quoted_nulls = false, new_line = '\\n', max_line_size = ${MAX_RECORD_BYTES}, buffer_size = ${MAX_RECORD_BYTES})`;
      const copySql = parquetCopySql(
        `select ${parquetSelectList(
          job.columns.map((c) => c.typed),
          (c, i) => (c.type === 'blob' ? `unhex(substr(c${i}, 3))` : `c${i}`),
        )} from ${reader}`,
        job.path,
      );
      const source = client.query(copyTo(csvSql));
      const abort = () => source.destroy(job.signal?.reason instanceof Error ? job.signal.reason : new Error('export aborted'));
      job.signal?.addEventListener('abort', abort, { once: true });
      try {
        let written: number;
        copying = true;
        if (piped) written = await bothEnds(csvPath, source, con.runAndReadAll(copySql));
        else {
          await pipeline(source, createWriteStream(csvPath));
          written = await countOf(con.runAndReadAll(copySql));
        }
        copying = false;
        if (connectionError) throw connectionError;
        job.signal?.throwIfAborted();
        await client.query('COMMIT');
        finished = true;
        return { rows: written, maxLoadId };
      } catch (err) {
        if (/maximum line size/i.test((err as Error).message)) return null;
        throw err;
      } finally {
        job.signal?.removeEventListener('abort', abort);
      }
    } finally {
      con.closeSync();
      instance.closeSync();
    }
  } finally {
    if (!finished && !connectionError && copying) connectionError = new Error('export: the COPY of the rows did not end');
    if (!finished && !connectionError) {
      try {
        await client.query('ROLLBACK');
      } catch (err) {
        connectionError = err as Error;
      }
    }
    if (!connectionError) client.off('error', onError);
    client.release(connectionError);
    await rm(scratch, { recursive: true, force: true });
  }
}

async function countOf(copy: Promise<import('@duckdb/node-api').DuckDBResultReader>): Promise<number> {
  return Number((await copy).getRows()[0]?.[0] ?? 0);
}

/** A named pipe at `path`; false when the system cannot make one (the CSV then goes through a file). */
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
 * Postgres's CSV into the pipe while DuckDB's COPY reads it. Each side's failure releases the other: DuckDB failing
 * before it opened the pipe would leave our open waiting for a reader forever, so the pipe is then opened for
 * reading here; our stream failing closes the pipe (DuckDB reads an end and finishes a file that is thrown away).
 */
async function bothEnds(fifo: string, source: NodeJS.ReadableStream, copy: Promise<import('@duckdb/node-api').DuckDBResultReader>): Promise<number> {
  const copied = countOf(copy);
  copied.catch(() => {});
  const opening = open(fifo, 'w');
  opening.catch(() => {});
  const first = await Promise.race([opening.then(() => 'open' as const), copied.then(
    () => 'copied' as const,
    () => 'copied' as const,
  )]);
  if (first === 'copied') {
    // DuckDB is done without reading: unblock our pending open, then report its error.
    const unblock = await open(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    await (await opening).close();
    await unblock.close();
    (source as NodeJS.ReadableStream & { destroy(): void }).destroy();
    await copied;
    throw new Error('export: DuckDB finished the Parquet file without reading the rows');
  }
  const fd = await opening;
  let streamError: (Error & { code?: string }) | undefined;
  try {
    await pipeline(source, fd.createWriteStream());
  } catch (err) {
    streamError = err as Error;
  } finally {
    await fd.close().catch(() => {});
  }
  const result = await copied.then(
    (rows) => ({ rows }),
    (err: unknown) => ({ err }),
  );
  // Postgres's own error (or an abort) comes first; a broken pipe is DuckDB's error, which explains it better.
  if (streamError !== undefined && streamError.code !== 'EPIPE') throw streamError;
  if ('err' in result) throw result.err;
  if (streamError !== undefined) throw streamError;
  return result.rows;
}
