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
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportTyping, quoteIdent, type ExportDatabase } from '../database.js';
import { exportableTables, exportTablesReport, type ExportReport } from '../export.js';
import { FORMAT_EXTENSIONS, type ExportFormat } from '../formats/index.js';
import { typeColumns } from '../typed.js';
import { advanceWatermark, readLastExportedFile, readWatermark } from '../watermarks.js';
import { openTarget } from './index.js';
import { tableFormatProblem, type TableFormat } from './table-formats.js';
import { CHANGE_KIND_COLUMN, mergeKeyOf, openChangeMarker, type ChangeMarker } from './lake-changes.js';
import { duckdbTypeOf } from '../formats/parquet-sql.js';
import {
  fileDigest,
  keysPrefix,
  partitionFilter,
  partitionPath,
  partitionsOf,
  runSlug,
  snapshotPrefix,
  tablePrefix,
  type LakeFile,
} from './lake-layout.js';
import { snapshotManifestKey, writeSnapshot } from './lake-snapshot.js';
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
  /** Also write a compacted current snapshot of each changed table (lake-snapshot.ts). */
  snapshot?: boolean;
  signal?: AbortSignal;
  onProgress?: (progress: { table: string; rows: number }) => void;
  /** An environment (a test's) the target's settings come from instead of this process's settings. */
  env?: Env;
  /** Each run's files committed to a table of this format too, after its manifest (table-formats.ts). */
  tableFormat?: TableFormat;
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
  /**
   * Parquet files carry `_change_kind`: the rows of each kind. Absent for other formats; null when the kinds could
   * not be told (the first run on a lake written before the key index).
   */
  change_kinds?: { insert: number; update: number } | null;
  /** The key index after this run (lake-changes.ts): state for the next run, not data. */
  keys?: string;
  /** With `snapshot`: the snapshot manifest this run wrote (lake-snapshot.ts). */
  snapshot?: string;
  written_at: string;
}

/** Incomplete uploads of other runs older than this are a dead worker's, aborted by the next export. */
const STALE_UPLOAD_MS = 24 * 3600_000;

export { HIVE_NULL, runSlug, tablePrefix, type LakeFile } from './lake-layout.js';

export function manifestKey(target: ObjectTarget, pipeline: string, table: string, runId: string): string {
  return `${tablePrefix(target, pipeline, table)}_manifests/${runSlug(runId)}.json`;
}

/** The watermark of (pipeline, target): each target gets every row once, whatever other exports of the pipeline did. */
export function lakeWatermarkKey(pipeline: string, to: string): string {
  return `${pipeline} -> ${to.replace(/\/+$/, '')}`;
}

