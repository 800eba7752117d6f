// One export in a process of its own, for the export benchmarks (bench/csv-export.ts, export-parquet.ts,
// export-xlsx.ts): plain Node on the compiled dist/ (no tsx loader), so its peak RSS is what `scrape-etl export`
// itself would need. Prints one JSON line: rows, threads, seconds, cpuSeconds, bytes, peakRssMb.
// peakRssMb is this process's own high-water mark (VmHWM), not getrusage's maxrss: Linux carries a spawning
// process's maxrss into the child it forks, so a child spawned by a bench holding 200 MB started at ~200 MB
// (a Python baseline that peaks at 19 MB reported 39 MB when spawned by bench/csv-export.ts).
//   node bench/_export-child.mjs <dist> <database url> <table> <outDir> <format> [threads] [pipeline]
import fs from 'node:fs';
import path from 'node:path';

const [dist, url, table, outDir, format, threads, pipeline] = process.argv.slice(2);
const { exportTables } = await import(path.join(dist, 'export', 'export.js'));
// Opened as that build's `scrape-etl export` opens it: through cli/read-destination.js's openForExport where the
// build has it (a current SQLite file with its driver alone), else destinations/open.js (an older build, compared
// with BENCH_CSV_COMPARE, is measured as it ran).
const { openForExport } = await import(path.join(dist, 'cli', 'read-destination.js'));
const open = openForExport ?? (await import(path.join(dist, 'destinations', 'open.js'))).openDatabase;
await import(path.join(dist, 'export', 'formats', `${format}.js`));
const db = await open(url);
const t0 = process.hrtime.bigint();
const cpu0 = process.cpuUsage();
const [f] = await exportTables(db, {
  tables: [table],
  outDir,
  format,
  fileName: `${table}.${format}`,
  ...(threads ? { threads: Number(threads) } : {}),
  ...(pipeline ? { pipeline } : {}),
});
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
const cpu = process.cpuUsage(cpu0);
await db.close();
process.stdout.write(
  `${JSON.stringify({ rows: f.rows, threads: f.threads ?? 1, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, bytes: fs.statSync(f.file).size, peakRssMb: ownPeakRssMb() })}\n`,
);

function ownPeakRssMb() {
  const hwm = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1];
  if (hwm === undefined)
    throw new Error('no VmHWM in /proc/self/status: the export benchmarks measure peak memory on Linux only');
  return Number(hwm) / 1024;
}
