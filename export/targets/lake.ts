// The lake: a pipeline's tables as files on a target (a folder or s3://bucket/prefix, index.ts) in the layout data
// tools read in place, with a manifest per run and table that lists only complete files.
//
//   <prefix>/<pipeline>/<table>/load_date=YYYY-MM-DD/[<col>=<value>/…]part-<run>-<NNNNN>.<ext>
//   <prefix>/<pipeline>/<table>/_manifests/<run>.json
//
// Each export writes the rows loaded since the last export to the same target (load_id above the target's own
// watermark in export_watermarks, keyed by pipeline and target): every run adds its new and changed rows, and a
// row that changed is there once per run that changed it (a reader wanting current rows takes the highest load_id
// per natural key). Partition columns (`partition_by`) are in the path, not in the files, as Hive and Spark write
// them; `_manifests` starts with '_', which hive readers skip.
//
// Exactly once, whatever stops a worker:
// - file names are a pure function of the run and the part (partitions in sorted order), so a retried activity or
//   a resumed run writes the same keys again, replacing its own objects instead of adding a second set;
// - a run's multipart uploads that a killed worker left (and any older than a day) are aborted before it writes;
// - the manifest is written after every file it lists is complete, with each file's rows, bytes and SHA-256; a
//   reader that lists runs by manifest sees only complete runs, and objects of this run that the new manifest does
//   not list (an earlier attempt's) are deleted before it is written;
// - the watermark moves (with the manifest's key as the file) only after the manifest is written: a crash before
//   that writes the same rows to the same keys again; a crash after it finds its own manifest and stops.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportTyping, quoteIdent, type ExportDatabase } from '../database.js';
import { exportableTables, exportTablesReport, type ExportReport } from '../export.js';
import { FORMAT_EXTENSIONS, type ExportFormat } from '../formats/index.js';
import { typeColumns } from '../typed.js';
import { advanceWatermark, readLastExportedFile, readWatermark } from '../watermarks.js';
import { openTarget } from './index.js';
import type { ObjectTarget } from './types.js';
import type { Env } from '../../settings/settings.js';

export interface LakeExportOptions {
  /** s3://bucket/prefix or a folder. */
  to: string;
  pipeline: string;
  /** Tables; empty or absent = every table holding rows of the pipeline. */
  tables?: string[];
  format?: ExportFormat;
  /** Columns whose values make hive partitions below load_date (left out of the files, as Hive writes them). */
  partitionBy?: string[];
  /** The run (a pipeline run's workflow id): names the files and the manifest. */
  runId: string;
  /** The run's start: its load_date. */
  timestamp: Date;
  signal?: AbortSignal;
  onProgress?: (progress: { table: string; rows: number }) => void;
  /** An environment (a test's) the target's settings come from instead of this process's settings. */
  env?: Env;
}

export interface LakeFile {
  key: string;
  /** Hive partition values below load_date, as written in the path (decoded). */
  partition: Record<string, string | null>;
  rows: number;
  bytes: number;
  sha256: string;
}

export interface LakeManifest {
  version: 1;
  pipeline: string;
  table: string;
  run: string;
  load_date: string;
  format: ExportFormat;
  partition_by: string[];
  /** Rows of the whole run's table: the sum over files. */
  rows: number;
  /** The load ids the files hold: above `after` (null: from the first), up to `through`. */
  load_ids: { after: string | null; through: string };
  files: LakeFile[];
  /** The files' columns and their types (export/typed.ts), partition columns left out. */
  schema: Array<{ name: string; type: string; list?: string }>;
  written_at: string;
}

/** What hive readers write for a NULL partition value (Hive, Spark, pyarrow and DuckDB read it back as NULL). */
export const HIVE_NULL = '__HIVE_DEFAULT_PARTITION__';
/** Incomplete uploads of other runs older than this are a dead worker's, aborted by the next export. */
const STALE_UPLOAD_MS = 24 * 3600_000;

/** A run id as a file-name part: letters, digits, '.', '_' and '-' only. */
export function runSlug(runId: string): string {
  return runId.replace(/[^A-Za-z0-9._-]/g, '_');
}

export function tablePrefix(target: ObjectTarget, pipeline: string, table: string): string {
  return `${target.prefix}${pipeline}/${table}/`;
}

