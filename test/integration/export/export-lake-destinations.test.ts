// The lake on a real S3 store (SeaweedFS) from each destination: three runs of the marketplace example (prices
// drifting between them, so later runs change rows) on a real Temporal dev server, each exporting to
// s3://lake/<destination> as its last activity. pyarrow's datasets, through pyarrow's own S3 filesystem with
// endpoint_override, read every partition of every table: one schema per table whichever destination wrote it
// (lists as lists), the rows the manifests list, each (natural key, load id) once, and the newest version of every
// row equal to the destination's rows.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLES } from '../../../db/model/schema/definition.js';
import { destinationOf } from '../../../destinations/index.js';
import type { LakeManifest } from '../../../export/targets/lake.js';
import { loadPipelineFile } from '../../../pipelines/loader.js';
import type { PipelineSpec } from '../../../pipelines/spec.js';
import { startPipelineRun } from '../../../temporal/start.js';
import { readFilesWithPyarrow, readLakeWithPyarrow, type LakeTableRead } from '../../support/lake-readers.js';
import type { SnapshotManifest } from '../../../export/targets/lake-snapshot.js';
import { startDestinationBed, type DestinationBed } from '../../support/pipeline-bed.js';
import { REPO_ROOT } from '../../support/cli.js';
import { startS3Server, type S3Server } from '../../support/s3-server.js';
import { startTestTemporal, type TestTemporal } from '../../support/temporal.js';
import { s3Manifests } from '../../support/s3-manifests.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const PIPELINE = 'marketplace-products';
let temporal: TestTemporal;
let s3: S3Server;
let client: S3Client;
let dir: string;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-lake-destinations-'));
  [temporal, s3] = await Promise.all([startTestTemporal(), startS3Server({ buckets: ['lake'] })]);
  // The in-process workers' S3 client reads the standard AWS chain from this process's environment.
  for (const [k, v] of Object.entries(s3.env)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  client = new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
}, 180_000);

afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  client?.destroy();
  await temporal?.stop();
  await s3?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const manifests = (prefix: string): Promise<LakeManifest[]> => s3Manifests(client, 'lake', prefix);

const schemas: Record<string, Record<string, Array<[string, string]>>> = {};

describe.each(['sqlite', 'postgres', 'duckdb'] as const)(
  'three marketplace runs into %s, exported to the lake',
  (destination) => {
    const taskQueue = `lake-${destination}-${crypto.randomBytes(4).toString('hex')}`;
    let bed: DestinationBed;
    beforeAll(async () => {
      bed = await startDestinationBed({
        destination,
        dir,
        temporal,
        taskQueue,
        token: TOKEN,
        seed: 5,
        runDurationMs: 500,
        env: { SCRAPE_ETL_HEARTBEAT_TIMEOUT: '10s' },
      });
    }, 120_000);
    afterAll(async () => bed?.close());

    it('pyarrow reads every partition with one schema, every row once, the newest equal to the destination', async () => {
      const example = await loadPipelineFile(path.join(REPO_ROOT, 'pipelines', 'examples', 'marketplace.yaml'));
      const { schedule: _schedule, ...rest } = example;
      const spec = {
        ...rest,
        destination: { database: bed.dbUrl },
        exports: [
          {
            to: `s3://lake/${destination}`,
            format: 'parquet' as const,
            tables: [],
            mode: 'full' as const,
            write_empty: false,
            delimiter: ',',
            bom: false,
            null_text: '',
            file_name: '{pipeline}_{table}_{timestamp}.parquet',
            neutralize_formulas: true,
            snapshot: true,
          },
        ],
      } as PipelineSpec;
      for (const run of [1, 2, 3]) {
        bed.sim.setDrift({ priceDrift: true, epoch: run });
        const handle = await startPipelineRun({ client: temporal.client, taskQueue }, spec, `${destination}-r${run}`);
        const result = await handle.result();
        expect({ run, status: result.status, exportError: result.exportError ?? null }).toEqual({
          run,
          status: 'succeeded',
          exportError: null,
        });
        expect(result.exportedFiles).toBeGreaterThan(0);
      }

      const written = await manifests(`${destination}/${PIPELINE}/`);
      const tables = [...new Set(written.map((m) => m.table))].sort();
      expect(tables).toEqual(
        expect.arrayContaining(['marketplace_products', 'marketplace_product_models', 'marketplace_price_history']),
      );
      // Later runs changed rows (drift): they wrote manifests of their own.
      expect(new Set(written.filter((m) => m.table === 'marketplace_products').map((m) => m.run)).size).toBeGreaterThan(
        1,
      );
      const keyColumns = Object.fromEntries(tables.map((t) => [t, [...keyOf(t), 'load_id']]));
      const read = readLakeWithPyarrow(`lake/${destination}`, PIPELINE, { s3, keyColumns });
      expect(Object.keys(read).sort()).toEqual(tables);

      const dest = destinationOf(bed.db);
      for (const table of tables) {
        const lake = read[table]!;
        const listed = written.filter((m) => m.table === table).reduce((n, m) => n + m.rows, 0);
        expect({ table, rows: lake.rows }).toEqual({ table, rows: listed });
        expect({ table, duplicates: lake.keys!.length - new Set(lake.keys).size }).toEqual({ table, duplicates: 0 });
        const pk = keyOf(table);
        const rows = await dest.exportReader.query(
          bed.db,
          `select ${[...pk, 'load_id'].map((c) => `"${c}"`).join(', ')} from "${table}" where pipeline = ${dest.sql.ph(1)}`,
          [PIPELINE],
        );
        const truth = rows.map((r) => [...pk, 'load_id'].map((c) => pyText(r[c])).join('|')).sort();
        expect({ table, newest: newestPerKey(lake) }).toEqual({ table, newest: truth });
      }
      await expectChangeKindsAndSnapshot(destination, written, bed);
      schemas[destination] = Object.fromEntries(tables.map((t) => [t, read[t]!.schema]));
      expect(Object.fromEntries(schemas[destination]['marketplace_products']!)).toMatchObject({
        label_ids: 'list<element: int64>',
        rating_count: 'list<element: int64>',
        _change_kind: 'string',
        item_id: 'int64',
        load_date: 'string',
      });
    }, 600_000);
  },
);

