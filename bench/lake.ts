// Lake benchmark: `export --to s3://…` (export/targets/lake.ts, the compiled dist/) of marketplace_model_stocks from
// an SQLite destination to a local SeaweedFS (the store the tests use, test/support/s3-server.ts), against the
// SDK's own Upload (@aws-sdk/lib-storage, same part size and parts in flight) of the very files our export wrote,
// measured in the same run on the same store, and the same export to a local folder (the Parquet without the upload).
// Ours does more than the baseline: it writes the Parquet from the
// database (DuckDB), hashes each file, uploads it, lists the table's objects and writes the manifest. Each
// measurement runs in a process of its own (plain Node, peak RSS as VmHWM); the rows repeat generated products'
// rows under other item ids (bench/_export-tables.ts). Sizes: BENCH_LAKE_ROWS (default 1000000,10000000; the
// 10M table alone takes minutes to build on a busy 2-core machine; BENCH_LAKE_TABLES=<folder> takes
// `<folder>/dest-<rows>.sqlite` where it exists, a table an earlier run built, its export watermarks cleared).
// Memory should be flat: the peak RSS of the largest size is printed as a ratio to the smallest's.
//   npx tsx bench/lake.ts
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { loadProducts, repeatRows } from './_export-tables.js';
import { startS3Server } from '../test/support/s3-server.js';

const SIZES = (process.env['BENCH_LAKE_ROWS'] ?? '1000000,10000000').split(',').map(Number);
const PREBUILT = process.env['BENCH_LAKE_TABLES'];
const PRODUCTS = Number(process.env['BENCH_LAKE_PRODUCTS'] ?? 2000);
const TABLE = 'marketplace_model_stocks';
const self = fileURLToPath(import.meta.url);
const DIST = path.resolve(process.env['BENCH_DIST'] ?? path.join(path.dirname(self), '..', 'dist'));
const CHILD = path.join(path.dirname(self), '_lake-child.mjs');

interface Measured {
  rows: number;
  bytes: number;
  seconds: number;
  cpuSeconds: number;
  peakRssMb: number;
}

function child(args: string[], env: NodeJS.ProcessEnv): Measured {
  const res = spawnSync(process.execPath, [CHILD, ...args], { env, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (res.status !== 0) throw new Error(`${args[0]} failed (${res.status}): ${res.stderr}`);
  return JSON.parse(res.stdout.trim().split('\n').pop()!) as Measured;
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-lake-'));
  const s3 = await startS3Server({ buckets: ['bench'] });
  const env = { ...process.env, ...s3.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  const rows: Array<{ size: number; ours: Measured; local: Measured; sdk: Measured }> = [];
  try {
    const base = path.join(dir, 'base.sqlite');
    await loadProducts(base, PRODUCTS);
    for (const size of SIZES) {
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
        fs.copyFileSync(base, file);
        have = repeatRows(file, TABLE, size);
      }
      const to = `s3://bench/size-${size}`;
      const ours = child(['ours', DIST, `sqlite:${file}`, 'bench', TABLE, to, `run-${size}`], env);
      // The same files, as our export left them on the store: fetched once (off the clock), uploaded by the SDK.
      const local = path.join(dir, `files-${size}`);
      const lakeLocal = child(['ours', DIST, `sqlite:${file}`, 'bench', TABLE, local, `run-${size}`], env);
      if (lakeLocal.rows !== ours.rows)
        throw new Error(`the local export wrote ${lakeLocal.rows} rows, the S3 one ${ours.rows}`);
      const files = [] as string[];
      const walk = (d: string) => {
        for (const e of fs.readdirSync(d, { withFileTypes: true })) {
          if (e.isDirectory()) walk(path.join(d, e.name));
          else if (e.name.endsWith('.parquet')) files.push(path.join(d, e.name));
        }
      };
      walk(local);
      const sdk = child(['sdk', 'bench', `sdk-${size}/`, ...files], env);
      fs.rmSync(local, { recursive: true, force: true });
      fs.rmSync(file, { force: true });
      rows.push({ size: have, ours, local: lakeLocal, sdk });
      print(rows[rows.length - 1]!);
    }
  } finally {
    await s3.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  if (rows.length > 1) {
    const first = rows[0]!;
    const last = rows[rows.length - 1]!;
    process.stdout.write(
      `peak RSS ${last.size.toLocaleString('en')} rows / ${first.size.toLocaleString('en')} rows: ours ${(last.ours.peakRssMb / first.ours.peakRssMb).toFixed(2)}x, SDK Upload ${(last.sdk.peakRssMb / first.sdk.peakRssMb).toFixed(2)}x\n`,
    );
  }
  process.stdout.write(
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} on ${os.availableParallelism()} cores\n`,
  );
}

function print(r: { size: number; ours: Measured; local: Measured; sdk: Measured }): void {
  const mb = (r.sdk.bytes / 1024 / 1024).toFixed(1);
  process.stdout.write(
    `${r.size.toLocaleString('en')} rows (${mb} MB of Parquet): ours ${(r.ours.rows / r.ours.seconds).toFixed(0)} rows/s in ${r.ours.seconds.toFixed(1)} s, peak RSS ${r.ours.peakRssMb.toFixed(0)} MB; ` +
      `SDK Upload of the same files ${r.sdk.seconds.toFixed(1)} s (${(r.sdk.bytes / 1024 / 1024 / r.sdk.seconds).toFixed(1)} MB/s), peak RSS ${r.sdk.peakRssMb.toFixed(0)} MB; ` +
      `time ours/SDK ${(r.ours.seconds / r.sdk.seconds).toFixed(2)}x, RSS ours/SDK ${(r.ours.peakRssMb / r.sdk.peakRssMb).toFixed(2)}x; ` +
      // The same export to a local folder writes the same Parquet without uploading: what is left is the upload's share.
      `the same export to a folder ${r.local.seconds.toFixed(1)} s, so the upload added ${(r.ours.seconds - r.local.seconds).toFixed(1)} s against the SDK's ${r.sdk.seconds.toFixed(1)} s\n`,
  );
}

await main();