export function manifestKey(target: ObjectTarget, pipeline: string, table: string, runId: string): string {
  return `${tablePrefix(target, pipeline, table)}_manifests/${runSlug(runId)}.json`;
}

/** The watermark of (pipeline, target): each target gets every row once, whatever other exports of the pipeline did. */
export function lakeWatermarkKey(pipeline: string, to: string): string {
  return `${pipeline} -> ${to.replace(/\/+$/, '')}`;
}

function hiveSegment(column: string, value: string | null): string {
  return `${column}=${value === null ? HIVE_NULL : encodeURIComponent(value)}`;
}

function loadDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

async function fileDigest(path: string): Promise<{ bytes: number; sha256: string }> {
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

/** Exports the pipeline's new rows to the lake; the report's files are the manifests, with each run-table's rows. */
export async function exportToLake(db: ExportDatabase, o: LakeExportOptions): Promise<ExportReport> {
  const format = o.format ?? 'parquet';
  const partitionBy = o.partitionBy ?? [];
  if (new Set(partitionBy).size !== partitionBy.length)
    throw new Error(`export: partition_by names a column twice (${partitionBy.join(', ')})`);
  if (partitionBy.includes('load_date'))
    throw new Error(
      'export: partition_by must not name load_date: every lake file is already under load_date=YYYY-MM-DD',
    );
  const tables = await exportableTables(db, { pipeline: o.pipeline, ...(o.tables ? { tables: o.tables } : {}) });
  if (tables.length === 0) return { files: [], unchanged: [] };
  for (const { name, columns } of tables) {
    const missing = partitionBy.filter((c) => !columns.some((x) => x.name === c));
    if (missing.length > 0)
      throw new Error(
        `export: partition_by column ${missing.map((m) => `"${m}"`).join(', ')} is not a column of table "${name}" (columns: ${columns.map((c) => c.name).join(', ')})`,
      );
  }
  const target = await openTarget(o.to, o.env);
  const scratch = await mkdtemp(join(tmpdir(), 'scrape-etl-lake-'));
  const report: ExportReport = { files: [], unchanged: [] };
  try {
    for (const { name: table, columns } of tables) {
      o.signal?.throwIfAborted();
      const written = await exportTable(db, target, o, format, partitionBy, table, columns, scratch);
      if (written === null) report.unchanged.push(table);
      else report.files.push(written);
    }
  } finally {
    target.close();
    await rm(scratch, { recursive: true, force: true });
  }
  return report;
}

async function exportTable(
  db: ExportDatabase,
  target: ObjectTarget,
  o: LakeExportOptions,
  format: ExportFormat,
  partitionBy: string[],
  table: string,
  columns: Awaited<ReturnType<typeof exportableTables>>[number]['columns'],
  scratch: string,
): Promise<{ table: string; file: string; rows: number } | null> {
  const wkey = lakeWatermarkKey(o.pipeline, o.to);
  const mkey = manifestKey(target, o.pipeline, table, o.runId);
  const manifestUrl = target.locate(mkey);
  // This run already wrote this table's manifest and moved the watermark (a retry after a crash past that point).
  const last = await readLastExportedFile(db, wkey, table);
  if (last !== null && last.run === o.runId && last.file === manifestUrl)
    return { table, file: manifestUrl, rows: last.rows };
  const after = await readWatermark(db, wkey, table);

  const dest = db.adapter;
  const params: unknown[] = [o.pipeline];
  let filter = `pipeline = ${dest.sql.ph(1)}`;
  if (after !== null) {
    params.push(after);
    filter += ` and load_id > ${dest.sql.ph(2)}`;
  }
  const kinds = new Map(columns.map((c) => [c.name, c.kind]));
  // The partitions of the new rows, in a fixed order: the part numbers, hence the keys, are the same on a retry.
  let partitions: Array<Array<{ column: string; raw: unknown; text: string | null }>>;
  if (partitionBy.length === 0) {
    const any = await dest.exportReader.query(
      db,
      `select 1 as one from ${quoteIdent(table)} where ${filter} limit 1`,
      params,
    );
    partitions = any.length > 0 ? [[]] : [];
  } else {
    const list = partitionBy.map(quoteIdent).join(', ');
    const rows = await dest.exportReader.query(
      db,
      `select distinct ${list} from ${quoteIdent(table)} where ${filter}`,
      params,
    );
    partitions = rows
      .map((r) =>
        partitionBy.map((column) => ({
          column,
          raw: r[column] ?? null,
          text: partitionText(r[column], kinds.get(column) ?? 'other'),
        })),
      )
      .sort((a, b) => JSON.stringify(a.map((p) => p.text)).localeCompare(JSON.stringify(b.map((p) => p.text))));
  }
  if (partitions.length === 0) return null;

  const date = loadDate(o.timestamp);
  const slug = runSlug(o.runId);
  const prefix = tablePrefix(target, o.pipeline, table);
  const partOf = `/part-${slug}-`;
  // A killed attempt of this run (or any dead worker long ago) may have left a multipart upload's parts behind.
  const now = Date.now();
  for (const u of await target.incompleteUploads(prefix)) {
    if (
      u.key.includes(partOf) ||
      u.key.includes(`_manifests/${slug}.json`) ||
      u.key.includes(`.part-${slug}-`) ||
      now - u.started.getTime() > STALE_UPLOAD_MS
    ) {
      await target.abortIncomplete(u);
    }
  }

  const fileColumns = columns.filter((c) => !partitionBy.includes(c.name)).map((c) => c.name);
  const files: LakeFile[] = [];
  let through: bigint | null = null;
  let rows = 0;
  for (const [i, partition] of partitions.entries()) {
    o.signal?.throwIfAborted();
    const fileName = `part-${slug}-${String(i).padStart(5, '0')}.${FORMAT_EXTENSIONS[format]}`;
    const key = `${prefix}load_date=${date}/${partition.map((p) => `${hiveSegment(p.column, p.text)}/`).join('')}${fileName}`;
    const local = await exportTablesReport(db, {
      pipeline: o.pipeline,
      tables: [table],
      outDir: scratch,
      format,
      fileName,
      columns: { [table]: fileColumns },
      loadIdsAbove: after,
      equal: partition.map((p) => ({ column: p.column, value: p.raw as string | number | bigint | boolean | null })),
      timestamp: o.timestamp,
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.onProgress
        ? { onProgress: (p: { table: string; rows: number }) => o.onProgress!({ table, rows: rows + p.rows }) }
        : {}),
    });
    const file = local.files[0];
    if (file === undefined) continue;
    const digest = await fileDigest(file.file);
    await target.upload(key, file.file, {
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.onProgress ? { onProgress: () => o.onProgress!({ table, rows: rows + file.rows }) } : {}),
    });
    await rm(file.file, { force: true });
    rows += file.rows;
    if (file.maxLoadId !== undefined && file.maxLoadId !== null && (through === null || file.maxLoadId > through))
      through = file.maxLoadId;
    files.push({
      key,
      partition: Object.fromEntries(partition.map((p) => [p.column, p.text])),
      rows: file.rows,
      ...digest,
    });
  }
  if (through === null) return null;

  // Objects of this run that this attempt did not write (an earlier attempt's part under a partition that no longer
  // has new rows) would be read by a reader of the folders, though no manifest lists them.
  const kept = new Set(files.map((f) => f.key));
  const stale = (await target.list(prefix))
    .filter((obj) => obj.key.includes(partOf) && !kept.has(obj.key))
    .map((obj) => obj.key);
  if (stale.length > 0) await target.remove(stale);

  const typed = typeColumns(
    table,
    columns.filter((c) => !partitionBy.includes(c.name)),
    exportTyping(db),
  );
  const manifest: LakeManifest = {
    version: 1,
    pipeline: o.pipeline,
    table,
    run: o.runId,
    load_date: date,
    format,
    partition_by: partitionBy,
    rows,
    load_ids: { after: after === null ? null : String(after), through: String(through) },
    files,
    schema: typed.map((c) => ({ name: c.name, type: c.type, ...(c.list !== undefined ? { list: c.list } : {}) })),
    written_at: new Date().toISOString(),
  };
  await target.putText(mkey, `${JSON.stringify(manifest, null, 2)}\n`);
  await advanceWatermark(db, wkey, table, through, { run: o.runId, file: manifestUrl, rows });
  return { table, file: manifestUrl, rows };
}
