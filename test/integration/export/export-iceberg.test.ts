// The lake as Apache Iceberg tables (export/targets/iceberg/): three runs of the marketplace example into SQLite on a
// real Temporal dev server, each exporting to s3://lake/… with table_format: iceberg, commit to SeaweedFS's Iceberg
// REST catalog. pyiceberg, an independent reader, loads every table through the catalog: one schema, each run's rows
// in one append snapshot of its own, the rows the lake's manifests list, every (natural key, load id) once, and the
// newest version per key equal to the destination's rows. A retried export of a committed run adds nothing; runs
// committing at once all land once each; a new column is a schema update read back as null for older rows.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import Sqlite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { TABLES } from '../../../db/model/schema/definition.js';
import { destinationOf } from '../../../destinations/index.js';
import { commitRunToIceberg } from '../../../export/targets/iceberg/commit.js';
import { openTarget } from '../../../export/targets/index.js';
import { exportToLake, type LakeManifest } from '../../../export/targets/lake.js';
import { loadPipelineFile } from '../../../pipelines/loader.js';
import type { PipelineSpec } from '../../../pipelines/spec.js';
import { pipelineWorkflowId } from '../../../temporal/contract.js';
import { startPipelineRun } from '../../../temporal/start.js';
import { readIcebergWithPyiceberg } from '../../support/iceberg-readers.js';
import { startDestinationBed, type DestinationBed } from '../../support/pipeline-bed.js';
import { REPO_ROOT, runCli } from '../../support/cli.js';
import { startS3Server, type S3Server } from '../../support/s3-server.js';
import { startTestTemporal, type TestTemporal } from '../../support/temporal.js';
import { s3Manifests } from '../../support/s3-manifests.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const PIPELINE = 'marketplace-products';
const NAMESPACE = 'marketplace_products';
const WAREHOUSE = 's3://warehouse/';
const TO = 's3://lake/iceberg';
let temporal: TestTemporal;
let s3: S3Server;
let client: S3Client;
let bed: DestinationBed;
let dir: string;
const saved: Record<string, string | undefined> = {};
const taskQueue = `iceberg-${crypto.randomBytes(4).toString('hex')}`;
/** The workflow id of run `n` (1-3), which names its files, manifests and snapshots. */
const runId = (n: number) => pipelineWorkflowId(PIPELINE, `iceberg-r${n}`);

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-iceberg-'));
  [temporal, s3] = await Promise.all([
    startTestTemporal(),
    startS3Server({ buckets: ['lake'], iceberg: { tableBuckets: ['warehouse'] } }),
  ]);
  // The in-process workers read the store and the catalog from this process's environment.
  const env = {
    ...s3.env,
    SCRAPE_ETL_ICEBERG_CATALOG: s3.icebergCatalog!,
    SCRAPE_ETL_ICEBERG_WAREHOUSE: WAREHOUSE,
    SCRAPE_ETL_ICEBERG_CREDENTIAL: `${s3.accessKeyId}:${s3.secretAccessKey}`,
  };
  for (const [k, v] of Object.entries(env)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  client = new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
  bed = await startDestinationBed({
    destination: 'sqlite',
    dir,
    temporal,
    taskQueue,
    token: TOKEN,
    seed: 5,
    runDurationMs: 500,
    env: { SCRAPE_ETL_HEARTBEAT_TIMEOUT: '10s' },
  });
}, 180_000);

