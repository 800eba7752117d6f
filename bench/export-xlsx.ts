// XLSX export benchmark: peak RSS (and time) of our export (export/formats/xlsx.ts, compiled dist/ in plain Node,
// bench/_export-child.mjs) of marketplace_model_stocks (16 columns) at BENCH_XLSX_ROWS rows (default 400,000 and
// 1,200,000), each from a SQLite file of its own, against the same export of the table before its rows were
// repeated (a few thousand rows): flat memory means the same peak whatever the row count. Python's openpyxl in
// write-only mode writing the same rows is the baseline measured in the same run.
//   npx tsx bench/export-xlsx.ts            BENCH_DIST=<dir> measures another build (e.g. the one before a change)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadProducts, repeatRows } from './_export-tables.js';
import { PY_READERS_DIR } from '../test/support/python-readers.js';

const PRODUCTS = Number(process.env['BENCH_XLSX_PRODUCTS'] ?? 2000);
const SIZES = (process.env['BENCH_XLSX_ROWS'] ?? '400000,1200000').split(',').map(Number);
// openpyxl is slow (~1,000 rows/s on a busy 2-core machine): its baseline runs only up to this many rows (0: never).
const OPENPYXL_MAX = Number(process.env['BENCH_XLSX_OPENPYXL_MAX_ROWS'] ?? 400_000);
const TABLE = 'marketplace_model_stocks';
const self = fileURLToPath(import.meta.url);
const DIST = path.resolve(process.env['BENCH_DIST'] ?? path.join(path.dirname(self), '..', 'dist'));

interface Measured {
  rows: number;
  seconds: number;
  bytes: number;
  peakRssMb: number;
}

function ours(dbFile: string, outDir: string): Measured {
  fs.rmSync(outDir, { recursive: true, force: true });
  const res = spawnSync(
    process.execPath,
    [path.join(path.dirname(self), '_export-child.mjs'), DIST, `sqlite:${dbFile}`, TABLE, outDir, 'xlsx'],
    { encoding: 'utf8', maxBuffer: 1 << 20 },
  );
  if (res.status !== 0) throw new Error(`our export failed (exit ${res.status ?? res.signal}): ${res.stderr}`);
  return JSON.parse(res.stdout.trim().split('\n').pop()!) as Measured;
}

const OPENPYXL = `
import json, os, sqlite3, sys, time
from openpyxl import Workbook
db, table, out = sys.argv[1:4]
t0 = time.perf_counter()
con = sqlite3.connect(db)
cur = con.execute('select * from "%s"' % table)
wb = Workbook(write_only=True)
ws = wb.create_sheet(table)
ws.append([d[0] for d in cur.description])
rows = 0
while True:
    batch = cur.fetchmany(1000)
    if not batch:
        break
    for r in batch:
        ws.append(r)
    rows += len(batch)
wb.save(out)
# The process's own peak (VmHWM), as bench/_export-child.mjs measures ours: ru_maxrss starts at the spawning bench's.
print(json.dumps({"rows": rows, "seconds": time.perf_counter() - t0, "bytes": os.path.getsize(out), "peakRssMb": next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:')) / 1024}))
`;

function openpyxl(dbFile: string, out: string): Measured {
  const res = spawnSync('python3', ['-c', OPENPYXL, dbFile, TABLE, out], {
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: PY_READERS_DIR },
  });
  if (res.status !== 0) throw new Error(`openpyxl baseline failed: ${res.stderr}`);
  return JSON.parse(res.stdout.trim().split('\n').pop()!) as Measured;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function run(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-xlsx-'));
  try {
    const base = path.join(dir, 'base.sqlite');
    await loadProducts(base, PRODUCTS);
    console.log(`# XLSX export benchmark (${DIST}): ${TABLE} x 16 columns, peak RSS by row count`);
    const little = ours(base, path.join(dir, 'out'));
    console.log(
      `  ${fmt(little.rows)} rows: ours ${little.peakRssMb.toFixed(0)} MB peak RSS, ${little.seconds.toFixed(1)} s`,
    );
    for (const n of SIZES) {
      const db = path.join(dir, `rows-${n}.sqlite`);
      fs.copyFileSync(base, db);
      const rows = repeatRows(db, TABLE, n);
      const o = ours(db, path.join(dir, 'out'));
      if (o.rows !== rows) throw new Error(`our export wrote ${o.rows} rows, expected ${rows}`);
      const p = rows <= OPENPYXL_MAX * 1.05 ? openpyxl(db, path.join(dir, 'openpyxl.xlsx')) : undefined;
      const baseline = p
        ? `openpyxl write-only ${p.peakRssMb.toFixed(0)} MB, ${p.seconds.toFixed(1)} s, ${(p.bytes / 1048576).toFixed(0)} MB -> RSS ours/openpyxl ${(o.peakRssMb / p.peakRssMb).toFixed(2)}, speed ours/openpyxl ${(p.seconds / o.seconds).toFixed(2)}; `
        : '';
      console.log(
        `  ${fmt(rows)} rows: ours ${o.peakRssMb.toFixed(0)} MB peak RSS, ${o.seconds.toFixed(1)} s (${fmt(rows / o.seconds)} rows/s), ${(o.bytes / 1048576).toFixed(0)} MB file; ` +
          `${baseline}RSS vs ${fmt(little.rows)} rows ${(o.peakRssMb / little.peakRssMb).toFixed(2)}x (goal flat)`,
      );
      fs.rmSync(db);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await run();
