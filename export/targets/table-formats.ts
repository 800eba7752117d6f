// Table formats over the lake's files: what a `table_format:` may name and when it applies. Light (no library), read
// by the pipeline file's schema, `export --to` and the lake. The Iceberg commit itself is iceberg/commit.ts.

export const TABLE_FORMATS = ['iceberg'] as const;
export type TableFormat = (typeof TABLE_FORMATS)[number];

/**
 * Why a lake export cannot carry this table format, with the key to change, or undefined when it can. An Iceberg
 * table references the run's Parquet files where the lake wrote them, so they must be Parquet on S3, and unpartitioned
 * (hive partition columns are in the path, not in the files, and an Iceberg reader takes columns from the files).
 */
export function tableFormatProblem(e: {
  to?: string | undefined;
  format?: string | undefined;
  partition_by?: string[] | undefined;
  table_format?: TableFormat | undefined;
}): { key: 'table_format' | 'format' | 'partition_by'; message: string } | undefined {
  if (e.table_format === undefined) return undefined;
  if (e.to === undefined || !/^s3:\/\//i.test(e.to))
    return {
      key: 'table_format',
      message: `${e.table_format} tables reference files on object storage: write to: s3://bucket/prefix, or remove table_format`,
    };
  if ((e.format ?? 'parquet') !== 'parquet')
    return { key: 'format', message: `table_format: ${e.table_format} needs format: parquet` };
  if (e.partition_by !== undefined && e.partition_by.length > 0)
    return {
      key: 'partition_by',
      message: `table_format: ${e.table_format} writes unpartitioned tables (hive partition columns are not in the files an Iceberg reader reads); remove partition_by`,
    };
  return undefined;
}
