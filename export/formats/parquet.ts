// Parquet written by DuckDB, the same engine for every destination. Most exports do not come here: a destination
// with parquetCopy hands DuckDB the rows without JavaScript values (DuckDB: its own COPY, destinations/duckdb/parquet.ts;
// Postgres: COPY … TO STDOUT as CSV, destinations/postgres/parquet.ts; an SQLite file: CSV records SQLite writes,
// destinations/sqlite/parquet.ts). This is the row path, for what those decline (an in-memory SQLite database, a table without
// rowid, a row longer than DuckDB's CSV record limit, a value DuckDB's casts refuse, which this path names): the rows
// stream into a private in-memory DuckDB table through its appender (2,048-row data chunks, fixed-width columns
// copied as typed arrays), and DuckDB's own `COPY … TO (FORMAT parquet)` writes the file. One engine means one set
// of Parquet types, one encoder (dictionary and RLE where they pay, snappy, row groups of 122,880 rows) and the same
// file from every destination and path. The earlier pure-JavaScript writer (hyparquet-writer) was slower than pyarrow
// streaming the same rows from every destination and wrote larger files (bench/export-parquet.ts, docs/measurements.md).
//
// Memory: the staging table lives in DuckDB's buffer pool, capped at STAGING_MEMORY; beyond it DuckDB spills blocks
// to a folder beside the output file (spillFolderFor, removed afterwards), so a table of any length needs the same
// memory.
//
// Types (export/typed.ts decides them per column, from the model, schema_history and the database's declarations,
// so every destination gives the same): int64 -> INT64, double -> DOUBLE, bool -> BOOLEAN,
// timestamp_utc -> TIMESTAMP(MICROS, isAdjustedToUTC), timestamp_local -> TIMESTAMP(MICROS), json -> BYTE_ARRAY with
// the JSON logical type, text -> STRING, blob -> BYTE_ARRAY. Every column is OPTIONAL: SQL NULL is a Parquet null.
import { mkdir, rm } from 'node:fs/promises';
import type { DuckDBType } from '@duckdb/node-api';
import { boolOf, bytesOf, doubleOf, int64Of, textOf, typeColumns, type TypedColumn, type ValueType } from '../typed.js';
import type { FormatWriter } from './index.js';
import { parquetCopySql, parquetSelectList, sqlLiteral } from './parquet-sql.js';
import { spillFolderFor } from './parquet-spill.js';

export { ROW_GROUP_ROWS } from './parquet-sql.js';

/** DuckDB's buffer pool for the staging table; more spills to disk instead of growing the process. */
const STAGING_MEMORY = '192MB';
/** Rows per appended data chunk: DuckDB's vector size. */
const CHUNK_ROWS = 2048;

interface Staged {
  /** The staging column's DuckDB type. */
  type: DuckDBType;
  /** The JavaScript value the staging vector takes. */
  convert: (value: unknown) => unknown;
}

export const parquetWriter: FormatWriter = {
  async write({ path, table, columns, typing, batches, signal }) {
    const duck = await import('@duckdb/node-api');
    const typed = typeColumns(table, columns, typing);
    const staged = typed.map((c) => stagedColumn(duck, c));
    const width = typed.length;
    const scratch = spillFolderFor(path);
    await mkdir(scratch);
    const instance = await duck.DuckDBInstance.create(':memory:', {
      memory_limit: STAGING_MEMORY,
      temp_directory: scratch,
    });
    const con = await instance.connect();
    try {
      // Staging columns are named by position: any column name (quotes, spaces, 63+ characters) is only an alias in COPY.
      await con.run(`create table staging (${typed.map((c, i) => `c${i} ${stagingSql(c.type)}`).join(', ')})`);
      const appender = await con.createAppender('staging');
      const chunk = duck.DuckDBDataChunk.create(
        staged.map((s) => s.type),
        CHUNK_ROWS,
      );
      const vectors = typed.map((_c, i) => chunk.getColumnVector(i));
      let filled = 0;
      const flushChunk = () => {
        if (filled === 0) return;
        chunk.rowCount = filled;
        for (const v of vectors) v.flush();
        appender.appendDataChunk(chunk);
        chunk.reset();
        chunk.rowCount = CHUNK_ROWS;
        for (let i = 0; i < width; i++) vectors[i] = chunk.getColumnVector(i);
        filled = 0;
      };
      for await (const batch of batches) {
        signal?.throwIfAborted();
        for (const raw of batch) {
          for (let c = 0; c < width; c++) {
            const v = raw[c];
            vectors[c]!.setItem(filled, (v === null || v === undefined ? null : staged[c]!.convert(v)) as never);
          }
          if (++filled === CHUNK_ROWS) flushChunk();
        }
      }
      flushChunk();
      appender.closeSync();
      signal?.throwIfAborted();
      try {
        await con.run(parquetCopySql(`select ${parquetSelectList(typed, (_c, i) => `c${i}`)} from staging`, path));
      } catch (err) {
        throw await explainCastFailure(con, typed, err as Error);
      }
    } finally {
      con.closeSync();
      instance.closeSync();
      await rm(scratch, { recursive: true, force: true });
    }
  },
};

