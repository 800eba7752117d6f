// Parquet from a Postgres destination: Postgres writes the rows as CSV (`COPY (select …) TO STDOUT`) and the bytes
// go unparsed into DuckDB's CSV reader and Parquet writer (parquet-csv-pipe.ts). No value becomes a JavaScript object
// on the way: the rows streamed through a cursor (pg-query-stream, an array and a string per cell) and DuckDB's
// appender (formats/parquet.ts) ran at about half this path's speed (bench/export-parquet.ts, docs/measurements.md).
import { mkdir, rm } from 'node:fs/promises';
import type pg from 'pg';
import { quoteIdent, type ExportDatabase } from '../../export/database.js';
import { openExportSnapshot } from './export-snapshot.js';
import type { DuckParquetJob } from '../duckdb/parquet.js';
import { CsvDeclined, csvToParquet } from '../../export/formats/parquet-csv-pipe.js';
import { spillFolderFor } from '../../export/formats/parquet-spill.js';

/** A parameter as a Postgres literal: COPY takes no bind parameters. */
function literal(client: pg.PoolClient, v: unknown): string {
  if (typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))) return String(v);
  if (typeof v === 'string') return client.escapeLiteral(v);
  throw new Error(`export: cannot write ${typeof v} as a SQL literal`);
}

/**
 * The rows of `job` written to `job.path`; null when a row is longer than DuckDB's CSV reader takes
 * (parquet-csv-pipe.ts): the caller then streams the rows through the cursor reader instead.
 */
export async function copyPostgresParquet(
  db: ExportDatabase,
  job: DuckParquetJob,
): Promise<{ rows: number; maxLoadId: bigint | null } | null> {
  const { to: copyTo } = await import('pg-copy-streams');
  const scratch = spillFolderFor(job.path);
  await mkdir(scratch);
  try {
    // One snapshot for the count of load ids and the rows, the server's text as the cursor reader has it.
    const session = await openExportSnapshot(db);
    const { client } = session;
    try {
      const where = job.where.map((w) =>
        w.replace(/\$(\d+)/g, (_m, n: string) => literal(client, job.params[Number(n) - 1])),
      );
      const from = `from ${quoteIdent(job.table)}${where.length > 0 ? ` where ${where.join(' and ')}` : ''}`;
      let maxLoadId: bigint | null = null;
      if (job.maxLoadId) {
        const max = (await client.query<{ m: string | null }>(`select max(load_id)::text as m ${from}`)).rows[0]?.m;
        maxLoadId = max === null || max === undefined ? null : BigInt(max);
      }
      const csvSql = `copy (select ${job.columns.map((c, i) => `${c.expr} as c${i}`).join(', ')} ${from}) to stdout (format csv)`;

      const source = client.query(copyTo(csvSql));
      const abort = () =>
        source.destroy(job.signal?.reason instanceof Error ? job.signal.reason : new Error('export aborted'));
      job.signal?.addEventListener('abort', abort, { once: true });
      // A COPY that did not end leaves the connection in the middle of its output: it is dropped, not reused.
      let copying = true;
      try {
        const rows = await csvToParquet({
          path: job.path,
          scratch,
          columns: job.columns.map((c) => c.typed),
          // bytea in Postgres's hex output: \x0102
          blobBytes: (field) => `unhex(substr(${field}, 3))`,
          source: job.onRows ? countingRecords(source, job.onRows) : source,
          stop: () => source.destroy(),
        });
        copying = false;
        const lostOnTheWay = session.error();
        if (lostOnTheWay) throw lostOnTheWay;
        job.signal?.throwIfAborted();
        await session.commit();
        return { rows, maxLoadId };
      } catch (err) {
        if (err instanceof CsvDeclined) return null;
        throw err;
      } finally {
        if (copying) session.poison(new Error('export: the COPY of the rows did not end'));
        job.signal?.removeEventListener('abort', abort);
      }
    } finally {
      await session.release();
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * The CSV passed on unchanged, its records counted (line ends, so a quoted line break counts too: this is progress,
 * not the count reported) after every chunk, as the row path reports every batch. Iterating the stream carries its
 * error.
 */
async function* countingRecords(source: AsyncIterable<Buffer>, onRows: (rows: number) => void): AsyncGenerator<Buffer> {
  let rows = 0;
  for await (const chunk of source) {
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) rows++;
    onRows(rows);
    yield chunk;
  }
}
