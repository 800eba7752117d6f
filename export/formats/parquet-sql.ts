// The SQL both Parquet paths run in DuckDB (parquet.ts from its staging table, destinations/duckdb/parquet.ts on a DuckDB
// destination): one cast per column to the type the file holds, and the COPY that writes it. Both paths share
// this, so a table has the same Parquet schema whichever destination it is exported from.
import { quoteIdent } from '../database.js';
import type { ListElement, TypedColumn, ValueType } from '../typed.js';

/** The DuckDB type each value type is written as; DuckDB maps it to the Parquet type (see parquet.ts). */
const DUCKDB_TYPE: Record<ValueType, string> = {
  int64: 'bigint',
  double: 'double',
  bool: 'boolean',
  timestamp_utc: 'timestamptz',
  timestamp_local: 'timestamp',
  json: 'json',
  text: 'varchar',
  blob: 'blob',
};

/** Rows per row group: DuckDB's default (60 of its 2,048-row vectors), large enough for good compression and scans. */
export const ROW_GROUP_ROWS = 122_880;

export function sqlLiteral(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/** The DuckDB list type of a JSON array column's elements (typed.ts `list`). */
const LIST_TYPE: Record<ListElement, string> = { int64: 'bigint[]', double: 'double[]', text: 'varchar[]' };

/** The DuckDB type a column's values are written as (a JSON array column's list type). */
export function duckdbTypeOf(c: Pick<TypedColumn, 'type' | 'list'>): string {
  return c.list !== undefined ? LIST_TYPE[c.list] : DUCKDB_TYPE[c.type];
}

/**
 * `cast(<expr> as <type>) as "<name>"` for every column, in order. A JSON array column is parsed as JSON first and
 * then cast to its list type (DuckDB's JSON-to-list cast), so `["a,b"]` stays one element and a value that is not
 * an array of that type is refused by the cast, as any other refused value is.
 */
export function parquetSelectList(columns: TypedColumn[], expr: (c: TypedColumn, i: number) => string): string {
  return columns
    .map((c, i) => {
      const value =
        c.list !== undefined
          ? `cast(cast(${expr(c, i)} as json) as ${duckdbTypeOf(c)})`
          : `cast(${expr(c, i)} as ${duckdbTypeOf(c)})`;
      return `${value} as ${quoteIdent(c.name)}`;
    })
    .join(', ');
}

/**
 * COPY of a query to a Parquet file: snappy (DuckDB's default, readable everywhere), DuckDB's row groups of
 * 122,880 rows with dictionary and RLE encoding where they pay. Insertion order is kept (DuckDB's default), so the
 * file's rows are in the order they were read.
 */
export function parquetCopySql(select: string, path: string): string {
  return `copy (${select}) to ${sqlLiteral(path)} (format parquet, compression snappy, row_group_size ${ROW_GROUP_ROWS})`;
}
