// An independent reader of the lake's Iceberg tables: pyiceberg (Apache Iceberg's Python implementation) loads each
// table through the REST catalog, as an engine does, plans its scan from the snapshots, manifest lists and manifests
// the writer committed, and reads the files with pyarrow. It shares no code with the writer (export/targets/iceberg/).
import { execFileSync } from 'node:child_process';
import { pythonReadersEnv } from './python-readers.js';
import type { S3Server } from './s3-server.js';

export interface IcebergTableRead {
  rows: number;
  /** The table's current schema: field id, name and Iceberg type. */
  schema: Array<[number, string, string]>;
  /** Every schema the table has had (its evolution). */
  schemaCount: number;
  /** The Arrow schema of the scan. */
  arrow: Array<[string, string]>;
  /** Each snapshot, oldest first: its operation, run and table summary properties, and the rows it added. */
  snapshots: Array<{
    id: string;
    parent: string | null;
    operation: string;
    run: string | null;
    table: string | null;
    added: string | null;
    /** The snapshot's manifest list and the manifests it names, as the catalog has them. */
    manifestList: string;
    manifests: string[];
  }>;
  /** The scan's rows keyed by the asked columns, joined with '|': to count duplicates. */
  keys: string[];
  /** Rows per value of `load_id` in the scan. */
  loadIds: Record<string, number>;
}

/** Every table of `namespace` read through the catalog; `keyColumns` per table name. */
export function readIcebergWithPyiceberg(
  s3: S3Server,
  warehouse: string,
  namespace: string,
  keyColumns: Record<string, string[]>,
): Record<string, IcebergTableRead> {
  const script = `
import json, sys
from pyiceberg.catalog import load_catalog
s3, warehouse, namespace, keycols = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
cat = load_catalog("rest", **{
    "type": "rest", "uri": s3["icebergCatalog"], "warehouse": warehouse,
    "credential": s3["accessKeyId"] + ":" + s3["secretAccessKey"],
    "s3.endpoint": s3["endpoint"], "s3.access-key-id": s3["accessKeyId"], "s3.secret-access-key": s3["secretAccessKey"],
    "s3.region": s3["region"], "s3.path-style-access": "true",
})
out = {}
for ident in cat.list_tables((namespace,)):
    t = cat.load_table(ident)
    a = t.scan().to_arrow()
    name = ident[-1]
    cols = keycols.get(name, [])
    keys = ["|".join(str(v) for v in row) for row in zip(*[a.column(c).to_pylist() for c in cols])] if cols else []
    load_ids = {}
    if "load_id" in a.column_names:
        for v in a.column("load_id").to_pylist():
            load_ids[str(v)] = load_ids.get(str(v), 0) + 1
    snaps = sorted(t.metadata.snapshots, key=lambda s: s.sequence_number)
    out[name] = {
        "rows": a.num_rows,
        "schema": [[f.field_id, f.name, str(f.field_type)] for f in t.schema().fields],
        "schemaCount": len(t.metadata.schemas),
        "arrow": [[f.name, str(f.type)] for f in a.schema],
        "snapshots": [{"id": str(s.snapshot_id), "parent": None if s.parent_snapshot_id is None else str(s.parent_snapshot_id), "operation": str(s.summary.operation.value) if s.summary else "",
                       "run": s.summary.get("scrape-etl.run") if s.summary else None,
                       "table": s.summary.get("scrape-etl.table") if s.summary else None,
                       "added": s.summary.get("added-records") if s.summary else None,
                       "manifestList": s.manifest_list,
                       "manifests": [m.manifest_path for m in s.manifests(t.io)]} for s in snaps],
        "keys": keys,
        "loadIds": load_ids,
    }
json.dump(out, sys.stdout)
`;
  const text = execFileSync(
    'python3',
    ['-c', script, JSON.stringify({ ...s3, process: undefined }), warehouse, namespace, JSON.stringify(keyColumns)],
    { env: pythonReadersEnv(), encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  return JSON.parse(text) as Record<string, IcebergTableRead>;
}
