// One run's table of the lake committed to an Apache Iceberg table through a REST catalog, exactly once: the run's
// Parquet files (listed by its lake manifest, complete and checksummed) become one append snapshot of the table
// `<pipeline>.<table>`, referencing the files where the lake wrote them.
//
// - The snapshot's summary carries the run and the table (`scrape-etl.run`, `scrape-etl.table`). Before committing,
//   the table's snapshots are searched for them: a retried activity, or a run resumed after its commit's answer was
//   lost, finds its snapshot and adds nothing.
// - The commit requires the table's main branch to still be at the snapshot this commit's manifest list was built on
//   (`assert-ref-snapshot-id`): when another writer committed meanwhile the catalog refuses it (409), and the commit
//   is built again on the new state (which may now hold this run's snapshot, then nothing is added).
// - Columns the table lacks are added by a schema update in the same commit (with `assert-current-schema-id` and
//   `assert-last-assigned-field-id`), and the name mapping that ties the files' column names to field ids with it.
// The lake calls this after the run's manifest and watermark are written (lake.ts), so a snapshot only ever names
// files a manifest lists as complete.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTarget, parseS3Url } from '../index.js';
import type { LakeManifest } from '../lake.js';
import type { ObjectTarget } from '../types.js';
import { settingsFor } from '../../../settings/process.js';
import type { Env } from '../../../settings/settings.js';
import { readManifestList, writeManifest, writeManifestList, type ManifestFile } from './avro-files.js';
import {
  CatalogError,
  openRestCatalog,
  type Requirement,
  type Snapshot,
  type TableMetadata,
  type Update,
} from './rest-catalog.js';
import { evolveSchema, NAME_MAPPING_PROPERTY, nameMapping, type IcebergSchema } from './table-schema.js';

export const RUN_PROPERTY = 'scrape-etl.run';
export const TABLE_PROPERTY = 'scrape-etl.table';
/** Commits refused because another writer moved the table meanwhile are rebuilt this many times. */
const MAX_ATTEMPTS = 20;

/** A name as one Iceberg identifier part: lowercase letters, digits and '_'. */
export function icebergName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9_]/g, '_');
}

export interface IcebergCommit {
  /** namespace.table */
  table: string;
  snapshotId: bigint;
  /** False when the run's snapshot was already there (a retry): nothing was added. */
  committed: boolean;
}

function big(v: bigint | number | null | undefined): bigint | null {
  if (v === null || v === undefined) return null;
  const b = BigInt(v);
  return b === -1n ? null : b;
}

/** The run's snapshot of the table, when one was committed before. */
export function runSnapshot(meta: TableMetadata, run: string, table: string): Snapshot | undefined {
  return (meta.snapshots ?? []).find((s) => s.summary[RUN_PROPERTY] === run && s.summary[TABLE_PROPERTY] === table);
}

/** An id for a new snapshot: positive, 63 bits, as the spec's writers draw them. */
function newSnapshotId(): bigint {
  return randomBytes(8).readBigUInt64BE() & 0x7fffffffffffffffn || 1n;
}

/** The catalog's 4xx answers other than a conflict are not fixed by retrying: marked for the activity to fail. */
function classified(err: unknown): Error {
  if (err instanceof CatalogError && err.status >= 400 && err.status < 500 && ![408, 409, 429].includes(err.status))
    return new Error(`export: ${err.message}`, { cause: err });
  return err as Error;
}

