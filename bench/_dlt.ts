// Shared by the benchmarks (not a benchmark itself): dlt (https://dlthub.com, installed from PyPI into
// ~/.cache/scrape-etl/py-dlt on first use) loading product bodies into its own DuckDB file, the baseline of issue #39's
// file-size goal. `append`: nested lists as child tables, no raw bodies, no keys; `merge` on the product's shop and
// item ids, what a loader that updates products in place writes.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const DLT_DIR = path.join(os.homedir(), '.cache', 'scrape-etl', 'py-dlt');
const DLT_SCRIPT = `
import json, sys, time
import dlt
src, target, work, disposition = sys.argv[1:5]
def products():
    with open(src, encoding='utf-8') as f:
        for line in f:
            yield json.loads(line)
t0 = time.perf_counter()
p = dlt.pipeline(pipeline_name='bench', pipelines_dir=work, destination=dlt.destinations.duckdb(target), dataset_name='bench', progress=None)
if disposition == 'merge':
    p.run(products(), table_name='marketplace_products', write_disposition='merge', primary_key=('data__data__item__shop_id', 'data__data__item__item_id'))
else:
    p.run(products(), table_name='marketplace_products')
import duckdb
print(time.perf_counter() - t0, dlt.__version__, duckdb.__version__)
`;

/** A DuckDB file's bytes with its WAL. */
export function duckFileBytes(file: string): number {
  let total = 0;
  for (const f of [file, `${file}.wal`]) if (fs.existsSync(f)) total += fs.statSync(f).size;
  return total;
}

/**
 * dlt's DuckDB load of the product bodies `raws` (JSON text, written to `dir` as one document per line): its file
 * size (WAL included), seconds and versions.
 */
export function dltLoad(
  dir: string,
  raws: Iterable<string>,
  disposition: 'append' | 'merge',
): { bytes: number; seconds: number; versions: string } {
  const env = { ...process.env, PYTHONPATH: DLT_DIR, RUNTIME__LOG_LEVEL: 'WARNING' };
  if (spawnSync('python3', ['-c', 'import dlt, duckdb'], { env }).status !== 0) {
    console.log(`  (installing dlt[duckdb] from PyPI into ${DLT_DIR})`);
    const pip = spawnSync('python3', ['-m', 'pip', 'install', '--quiet', '--target', DLT_DIR, 'dlt[duckdb]'], {
      encoding: 'utf8',
    });
    if (pip.status !== 0) throw new Error(`pip install dlt[duckdb] failed: ${pip.stderr}`);
  }
  const jsonl = path.join(dir, 'products.jsonl');
  if (!fs.existsSync(jsonl)) {
    // Line by line: 20,000 bodies held as one string would weigh on the measuring process.
    const fd = fs.openSync(jsonl, 'w');
    try {
      for (const raw of raws) fs.writeSync(fd, JSON.stringify(JSON.parse(raw)) + '\n');
    } finally {
      fs.closeSync(fd);
    }
  }
  const target = path.join(dir, `dlt-${disposition}.duckdb`);
  const res = spawnSync(
    'python3',
    ['-c', DLT_SCRIPT, jsonl, target, path.join(dir, `dlt-work-${disposition}`), disposition],
    { encoding: 'utf8', env },
  );
  if (res.status !== 0) throw new Error(`dlt load failed: ${res.stderr}`);
  const [seconds, dltVersion, duckVersion] = res.stdout.trim().split('\n').pop()!.split(' ');
  return {
    bytes: duckFileBytes(target),
    seconds: Number(seconds),
    versions: `dlt ${dltVersion}, duckdb ${duckVersion}`,
  };
}
