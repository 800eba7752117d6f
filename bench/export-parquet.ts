// Parquet export benchmark: export/formats/parquet.ts (hyparquet-writer, through export/export.ts) against DuckDB's
// own `COPY (SELECT * FROM t) TO 'x.parquet' (FORMAT parquet)` of the same rows, measured in the same run.
// The table is marketplace_model_stocks (16 columns: 64-bit ids, integers, text, timestamps), filled from generated
// marketplace products loaded through db/load.ts and repeated under other item ids up to BENCH_PARQUET_ROWS rows.
//
// Same rows: DuckDB's table is created from the Parquet file our export just wrote (read_parquet, not timed), so
// its row count also checks that DuckDB reads our file whole. What is timed differs in one way that favours DuckDB:
// ours is the whole export call (reading SQLite through better-sqlite3, typing, encoding, snappy, writing, fsync,
// rename), DuckDB's is the COPY alone from its own in-memory columnar table. DuckDB runs twice, on all cores and on
// one thread (our export is single-threaded JavaScript). Both use snappy. Each measurement runs in a process of its
// own; rounds interleave, figures are medians of BENCH_PARQUET_ROWS_ROUNDS rounds (the machine is shared).
// Memory: peak RSS of the export process for BENCH_PARQUET_ROWS and BENCH_PARQUET_BIG_ROWS rows (1M and 10M by
// default); row groups are written as they fill, so it should stay flat.
//   npx tsx bench/export-parquet.ts                                (npm run bench runs it with the others)
//   npx tsx bench/export-parquet.ts --ours <db> <table> <outDir>   (internal) our export of one table, prints JSON
//   npx tsx bench/export-parquet.ts --duckdb <src.parquet> <out.parquet> <threads>   (internal) DuckDB's COPY
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { exportTables } from '../export/export.js';
import { loadProducts, repeatRows } from './_export-tables.js';

const PRODUCTS = Number(process.env['BENCH_PARQUET_PRODUCTS'] ?? 2000);
const ROWS = Number(process.env['BENCH_PARQUET_ROWS'] ?? 1_000_000);
const BIG_ROWS = Number(process.env['BENCH_PARQUET_BIG_ROWS'] ?? 10_000_000);
const ROUNDS = Number(process.env['BENCH_PARQUET_ROUNDS'] ?? 3);
const TABLE = 'marketplace_model_stocks';
const self = fileURLToPath(import.meta.url);

interface Measured {
  rows: number;
  seconds: number;
  bytes: number;
  peakRssMb: number;
}

