// Parquet export benchmark: our export (export/formats/parquet.ts through export/export.ts, the compiled dist/) of
// the same table from each destination, SQLite, Postgres and DuckDB, against baselines measured in the same run on
// the same databases:
//   - pyarrow streaming the same rows from the same database into a Parquet file (Python: sqlite3 cursor, psycopg2
//     server-side cursor, duckdb record batches; fetch in batches, pa.RecordBatch per batch, pq.ParquetWriter, snappy);
//   - from DuckDB, DuckDB's own `COPY (SELECT * FROM t) TO 'x.parquet' (FORMAT parquet)` on the destination file.
// The table is marketplace_model_stocks (16 columns: 64-bit ids, integers, text, timestamps) loaded from generated
// marketplace products through db/store/load.ts into SQLite, repeated under other item ids up to BENCH_PARQUET_ROWS rows,
// then copied into Postgres (COPY) and into a DuckDB destination file (read_csv of sqlite3's CSV), both migrated by
// the project. Every measurement runs in a process of its own; rounds interleave, figures are medians of
// BENCH_PARQUET_ROUNDS rounds (the machine is shared). The baselines do less than ours: pyarrow keeps SQLite's
// timestamp text as strings (ours parses it to TIMESTAMP) and writes no atomic file.
// Memory: peak RSS of our export of BENCH_PARQUET_ROWS rows against the same table before its rows were repeated.
// From SQLite, also DuckDB's own `COPY (SELECT * FROM sqlite_scan(...)) TO ... (FORMAT parquet)` (issue #39's goal:
// ours >= 0.6x its speed) with DuckDB's sqlite extension from PyPI (duckdb-extension-sqlite-scanner of DuckDB's
// major.minor, pip --target ~/.cache/scrape-etl/py-duckdb-sqlite; DuckDB's extension site is not reachable here), on
// the machine's cores and on one, and where our time goes (bench/_sqlite-parquet-stages.mjs): SQLite's CSV records
// alone, DuckDB's CSV reader and Parquet writer alone on those records, wall and CPU seconds of each.
// BENCH_PARQUET_SOURCES=sqlite,duckdb leaves Postgres out (default: all three).
//   npx tsx bench/export-parquet.ts           BENCH_DIST=<dir> measures another build (e.g. the one before a change)
//   npx tsx bench/export-parquet.ts --copy <duckdb file> <table> <out>   (internal) DuckDB's COPY, prints JSON
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { pipeline } from 'node:stream/promises';
import { loadProducts, repeatRows } from './_export-tables.js';
import { PY_READERS_DIR } from '../test/support/python-readers.js';
import { testPostgresUrl } from '../test/support/postgres.js';

const PRODUCTS = Number(process.env['BENCH_PARQUET_PRODUCTS'] ?? 2000);
const ROWS = Number(process.env['BENCH_PARQUET_ROWS'] ?? 1_000_000);
const ROUNDS = Number(process.env['BENCH_PARQUET_ROUNDS'] ?? 3);
const TABLE = 'marketplace_model_stocks';
const self = fileURLToPath(import.meta.url);
const DIST = path.resolve(process.env['BENCH_DIST'] ?? path.join(path.dirname(self), '..', 'dist'));
// psycopg2 for pyarrow's Postgres baseline, installed next to the readers (pip --target) when missing.
const PY_BENCH_DIR = path.join(path.dirname(PY_READERS_DIR), 'py-bench');
const SQLITE_EXT_DIR = path.join(path.dirname(PY_READERS_DIR), 'py-duckdb-sqlite');
const SOURCES = (process.env['BENCH_PARQUET_SOURCES'] ?? 'sqlite,postgres,duckdb').split(',');
const STAGES = path.join(path.dirname(self), '_sqlite-parquet-stages.mjs');

/**
 * DuckDB's sqlite extension for @duckdb/node-api's DuckDB: the newest release on PyPI of its major.minor, installed
 * once; undefined (said why) when it cannot be had.
 */
