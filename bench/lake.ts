// Lake benchmark: `export --to s3://…` (export/targets/lake.ts, the compiled dist/) of marketplace_model_stocks from
// an SQLite destination to a local SeaweedFS (the store the tests use, test/support/s3-server.ts), in one run against
// two baselines measured on the same machine at the same time:
//   - the SDK's own Upload (@aws-sdk/lib-storage, same part size and parts in flight) of the very files our export
//     stored (fetched from the store off the clock): what the store takes for those bytes;
//   - the local Parquet export of the same table (`scrape-etl export --format parquet`, no store, no change kinds):
//     what encoding the rows from the database takes.
// Ours does more than either: it writes the Parquet from the database (DuckDB), marks each row's change kind and
// writes the key index (lake-changes.ts), hashes each file, uploads it, lists the table's objects and writes the
// manifest. BENCH_LAKE_BASELINE_DIST=<another build's dist/> (main's, say) runs that build's lake export too, in
// the same run, alternating which goes first (BENCH_LAKE_BASELINE_FIRST=1 starts with the baseline), and prints
// ours against it. Each measurement runs in a process of its own (plain Node, peak RSS as VmHWM, CPU seconds of the
// process and its DuckDB threads; SeaweedFS's own CPU is not counted); on a loaded machine the CPU seconds say more
// than the times. The rows repeat generated products' rows
// under other item ids (bench/_export-tables.ts). Sizes: BENCH_LAKE_ROWS (default 1000000,10000000; the 10M table
// alone takes minutes to build on a busy 2-core machine; BENCH_LAKE_TABLES=<folder> takes `<folder>/dest-<rows>.sqlite`
// where it exists, a table an earlier run built, its export watermarks cleared). Memory should be flat: the peak RSS
// of the largest size is printed as a ratio to the smallest's.
//   npx tsx bench/lake.ts
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import BetterSqlite3 from 'better-sqlite3';
import { loadProducts, repeatRows } from './_export-tables.js';
import { startS3Server, type S3Server } from '../test/support/s3-server.js';

const SIZES = (process.env['BENCH_LAKE_ROWS'] ?? '1000000,10000000').split(',').map(Number);
const PREBUILT = process.env['BENCH_LAKE_TABLES'];
const PRODUCTS = Number(process.env['BENCH_LAKE_PRODUCTS'] ?? 2000);
const TABLE = 'marketplace_model_stocks';
const self = fileURLToPath(import.meta.url);
const DIST = path.resolve(process.env['BENCH_DIST'] ?? path.join(path.dirname(self), '..', 'dist'));
const BASELINE_DIST = process.env['BENCH_LAKE_BASELINE_DIST'];
const BASELINE_FIRST = process.env['BENCH_LAKE_BASELINE_FIRST'] === '1' ? 1 : 0;
const CHILD = path.join(path.dirname(self), '_lake-child.mjs');

interface Measured {
  rows: number;
  bytes: number;
  seconds: number;
  cpuSeconds: number;
  peakRssMb: number;
  /** The one-minute load average when the measurement ended. */
  load: number;
}

interface Size {
  size: number;
  ours: Measured;
  baseline?: Measured;
  parquet: Measured;
  sdk: Measured;
}

