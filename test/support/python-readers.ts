// Independent readers for the typed export formats: Python's pyarrow (Parquet), json (JSON Lines) and openpyxl
// (XLSX). They are installed from PyPI into a cache outside the repository, the same way .ci/run does, and put on
// PYTHONPATH only for these child processes. Values travel back as JSON in which every integer is a string, so
// JavaScript's JSON.parse cannot round what Python read exactly.
import { execFileSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const PY_READERS_DIR = join(
  process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'),
  'scrape-etl',
  'py-readers',
);
// pyiceberg reads the lake's Iceberg tables through their REST catalog (test/support/iceberg-readers.ts).
const REQUIREMENTS = ['pyarrow', 'openpyxl', 'jsonschema', 'duckdb', 'pyiceberg'];

let installed = false;

/** The environment in which python3 finds the readers, installing them into the cache on first use. */
export function pythonReadersEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env, PYTHONPATH: PY_READERS_DIR, PYTHONDONTWRITEBYTECODE: '1' };
  if (!installed) {
    try {
      execFileSync('python3', ['-c', `import ${REQUIREMENTS.join(', ')}`], { env, stdio: 'ignore' });
    } catch {
      // The same command as .ci/run: a developer running one test file needs no separate setup step.
      execFileSync('python3', ['-m', 'pip', 'install', '--quiet', '--target', PY_READERS_DIR, ...REQUIREMENTS], {
        stdio: 'inherit',
      });
    }
    installed = true;
  }
  return env;
}

function python(script: string, args: string[]): string {
  return execFileSync('python3', ['-c', script, ...args], {
    env: pythonReadersEnv(),
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
  });
}

// Python values as JSON: ints as {"int": "<digits>"}, datetimes as {"datetime": iso, "tz": name or null}.
const ENCODE = `
import datetime, json, math
def enc(v):
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int):
        return {"int": str(v)}
    if isinstance(v, float):
        return {"float": repr(v)}
    if isinstance(v, datetime.datetime):
        return {"datetime": v.isoformat(), "tz": None if v.tzinfo is None else str(v.tzinfo)}
    if isinstance(v, (bytes, bytearray)):
        return {"bytes": bytes(v).hex()}
    if isinstance(v, dict):
        return {"object": {k: enc(x) for k, x in v.items()}}
    if isinstance(v, list):
        return {"list": [enc(x) for x in v]}
    raise TypeError(type(v))
`;

export type PyValue =
  | null
  | boolean
  | string
  | { int: string }
  | { float: string }
  | { datetime: string; tz: string | null }
  | { bytes: string }
  | { object: Record<string, PyValue> }
  | { list: PyValue[] };

export interface ParquetRead {
  /** Column name and pyarrow type, e.g. ['id', 'int64'], ['loaded_at', 'timestamp[us, tz=UTC]']. */
  schema: Array<[string, string]>;
  rowGroups: number;
  compression: string;
  rows: Array<Record<string, PyValue>>;
}

/** The file as pyarrow reads it: its Arrow schema, row groups, codec and every row. */
export function readParquetWithPyarrow(file: string): ParquetRead {
  const script = `${ENCODE}
import sys, pyarrow.parquet as pq
f = pq.ParquetFile(sys.argv[1])
t = f.read()
md = f.metadata
out = {
  "schema": [[fl.name, str(fl.type)] for fl in t.schema],
  "rowGroups": md.num_row_groups,
  "compression": md.row_group(0).column(0).compression if md.num_row_groups else "",
  "rows": [{k: enc(v) for k, v in r.items()} for r in t.to_pylist()],
}
json.dump(out, sys.stdout)
`;
  return JSON.parse(python(script, [file])) as ParquetRead;
}

/** Row count and row groups only, for files too big to compare row by row. */
export function parquetShape(file: string): { rows: number; rowGroups: number; lastId: string } {
  const script = `
import sys, json, pyarrow.parquet as pq
f = pq.ParquetFile(sys.argv[1])
ids = f.read(columns=["id"]).column("id")
json.dump({"rows": f.metadata.num_rows, "rowGroups": f.metadata.num_row_groups, "lastId": str(ids[len(ids) - 1].as_py())}, sys.stdout)
`;
  return JSON.parse(python(script, [file])) as { rows: number; rowGroups: number; lastId: string };
}

/** Every line parsed by Python's json module (strict: a line that is not one JSON object fails). */
export function readJsonlWithPython(file: string): Array<Record<string, PyValue>> {
  const script = `${ENCODE}
import sys
rows = []
with open(sys.argv[1], encoding="utf-8") as f:
    data = f.read()
assert data.endswith("\\n"), "file does not end with a line break"
for n, line in enumerate(data.split("\\n")[:-1]):
    obj = json.loads(line)
    assert isinstance(obj, dict), f"line {n + 1} is not an object"
    rows.append({k: enc(v) for k, v in obj.items()})
json.dump(rows, sys.stdout)
`;
  return JSON.parse(python(script, [file])) as Array<Record<string, PyValue>>;
}

export interface XlsxCell {
  /** openpyxl's data type: n number, s string, b boolean, d date. */
  t: string;
  v: PyValue;
}

export interface XlsxSheet {
  title: string;
  headerBold: boolean;
  frozen: string | null;
  header: string[];
  rows: XlsxCell[][];
  maxRow: number;
}

/** The workbook as openpyxl reads it; `rowsPerSheet` limits how many data rows of each sheet come back. */
export function readXlsxWithOpenpyxl(file: string, rowsPerSheet = 1_000_000_000, lastRows = 0): XlsxSheet[] {
  const script = `${ENCODE}
import sys, openpyxl
limit, last = int(sys.argv[2]), int(sys.argv[3])
wb = openpyxl.load_workbook(sys.argv[1], read_only=True)
out = []
for ws in wb.worksheets:
    it = ws.iter_rows()
    header = next(it)
    rows, tail, count = [], [], 0
    for r in it:
        count += 1
        cells = [{"t": c.data_type, "v": enc(c.value)} for c in r]
        if len(rows) < limit:
            rows.append(cells)
        elif last:
            tail = (tail + [cells])[-last:]
    out.append({"title": ws.title, "headerBold": all(c.font.b for c in header), "frozen": None,
                "header": [c.value for c in header], "rows": rows + tail, "maxRow": count + 1})
wb.close()
# Frozen panes are not exposed in read-only mode; read the views of the first sheet normally when small.
if out and out[0]["maxRow"] < 100000:
    full = openpyxl.load_workbook(sys.argv[1])
    for o, ws in zip(out, full.worksheets):
        o["frozen"] = ws.freeze_panes
json.dump(out, sys.stdout)
`;
  return JSON.parse(python(script, [file, String(rowsPerSheet), String(lastRows)])) as XlsxSheet[];
}