async function oursChild(dbFile: string, table: string, outDir: string): Promise<void> {
  // Under tsx the first import of the Parquet writer compiles TypeScript, which the built command does not do:
  // import it before the clock starts.
  await import('../export/formats/parquet.js');
  const sqlite = new BetterSqlite3(dbFile, { readonly: true });
  const t0 = process.hrtime.bigint();
  const [f] = await exportTables({ dialect: 'sqlite', sqlite }, { tables: [table], outDir, format: 'parquet', fileName: `${table}.parquet` });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  sqlite.close();
  const result: Measured = { rows: f!.rows, seconds, bytes: fs.statSync(f!.file).size, peakRssMb: process.resourceUsage().maxRSS / 1024 };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

async function duckdbChild(source: string, out: string, threads: string): Promise<void> {
  // A devDependency: only the benchmark (and tests) load DuckDB.
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:', { threads });
  const con = await instance.connect();
  const lit = (s: string) => `'${s.replaceAll("'", "''")}'`;
  // Not timed: DuckDB's copy of the rows, taken from the file our export wrote.
  await con.run(`create table t as select * from read_parquet(${lit(source)})`);
  const rows = Number((await con.runAndReadAll('select count(*) from t')).getRows()[0]![0]);
  fs.rmSync(out, { force: true });
  const t0 = process.hrtime.bigint();
  await con.run(`copy (select * from t) to ${lit(out)} (format parquet, compression snappy)`);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  con.closeSync();
  instance.closeSync();
  const result: Measured = { rows, seconds, bytes: fs.statSync(out).size, peakRssMb: process.resourceUsage().maxRSS / 1024 };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function spawnChild(args: string[]): Measured {
  const res = spawnSync(process.execPath, ['--import', 'tsx', self, ...args], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (res.status !== 0) throw new Error(`${args[0]} child failed (exit ${res.status ?? res.signal}): ${res.stderr}`);
  return JSON.parse(res.stdout.trim().split('\n').pop() ?? '{}') as Measured;
}

function ours(dbFile: string, outDir: string): Measured & { file: string } {
  fs.rmSync(outDir, { recursive: true, force: true });
  return { ...spawnChild(['--ours', dbFile, TABLE, outDir]), file: path.join(outDir, `${TABLE}.parquet`) };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;

async function run(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-parquet-'));
  try {
    const base = path.join(dir, 'base.sqlite');
    const t0 = Date.now();
    await loadProducts(base, PRODUCTS);
    const db = path.join(dir, 'bench.sqlite');
    fs.copyFileSync(base, db);
    const rows = repeatRows(db, TABLE, ROWS);
    const width = (() => {
      const s = new BetterSqlite3(db, { readonly: true });
      try {
        return s.prepare('select count(*) from pragma_table_info(?)').pluck().get(TABLE) as number;
      } finally {
        s.close();
      }
    })();
    console.log(
      `# Parquet export benchmark: ${TABLE} ${fmt(rows)} rows x ${width} columns from ${fmt(PRODUCTS)} generated products ` +
        `(${((Date.now() - t0) / 1000).toFixed(1)} s to prepare); medians of ${ROUNDS} interleaved rounds`,
    );

    const times: Record<'ours' | 'duckdb' | 'duckdb1', number[]> = { ours: [], duckdb: [], duckdb1: [] };
    let small: Measured | undefined;
    let bytes = { ours: 0, duckdb: 0 };
    for (let r = 0; r < ROUNDS; r++) {
      const o = ours(db, path.join(dir, 'out'));
      if (o.rows !== rows) throw new Error(`our export wrote ${o.rows} rows, expected ${rows}`);
      small = o;
      times.ours.push(o.seconds);
      const src = path.join(dir, 'source.parquet');
      fs.renameSync(o.file, src);
      for (const [key, threads] of [['duckdb', String(os.availableParallelism())], ['duckdb1', '1']] as const) {
        const d = spawnChild(['--duckdb', src, path.join(dir, 'duckdb.parquet'), threads]);
        if (d.rows !== rows) throw new Error(`DuckDB read ${d.rows} rows from our file, expected ${rows}`);
        times[key].push(d.seconds);
        bytes = { ours: o.bytes, duckdb: d.bytes };
      }
    }
    const [o, d, d1] = [median(times.ours), median(times.duckdb), median(times.duckdb1)];
    const rate = (sec: number, n = rows) => `${fmt(n / sec)} rows/s (${sec.toFixed(2)} s)`;
    console.log(`${TABLE} (${fmt(rows)} x ${width}; files: ours ${mb(bytes.ours)}, DuckDB ${mb(bytes.duckdb)}):`);
    console.log(`  export/formats/parquet.ts (SQLite -> typed columns -> snappy, atomic file): ${rate(o)}`);
    console.log(`  DuckDB COPY TO parquet, ${os.availableParallelism()} threads (baseline): ${rate(d)}  -> ratio ours/duckdb ${(d / o).toFixed(2)}`);
    console.log(`  DuckDB COPY TO parquet, 1 thread (baseline):  ${rate(d1)}  -> ratio ours/duckdb-1-thread ${(d1 / o).toFixed(2)}`);

    // Memory: the same export of BIG_ROWS rows (a database of its own, deleted afterwards).
    fs.rmSync(path.join(dir, 'source.parquet'), { force: true });
    const bigDb = path.join(dir, 'big.sqlite');
    fs.copyFileSync(base, bigDb);
    const t1 = Date.now();
    const bigRows = repeatRows(bigDb, TABLE, BIG_ROWS);
    console.log(`# ${fmt(bigRows)} rows prepared in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
    const big = ours(bigDb, path.join(dir, 'out'));
    if (big.rows !== bigRows) throw new Error(`our export wrote ${big.rows} rows, expected ${bigRows}`);
    console.log(`  ${fmt(big.rows)} rows: ${rate(big.seconds, big.rows)}, ${mb(big.bytes)} file`);
    console.log(
      `peak RSS of the export process: ${small!.peakRssMb.toFixed(0)} MB for ${fmt(small!.rows)} rows, ${big.peakRssMb.toFixed(0)} MB for ${fmt(big.rows)} rows ` +
        `(growth for ${(big.rows / small!.rows).toFixed(0)}x rows: ${(big.peakRssMb / small!.peakRssMb).toFixed(2)}x; goal flat, <= 1.2x)`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const mode = process.argv[2];
if (mode === '--ours') {
  await oursChild(process.argv[3]!, process.argv[4]!, process.argv[5]!);
} else if (mode === '--duckdb') {
  await duckdbChild(process.argv[3]!, process.argv[4]!, process.argv[5]!);
} else if (process.argv[1] && path.resolve(process.argv[1]) === self) {
  await run();
}
