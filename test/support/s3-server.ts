// A real S3-compatible store for the lake tests: SeaweedFS (Apache-2.0) `weed server -s3` on loopback, with free
// ports, a temporary data folder and one access key, stopped and removed when this process exits (or, after a
// SIGKILL, by a watchdog). The binary comes from scripts/ensure-seaweedfs.sh (built once into the cache, as the
// Temporal server is). MinIO's server is AGPL, so it is not used.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePortSet } from '../../lib/free-port.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface S3Server {
  /** http://127.0.0.1:<port>: the S3 endpoint. */
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** The variables a scrape-etl process (or pyarrow) needs to reach this store with the standard AWS chain. */
  env: Record<string, string>;
  /** http://127.0.0.1:<port>: SeaweedFS's Iceberg REST catalog, when started with `iceberg`. */
  icebergCatalog?: string;
  /** The server process (a test may stop it). */
  process: ChildProcess;
  stop(): Promise<void>;
}

let binary: string | undefined;

/** The `weed` binary: $SEAWEEDFS_BIN, else scripts/ensure-seaweedfs.sh (builds once into the cache). */
export function seaweedfsBinary(): string {
  if (binary) return binary;
  const res = spawnSync('bash', [path.join(repoRoot, 'scripts', 'ensure-seaweedfs.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 40 * 60_000,
  });
  if (res.status !== 0)
    throw new Error(
      `scripts/ensure-seaweedfs.sh failed (exit ${res.status}): install Go, or set SEAWEEDFS_BIN to a weed binary`,
    );
  binary = res.stdout.trim().split('\n').pop()!;
  return binary;
}

/** A port that is free, whose +10000 (SeaweedFS's default gRPC port for it) is free too (lib/free-port.ts). */
function freePortPair(taken: Set<number>): Promise<number> {
  return freePortSet([0, 10000], { taken });
}

/**
 * Creates an S3 Tables table bucket (the warehouse of SeaweedFS's Iceberg catalog): the S3 Tables API's
 * `PUT /buckets`, signed with SigV4 for the service `s3tables`, which is how the store tells it from S3's own calls.
 */
async function createTableBucket(
  endpoint: string,
  name: string,
  creds: { accessKeyId: string; secretAccessKey: string; region: string },
): Promise<void> {
  const body = JSON.stringify({ name });
  const url = new URL('/buckets', endpoint);
  const amzDate = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
  const day = amzDate.slice(0, 8);
  const sha = (v: string) => crypto.createHash('sha256').update(v).digest('hex');
  const hmac = (key: crypto.BinaryLike, v: string) => crypto.createHmac('sha256', key).update(v).digest();
  const headers: Record<string, string> = {
    'content-type': 'application/x-amz-json-1.1',
    host: url.host,
    'x-amz-content-sha256': sha(body),
    'x-amz-date': amzDate,
  };
  const signed = Object.keys(headers).sort().join(';');
  const canonical = [
    'PUT',
    url.pathname,
    '',
    ...Object.keys(headers)
      .sort()
      .map((k) => `${k}:${headers[k]}`),
    '',
    signed,
    sha(body),
  ].join('\n');
  const scope = `${day}/${creds.region}/s3tables/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha(canonical)].join('\n');
  let key = hmac(`AWS4${creds.secretAccessKey}`, day);
  for (const part of [creds.region, 's3tables', 'aws4_request']) key = hmac(key, part);
  const signature = crypto.createHmac('sha256', key).update(toSign).digest('hex');
  const res = await fetch(url, {
    method: 'PUT',
    headers: {
      ...headers,
      authorization: `AWS4-HMAC-SHA256 Credential=${creds.accessKeyId}/${scope}, SignedHeaders=${signed}, Signature=${signature}`,
    },
    body,
  });
  if (!res.ok && res.status !== 409)
    throw new Error(`creating the table bucket ${name}: ${res.status} ${await res.text()}`);
}

/**
 * Starts a store and waits until its S3 port answers; `buckets` are created first. With `iceberg`, its Iceberg REST
 * catalog listens too (`icebergCatalog`), with these table buckets (warehouses) created.
 */
export async function startS3Server(
  opts: { buckets?: string[]; iceberg?: { tableBuckets: string[] } } = {},
): Promise<S3Server> {
  // The SDK's note that its 2027 releases need Node 22 is noise in test output (export/targets/s3.ts says why).
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
  const weed = seaweedfsBinary();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-s3-'));
  const accessKeyId = `k${crypto.randomBytes(6).toString('hex')}`;
  const secretAccessKey = crypto.randomBytes(18).toString('hex');
  const config = path.join(dir, 's3.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      identities: [
        {
          name: 'tests',
          credentials: [{ accessKey: accessKeyId, secretKey: secretAccessKey }],
          actions: ['Admin', 'Read', 'Write', 'List', 'Tagging'],
        },
      ],
    }),
  );
  const taken = new Set<number>();
  const [master, volume, filer, s3] = [
    await freePortPair(taken),
    await freePortPair(taken),
    await freePortPair(taken),
    await freePortPair(taken),
  ];
  const iceberg = opts.iceberg ? await freePortPair(taken) : 0;
  const args = [
    'server',
    '-ip=127.0.0.1',
    '-ip.bind=127.0.0.1',
    `-dir=${dir}`,
    `-master.port=${master}`,
    `-volume.port=${volume}`,
    `-filer.port=${filer}`,
    '-s3',
    `-s3.port=${s3}`,
    `-s3.config=${config}`,
    `-s3.port.iceberg=${iceberg}`,
    '-s3.port.lance=0',
    // Small volumes: a test store holds megabytes, not the default 30 GB volumes' preallocation.
    '-master.volumeSizeLimitMB=64',
    '-volume.max=50',
  ];
  const logFile = path.join(dir, 'weed.log');
  const log = fs.openSync(logFile, 'a');
  const child = spawn(weed, args, { stdio: ['ignore', log, log] });
  fs.closeSync(log);
  const watchdog = spawn(
    'sh',
    [
      '-c',
      `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; kill -9 ${child.pid} 2>/dev/null; rm -rf '${dir}'`,
    ],
    { detached: true, stdio: 'ignore' },
  );
  watchdog.unref();
  const endpoint = `http://127.0.0.1:${s3}`;
  const region = 'us-east-1';
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const { S3Client, CreateBucketCommand, ListBucketsCommand } = await import('@aws-sdk/client-s3');
  const client = new S3Client({
    endpoint,
    region,
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
  });
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`weed server exited (${child.exitCode}): ${fs.readFileSync(logFile, 'utf8').slice(-2000)}`);
    try {
      await client.send(new ListBucketsCommand({}));
      // The filer answers before a volume is ready: a bucket and an object write prove the whole path.
      for (const bucket of opts.buckets ?? []) await client.send(new CreateBucketCommand({ Bucket: bucket }));
      for (const bucket of opts.iceberg?.tableBuckets ?? [])
        await createTableBucket(endpoint, bucket, { accessKeyId, secretAccessKey, region });
      if (opts.iceberg) {
        const config = await fetch(`http://127.0.0.1:${iceberg}/v1/config`);
        if (!config.ok) throw new Error(`the Iceberg catalog answered ${config.status}`);
      }
      break;
    } catch (err) {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`SeaweedFS did not serve S3 on ${endpoint} within 120 s: ${(err as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  client.destroy();
  return {
    endpoint,
    accessKeyId,
    secretAccessKey,
    region,
    env: {
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
      AWS_REGION: region,
      SCRAPE_ETL_S3_ENDPOINT: endpoint,
    },
    ...(opts.iceberg ? { icebergCatalog: `http://127.0.0.1:${iceberg}` } : {}),
    process: child,
    stop,
  };
}
