// A lake export SIGKILLed in the middle of a multipart upload to a real S3 store (SeaweedFS), then run again with the
// same run id, as a retried activity or a resumed run does: no manifest while the run was incomplete, the killed
// upload's parts aborted, and afterwards every object under the table listed by the one manifest (bytes and SHA-256
// as the store has them), every row once, none missing. The upload goes through a throttling proxy so the kill
// lands while parts are in flight.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../destinations/open.js';
import type { LakeManifest } from '../../../export/targets/lake.js';
import { CLI, runCli } from '../../support/cli.js';
import { readLakeWithPyarrow } from '../../support/lake-readers.js';
import { startS3Server, type S3Server } from '../../support/s3-server.js';
import { throttlingProxy } from '../../support/throttling-proxy.js';

const ROWS = 12_000;
let dir: string;
let s3: S3Server;
let client: S3Client;
let proxy: net.Server;
let proxyPort: number;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-lake-kill-'));
  s3 = await startS3Server({ buckets: ['lake'] });
  client = new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
  proxy = await throttlingProxy(Number(new URL(s3.endpoint).port), 1_500_000);
  proxyPort = (proxy.address() as net.AddressInfo).port;
  // A migrated destination whose rows make a Parquet file of several parts: random (incompressible) descriptions.
  const db = await openDatabase(`sqlite:${path.join(dir, 'dest.sqlite')}`);
  await db.close();
  const raw = new Database(path.join(dir, 'dest.sqlite'));
  raw.exec(`insert into marketplace_products (pipeline, shop_id, item_id, price_divisor, load_id, loaded_at, row_hash, description)
    with recursive n(i) as (select 1 union all select i + 1 from n where i < ${ROWS})
    select 'big', 7, i, 100000, i, '2026-11-01T00:00:00.000Z', 'h' || i, hex(randomblob(800)) from n`);
  raw.close();
}, 180_000);