/**
 * What a staging column holds: the final type where JavaScript has the value at hand (numbers, booleans, bytes),
 * text where DuckDB's own cast is the parser (timestamps in any of the destinations' ISO forms, JSON, which the
 * cast to JSON validates).
 */
function stagingSql(type: ValueType): string {
  switch (type) {
    case 'int64':
      return 'bigint';
    case 'double':
      return 'double';
    case 'bool':
      return 'boolean';
    case 'blob':
      return 'blob';
    default:
      return 'varchar';
  }
}

function stagedColumn(duck: typeof import('@duckdb/node-api'), col: TypedColumn): Staged {
  switch (col.type) {
    case 'int64':
      return { type: duck.BIGINT, convert: int64Of(col) };
    case 'double':
      return { type: duck.DOUBLE, convert: doubleOf(col) };
    case 'bool':
      return { type: duck.BOOLEAN, convert: boolOf(col) };
    case 'blob': {
      const bytes = bytesOf(col);
      return { type: duck.BLOB, convert: (v) => new duck.DuckDBBlobValue(bytes(v)) };
    }
    case 'timestamp_utc':
    case 'timestamp_local': {
      // SQLite columns hinted as epoch seconds or milliseconds hold numbers: written as the instant's ISO text.
      const scale = col.kind === 'timestamp_s' ? 1000 : col.kind === 'timestamp_ms' ? 1 : 0;
      const text = textOf(col);
      return {
        type: duck.VARCHAR,
        convert: scale === 0 ? text : (v) => (typeof v === 'string' ? v : new Date(Number(v) * scale).toISOString()),
      };
    }
    default:
      return { type: duck.VARCHAR, convert: textOf(col) };
  }
}

/** DuckDB's cast error names the value, not the column: find the column whose values did not convert. */
async function explainCastFailure(
  con: import('@duckdb/node-api').DuckDBConnection,
  typed: TypedColumn[],
  err: Error,
): Promise<Error> {
  if (!/conver|cast|malformed|json/i.test(err.message)) return err;
  for (const [i, c] of typed.entries()) {
    const target =
      c.type === 'timestamp_utc'
        ? 'timestamptz'
        : c.type === 'timestamp_local'
          ? 'timestamp'
          : c.type === 'json'
            ? 'json'
            : undefined;
    if (!target) continue;
    const bad = (
      await con.runAndReadAll(
        `select c${i} from staging where c${i} is not null and try_cast(c${i} as ${target}) is null limit 1`,
      )
    ).getRows()[0]?.[0];
    if (bad !== undefined) {
      const shown = String(bad).length > 40 ? `${String(bad).slice(0, 40)}…` : String(bad);
      const wanted = target === 'json' ? 'JSON' : 'an ISO 8601 timestamp';
      return new Error(
        `export: column "${c.name}" (${c.declared || 'no declared type'}) holds ${sqlLiteral(shown)}, not ${wanted}; export it as CSV, which writes any value as text`,
        { cause: err },
      );
    }
  }
  return err;
}