afterAll(async () => {
  await bed?.close();
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

/** The table's natural key (without `pipeline`, the namespace). */
function keyOf(table: string): string[] {
  const def = (TABLES as Record<string, { primaryKey?: readonly string[] }>)[table];
  return (def?.primaryKey ?? ['id']).filter((c) => c !== 'pipeline');
}

function pyText(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  return String(v);
}

function newestPerKey(keys: string[]): string[] {
  const newest = new Map<string, bigint>();
  for (const k of keys) {
    const cut = k.lastIndexOf('|');
    const id = BigInt(k.slice(cut + 1));
    if ((newest.get(k.slice(0, cut)) ?? -1n) < id) newest.set(k.slice(0, cut), id);
  }
  return [...newest.entries()].map(([k, id]) => `${k}|${id}`).sort();
}

const keyColumns = (tables: string[]) => Object.fromEntries(tables.map((t) => [t, [...keyOf(t), 'load_id']]));

describe('the lake as Iceberg tables', () => {
  let tables: string[] = [];

  it('three marketplace runs: pyiceberg reads each table through the catalog, every run once, equal to the destination', async () => {
    const example = await loadPipelineFile(path.join(REPO_ROOT, 'pipelines', 'examples', 'marketplace.yaml'));
    const { schedule: _schedule, ...rest } = example;
    const spec = {
      ...rest,
      destination: { database: bed.dbUrl },
      exports: [
        {
          to: TO,
          format: 'parquet' as const,
          table_format: 'iceberg' as const,
          tables: [],
          mode: 'full' as const,
          write_empty: false,
          delimiter: ',',
          bom: false,
          null_text: '',
          file_name: '{pipeline}_{table}_{timestamp}.parquet',
          neutralize_formulas: true,
        },
      ],
    } as PipelineSpec;
    for (const run of [1, 2, 3]) {
      bed.sim.setDrift({ priceDrift: true, epoch: run });
      const handle = await startPipelineRun({ client: temporal.client, taskQueue }, spec, `iceberg-r${run}`);
      const result = await handle.result();
      expect({ run, status: result.status, exportError: result.exportError ?? null }).toEqual({
        run,
        status: 'succeeded',
        exportError: null,
      });
    }

    const written = await manifests(`iceberg/${PIPELINE}/`);
    tables = [...new Set(written.map((m) => m.table))].sort();
    expect(tables).toEqual(
      expect.arrayContaining(['marketplace_products', 'marketplace_product_models', 'marketplace_price_history']),
    );
    const read = readIcebergWithPyiceberg(s3, WAREHOUSE, NAMESPACE, keyColumns(tables));
    expect(Object.keys(read).sort()).toEqual(tables);
    const dest = destinationOf(bed.db);
    for (const table of tables) {
      const ice = read[table]!;
      const mine = written.filter((m) => m.table === table);
      // One append snapshot per run that wrote the table, each with the run's rows.
      expect({ table, snapshots: ice.snapshots.map((s) => [s.operation, s.run, s.table, s.added]).sort() }).toEqual({
        table,
        snapshots: mine.map((m) => ['append', m.run, table, String(m.rows)]).sort(),
      });
      expect({ table, rows: ice.rows }).toEqual({ table, rows: mine.reduce((n, m) => n + m.rows, 0) });
      expect({ table, duplicates: ice.keys.length - new Set(ice.keys).size }).toEqual({ table, duplicates: 0 });
      expect({ table, schemas: ice.schemaCount }).toEqual({ table, schemas: 1 });
      const pk = keyOf(table);
      const rows = await dest.exportReader.query(
        bed.db,
        `select ${[...pk, 'load_id'].map((c) => `"${c}"`).join(', ')} from "${table}" where pipeline = ${dest.sql.ph(1)}`,
        [PIPELINE],
      );
      const truth = rows.map((r) => [...pk, 'load_id'].map((c) => pyText(r[c])).join('|')).sort();
      expect({ table, newest: newestPerKey(ice.keys) }).toEqual({ table, newest: truth });
    }
    // The catalog kept the metadata files as written (SeaweedFS rewrites a snapshot whose Avro lacks the spec's
    // field ids under another name): the list and manifests are the writer's own.
    for (const table of tables)
      for (const snap of read[table]!.snapshots) {
        expect(snap.manifestList).toMatch(/\/metadata\/snap-\d+-1-[0-9a-f-]{36}\.avro$/);
        for (const m of snap.manifests) expect(m).toMatch(/\/metadata\/[0-9a-f-]{36}-m0\.avro$/);
      }
    // Later runs changed prices: more than one run committed to the products table.
    expect(read['marketplace_products']!.snapshots.length).toBeGreaterThan(1);
    expect(Object.fromEntries(read['marketplace_products']!.arrow)).toMatchObject({
      label_ids: 'list<element: int64>',
      item_id: 'int64',
    });
    expect(
      Object.fromEntries(read['marketplace_products']!.schema.map(([, name, type]) => [name, type])),
    ).toMatchObject({ label_ids: 'list<long>', item_id: 'long' });
  }, 600_000);

  it('a retried export of a committed run, and a commit from its stored manifest, add nothing', async () => {
    expect(tables.length).toBeGreaterThan(0);
    const before = readIcebergWithPyiceberg(s3, WAREHOUSE, NAMESPACE, keyColumns(tables));
    // The activity's retry after its commit: the watermark names the run's manifest, the commit finds its snapshot.
    const again = await exportToLake(bed.db, {
      to: TO,
      pipeline: PIPELINE,
      format: 'parquet',
      runId: runId(3),
      timestamp: new Date(),
      tableFormat: 'iceberg',
    });
    expect(again.files.length).toBeGreaterThan(0);
    const target = await openTarget(TO);
    try {
      for (const m of (await manifests(`iceberg/${PIPELINE}/`)).filter((x) => x.run === runId(1))) {
        const out = await commitRunToIceberg(target, m);
        expect({ table: m.table, committed: out.committed }).toEqual({ table: m.table, committed: false });
      }
    } finally {
      target.close();
    }
    const after = readIcebergWithPyiceberg(s3, WAREHOUSE, NAMESPACE, keyColumns(tables));
    for (const table of tables) {
      expect({ table, snapshots: after[table]!.snapshots }).toEqual({ table, snapshots: before[table]!.snapshots });
      expect({ table, rows: after[table]!.rows }).toEqual({ table, rows: before[table]!.rows });
    }
  }, 300_000);

  it('runs committing to one table at once each land once, on one line of snapshots', async () => {
    const products = (await manifests(`iceberg/${PIPELINE}/`)).find(
      (m) => m.table === 'marketplace_products' && m.run === runId(1),
    )!;
    const runs = ['race-a', 'race-b', 'race-c', 'race-d'];
    const target = await openTarget(TO);
    try {
      // Another pipeline's namespace: the same files, committed by four runs racing for the main branch.
      const outs = await Promise.all(
        runs.map((run) => commitRunToIceberg(target, { ...products, pipeline: 'race', run })),
      );
      expect(outs.map((o) => o.committed)).toEqual([true, true, true, true]);
    } finally {
      target.close();
    }
    const read = readIcebergWithPyiceberg(s3, WAREHOUSE, 'race', {})['marketplace_products']!;
    expect(read.snapshots.map((s) => s.run).sort()).toEqual(runs);
    expect(read.rows).toBe(products.rows * runs.length);
    // Each snapshot's parent is the one before it: no commit replaced another's branch head.
    expect(read.snapshots.map((s) => s.parent)).toEqual([null, ...read.snapshots.slice(0, -1).map((s) => s.id)]);
  }, 300_000);

  it('a new column is a schema update in the run’s commit; older rows read it as null', async () => {
    const sqlite = new Sqlite(bed.dbUrl.replace(/^sqlite:/, ''));
    onTestFinished(() => {
      sqlite.close();
    });
    sqlite.exec(`alter table marketplace_products add column shelf_note text`);
    const maxLoad = (sqlite.prepare(`select max(load_id) as m from marketplace_products`).get() as { m: number }).m;
    // One product changes in a later load, with the new column set.
    const changed = sqlite
      .prepare(
        `update marketplace_products set shelf_note = 'aisle 4', load_id = ? where pipeline = ? and item_id = (select min(item_id) from marketplace_products where pipeline = ?)`,
      )
      .run(maxLoad + 1, PIPELINE, PIPELINE).changes;
    expect(changed).toBeGreaterThan(0);
    const report = await exportToLake(bed.db, {
      to: TO,
      pipeline: PIPELINE,
      format: 'parquet',
      tables: ['marketplace_products'],
      runId: 'evolve',
      timestamp: new Date(),
      tableFormat: 'iceberg',
    });
    expect(report.files.map((f) => [f.table, f.rows])).toEqual([['marketplace_products', changed]]);
    const read = readIcebergWithPyiceberg(s3, WAREHOUSE, NAMESPACE, {
      marketplace_products: ['shelf_note'],
    })['marketplace_products']!;
    expect(read.schemaCount).toBe(2);
    expect(read.schema.map(([, name]) => name)).toContain('shelf_note');
    const notes = read.keys.reduce<Record<string, number>>((n, k) => ({ ...n, [k]: (n[k] ?? 0) + 1 }), {});
    expect(notes).toEqual({ 'aisle 4': changed, None: read.rows - changed });
    expect(read.snapshots.at(-1)).toMatchObject({ run: 'evolve', added: String(changed) });
  }, 300_000);

  it('export --to … --table-format iceberg commits from the command line, and names a wrong combination', async () => {
    const db = ['export', '--database', bed.dbUrl, '--pipeline', PIPELINE];
    const csv = await runCli([...db, '--to', 's3://lake/cli', '--format', 'csv', '--table-format', 'iceberg']);
    expect({ code: csv.code, stderr: csv.stderr.trim() }).toEqual({
      code: 2,
      stderr: expect.stringContaining('--format: table_format: iceberg needs format: parquet'),
    });
    const folder = await runCli([
      ...db,
      '--to',
      path.join(dir, 'lake'),
      '--format',
      'parquet',
      '--table-format',
      'iceberg',
    ]);
    expect({ code: folder.code, stderr: folder.stderr.trim() }).toEqual({
      code: 2,
      stderr: expect.stringContaining('iceberg tables reference files on object storage'),
    });
    const ok = await runCli(
      [
        ...db,
        '--to',
        's3://lake/cli',
        '--format',
        'parquet',
        '--table-format',
        'iceberg',
        '--tables',
        'marketplace_products',
        '--run-id',
        'cli-1',
      ],
      { timeoutMs: 180_000 },
    );
    expect({ code: ok.code, stderr: ok.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    const read = readIcebergWithPyiceberg(s3, WAREHOUSE, NAMESPACE, {})['marketplace_products']!;
    const dest = destinationOf(bed.db);
    const [count] = await dest.exportReader.query(
      bed.db,
      `select count(*) as n from marketplace_products where pipeline = ${dest.sql.ph(1)}`,
      [PIPELINE],
    );
    // A new target's first export writes every row of the table: one snapshot of the command's run with all of them.
    expect(read.snapshots.at(-1)).toMatchObject({ run: 'cli-1', added: String(count!['n']) });
  }, 300_000);
});
