// One lake measurement in a process of its own, for bench/lake.ts: plain Node on the compiled dist/, so its peak
// RSS (VmHWM, see _export-child.mjs for why not maxrss) is what `scrape-etl export --to` itself needs.
//   node bench/_lake-child.mjs ours <dist> <database url> <pipeline> <table> <to> <run id>
//     our lake export (export/targets/lake.ts): Parquet written from the destination, uploaded, manifest
//   node bench/_lake-child.mjs parquet <dist> <database url> <pipeline> <table> <folder>
//     the local Parquet export of the same table (`scrape-etl export --format parquet`): the encoding without a store
//   node bench/_lake-child.mjs sdk <bucket> <key prefix> <file>...
//     the SDK's own Upload (@aws-sdk/lib-storage) of the same files, with the same part size and parts in flight
// The S3 endpoint and credentials come from the environment (SCRAPE_ETL_S3_ENDPOINT, AWS_*). Prints one JSON line.
import fs from 'node:fs';
import path from 'node:path';

const [mode, ...args] = process.argv.slice(2);
const t0 = process.hrtime.bigint();
const cpu0 = process.cpuUsage();
let rows = 0;
let bytes = 0;
if (mode === 'ours') {
  const [dist, url, pipeline, table, to, runId] = args;
  const { exportToLake } = await import(path.join(dist, 'export', 'targets', 'lake.js'));
  const { openDatabase } = await import(path.join(dist, 'destinations', 'open.js'));
  const db = await openDatabase(url);
  const report = await exportToLake(db, {
    to,
    pipeline,
    tables: [table],
    format: 'parquet',
    runId,
    timestamp: new Date(),
  });
  await db.close();
  rows = report.files.reduce((n, f) => n + f.rows, 0);
} else if (mode === 'parquet') {
  const [dist, url, pipeline, table, out] = args;
  const { exportTablesReport } = await import(path.join(dist, 'export', 'export.js'));
  const { openDatabase } = await import(path.join(dist, 'destinations', 'open.js'));
  const db = await openDatabase(url);
  const report = await exportTablesReport(db, { pipeline, tables: [table], outDir: out, format: 'parquet' });
  await db.close();
  rows = report.files.reduce((n, f) => n + f.rows, 0);
  bytes = report.files.reduce((n, f) => n + fs.statSync(f.file).size, 0);
} else {
  const [bucket, prefix, ...files] = args;
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
  const { S3Client } = await import('@aws-sdk/client-s3');
  const { Upload } = await import('@aws-sdk/lib-storage');
  const client = new S3Client({
    endpoint: process.env['SCRAPE_ETL_S3_ENDPOINT'],
    region: process.env['AWS_REGION'],
    forcePathStyle: true,
  });
  for (const file of files) {
    const upload = new Upload({
      client,
      params: {
        Bucket: bucket,
        Key: `${prefix}${path.basename(file)}`,
        Body: fs.createReadStream(file, { highWaterMark: 1024 * 1024 }),
      },
      partSize: Number(process.env['SCRAPE_ETL_S3_PART_MB'] ?? 8) * 1024 * 1024,
      queueSize: Number(process.env['SCRAPE_ETL_S3_PARTS_IN_FLIGHT'] ?? 4),
    });
    await upload.done();
    bytes += fs.statSync(file).size;
  }
  client.destroy();
}
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
const cpu = process.cpuUsage(cpu0);
const hwm = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1];
process.stdout.write(
  `${JSON.stringify({ rows, bytes, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, peakRssMb: Number(hwm) / 1024 })}\n`,
);
