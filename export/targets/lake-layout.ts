// What the lake's change files (lake.ts) and its snapshots (lake-snapshot.ts) share: names in the layout, hive
// partition folders and the partitions of a table's rows, each file's bytes and SHA-256.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { quoteIdent, type ExportDatabase } from '../database.js';
import type { ObjectTarget } from './types.js';

/** What hive readers write for a NULL partition value (Hive, Spark, pyarrow and DuckDB read it back as NULL). */
export const HIVE_NULL = '__HIVE_DEFAULT_PARTITION__';

export interface LakeFile {
  key: string;
  /** Hive partition values below load_date, as written in the path (decoded). */
  partition: Record<string, string | null>;
  rows: number;
  bytes: number;
  sha256: string;
}

/** One partition of a table's rows: each partition_by column's value as read, and as the path writes it. */
export type Partition = Array<{ column: string; raw: unknown; text: string | null }>;

/** A run id as a file-name part: letters, digits, '.', '_' and '-' only. */
export function runSlug(runId: string): string {
  return runId.replace(/[^A-Za-z0-9._-]/g, '_');
}

export function tablePrefix(target: ObjectTarget, pipeline: string, table: string): string {
  return `${target.prefix}${pipeline}/${table}/`;
}

/** Where the key index of a table's runs is kept (lake-changes.ts), beside the table's folder, not in it. */
export function keysPrefix(target: ObjectTarget, pipeline: string, table: string): string {
  return `${target.prefix}${pipeline}/_keys/${table}/`;
}

/** Where a table's compacted snapshots are (lake-snapshot.ts): a folder per run and the one manifest. */
export function snapshotPrefix(target: ObjectTarget, pipeline: string, table: string): string {
  return `${target.prefix}${pipeline}/_snapshot/${table}/`;
}

export function hiveSegment(column: string, value: string | null): string {
  return `${column}=${value === null ? HIVE_NULL : encodeURIComponent(value)}`;
}

/** `<col>=<value>/…` of a partition: the folders below load_date (changes) or below the run (snapshots). */
export function partitionPath(partition: Partition): string {
  return partition.map((p) => `${hiveSegment(p.column, p.text)}/`).join('');
}

export async function fileDigest(path: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return { bytes: (await stat(path)).size, sha256: hash.digest('hex') };
}

/** Partition values as text, the same from every destination (booleans true/false, not SQLite's 0/1). */
function partitionText(v: unknown, kind: string): string | null {
  if (v === null || v === undefined) return null;
  if (kind === 'boolean') return v === true || v === 1 || v === 1n || v === 't' ? 'true' : 'false';
  if (v instanceof Date) return v.toISOString();
  return String(v);
}

/**
 * The partitions of the rows `filter` selects, in a fixed order (so part numbers, hence keys, are the same on a
 * retry); one partition of no columns when partitionBy is empty and there are rows; none when there are no rows.
 */
export async function partitionsOf(
  db: ExportDatabase,
  table: string,
  filter: string,
  params: unknown[],
  partitionBy: string[],
  kinds: Map<string, string>,
): Promise<Partition[]> {
  const dest = db.adapter;
  if (partitionBy.length === 0) {
    const any = await dest.exportReader.query(
      db,
      `select 1 as one from ${quoteIdent(table)} where ${filter} limit 1`,
      params,
    );
    return any.length > 0 ? [[]] : [];
  }
  const list = partitionBy.map(quoteIdent).join(', ');
  const rows = await dest.exportReader.query(
    db,
    `select distinct ${list} from ${quoteIdent(table)} where ${filter}`,
    params,
  );
  return rows
    .map((r) =>
      partitionBy.map((column) => ({
        column,
        raw: r[column] ?? null,
        text: partitionText(r[column], kinds.get(column) ?? 'other'),
      })),
    )
    .sort((a, b) => JSON.stringify(a.map((p) => p.text)).localeCompare(JSON.stringify(b.map((p) => p.text))));
}

/** The `equal` filter of one partition's rows, as export.ts takes it. */
export function partitionFilter(
  partition: Partition,
): Array<{ column: string; value: string | number | bigint | boolean | null }> {
  return partition.map((p) => ({ column: p.column, value: p.raw as string | number | bigint | boolean | null }));
}