describe('the lake from every destination', () => {
  it('has one schema per table whichever destination wrote it', () => {
    expect(Object.keys(schemas).sort()).toEqual(['duckdb', 'postgres', 'sqlite']);
    expect(schemas['postgres']).toEqual(schemas['sqlite']);
    expect(schemas['duckdb']).toEqual(schemas['sqlite']);
  });
});

/**
 * Each run's change files of marketplace_products, read by pyarrow through S3: a product whose key an earlier run
 * sent is `update`, any other `insert`, and later runs (prices drift) hold updates; the snapshot its manifest names
 * holds every product once with the destination's current row (key and load id, and the price).
 */
async function expectChangeKindsAndSnapshot(
  destination: string,
  written: LakeManifest[],
  bed: DestinationBed,
): Promise<void> {
  const table = 'marketplace_products';
  const runs = written.filter((m) => m.table === table).sort((a, b) => a.written_at.localeCompare(b.written_at));
  const sent = new Set<string>();
  let updates = 0;
  for (const m of runs) {
    const read = readFilesWithPyarrow(
      m.files.map((f) => `lake/${f.key}`),
      ['shop_id', 'item_id', '_change_kind'],
      { s3 },
    );
    const kinds = read.rows.map((r) => {
      const key = `${r['shop_id']}|${r['item_id']}`;
      return { key, kind: r['_change_kind'], expected: sent.has(key) ? 'update' : 'insert' };
    });
    expect(kinds.filter((k) => k.kind !== k.expected)).toEqual([]);
    expect(m.change_kinds).toEqual({
      insert: kinds.filter((k) => k.kind === 'insert').length,
      update: kinds.filter((k) => k.kind === 'update').length,
    });
    updates += kinds.filter((k) => k.kind === 'update').length;
    for (const k of kinds) sent.add(k.key);
  }
  expect({ destination, updates: updates > 0 }).toEqual({ destination, updates: true });

  const snapshotKey = runs.at(-1)!.snapshot!;
  const snapshot = JSON.parse(
    await (await client.send(new GetObjectCommand({ Bucket: 'lake', Key: snapshotKey }))).Body!.transformToString(),
  ) as SnapshotManifest;
  expect(snapshot.run).toBe(runs.at(-1)!.run);
  const read = readFilesWithPyarrow(
    snapshot.files.map((f) => `lake/${f.key}`),
    ['shop_id', 'item_id', 'load_id', 'price'],
    { s3 },
  );
  const dest = destinationOf(bed.db);
  const truth = await dest.exportReader.query(
    bed.db,
    `select shop_id, item_id, load_id, price from ${table} where pipeline = ${dest.sql.ph(1)}`,
    [PIPELINE],
  );
  const line = (r: Record<string, unknown>) =>
    ['shop_id', 'item_id', 'load_id', 'price'].map((c) => pyText(r[c])).join('|');
  expect({ destination, rows: read.rows.map(line).sort() }).toEqual({ destination, rows: truth.map(line).sort() });
  expect(snapshot.rows).toBe(truth.length);
  expect(read.schema.map(([n]) => n)).not.toContain('_change_kind');
}

/** The table's natural key (without `pipeline`, which the lake's folder already says). */
function keyOf(table: string): string[] {
  const def = (TABLES as Record<string, { primaryKey?: readonly string[]; columns: Record<string, unknown> }>)[table];
  const pk = def?.primaryKey ?? ['id'];
  return pk.filter((c) => c !== 'pipeline');
}

/** A value as Python's str() writes it, so the database's rows compare with pyarrow's. */
function pyText(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  return String(v);
}

/** Per natural key the row with the highest load id, as `key|load_id`, sorted. */
function newestPerKey(read: LakeTableRead): string[] {
  const newest = new Map<string, bigint>();
  for (const k of read.keys!) {
    const cut = k.lastIndexOf('|');
    const key = k.slice(0, cut);
    const id = BigInt(k.slice(cut + 1));
    if ((newest.get(key) ?? -1n) < id) newest.set(key, id);
  }
  return [...newest.entries()].map(([k, id]) => `${k}|${id}`).sort();
}
