// The worker PROCESS SIGKILLed in the middle of a pipeline run's multipart upload to the lake, on a real Temporal dev
// server: a marketplace run whose destination already holds many rows of large, incompressible descriptions exports
// to s3://lake/w (SeaweedFS) as its last activity, through a throttling proxy so that the upload takes seconds. The
// worker is killed once the store lists the upload with a part in it (ListMultipartUploads, ListParts); a new worker
// takes the export's retry after the heartbeat timeout. Then, read through the S3 API and pyarrow: no multipart upload
// left open, every object under the table the manifest or listed by it (bytes and SHA-256 as stored), no file that a
// folder reader would see outside the manifest, every row once and as many as the destination holds.
import crypto from 'node:crypto';
import net from 'node:net';
import {
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LakeManifest } from '../../../export/targets/lake.js';
import type { PipelineSpec } from '../../../pipelines/spec.js';
import { startPipelineRun } from '../../../temporal/start.js';
import { readLakeWithPyarrow } from '../../support/lake-readers.js';
import { startPipelineBed, type PipelineBed } from '../../support/pipeline-bed.js';
import { marketplaceSpec, productUrl } from '../../support/pipeline-specs.js';
import { startS3Server, type S3Server } from '../../support/s3-server.js';
import { spawnWorkerProcess, type WorkerProcess } from '../../support/temporal.js';
import { throttlingProxy } from '../../support/throttling-proxy.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const PIPELINE = 'lake-worker-kill';
/** Rows put into the destination before the run: with their descriptions, a Parquet file of about 10 MB. */
const BIG_ROWS = 12_000;
const taskQueue = `lake-kill-${crypto.randomBytes(4).toString('hex')}`;
let bed: PipelineBed;
let s3: S3Server;
let client: S3Client;
let proxy: net.Server;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  [bed, s3] = await Promise.all([
    startPipelineBed({ name: 'lake-worker-kill', token: TOKEN, seed: 11, runDurationMs: 300 }),
    startS3Server({ buckets: ['lake'] }),
  ]);
  client = new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
  proxy = await throttlingProxy(Number(new URL(s3.endpoint).port), 1_500_000);
  if (bed.db.dialect !== 'sqlite') throw new Error('the bed is SQLite');
  // Item ids far above the simulator's: the run's own products are added beside these, none replaced.
  bed.db.sqlite
    .exec(`insert into marketplace_products (pipeline, shop_id, item_id, price_divisor, load_id, loaded_at, row_hash, description)
    with recursive n(i) as (select 1 union all select i + 1 from n where i < ${BIG_ROWS})
    select '${PIPELINE}', 7, 900000000000 + i, 100000, 0, '2026-11-01T00:00:00.000Z', 'h' || i, hex(randomblob(800)) from n`);
}, 180_000);

afterAll(async () => {
  await Promise.all(workers.splice(0).map((w) => w.kill('SIGKILL')));
  proxy?.close();
  client?.destroy();
  await s3?.stop();
  await bed?.close();
});

async function spawnWorker(endpoint: string): Promise<WorkerProcess> {
  const w = await spawnWorkerProcess({
    address: bed.temporal.address,
    taskQueue,
    env: {
      SCRAPER_BASE_URL: bed.sim.baseUrl,
      SCRAPER_API_TOKEN: TOKEN,
      ...s3.env,
      SCRAPE_ETL_S3_ENDPOINT: endpoint,
      SCRAPE_ETL_S3_PART_MB: '5',
      SCRAPE_ETL_S3_PARTS_IN_FLIGHT: '1',
      // Long enough for a throttled part between two heartbeats; the kill is noticed after it.
      SCRAPE_ETL_HEARTBEAT_TIMEOUT: '10s',
      SCRAPE_ETL_STICKY_QUEUE_TIMEOUT: '1s',
    },
  });
  workers.push(w);
  return w;
}

const list = async (prefix: string) =>
  ((await client.send(new ListObjectsV2Command({ Bucket: 'lake', Prefix: prefix }))).Contents ?? []).map((o) => ({
    key: o.Key!,
    size: Number(o.Size),
  }));
const openUploads = async (prefix: string) =>
  (await client.send(new ListMultipartUploadsCommand({ Bucket: 'lake', Prefix: prefix }))).Uploads ?? [];

