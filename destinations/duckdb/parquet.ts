// Parquet from a DuckDB destination: DuckDB's own COPY on the destination's file, nothing through JavaScript. The
// rows counted for the report (and the highest load id for an incremental export's watermark) are read in the same
// transaction as the COPY, so they describe exactly the file's rows. The select list is parquet-sql.ts's, the one
// the other destinations' exports use, so the file's schema is the same whichever destination wrote it.
import { availableParallelism } from 'node:os';
import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent, type ExportDatabase } from '../../export/database.js';
import { duckOf } from './export-reader.js';
import type { TypedColumn } from '../../export/typed.js';
import { parquetCopySql, parquetSelectList, sqlLiteral } from '../../export/formats/parquet-sql.js';
import { LIFTED_MEMORY_LIMIT, MEMORY_LIMIT } from './instance-settings.js';

export type { DuckParquetJob, ParquetCopy } from '../contract.js';
import type { DuckParquetJob } from '../contract.js';

/** A parameter as a SQL literal: COPY takes no prepared parameters. */
function literal(v: unknown): string {
  if (typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))) return String(v);
  if (typeof v === 'string') return sqlLiteral(v);
  throw new Error(`export: cannot write ${typeof v} as a SQL literal`);
}

export async function copyDuckdbParquet(
  db: ExportDatabase,
  job: DuckParquetJob,
): Promise<{ rows: number; maxLoadId: bigint | null }> {
  const where = job.where.map((w) => w.replace(/\$(\d+)/g, (_m, n: string) => literal(job.params[Number(n) - 1])));
  const from = `from ${quoteIdent(job.table)}${where.length > 0 ? ` where ${where.join(' and ')}` : ''}`;
  return duckOf(db).session(async (conn: DuckDBConnection) => {
    // The destination's file is opened with one thread (loads gain nothing from more) and a small memory limit
    // (database.ts MEMORY_LIMIT); COPY encodes row groups in parallel and buffers a row group per thread, so it gets
    // the machine's cores and DuckDB's default limit while it runs.
    await conn.run(`set threads = ${Math.max(1, availableParallelism())}`);
    await conn.run(`set memory_limit = '${LIFTED_MEMORY_LIMIT}'`);
    await conn.run('begin transaction');
    try {
      const counted = (
        await conn.runAndReadAll(`select count(*), ${job.maxLoadId ? 'max(load_id)' : 'null'} ${from}`)
      ).getRows()[0]!;
      await conn.run(
        parquetCopySql(
          `select ${parquetSelectList(
            job.columns.map((c) => c.typed),
            (_c, i) => job.columns[i]!.expr,
          )} ${from}`,
          job.path,
        ),
      );
      await conn.run('commit');
      const max = counted[1];
      return { rows: Number(counted[0]), maxLoadId: max === null || max === undefined ? null : BigInt(max as bigint) };
    } catch (err) {
      await conn.run('rollback').catch(() => {});
      throw err;
    } finally {
      await conn.run('set threads = 1');
      await conn.run(`set memory_limit = '${MEMORY_LIMIT}'`);
    }
  });
}
