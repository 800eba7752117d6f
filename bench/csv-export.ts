// CSV export benchmark: export/csv.ts writing a one-million-row SQLite table, against the sqlite3 command-line
// shell's own CSV output of the same table (`sqlite3 -csv -header db 'select * from t' > file`), measured in the
// same run. Each export runs in a child process of its own so its peak RSS is its own; the 10x smaller table
// shows whether memory grows with the table (it should not: rows stream in batches).
//   npx tsx bench/csv-export.ts                      full run
//   npx tsx bench/csv-export.ts --child <db> <out>   (internal) export table t, print rows/seconds/peak RSS as JSON
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { exportTables } from '../export/csv.js';

const ROWS = Number(process.env['BENCH_CSV_ROWS'] ?? 1_000_000);
const self = fileURLToPath(import.meta.url);

interface ChildResult {
  rows: number;
  seconds: number;
  peakRssMb: number;
  bytes: number;
}

/** A table like the project's data tables: ids, lineage, text that needs quoting now and then, JSON, reals, flags. */
function generate(file: string, rows: number): void {
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.exec(`create table t (id integer primary key, name text, note text, price real, qty integer, active integer,
           payload text, pipeline text not null, load_id integer not null, loaded_at text not null, row_hash text not null)`);
  db.exec(`
    with recursive n(i) as (select 1 union all select i + 1 from n where i < ${rows})
    insert into t select
      9007199254740993 + i,
      'product ' || i || case when i % 10 = 0 then ', "special" edition' else '' end,
      case when i % 50 = 0 then '=HYPERLINK("x")' when i % 7 = 0 then null else 'note ' || (i % 1000) end,
      (i % 100000) / 100.0 - 10,
      i % 17 - 3,
      i % 2,
      '{"sku":"' || i || '","tags":["a","b"],"n":' || (i * 3) || '}',
      'bench', 1 + i / 50000, '2025-01-02T03:04:05.678Z', hex(i)
    from n`);
  db.close();
}

async function child(dbFile: string, outDir: string): Promise<void> {
  const sqlite = new BetterSqlite3(dbFile);
  const t0 = process.hrtime.bigint();
  const [f] = await exportTables({ dialect: 'sqlite', sqlite }, { tables: ['t'], outDir, fileName: 'ours.csv' });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  sqlite.close();
  const result: ChildResult = { rows: f!.rows, seconds, peakRssMb: process.resourceUsage().maxRSS / 1024, bytes: fs.statSync(f!.file).size };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function oursInChild(dbFile: string, outDir: string): ChildResult {
  const res = spawnSync(process.execPath, ['--import', 'tsx', self, '--child', dbFile, outDir], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (res.status !== 0) throw new Error(`export child failed (exit ${res.status ?? res.signal}): ${res.stderr}`);
  return JSON.parse(res.stdout.trim().split('\n').pop() ?? '{}') as ChildResult;
}

function sqliteShell(dbFile: string, outFile: string): { seconds: number; bytes: number; peakRssMb: number | null } {
  const fd = fs.openSync(outFile, 'w');
  const timeBin = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
  const rssFile = `${outFile}.rss`;
  const [cmd, args] = timeBin
    ? [timeBin, ['-f', '%M', '-o', rssFile, 'sqlite3', '-csv', '-header', dbFile, 'select * from t']]
    : ['sqlite3', ['-csv', '-header', dbFile, 'select * from t']];
  const t0 = process.hrtime.bigint();
  const res = spawnSync(cmd, args, { stdio: ['ignore', fd, 'pipe'] });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  fs.closeSync(fd);
  if (res.status !== 0) throw new Error(`sqlite3 shell failed: ${res.stderr?.toString() ?? res.error?.message}`);
  const peakRssMb = timeBin ? Number(fs.readFileSync(rssFile, 'utf8').trim().split('\n').pop()) / 1024 : null;
  return { seconds, bytes: fs.statSync(outFile).size, peakRssMb };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

export async function run(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-csv-'));
  try {
    const big = path.join(dir, 'big.sqlite');
    const small = path.join(dir, 'small.sqlite');
    const t0 = Date.now();
    generate(big, ROWS);
    generate(small, Math.max(1, Math.floor(ROWS / 10)));
    console.log(`# CSV export benchmark: ${fmt(ROWS)}-row SQLite table (11 columns; ids beyond 2^53, quoting, JSON, NULLs), generated in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    const shell = sqliteShell(big, path.join(dir, 'shell.csv'));
    const ours = oursInChild(big, path.join(dir, 'out-big'));
    const oursSmall = oursInChild(small, path.join(dir, 'out-small'));
    if (ours.rows !== ROWS) throw new Error(`export wrote ${ours.rows} rows, expected ${ROWS}`);

    const oursRate = ours.rows / ours.seconds;
    const shellRate = ROWS / shell.seconds;
    console.log(`sqlite3 -csv shell (baseline): ${fmt(shellRate)} rows/s (${shell.seconds.toFixed(2)} s, ${(shell.bytes / 1048576).toFixed(0)} MB${shell.peakRssMb !== null ? `, peak RSS ${shell.peakRssMb.toFixed(0)} MB` : ''})`);
    console.log(`export/csv.ts (streamed, atomic, formula-neutralised): ${fmt(oursRate)} rows/s (${ours.seconds.toFixed(2)} s, ${(ours.bytes / 1048576).toFixed(0)} MB)`);
    console.log(`ratio ours/baseline (rows/s): ${(oursRate / shellRate).toFixed(2)}`);
    console.log(`peak RSS of the export process: ${ours.peakRssMb.toFixed(0)} MB for ${fmt(ours.rows)} rows, ${oursSmall.peakRssMb.toFixed(0)} MB for ${fmt(oursSmall.rows)} rows (growth for 10x rows: ${(ours.peakRssMb / oursSmall.peakRssMb).toFixed(2)}x)`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const childIdx = process.argv.indexOf('--child');
if (childIdx >= 0) {
  await child(process.argv[childIdx + 1]!, process.argv[childIdx + 2]!);
} else if (process.argv[1] && path.resolve(process.argv[1]) === self) {
  await run();
}