afterAll(async () => {
  proxy?.close();
  client?.destroy();
  await s3?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const args = ['export', '--database', ''];

describe('a lake export killed mid multipart upload', () => {
  it('leaves no manifest and no visible duplicate; the same run again completes it exactly once', async () => {
    args[2] = `sqlite:${path.join(dir, 'dest.sqlite')}`;
    const exportArgs = [
      ...args,
      '--pipeline',
      'big',
      '--tables',
      'marketplace_products',
      '--to',
      's3://lake/k',
      '--format',
      'parquet',
      '--run-id',
      'kill-1',
    ];
    const env = {
      ...process.env,
      ...s3.env,
      SCRAPE_ETL_S3_PART_MB: '5',
      SCRAPE_ETL_S3_PARTS_IN_FLIGHT: '1',
      NO_COLOR: '1',
    };
    const child = spawn(process.execPath, [CLI, ...exportArgs], {
      env: { ...env, SCRAPE_ETL_S3_ENDPOINT: `http://127.0.0.1:${proxyPort}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

    // Killed once the store holds at least one complete part of the upload, while the next is in flight.
    const deadline = Date.now() + 120_000;
    let killedWith: { key: string; parts: number } | undefined;
    while (killedWith === undefined) {
      if (child.exitCode !== null)
        throw new Error(`the export ended (${child.exitCode}) before it could be killed mid upload: ${stderr}`);
      if (Date.now() > deadline) throw new Error('no multipart upload with a part appeared within 120 s');
      const uploads =
        (await client.send(new ListMultipartUploadsCommand({ Bucket: 'lake', Prefix: 'k/' }))).Uploads ?? [];
      for (const u of uploads) {
        const parts =
          (await client.send(new ListPartsCommand({ Bucket: 'lake', Key: u.Key!, UploadId: u.UploadId! }))).Parts ?? [];
        if (parts.length >= 1) {
          child.kill('SIGKILL');
          killedWith = { key: u.Key!, parts: parts.length };
          break;
        }
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    await exited;
    expect(killedWith.key).toMatch(
      /^k\/big\/marketplace_products\/load_date=\d{4}-\d\d-\d\d\/part-kill-1-00000\.parquet$/,
    );
    const list = async (prefix: string) =>
      ((await client.send(new ListObjectsV2Command({ Bucket: 'lake', Prefix: prefix }))).Contents ?? []).map((o) => ({
        key: o.Key!,
        size: Number(o.Size),
      }));
    // Nothing of the killed run is visible: no object completed, no manifest.
    expect(await list('k/')).toEqual([]);
    expect(
      ((await client.send(new ListMultipartUploadsCommand({ Bucket: 'lake', Prefix: 'k/' }))).Uploads ?? []).length,
    ).toBeGreaterThan(0);

    const again = await runCli(exportArgs, { env, timeoutMs: 180_000 });
    expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 0, stderr: '' });
    expect(again.stdout).toMatch(
      /^marketplace_products: 12000 rows -> s3:\/\/lake\/k\/big\/marketplace_products\/_manifests\/kill-1\.json$/m,
    );

    // The killed upload's parts are gone, and every object under the table is the manifest or listed by it.
    expect(
      (await client.send(new ListMultipartUploadsCommand({ Bucket: 'lake', Prefix: 'k/' }))).Uploads ?? [],
    ).toEqual([]);
    const manifestText = await (
      await client.send(
        new GetObjectCommand({ Bucket: 'lake', Key: 'k/big/marketplace_products/_manifests/kill-1.json' }),
      )
    ).Body!.transformToString();
    const manifest = JSON.parse(manifestText) as LakeManifest;
    expect(manifest.rows).toBe(ROWS);
    const objects = await list('k/big/marketplace_products/');
    expect(objects.map((o) => o.key).sort()).toEqual(
      [...manifest.files.map((f) => f.key), 'k/big/marketplace_products/_manifests/kill-1.json'].sort(),
    );
    for (const f of manifest.files) {
      const body = Buffer.from(
        await (await client.send(new GetObjectCommand({ Bucket: 'lake', Key: f.key }))).Body!.transformToByteArray(),
      );
      expect({ key: f.key, bytes: body.length, sha256: createHash('sha256').update(body).digest('hex') }).toEqual({
        key: f.key,
        bytes: f.bytes,
        sha256: f.sha256,
      });
      expect(f.bytes).toBeGreaterThan(5 * 1024 * 1024);
    }
    // pyarrow, through its own S3 filesystem: every row once, none missing.
    const read = readLakeWithPyarrow('lake/k', 'big', { s3, keyColumns: { marketplace_products: ['item_id'] } })[
      'marketplace_products'
    ]!;
    expect(read.rows).toBe(ROWS);
    expect(new Set(read.keys).size).toBe(ROWS);

    // Once more: nothing is new for this target, so nothing is written and the objects stay as they are.
    const third = await runCli([...exportArgs.slice(0, -1), 'kill-2'], { env, timeoutMs: 60_000 });
    expect(third.stdout).toContain(
      'marketplace_products: no rows new since the last export to s3://lake/k, nothing written',
    );
    expect(await list('k/big/marketplace_products/')).toEqual(objects);
  }, 400_000);

  it('names the fix for a target it cannot use', async () => {
    const db = ['export', '--database', `sqlite:${path.join(dir, 'dest.sqlite')}`];
    const env = { ...process.env, ...s3.env };
    const noPipeline = await runCli([...db, '--to', 's3://lake/k'], { env });
    expect({ code: noPipeline.code, stderr: noPipeline.stderr.trim() }).toEqual({
      code: 2,
      stderr: expect.stringContaining('--to needs --pipeline'),
    });
    const gs = await runCli([...db, '--pipeline', 'big', '--to', 'gs://lake/k'], { env });
    expect({ code: gs.code, stderr: gs.stderr.trim() }).toEqual({
      code: 2,
      stderr: expect.stringContaining('gs:// is not supported); write s3://<bucket>/<prefix> or a folder'),
    });
    const snapshotAlone = await runCli([...db, '--pipeline', 'big', '--out', dir, '--snapshot'], { env });
    expect({ code: snapshotAlone.code, stderr: snapshotAlone.stderr.trim() }).toEqual({
      code: 2,
      stderr: expect.stringContaining('--snapshot applies to --to (the lake) only'),
    });
    const both = await runCli([...db, '--pipeline', 'big', '--to', 's3://lake/k', '--out', dir], { env });
    expect(both.code).toBe(2);
    const noBucket = await runCli(
      [...db, '--pipeline', 'big', '--to', 's3://no-such-bucket/k', '--format', 'parquet'],
      { env, timeoutMs: 120_000 },
    );
    expect(noBucket.code).not.toBe(0);
    expect(noBucket.stderr).toMatch(/the bucket no-such-bucket does not exist; create it or name another/);
    const badKey = await runCli([...db, '--pipeline', 'big', '--to', 's3://lake/other', '--format', 'parquet'], {
      env: { ...env, AWS_SECRET_ACCESS_KEY: 'wrong' },
      timeoutMs: 120_000,
    });
    expect(badKey.code).not.toBe(0);
    expect(badKey.stderr).toMatch(
      /s3:\/\/lake\/other failed \((SignatureDoesNotMatch|AccessDenied|InvalidAccessKeyId)/,
    );
  }, 300_000);
});