export async function commitRunToIceberg(lake: ObjectTarget, m: LakeManifest, env?: Env): Promise<IcebergCommit> {
  const s = settingsFor(env);
  if (s.icebergCatalog === undefined || s.icebergCatalog === '')
    throw new Error(
      `export: table_format: iceberg needs the catalog: set SCRAPE_ETL_ICEBERG_CATALOG to the Iceberg REST catalog's URL (and SCRAPE_ETL_ICEBERG_WAREHOUSE, SCRAPE_ETL_ICEBERG_CREDENTIAL or _TOKEN as it needs)`,
    );
  if (m.format !== 'parquet' || m.partition_by.length > 0)
    throw new Error(`export: table_format: iceberg needs unpartitioned Parquet (run ${m.run}, table ${m.table})`);
  const namespace = [icebergName(m.pipeline)];
  const name = icebergName(m.table);
  const qualified = `${namespace.join('.')}.${name}`;
  try {
    const catalog = await openRestCatalog({
      uri: s.icebergCatalog,
      warehouse: s.icebergWarehouse,
      credential: s.icebergCredential,
      token: s.icebergToken,
    });
    await catalog.ensureNamespace(namespace);
    let meta = await catalog.loadTable(namespace, name);
    for (let wait = 0; meta === null; wait++) {
      const first = evolveSchema(undefined, 0, m.schema, qualified);
      meta =
        (await catalog.createTable(
          namespace,
          name,
          { type: 'struct', 'schema-id': 0, fields: first.fields },
          { 'format-version': '2', [NAME_MAPPING_PROPERTY]: nameMapping(first.fields) },
        )) ?? (await catalog.loadTable(namespace, name));
      // Another writer's creation (409) can answer before its table loads: wait for it a little.
      if (meta === null && wait >= 10)
        throw new Error(`Iceberg catalog ${catalog.uri}: table ${qualified} exists but does not load`);
      if (meta === null) await new Promise((r) => setTimeout(r, 100 * (wait + 1)));
    }
    for (let attempt = 1; ; attempt++) {
      const done = runSnapshot(meta, m.run, m.table);
      if (done !== undefined) return { table: qualified, snapshotId: BigInt(done['snapshot-id']), committed: false };
      try {
        const snapshotId = await commitOnce(catalog, lake, namespace, name, qualified, meta, m, env);
        return { table: qualified, snapshotId, committed: true };
      } catch (err) {
        if (!(err instanceof CatalogError && err.status === 409) || attempt >= MAX_ATTEMPTS) throw err;
        const again = await catalog.loadTable(namespace, name);
        if (again === null) throw new Error(`Iceberg catalog ${catalog.uri}: table ${qualified} was dropped meanwhile`);
        meta = again;
      }
    }
  } catch (err) {
    throw classified(err);
  }
}