async function sqliteExtension(): Promise<string | undefined> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:');
  const con = await instance.connect();
  const version = String((await con.runAndReadAll('select version()')).getRows()[0]![0]); // v1.5.6
  con.closeSync();
  instance.closeSync();
  const find = () =>
    fs.existsSync(SQLITE_EXT_DIR)
      ? (fs.readdirSync(SQLITE_EXT_DIR, { recursive: true }) as string[])
          .filter((f) => f.endsWith('sqlite_scanner.duckdb_extension'))
          .map((f) => path.join(SQLITE_EXT_DIR, f))[0]
      : undefined;
  if (find()) return find();
  const [major, minor] = version.replace(/^v/, '').split('.');
  const res = spawnSync(
    'python3',
    [
      '-m',
      'pip',
      'install',
      '--quiet',
      '--target',
      SQLITE_EXT_DIR,
      `duckdb-extension-sqlite-scanner==${major}.${minor}.*`,
    ],
    { encoding: 'utf8' },
  );
  if (res.status !== 0) {
    console.log(
      `(DuckDB's sqlite extension for ${version} could not be had from PyPI: ${res.stderr.trim().split('\n').pop()})`,
    );
    return undefined;
  }
  return find();
}

function stage(args: string[]): Measured & { cpuSeconds: number } {
  const res = spawnSync(process.execPath, [STAGES, DIST, ...args], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (res.status !== 0) throw new Error(`stage ${args[0]} failed (exit ${res.status ?? res.signal}): ${res.stderr}`);
  return JSON.parse(res.stdout.trim().split('\n').pop()!) as Measured & { cpuSeconds: number };
}

interface Measured {
  rows: number;
  seconds: number;
  bytes: number;
  peakRssMb: number;
  /** CPU seconds of every thread, where the measuring process reports them. */
  cpuSeconds?: number;
}

async function copyChild(file: string, table: string, out: string): Promise<void> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  const con = await instance.connect();
  const lit = (s: string) => `'${s.replaceAll("'", "''")}'`;
  fs.rmSync(out, { force: true });
  const t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  await con.run(`copy (select * from "${table}") to ${lit(out)} (format parquet)`);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  const rows = Number((await con.runAndReadAll(`select count(*) from read_parquet(${lit(out)})`)).getRows()[0]![0]);
  con.closeSync();
  instance.closeSync();
  const result: Measured = {
    rows,
    seconds,
    bytes: fs.statSync(out).size,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

// pyarrow streaming: batches of BATCH rows from the database cursor, one RecordBatch each (types inferred by
// pyarrow from the Python values, the first batch's schema kept), written by one ParquetWriter (snappy).
const PYARROW = `
import resource, sys, time
import pyarrow as pa, pyarrow.parquet as pq
kind, src, table, out = sys.argv[1:5]
BATCH = 65536
t0 = time.perf_counter()
if kind == 'sqlite':
    import sqlite3
    con = sqlite3.connect(src)
    cur = con.execute('select * from "%s"' % table)
elif kind == 'postgres':
    import psycopg2
    con = psycopg2.connect(src)
    cur = con.cursor(name='bench')
    cur.itersize = BATCH
    cur.execute('select * from "%s"' % table)
if kind == 'duckdb':
    import duckdb
    con = duckdb.connect(src, read_only=True)
    reader = con.execute('select * from "%s"' % table).to_arrow_reader(BATCH)
    writer = None
    rows = 0
    for b in reader:
        if writer is None:
            writer = pq.ParquetWriter(out, b.schema, compression='snappy')
        writer.write_batch(b)
        rows += b.num_rows
else:
    writer = None
    schema = None
    rows = 0
    while True:
        batch = cur.fetchmany(BATCH)
        if not batch:
            break
        names = [d[0] for d in cur.description]
        cols = list(zip(*batch))
        arrays = [pa.array(c, type=None if schema is None else schema.field(i).type) for i, c in enumerate(cols)]
        if schema is None:
            schema = pa.schema([pa.field(n, a.type) for n, a in zip(names, arrays)])
            writer = pq.ParquetWriter(out, schema, compression='snappy')
        writer.write_batch(pa.RecordBatch.from_arrays(arrays, schema=schema))
        rows += len(batch)
writer.close()
con.close()
import json, os
print(json.dumps({"rows": rows, "seconds": time.perf_counter() - t0, "bytes": os.path.getsize(out), "peakRssMb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
`;

function pyEnv(): NodeJS.ProcessEnv {
  return { ...process.env, PYTHONPATH: `${PY_READERS_DIR}:${PY_BENCH_DIR}`, PYTHONDONTWRITEBYTECODE: '1' };
}

function ensurePython(): void {
  const ok = spawnSync('python3', ['-c', 'import pyarrow, duckdb, psycopg2'], { env: pyEnv() });
  if (ok.status === 0) return;
  const res = spawnSync(
    'python3',
    ['-m', 'pip', 'install', '--quiet', '--target', PY_BENCH_DIR, 'psycopg2-binary', 'duckdb', 'pyarrow'],
    { stdio: 'inherit' },
  );
  if (res.status !== 0) throw new Error('cannot install the Python baselines (pyarrow, duckdb, psycopg2-binary)');
}

function pyarrow(kind: 'sqlite' | 'postgres' | 'duckdb', src: string, out: string): Measured {
  fs.rmSync(out, { force: true });
  const res = spawnSync('python3', ['-c', PYARROW, kind, src, TABLE, out], {
    encoding: 'utf8',
    env: pyEnv(),
    maxBuffer: 1 << 20,
  });
  if (res.status !== 0) throw new Error(`pyarrow baseline (${kind}) failed: ${res.stderr}`);
  return JSON.parse(res.stdout.trim().split('\n').pop()!) as Measured;
}

function spawnChild(args: string[]): Measured {
  const res = spawnSync(process.execPath, ['--import', 'tsx', self, ...args], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (res.status !== 0) throw new Error(`${args[0]} child failed (exit ${res.status ?? res.signal}): ${res.stderr}`);
  return JSON.parse(res.stdout.trim().split('\n').pop() ?? '{}') as Measured;
}

/** Our export in plain Node on the compiled build (bench/_export-child.mjs): its peak RSS is the command's. */
function ours(url: string, outDir: string): Measured {
  fs.rmSync(outDir, { recursive: true, force: true });
  const res = spawnSync(
    process.execPath,
    [path.join(path.dirname(self), '_export-child.mjs'), DIST, url, TABLE, outDir, 'parquet'],
    { encoding: 'utf8', maxBuffer: 1 << 20 },
  );
  if (res.status !== 0) throw new Error(`our export failed (exit ${res.status ?? res.signal}): ${res.stderr}`);
  return JSON.parse(res.stdout.trim().split('\n').pop()!) as Measured;
}

/** The SQLite table's rows into the same table of a migrated Postgres database, by COPY of sqlite3's CSV. */
async function fillPostgres(sqliteFile: string, url: string, csv: string): Promise<void> {
  const { openDatabase } = (await import(
    path.join(DIST, 'destinations', 'open.js')
  )) as typeof import('../destinations/open.js');
  await (await openDatabase(url)).close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const cols = columnsOf(sqliteFile);
    await pipeline(
      fs.createReadStream(csv),
      client.query(
        copyFrom(`copy "${TABLE}" (${cols.map((c) => `"${c}"`).join(', ')}) from stdin (format csv, header true)`),
      ),
    );
    await client.query(`analyze "${TABLE}"`);
  } finally {
    await client.end();
  }
}

async function fillDuckdb(file: string, csv: string): Promise<void> {
  const { openDatabase } = (await import(
    path.join(DIST, 'destinations', 'open.js')
  )) as typeof import('../destinations/open.js');
  await (await openDatabase(`duckdb:${file}`)).close();
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(file);
  const con = await instance.connect();
  await con.run(`insert into "${TABLE}" by name select * from read_csv('${csv}', header = true, all_varchar = true)`);
  await con.run('checkpoint');
  con.closeSync();
  instance.closeSync();
}

function columnsOf(sqliteFile: string): string[] {
  const s = new BetterSqlite3(sqliteFile, { readonly: true });
  try {
    return (s.prepare('select name from pragma_table_info(?) order by cid').all(TABLE) as Array<{ name: string }>).map(
      (r) => r.name,
    );
  } finally {
    s.close();
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;

async function run(): Promise<void> {
  ensurePython();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-parquet-'));
  try {
    const base = path.join(dir, 'base.sqlite');
    const t0 = Date.now();
    await loadProducts(base, PRODUCTS);
    const sqliteFile = path.join(dir, 'bench.sqlite');
    fs.copyFileSync(base, sqliteFile);
    const rows = repeatRows(sqliteFile, TABLE, ROWS);
    const csv = path.join(dir, 'rows.csv');
    const fd = fs.openSync(csv, 'w');
    const dump = spawnSync('sqlite3', ['-csv', '-header', sqliteFile, `select * from "${TABLE}"`], {
      stdio: ['ignore', fd, 'pipe'],
    });
    fs.closeSync(fd);
    if (dump.status !== 0) throw new Error(`sqlite3 -csv failed: ${dump.stderr}`);
    const pgUrl = SOURCES.includes('postgres') ? await testPostgresUrl() : '';
    if (pgUrl) await fillPostgres(sqliteFile, pgUrl, csv);
    const duckFile = path.join(dir, 'bench.duckdb');
    await fillDuckdb(duckFile, csv);
    fs.rmSync(csv);
    const width = columnsOf(sqliteFile).length;
    console.log(
      `# Parquet export benchmark (${DIST}): ${TABLE} ${fmt(rows)} rows x ${width} columns from ${fmt(PRODUCTS)} generated products, ` +
        `in SQLite, Postgres and DuckDB (${((Date.now() - t0) / 1000).toFixed(1)} s to prepare); medians of ${ROUNDS} interleaved rounds`,
    );

    const sources = (
      [
        ['sqlite', `sqlite:${sqliteFile}`, sqliteFile],
        ['postgres', pgUrl, pgUrl],
        ['duckdb', `duckdb:${duckFile}`, duckFile],
      ] as const
    ).filter(([kind]) => SOURCES.includes(kind));
    const extension = SOURCES.includes('sqlite') ? await sqliteExtension() : undefined;
    const cores = String(os.availableParallelism());
    const times: Record<string, number[]> = {};
    const cpus: Record<string, number[]> = {};
    const bytes: Record<string, number> = {};
    const rss: Record<string, number> = {};
    const note = (key: string, m: Measured) => {
      if (m.rows !== rows) throw new Error(`${key} wrote ${m.rows} rows, expected ${rows}`);
      (times[key] ??= []).push(m.seconds);
      if (m.cpuSeconds !== undefined) (cpus[key] ??= []).push(m.cpuSeconds);
      bytes[key] = m.bytes;
      rss[key] = m.peakRssMb;
    };
    const stageCsv = path.join(dir, 'records.csv');
    for (let r = 0; r < ROUNDS; r++) {
      for (const [kind, url, src] of sources) {
        note(`ours-${kind}`, ours(url, path.join(dir, 'out')));
        note(`pyarrow-${kind}`, pyarrow(kind, src, path.join(dir, 'pyarrow.parquet')));
      }
      if (SOURCES.includes('duckdb'))
        note('copy-duckdb', spawnChild(['--copy', duckFile, TABLE, path.join(dir, 'copy.parquet')]));
      if (extension) {
        for (const threads of [cores, '1'])
          note(
            `scan-${threads}`,
            stage(['scan', sqliteFile, TABLE, path.join(dir, 'scan.parquet'), extension, threads]),
          );
        note('records', stage(['records', sqliteFile, TABLE, stageCsv]));
        note('csv-parquet', stage(['csv-parquet', sqliteFile, TABLE, stageCsv, path.join(dir, 'stage.parquet')]));
        fs.rmSync(stageCsv, { force: true });
      }
    }
    const cpu = (key: string) => (cpus[key] ? `${median(cpus[key]).toFixed(2)} s CPU` : 'CPU not measured');
    console.log(
      `(load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')})`,
    );
    const rate = (key: string) =>
      `${fmt(rows / median(times[key]!))} rows/s (${median(times[key]!).toFixed(2)} s, ${mb(bytes[key]!)}, peak RSS ${rss[key]!.toFixed(0)} MB)`;
    const ratio = (a: string, b: string) => (median(times[b]!) / median(times[a]!)).toFixed(2);
    const size = (a: string, b: string) => (bytes[a]! / bytes[b]!).toFixed(2);
    for (const [kind] of sources) {
      console.log(`from ${kind}:`);
      console.log(`  ours:              ${rate(`ours-${kind}`)}, ${cpu(`ours-${kind}`)}`);
      console.log(
        `  pyarrow streaming: ${rate(`pyarrow-${kind}`)}  -> speed ours/pyarrow ${ratio(`ours-${kind}`, `pyarrow-${kind}`)} (goal >= 1.0), size ours/pyarrow ${size(`ours-${kind}`, `pyarrow-${kind}`)}`,
      );
    }
    // Baselines of one source each, after the sources' own lines.
    if (extension) {
      console.log(`from sqlite, against DuckDB's own COPY from sqlite_scan (goal: ours >= 0.6x):`);
      for (const threads of [cores, '1'])
        console.log(
          `  DuckDB COPY from sqlite_scan, ${threads} thread(s): ${rate(`scan-${threads}`)}, ${cpu(`scan-${threads}`)}  -> speed ours/sqlite_scan ${ratio('ours-sqlite', `scan-${threads}`)} (goal >= 0.6)`,
        );
      console.log(
        `  where ours goes: SQLite's CSV records alone ${median(times['records']!).toFixed(2)} s (${cpu('records')}); DuckDB's CSV reader and Parquet writer alone on them (pipe from a file) ${median(times['csv-parquet']!).toFixed(2)} s (${cpu('csv-parquet')}); the two overlapped in ours: ${median(times['ours-sqlite']!).toFixed(2)} s (${cpu('ours-sqlite')})`,
      );
    }
    if (times['copy-duckdb'])
      console.log(
        `from duckdb, DuckDB COPY TO parquet: ${rate('copy-duckdb')}, ${cpu('copy-duckdb')}  -> speed ours/COPY ${ratio('ours-duckdb', 'copy-duckdb')} (goal >= 0.5)`,
      );
    if (SOURCES.includes('duckdb'))
      console.log(
        `file size ours/DuckDB COPY (goal <= 1.3): ${sources.map(([kind]) => `from ${kind} ${size(`ours-${kind}`, 'copy-duckdb')}`).join(', ')}`,
      );

    // Flat memory: the same export of the table before its rows were repeated.
    const little = ours(`sqlite:${base}`, path.join(dir, 'out'));
    console.log(
      `peak RSS of our export from SQLite: ${rss['ours-sqlite']!.toFixed(0)} MB for ${fmt(rows)} rows, ${little.peakRssMb.toFixed(0)} MB for ${fmt(little.rows)} rows ` +
        `(growth for ${(rows / little.rows).toFixed(0)}x rows: ${(rss['ours-sqlite']! / little.peakRssMb).toFixed(2)}x; goal flat)`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const mode = process.argv[2];
if (mode === '--copy') {
  await copyChild(process.argv[3]!, process.argv[4]!, process.argv[5]!);
} else if (process.argv[1] && path.resolve(process.argv[1]) === self) {
  await run();
  process.exit(0); // the throwaway Postgres server is stopped by its exit hook
}