describe('a pipeline run whose worker is SIGKILLed mid multipart upload to the lake', () => {
  it('finishes on a new worker with every row once, nothing partial visible and no upload left open', async () => {
    const spec = {
      ...marketplaceSpec(PIPELINE, bed.dbUrl, [productUrl(1001), productUrl(1002), productUrl(1003)]),
      exports: [
        {
          to: 's3://lake/w',
          format: 'parquet' as const,
          tables: ['marketplace_products'],
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
    const first = await spawnWorker(`http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`);
    const handle = await startPipelineRun({ client: bed.temporal.client, taskQueue }, spec, 'r1');

    // Killed once the store holds a complete part of the upload while the next one is in flight.
    const deadline = Date.now() + 300_000;
    let killedWith: { key: string; parts: number } | undefined;
    while (killedWith === undefined) {
      if (first.child.exitCode !== null)
        throw new Error(`the worker ended (${first.child.exitCode}) before the upload: ${first.output()}`);
      if (Date.now() > deadline) throw new Error('no multipart upload with a part appeared within 300 s');
      for (const u of await openUploads('w/')) {
        const parts =
          (await client.send(new ListPartsCommand({ Bucket: 'lake', Key: u.Key!, UploadId: u.UploadId! }))).Parts ?? [];
        if (parts.length >= 1) {
          await first.kill('SIGKILL');
          killedWith = { key: u.Key!, parts: parts.length };
          break;
        }
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(killedWith.key).toBe(
      `w/${PIPELINE}/marketplace_products/load_date=${(await handle.describe()).startTime.toISOString().slice(0, 10)}/part-${handle.workflowId}-00000.parquet`,
    );
    // While the run is incomplete nothing of it is visible: no object completed, no manifest; the upload is open.
    expect(await list('w/')).toEqual([]);
    expect((await openUploads('w/')).length).toBeGreaterThan(0);

    await spawnWorker(s3.endpoint);
    const result = await handle.result();
    expect({ status: result.status, exportError: result.exportError ?? null }).toEqual({
      status: 'succeeded',
      exportError: null,
    });

    // The killed attempt's upload was aborted: no multipart upload is left open under the lake.
    expect(await openUploads('w/')).toEqual([]);
    const manifestKey = `w/${PIPELINE}/marketplace_products/_manifests/${handle.workflowId}.json`;
    const manifest = JSON.parse(
      await (await client.send(new GetObjectCommand({ Bucket: 'lake', Key: manifestKey }))).Body!.transformToString(),
    ) as LakeManifest;
    // Every object under the table is the manifest or a file it lists, complete as listed: no duplicate or partial
    // object a reader of the folders would see.
    const objects = await list(`w/${PIPELINE}/marketplace_products/`);
    expect(objects.map((o) => o.key).sort()).toEqual([...manifest.files.map((f) => f.key), manifestKey].sort());
    for (const f of manifest.files) {
      const body = Buffer.from(
        await (await client.send(new GetObjectCommand({ Bucket: 'lake', Key: f.key }))).Body!.transformToByteArray(),
      );
      expect({
        key: f.key,
        bytes: body.length,
        sha256: crypto.createHash('sha256').update(body).digest('hex'),
      }).toEqual({ key: f.key, bytes: f.bytes, sha256: f.sha256 });
    }
    expect(manifest.files.some((f) => f.bytes > 5 * 1024 * 1024)).toBe(true);

    // pyarrow, through its own S3 filesystem: as many rows as the destination holds, each once.
    if (bed.db.dialect !== 'sqlite') throw new Error('the bed is SQLite');
    const destRows = Number(
      (
        bed.db.sqlite.prepare('select count(*) as n from marketplace_products where pipeline = ?').get(PIPELINE) as {
          n: number;
        }
      ).n,
    );
    expect(destRows).toBeGreaterThan(BIG_ROWS);
    const read = readLakeWithPyarrow('lake/w', PIPELINE, {
      s3,
      keyColumns: { marketplace_products: ['shop_id', 'item_id'] },
    })['marketplace_products']!;
    expect({ rows: read.rows, distinct: new Set(read.keys).size, manifest: manifest.rows }).toEqual({
      rows: destRows,
      distinct: destRows,
      manifest: destRows,
    });
  }, 600_000);
});
