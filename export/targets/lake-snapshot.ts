// A compacted current snapshot of a lake table, on request (`snapshot: true`): beside the change files, one row per
// natural key with its current values, written by each run that changed the table.
//
//   <prefix>/<pipeline>/_snapshot/<table>/<run>/[<col>=<value>/…]part-<NNNNN>.<ext>
//   <prefix>/<pipeline>/_snapshot/<table>/manifest.json
//
// The destination already holds exactly that (one current row per key, loads upsert), so the snapshot is the
// pipeline's rows of the table exported as they are now, with the same partition_by folders (no load_date) and the
// same schema as the change files (without `_change_kind`). It is replaced atomically: a run writes its generation's
// files under its own folder, then overwrites the one manifest (a single object put: readers see the old manifest or
// the new one, each naming complete files only); the generation before it stays until the next run, for a reader
// that read the old manifest a moment ago, and older ones are deleted. A retried attempt whose generation the
// manifest already names writes nothing again.
import { rm } from 'node:fs/promises';
import { exportTyping, type ExportDatabase } from '../database.js';
import { exportTablesReport, type exportableTables } from '../export.js';
import { FORMAT_EXTENSIONS, type ExportFormat } from '../formats/index.js';
import { typeColumns } from '../typed.js';
import {
  fileDigest,
  partitionFilter,
  partitionPath,
  partitionsOf,
  runSlug,
  snapshotPrefix,
  type LakeFile,
} from './lake-layout.js';
import type { ObjectTarget } from './types.js';

export interface SnapshotManifest {
  version: 1;
  kind: 'snapshot';
  pipeline: string;
  table: string;
  /** The run whose export wrote this generation. */
  run: string;
  format: ExportFormat;
  partition_by: string[];
  rows: number;
  /** The highest load id among the rows: every load up to it is in the snapshot. */
  load_ids: { through: string | null };
  files: LakeFile[];
  schema: Array<{ name: string; type: string; list?: string }>;
  written_at: string;
}

export function snapshotManifestKey(target: ObjectTarget, pipeline: string, table: string): string {
  return `${snapshotPrefix(target, pipeline, table)}manifest.json`;
}

export async function readSnapshotManifest(
  target: ObjectTarget,
  pipeline: string,
  table: string,
): Promise<SnapshotManifest | null> {
  const text = await target.getText(snapshotManifestKey(target, pipeline, table));
  return text === null ? null : (JSON.parse(text) as SnapshotManifest);
}

/** Writes the table's snapshot for this run (unless the manifest already names it); returns its manifest. */
export async function writeSnapshot(
  db: ExportDatabase,
  target: ObjectTarget,
  o: { pipeline: string; runId: string; timestamp: Date; signal?: AbortSignal },
  format: ExportFormat,
  partitionBy: string[],
  table: string,
  columns: Awaited<ReturnType<typeof exportableTables>>[number]['columns'],
  scratch: string,
): Promise<SnapshotManifest> {
  const current = await readSnapshotManifest(target, o.pipeline, table);
  if (current !== null && current.run === o.runId) return current;

  const slug = runSlug(o.runId);
  const base = snapshotPrefix(target, o.pipeline, table);
  const generation = `${base}${slug}/`;
  const kinds = new Map(columns.map((c) => [c.name, c.kind]));
  const partitions = await partitionsOf(
    db,
    table,
    `pipeline = ${db.adapter.sql.ph(1)}`,
    [o.pipeline],
    partitionBy,
    kinds,
  );
  const fileColumns = columns.filter((c) => !partitionBy.includes(c.name)).map((c) => c.name);
  const files: LakeFile[] = [];
  let rows = 0;
  let through: bigint | null = null;
  for (const [i, partition] of partitions.entries()) {
    o.signal?.throwIfAborted();
    const fileName = `part-${String(i).padStart(5, '0')}.${FORMAT_EXTENSIONS[format]}`;
    const local = await exportTablesReport(db, {
      pipeline: o.pipeline,
      tables: [table],
      outDir: scratch,
      format,
      fileName: `snapshot-${fileName}`,
      columns: { [table]: fileColumns },
      loadIdsAbove: null,
      equal: partitionFilter(partition),
      timestamp: o.timestamp,
      ...(o.signal ? { signal: o.signal } : {}),
    });
    const file = local.files[0];
    if (file === undefined) continue;
    const key = `${generation}${partitionPath(partition)}${fileName}`;
    const digest = await fileDigest(file.file);
    await target.upload(key, file.file, o.signal ? { signal: o.signal } : {});
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
  // An earlier attempt of this run may have written a part this one did not (a partition that has no rows now).
  const kept = new Set(files.map((f) => f.key));
  const leftover = (await target.list(generation)).map((x) => x.key).filter((k) => !kept.has(k));
  if (leftover.length > 0) await target.remove(leftover);

  const manifest: SnapshotManifest = {
    version: 1,
    kind: 'snapshot',
    pipeline: o.pipeline,
    table,
    run: o.runId,
    format,
    partition_by: partitionBy,
    rows,
    load_ids: { through: through === null ? null : String(through) },
    files,
    schema: typeColumns(
      table,
      columns.filter((c) => !partitionBy.includes(c.name)),
      exportTyping(db),
    ).map((c) => ({ name: c.name, type: c.type, ...(c.list !== undefined ? { list: c.list } : {}) })),
    written_at: new Date().toISOString(),
  };
  await target.putText(snapshotManifestKey(target, o.pipeline, table), `${JSON.stringify(manifest, null, 2)}\n`);

  // Generations other than this one and the one the manifest named a moment ago are no manifest's any more.
  const keep = [generation, ...(current !== null ? [`${base}${runSlug(current.run)}/`] : [])];
  const old = (await target.list(base))
    .map((x) => x.key)
    .filter((k) => k !== snapshotManifestKey(target, o.pipeline, table) && !keep.some((g) => k.startsWith(g)));
  if (old.length > 0) await target.remove(old);
  return manifest;
}