function loadDate(d: Date): string {
  return d.toISOString().slice(0, 10);
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
  const formatProblem = tableFormatProblem({
    to: o.to,
    format,
    partition_by: partitionBy,
    table_format: o.tableFormat,
  });
  if (formatProblem !== undefined) throw new Error(`export: ${formatProblem.message}`);
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
  if (last !== null && last.run === o.runId && last.file === manifestUrl) {
    await commitTableFormat(target, o, mkey);
    return { table, file: manifestUrl, rows: last.rows };
  }
  const after = await readWatermark(db, wkey, table);

  const dest = db.adapter;
  const params: unknown[] = [o.pipeline];
  let filter = `pipeline = ${dest.sql.ph(1)}`;
  if (after !== null) {
    params.push(after);
    filter += ` and load_id > ${dest.sql.ph(2)}`;
  }
  const kinds = new Map(columns.map((c) => [c.name, c.kind]));
  const partitions = await partitionsOf(db, table, filter, params, partitionBy, kinds);
  if (partitions.length === 0) return null;

  const date = loadDate(o.timestamp);
  const slug = runSlug(o.runId);
  const prefix = tablePrefix(target, o.pipeline, table);
  const partOf = `/part-${slug}-`;
  const keys = keysPrefix(target, o.pipeline, table);
  const snapshots = snapshotPrefix(target, o.pipeline, table);
  // A killed attempt of this run (or any dead worker long ago) may have left a multipart upload's parts behind: of
  // its change files, its key index, its snapshot generation.
  const now = Date.now();
  for (const under of [prefix, keys, ...(o.snapshot === true ? [snapshots] : [])]) {
    for (const u of await target.incompleteUploads(under)) {
      if (
        u.key.includes(partOf) ||
        u.key.includes(`_manifests/${slug}.json`) ||
        u.key.includes(`.part-${slug}-`) ||
        u.key.startsWith(`${keys}${slug}.`) ||
        u.key.startsWith(`${keys}.${slug}.`) ||
        u.key.startsWith(`${snapshots}${slug}/`) ||
        now - u.started.getTime() > STALE_UPLOAD_MS
      ) {
        await target.abortIncomplete(u);
      }
    }
  }

  // Parquet files carry each row's change kind, told against the key index the previous run of this target left.
  const key = mergeKeyOf(
    table,
    columns.map((c) => c.name),
  );
  let marker: ChangeMarker | null = null;
  let unknownBefore: { currentKeys: string } | undefined;
  if (format === 'parquet') {
    const work = join(scratch, `kinds-${table}`);
    await mkdir(join(work, 'duck'), { recursive: true });
    let previousKeys: string | null = null;
    if (key.length > 0 && after !== null) {
      const previous =
        last === null ? null : await readManifest(target, manifestKey(target, o.pipeline, table, last.run));
      if (previous?.keys !== undefined) {
        const local = join(work, 'previous-keys.parquet');
        if (await target.download(previous.keys, local)) previousKeys = local;
      }
      // Rows were sent before, but no index says which: this run's kinds are unknown, and the index starts now.
      if (previousKeys === null) unknownBefore = { currentKeys: await currentKeys(db, o, table, key, work) };
    }
    const typedKey = typeColumns(
      table,
      key.map((k) => columns.find((c) => c.name === k)!),
      exportTyping(db),
    );
    marker = await openChangeMarker({
      scratch: work,
      key,
      keyTypes: Object.fromEntries(typedKey.map((c) => [c.name, duckdbTypeOf(c)])),
      previousKeys,
      ...(unknownBefore ? { unknownBefore } : {}),
    });
  }
  const changeKinds = { insert: 0, update: 0 };
  const unknownKinds = unknownBefore !== undefined;
  // One upload at a time runs beside the local work (the next file's Parquet, its kinds, the key index): the store's
  // time overlaps the database's and DuckDB's instead of adding to it, and memory and scratch space stay at one
  // upload's parts and two local files.
  let uploading: Promise<void> | null = null;
  const upload = async (objectKey: string, local: string, opts: Parameters<ObjectTarget['upload']>[2]) => {
    // The previous upload's failure fails the export here, before another begins: no manifest may list its file.
    await uploading;
    const started = target.upload(objectKey, local, opts).then(() => rm(local, { force: true }));
    // Awaited by the next upload or before the manifest; until then its failure is not unhandled.
    started.catch(() => {});
    uploading = started;
  };
  try {
    const fileColumns = columns.filter((c) => !partitionBy.includes(c.name)).map((c) => c.name);
    const files: LakeFile[] = [];
    let through: bigint | null = null;
    let rows = 0;
    for (const [i, partition] of partitions.entries()) {
      o.signal?.throwIfAborted();
      const fileName = `part-${slug}-${String(i).padStart(5, '0')}.${FORMAT_EXTENSIONS[format]}`;
      const objectKey = `${prefix}load_date=${date}/${partitionPath(partition)}${fileName}`;
      const before = rows;
      const local = await exportTablesReport(db, {
        pipeline: o.pipeline,
        tables: [table],
        outDir: scratch,
        format,
        fileName,
        columns: { [table]: fileColumns },
        loadIdsAbove: after,
        equal: partitionFilter(partition),
        timestamp: o.timestamp,
        ...(o.signal ? { signal: o.signal } : {}),
        ...(o.onProgress
          ? { onProgress: (p: { table: string; rows: number }) => o.onProgress!({ table, rows: before + p.rows }) }
          : {}),
      });
      const file = local.files[0];
      if (file === undefined) continue;
      if (marker !== null) {
        const counted = await marker.mark({ path: file.file, partition });
        changeKinds.insert += counted.insert;
        changeKinds.update += counted.update;
      }
      const digest = await fileDigest(file.file);
      rows += file.rows;
      await upload(objectKey, file.file, {
        ...(o.signal ? { signal: o.signal } : {}),
        ...(o.onProgress ? { onProgress: () => o.onProgress!({ table, rows: before + file.rows }) } : {}),
      });
      if (file.maxLoadId !== undefined && file.maxLoadId !== null && (through === null || file.maxLoadId > through))
        through = file.maxLoadId;
      files.push({
        key: objectKey,
        partition: Object.fromEntries(partition.map((p) => [p.column, p.text])),
        rows: file.rows,
        ...digest,
      });
    }
    if (through === null) return null;

    // The key index after this run, for the next one; named by this run's manifest, so written before it.
    let keysKey: string | undefined;
    const index = marker === null ? null : await marker.finish();
    if (index !== null) {
      keysKey = `${keys}${slug}.keys`;
      await upload(keysKey, index, o.signal ? { signal: o.signal } : {});
    }
    // Every file the manifest lists is complete before it is written (and before the snapshot, which names none).
    await uploading;
    const snapshot =
      o.snapshot === true
        ? await writeSnapshot(db, target, o, format, partitionBy, table, columns, scratch)
        : undefined;

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
      schema: [
        ...typed.map((c) => ({ name: c.name, type: c.type, ...(c.list !== undefined ? { list: c.list } : {}) })),
        ...(marker !== null ? [{ name: CHANGE_KIND_COLUMN, type: 'text' }] : []),
      ],
      ...(marker !== null ? { change_kinds: unknownKinds ? null : changeKinds } : {}),
      ...(keysKey !== undefined ? { keys: keysKey } : {}),
      ...(snapshot !== undefined ? { snapshot: snapshotManifestKey(target, o.pipeline, table) } : {}),
      written_at: new Date().toISOString(),
    };
    await target.putText(mkey, `${JSON.stringify(manifest, null, 2)}\n`);
    await advanceWatermark(db, wkey, table, through, { run: o.runId, file: manifestUrl, rows });
    await commitTableFormat(target, o, mkey, manifest);
    // Earlier runs' key indexes: the next run reads this one's.
    if (keysKey !== undefined) {
      const older = (await target.list(keys)).map((x) => x.key).filter((k) => k !== keysKey);
      if (older.length > 0) await target.remove(older);
    }
    return { table, file: manifestUrl, rows };
  } finally {
    // An upload still running when the export failed reads a scratch file: the caller removes the folder after this.
    await settled(uploading);
    marker?.close();
  }
}