function child(args: string[], env: NodeJS.ProcessEnv): Measured {
  const res = spawnSync(process.execPath, [CHILD, ...args], { env, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (res.status !== 0) throw new Error(`${args[0]} failed (${res.status}): ${res.stderr}`);
  return { ...(JSON.parse(res.stdout.trim().split('\n').pop()!) as Measured), load: os.loadavg()[0]! };
}

/** The objects a run's manifest lists, copied to `dir` (off the clock): the files the SDK then uploads. */
async function fetchRun(s3: S3Server, manifestKey: string, dir: string): Promise<string[]> {
  const client = new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
  try {
    const text = async (Key: string) =>
      (await client.send(new GetObjectCommand({ Bucket: 'bench', Key }))).Body!.transformToString();
    const manifest = JSON.parse(await text(manifestKey)) as { files: Array<{ key: string }> };
    fs.mkdirSync(dir, { recursive: true });
    const files: string[] = [];
    for (const [i, f] of manifest.files.entries()) {
      const file = path.join(dir, `part-${i}.parquet`);
      const body = (await client.send(new GetObjectCommand({ Bucket: 'bench', Key: f.key }))).Body as Readable;
      await pipeline(body, fs.createWriteStream(file));
      files.push(file);
    }
    return files;
  } finally {
    client.destroy();
  }
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-lake-'));
  const s3 = await startS3Server({ buckets: ['bench'] });
  const env = { ...process.env, ...s3.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  const sizes: Size[] = [];
  process.stdout.write(
    `lake export of ${TABLE} from SQLite to SeaweedFS on loopback: ours ${DIST}` +
      `${BASELINE_DIST !== undefined ? `, baseline ${path.resolve(BASELINE_DIST)}` : ''}; ${os.availableParallelism()} cores, load average at start ${loadavg()}\n`,
  );
  try {
    const base = path.join(dir, 'base.sqlite');
    let loaded = false;
    for (const [n, size] of SIZES.entries()) {
      // Each size from the loaded products anew: repeatRows repeats every row the table holds.
      const file = path.join(dir, `dest-${size}.sqlite`);
      const prebuilt = PREBUILT !== undefined ? path.join(PREBUILT, `dest-${size}.sqlite`) : undefined;
      let have: number;
      if (prebuilt !== undefined && fs.existsSync(prebuilt)) {
        fs.copyFileSync(prebuilt, file);
        const db = new BetterSqlite3(file);
        // Each target gets the rows new since its last export: an earlier run's watermarks would leave none.
        db.exec('delete from export_watermarks');
        have = db.prepare(`select count(*) from "${TABLE}"`).pluck().get() as number;
        db.close();
      } else {
        if (!loaded) await loadProducts(base, PRODUCTS);
        loaded = true;
        fs.copyFileSync(base, file);
        have = repeatRows(file, TABLE, size);
      }
      // Each lake export has a target of its own, so its own watermark: both see every row of the table.
      const lake = (dist: string, name: string) =>
        child(['ours', dist, `sqlite:${file}`, 'bench', TABLE, `s3://bench/${name}-${size}`, `run-${size}`], env);
      let baseline: Measured | undefined;
      // The baseline first at every other size (BENCH_LAKE_BASELINE_FIRST=1: at the first), so neither build always
      // runs on the machine the other left; a second run with the other order evens it out.
      const baselineFirst = BASELINE_DIST !== undefined && (n + BASELINE_FIRST) % 2 === 1;
      if (baselineFirst) baseline = lake(path.resolve(BASELINE_DIST), 'baseline');
      const ours = lake(DIST, 'ours');
      if (BASELINE_DIST !== undefined && !baselineFirst) baseline = lake(path.resolve(BASELINE_DIST), 'baseline');
      if (baseline !== undefined && baseline.rows !== ours.rows)
        throw new Error(`the baseline exported ${baseline.rows} rows, ours ${ours.rows}`);
      const out = path.join(dir, `parquet-${size}`);
      const parquet = child(['parquet', DIST, `sqlite:${file}`, 'bench', TABLE, out], env);
      fs.rmSync(out, { recursive: true, force: true });
      if (parquet.rows !== ours.rows)
        throw new Error(`the local Parquet export wrote ${parquet.rows} rows, the lake export ${ours.rows}`);
      const fetched = path.join(dir, `files-${size}`);
      const files = await fetchRun(s3, `ours-${size}/bench/${TABLE}/_manifests/run-${size}.json`, fetched);
      const sdk = child(['sdk', 'bench', `sdk-${size}/`, ...files], env);
      fs.rmSync(fetched, { recursive: true, force: true });
      fs.rmSync(file, { force: true });
      sizes.push({ size: have, ours, parquet, sdk, ...(baseline !== undefined ? { baseline } : {}) });
      print(sizes[sizes.length - 1]!);
    }
  } finally {
    await s3.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  if (sizes.length > 1) {
    const first = sizes[0]!;
    const last = sizes[sizes.length - 1]!;
    const ratio = (f: (s: Size) => Measured | undefined) => {
      const a = f(first);
      const b = f(last);
      return a !== undefined && b !== undefined ? `${(b.peakRssMb / a.peakRssMb).toFixed(2)}x` : 'n/a';
    };
    process.stdout.write(
      `peak RSS ${last.size.toLocaleString('en')} rows / ${first.size.toLocaleString('en')} rows: ours ${ratio((s) => s.ours)}` +
        `${BASELINE_DIST !== undefined ? `, baseline ${ratio((s) => s.baseline)}` : ''}, local Parquet export ${ratio((s) => s.parquet)}, SDK Upload ${ratio((s) => s.sdk)}\n`,
    );
  }
  process.stdout.write(`load average at end ${loadavg()} on ${os.availableParallelism()} cores\n`);
}

function loadavg(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

function print(r: Size): void {
  const mb = (r.sdk.bytes / 1024 / 1024).toFixed(1);
  const line = (name: string, m: Measured) =>
    `  ${name}: ${m.seconds.toFixed(1)} s (${(m.rows / m.seconds).toFixed(0)} rows/s), ${m.cpuSeconds.toFixed(1)} s CPU, peak RSS ${m.peakRssMb.toFixed(0)} MB, load ${m.load.toFixed(1)} at its end`;
  const x = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
  const lines = [
    `${r.size.toLocaleString('en')} rows (${mb} MB of Parquet in the lake):`,
    line('ours, end to end', r.ours),
    ...(r.baseline !== undefined ? [line('baseline build, end to end', r.baseline)] : []),
    `${line('local Parquet export of the same table', r.parquet).replace(/rows\/s\)/, `rows/s, ${(r.parquet.bytes / 1024 / 1024).toFixed(1)} MB)`)}`,
    `${line('SDK Upload of the same files', r.sdk).replace(/ \(\d+ rows\/s\)/, ` (${(r.sdk.bytes / 1024 / 1024 / r.sdk.seconds).toFixed(1)} MB/s)`)}`,
    `  ours / SDK Upload: time ${x(r.ours.seconds, r.sdk.seconds)}, peak RSS ${x(r.ours.peakRssMb, r.sdk.peakRssMb)}; ` +
      `ours / local Parquet export: time ${x(r.ours.seconds, r.parquet.seconds)}, CPU ${x(r.ours.cpuSeconds, r.parquet.cpuSeconds)}` +
      (r.baseline !== undefined
        ? `; baseline / ours: time ${x(r.baseline.seconds, r.ours.seconds)}, CPU ${x(r.baseline.cpuSeconds, r.ours.cpuSeconds)}`
        : ''),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();
