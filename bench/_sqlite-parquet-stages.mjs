// The stages of the SQLite -> Parquet export (destinations/sqlite/parquet.ts), each in a process of its own, for
// bench/export-parquet.ts: plain Node on the compiled dist/. Prints one JSON line: rows, seconds, cpuSeconds (every
// thread of the process, DuckDB's included), bytes, peakRssMb.
//   node bench/_sqlite-parquet-stages.mjs <dist> records <sqlite file> <table> <csv out>
//     SQLite's CSV records alone: the export's own record SQL (recordSql over the columns the export types), every
//     record read; the records are written to <csv out> after the clock stops, for the next stage.
//   node bench/_sqlite-parquet-stages.mjs <dist> csv-parquet <sqlite file> <table> <csv> <parquet out>
//     DuckDB's side alone: those records through the export's pipe into DuckDB's CSV reader and Parquet writer
//     (export/formats/parquet-csv-pipe.ts), read from a file instead of from SQLite.
//   node bench/_sqlite-parquet-stages.mjs <dist> scan <sqlite file> <table> <parquet out> <extension file> <threads>
//     DuckDB's own `COPY (SELECT * FROM sqlite_scan(...)) TO ... (FORMAT parquet)` with the sqlite extension loaded.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const [dist, stage, file, table, ...rest] = process.argv.slice(2);

function ownPeakRssMb() {
  return Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
}

/** The columns the export writes for `table`, typed, with their expressions: the job export.ts hands the engine. */
async function exportColumns() {
  const { exportTables } = await import(path.join(dist, 'export', 'export.js'));
  const { openForExport } = await import(path.join(dist, 'cli', 'read-destination.js'));
  await import(path.join(dist, 'export', 'formats', 'parquet.js'));
  const db = await openForExport(`sqlite:${file}`);
  const stop = new Error('captured');
  let columns;
  db.adapter = {
    ...db.adapter,
    parquetCopy: async () => async (_db, job) => {
      columns = job.columns;
      throw stop;
    },
  };
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-stages-'));
  try {
    await exportTables(db, { tables: [table], outDir, format: 'parquet', fileName: 'x.parquet' });
  } catch (err) {
    if (err !== stop && err?.cause !== stop && !columns) throw err;
  } finally {
    await db.close();
    fs.rmSync(outDir, { recursive: true, force: true });
  }
  if (!columns) throw new Error('the export did not take the engine path (parquetCopy)');
  return columns;
}

const measure = async (fn) => {
  const t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  const { rows, bytes } = await fn();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  return { rows, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, bytes, peakRssMb: ownPeakRssMb() };
};

let result;
if (stage === 'records') {
  const [csv] = rest;
  const columns = await exportColumns();
  const { recordSql } = await import(path.join(dist, 'destinations', 'sqlite', 'parquet.js'));
  const { default: Database } = await import('better-sqlite3');
  const sqlite = new Database(file, { readonly: true });
  const stmt = sqlite.prepare(`select ${recordSql(columns)} from "${table.replaceAll('"', '""')}"`).raw();
  result = await measure(async () => {
    let rows = 0;
    let bytes = 0;
    for (const [r] of stmt.iterate()) {
      rows++;
      bytes += r.length;
    }
    return { rows, bytes };
  });
  const fd = fs.openSync(csv, 'w');
  let page = '';
  for (const [r] of stmt.iterate()) {
    page += `${r}\n`;
    if (page.length > 1 << 20) {
      fs.writeSync(fd, page);
      page = '';
    }
  }
  fs.writeSync(fd, page);
  fs.closeSync(fd);
  sqlite.close();
} else if (stage === 'csv-parquet') {
  const [csv, out] = rest;
  const columns = await exportColumns();
  const { csvToParquet } = await import(path.join(dist, 'export', 'formats', 'parquet-csv-pipe.js'));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-stages-'));
  try {
    result = await measure(async () => {
      const source = fs.createReadStream(csv);
      const rows = await csvToParquet({
        path: out,
        scratch,
        columns: columns.map((c) => c.typed),
        blobBytes: (field) => `unhex(${field})`,
        source,
        stop: () => source.destroy(),
      });
      return { rows, bytes: fs.statSync(out).size };
    });
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
} else if (stage === 'scan') {
  const [out, extension, threads] = rest;
  const { DuckDBInstance } = await import('@duckdb/node-api');
  // The extension on PyPI is built for a DuckDB release near, not always equal to, @duckdb/node-api's: DuckDB loads
  // it only with its version check lifted (it refuses a mismatch unless unsigned extensions are allowed too).
  const instance = await DuckDBInstance.create(':memory:', {
    allow_unsigned_extensions: 'true',
    allow_extensions_metadata_mismatch: 'true',
    threads,
  });
  const con = await instance.connect();
  await con.run(`load '${extension.replaceAll("'", "''")}'`);
  const lit = (s) => `'${s.replaceAll("'", "''")}'`;
  fs.rmSync(out, { force: true });
  result = await measure(async () => {
    await con.run(`copy (select * from sqlite_scan(${lit(file)}, ${lit(table)})) to ${lit(out)} (format parquet)`);
    return { rows: 0, bytes: fs.statSync(out).size };
  });
  result.rows = Number((await con.runAndReadAll(`select count(*) from read_parquet(${lit(out)})`)).getRows()[0][0]);
  con.closeSync();
  instance.closeSync();
} else {
  throw new Error(`unknown stage ${stage}`);
}
process.stdout.write(`${JSON.stringify(result)}\n`);