/** Waits for a promise to settle, whichever way. */
async function settled(p: Promise<unknown> | null): Promise<void> {
  await p?.then(
    () => {},
    () => {},
  );
}

async function readManifest(target: ObjectTarget, key: string): Promise<LakeManifest | null> {
  const text = await target.getText(key);
  return text === null ? null : (JSON.parse(text) as LakeManifest);
}

/** Every natural key of the table's rows now, as a local Parquet file (lake-changes.ts starts an index from it). */
async function currentKeys(
  db: ExportDatabase,
  o: LakeExportOptions,
  table: string,
  key: string[],
  work: string,
): Promise<string> {
  const report = await exportTablesReport(db, {
    pipeline: o.pipeline,
    tables: [table],
    outDir: work,
    format: 'parquet',
    fileName: 'current-keys.parquet',
    columns: { [table]: key },
    timestamp: o.timestamp,
    ...(o.signal ? { signal: o.signal } : {}),
  });
  return report.files[0]!.file;
}

/**
 * The run's table committed to its table format (iceberg/commit.ts), after the manifest and the watermark: the commit
 * names only files a manifest lists as complete, and a retry that finds the watermark moved commits from the stored
 * manifest (the commit itself adds nothing when the run's snapshot is already there).
 */
async function commitTableFormat(
  target: ObjectTarget,
  o: LakeExportOptions,
  mkey: string,
  written?: LakeManifest,
): Promise<void> {
  if (o.tableFormat === undefined) return;
  let manifest = written;
  if (manifest === undefined) {
    const text = await target.getText(mkey);
    if (text === null)
      throw new Error(
        `export: ${target.locate(mkey)}, the manifest the watermark names, is gone; its run cannot be committed to the table`,
      );
    manifest = JSON.parse(text) as LakeManifest;
  }
  const { commitRunToIceberg } = await import('./iceberg/commit.js');
  await commitRunToIceberg(target, manifest, o.env);
}
