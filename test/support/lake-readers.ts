// Independent readers of the lake's layout (export/targets/lake.ts): pyarrow's datasets (hive partitioning, on a
// folder or through pyarrow's own S3 filesystem with endpoint_override) and Python's duckdb read_parquet with
// hive_partitioning. Neither shares code with the writer; both find the files by listing, as a user's tool does.
import { execFileSync } from 'node:child_process';
import { pythonReadersEnv } from './python-readers.js';

export interface LakeTableRead {
  rows: number;
  /** Column name and Arrow type, partition columns included. */
  schema: Array<[string, string]>;
  /** Distinct load_date partitions the rows came from. */
  loadDates: string[];
  /** The rows' (pipeline, …natural key) joined, when asked for: to count duplicates. */
  keys?: string[];
}

export interface S3Access {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

function run(script: string, args: string[]): string {
  return execFileSync('python3', ['-c', script, ...args], {
    env: pythonReadersEnv(),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
}

/**
 * Every table folder under `<root>/<pipeline>/` (not `_keys` and `_snapshot`, skipped as hive readers skip names
 * starting with '_'), read as one pyarrow dataset each (files ending in the format's
 * extension, hive partitioning with load_date as a string). `root` is a folder, or `bucket/prefix` with `s3`.
 */
export function readLakeWithPyarrow(
  root: string,
  pipeline: string,
  opts: { s3?: S3Access; keyColumns?: Record<string, string[]> } = {},
): Record<string, LakeTableRead> {
  const script = `
import json, sys
import pyarrow as pa, pyarrow.dataset as ds, pyarrow.fs as pafs
root, pipeline, s3, keycols = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
if s3:
    scheme = "https" if s3["endpoint"].startswith("https") else "http"
    fs = pafs.S3FileSystem(access_key=s3["accessKeyId"], secret_key=s3["secretAccessKey"], region=s3["region"],
                           endpoint_override=s3["endpoint"].split("://", 1)[1], scheme=scheme)
else:
    fs = pafs.LocalFileSystem()
base = root.rstrip("/") + "/" + pipeline
out = {}
for info in fs.get_file_info(pafs.FileSelector(base)):
    if info.type != pafs.FileType.Directory or info.base_name.startswith(("_", ".")):
        continue
    table = info.base_name
    d = ds.dataset(info.path, filesystem=fs, format="parquet", partitioning=ds.HivePartitioning.discover(infer_dictionary=False, schema=pa.schema([("load_date", pa.string())])))
    t = d.to_table()
    r = {"rows": t.num_rows, "schema": [[f.name, str(f.type)] for f in t.schema],
         "loadDates": sorted(set(t.column("load_date").to_pylist())) if t.num_rows else []}
    if table in keycols:
        cols = [t.column(c).to_pylist() for c in keycols[table]]
        r["keys"] = ["|".join(str(v) for v in row) for row in zip(*cols)]
    out[table] = r
json.dump(out, sys.stdout)
`;
  return JSON.parse(
    run(script, [root, pipeline, JSON.stringify(opts.s3 ?? null), JSON.stringify(opts.keyColumns ?? {})]),
  ) as Record<string, LakeTableRead>;
}

/** Rows per table that DuckDB reads with read_parquet('<root>/<pipeline>/<table>/**\/*.parquet', hive_partitioning = true). */
export function readLakeWithDuckdb(
  root: string,
  pipeline: string,
  tables: string[],
): Record<string, { rows: number; columns: Array<[string, string]> }> {
  const script = `
import json, sys, duckdb
root, pipeline, tables = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
con = duckdb.connect()
out = {}
for t in tables:
    src = f"read_parquet('{root}/{pipeline}/{t}/**/*.parquet', hive_partitioning = true, union_by_name = true)"
    n = con.execute(f"select count(*) from {src}").fetchone()[0]
    cols = [[r[0], r[1]] for r in con.execute(f"describe select * from {src}").fetchall()]
    out[t] = {"rows": n, "columns": cols}
json.dump(out, sys.stdout)
`;
  return JSON.parse(run(script, [root, pipeline, JSON.stringify(tables)])) as Record<
    string,
    { rows: number; columns: Array<[string, string]> }
  >;
}

/**
 * The rows of the named files (a manifest's: local paths, or `bucket/key` with `s3`) as one pyarrow dataset (no
 * partition discovery), with the given columns as Python values made JSON (str() for what JSON has no type for).
 */
export function readFilesWithPyarrow(
  files: string[],
  columns: string[],
  opts: { s3?: S3Access } = {},
): { schema: Array<[string, string]>; rows: Array<Record<string, unknown>> } {
  const script = `
import json, sys
import pyarrow.dataset as ds, pyarrow.fs as pafs
files, columns, s3 = json.loads(sys.argv[1]), json.loads(sys.argv[2]), json.loads(sys.argv[3])
if s3:
    scheme = "https" if s3["endpoint"].startswith("https") else "http"
    fs = pafs.S3FileSystem(access_key=s3["accessKeyId"], secret_key=s3["secretAccessKey"], region=s3["region"],
                           endpoint_override=s3["endpoint"].split("://", 1)[1], scheme=scheme)
else:
    fs = pafs.LocalFileSystem()
t = ds.dataset(files, filesystem=fs, format="parquet").to_table()
rows = t.select(columns).to_pylist()
json.dump({"schema": [[f.name, str(f.type)] for f in t.schema], "rows": rows}, sys.stdout, default=str)
`;
  return JSON.parse(run(script, [JSON.stringify(files), JSON.stringify(columns), JSON.stringify(opts.s3 ?? null)])) as {
    schema: Array<[string, string]>;
    rows: Array<Record<string, unknown>>;
  };
}