async function commitOnce(
  catalog: Awaited<ReturnType<typeof openRestCatalog>>,
  lake: ObjectTarget,
  namespace: string[],
  name: string,
  qualified: string,
  meta: TableMetadata,
  m: LakeManifest,
  env: Env | undefined,
): Promise<bigint> {
  if (meta['format-version'] !== 2)
    throw new Error(
      `export: Iceberg table ${qualified} is format version ${meta['format-version']}; the lake commits to version 2 tables (upgrade or recreate it)`,
    );
  const current = meta.schemas.find((x) => x['schema-id'] === meta['current-schema-id']);
  const evolved = evolveSchema(current, meta['last-column-id'], m.schema, qualified);
  const schemaId = evolved.changed
    ? Math.max(...meta.schemas.map((x) => x['schema-id'] ?? 0)) + 1
    : meta['current-schema-id'];
  const schema: IcebergSchema = { type: 'struct', 'schema-id': schemaId, fields: evolved.fields };

  const parentId = big(meta.refs?.['main']?.['snapshot-id'] ?? meta['current-snapshot-id']);
  const parent = parentId === null ? undefined : meta.snapshots?.find((x) => BigInt(x['snapshot-id']) === parentId);
  const snapshotId = newSnapshotId();
  const sequenceNumber = (big(meta['last-sequence-number']) ?? 0n) + 1n;
  const previous = parent === undefined ? [] : await readManifestList(await readObject(parent['manifest-list'], env));

  const files = m.files.map((f) => ({ path: lake.locate(f.key), rows: f.rows, bytes: f.bytes }));
  const addedRows = files.reduce((n, f) => n + BigInt(f.rows), 0n);
  const location = meta.location.replace(/\/+$/, '');
  const manifestUrl = `${location}/metadata/${randomUUID()}-m0.avro`;
  const listUrl = `${location}/metadata/snap-${snapshotId}-1-${randomUUID()}.avro`;
  const manifestBytes = await writeManifest(files, snapshotId, { schema: JSON.stringify(schema), schemaId });
  const entry: ManifestFile = {
    manifest_path: manifestUrl,
    manifest_length: BigInt(manifestBytes.length),
    partition_spec_id: 0,
    content: 0,
    sequence_number: sequenceNumber,
    min_sequence_number: sequenceNumber,
    added_snapshot_id: snapshotId,
    added_files_count: files.length,
    existing_files_count: 0,
    deleted_files_count: 0,
    added_rows_count: addedRows,
    existing_rows_count: 0n,
    deleted_rows_count: 0n,
    partitions: null,
    key_metadata: null,
  };
  const listBytes = await writeManifestList([entry, ...previous], {
    snapshotId,
    parentSnapshotId: parentId,
    sequenceNumber,
  });
  await writeObject(manifestUrl, manifestBytes, env);
  await writeObject(listUrl, listBytes, env);

  const totalBefore = BigInt(parent?.summary['total-records'] ?? '0');
  const requirements: Requirement[] = [
    { type: 'assert-table-uuid', uuid: meta['table-uuid'] },
    { type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': parentId },
  ];
  const updates: Update[] = [];
  if (evolved.changed) {
    requirements.push(
      { type: 'assert-current-schema-id', 'current-schema-id': meta['current-schema-id'] },
      { type: 'assert-last-assigned-field-id', 'last-assigned-field-id': meta['last-column-id'] },
    );
    updates.push(
      { action: 'add-schema', schema, 'last-column-id': evolved.lastColumnId },
      { action: 'set-current-schema', 'schema-id': -1 },
      { action: 'set-properties', updates: { [NAME_MAPPING_PROPERTY]: nameMapping(evolved.fields) } },
    );
  }
  updates.push(
    {
      action: 'add-snapshot',
      snapshot: {
        'snapshot-id': snapshotId,
        ...(parentId !== null ? { 'parent-snapshot-id': parentId } : {}),
        'sequence-number': sequenceNumber,
        'timestamp-ms': BigInt(Date.now()),
        'manifest-list': listUrl,
        'schema-id': schemaId,
        summary: {
          operation: 'append',
          'added-data-files': String(files.length),
          'added-records': String(addedRows),
          'added-files-size': String(m.files.reduce((n, f) => n + f.bytes, 0)),
          'total-records': String(totalBefore + addedRows),
          [RUN_PROPERTY]: m.run,
          [TABLE_PROPERTY]: m.table,
          'scrape-etl.pipeline': m.pipeline,
          'scrape-etl.load-ids-through': m.load_ids.through,
        },
      },
    },
    { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': snapshotId },
  );
  try {
    await catalog.commit(namespace, name, requirements, updates);
  } catch (err) {
    // A refused commit's files are named by nothing; a commit whose answer was lost may have landed, so its files stay.
    if (err instanceof CatalogError && err.status === 409)
      await Promise.allSettled([removeObject(manifestUrl, env), removeObject(listUrl, env)]);
    throw err;
  }
  return snapshotId;
}

async function withObject<T>(
  url: string,
  env: Env | undefined,
  fn: (target: ObjectTarget, key: string) => Promise<T>,
): Promise<T> {
  const { bucket, prefix } = parseS3Url(url);
  const target = await openTarget(`s3://${bucket}`, env);
  try {
    return await fn(target, prefix.replace(/\/$/, ''));
  } finally {
    target.close();
  }
}

async function readObject(url: string, env: Env | undefined): Promise<Buffer> {
  const bytes = await withObject(url, env, (t, key) => t.getBytes(key));
  if (bytes === null) throw new Error(`export: the Iceberg manifest list ${url} is missing from the store`);
  return bytes;
}

async function writeObject(url: string, bytes: Buffer, env: Env | undefined): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'scrape-etl-iceberg-'));
  try {
    const file = join(dir, 'object.avro');
    await writeFile(file, bytes);
    if ((await stat(file)).size !== bytes.length) throw new Error(`short write of ${file}`);
    await withObject(url, env, (t, key) => t.upload(key, file));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function removeObject(url: string, env: Env | undefined): Promise<void> {
  await withObject(url, env, (t, key) => t.remove([key]));
}
