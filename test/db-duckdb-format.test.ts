// The on-disk format of a DuckDB destination (db/duckdb/database.ts, ddl.ts): a new file is written in DuckDB's
// v1.2 storage format with 64 KB blocks, so the raw response bodies are stored compressed (ZSTD) and the keys take
// small blocks; a file made earlier (DuckDB's default format, every index of the model) keeps its format, loses the
// indexes DuckDB never reads (schema step 5) and loads as before. Every value is read back by Python's duckdb
// package (an independent reader) and compared with what was loaded: the bodies byte for byte.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../client/json.js';
import { marketplaceResponseSchema } from '../client/schemas.js';
import { openDatabase } from '../db/connect.js';
import { SCHEMA_VERSION_TABLE, tableDdl } from '../db/duckdb/ddl.js';
import { loadBatch, loadBatches } from '../db/load.js';
import { TABLES, type AnyTableDef } from '../db/schema/definition.js';
import { generateProduct } from '../simulator/generate/marketplace.js';
import { PY_READERS_DIR } from './support/python-readers.js';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'db-duckdb-format-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const product = (i: number) => {
  const raw = stringifyJson(generateProduct(7, { url: `https://shop.example.tw/p?itemid=${2_000_000 + i}&shopid=${600 + (i % 5)}`, itemId: 2_000_000 + i, shopId: 600 + (i % 5) }));
  return { pipeline: 'fmt', kind: 'marketplace' as const, endpoint: 'POST /api/marketplace/sync', requestKey: `u${i}`, raw, data: marketplaceResponseSchema.parse(parseJson(raw)) };
};

/** Runs a Python script with Python's duckdb package (installed into the readers' cache on first use). */
function python(script: string, args: string[]): string {
  const env = { ...process.env, PYTHONPATH: PY_READERS_DIR, PYTHONDONTWRITEBYTECODE: '1' };
  try {
    execFileSync('python3', ['-c', 'import duckdb'], { env, stdio: 'ignore' });
  } catch {
    execFileSync('python3', ['-m', 'pip', 'install', '--quiet', '--target', PY_READERS_DIR, 'duckdb'], { stdio: 'inherit' });
  }
  return execFileSync('python3', ['-c', script, ...args], { env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

/** What Python's duckdb sees in the file: format, block size, body storage, indexes and a digest of each table. */
const READ = `
import duckdb, hashlib, json, sys
con = duckdb.connect(sys.argv[1], read_only=True)
q = lambda sql: con.execute(sql).fetchall()
one = lambda sql: q(sql)[0][0]
db = one("select current_database()")
out = {
  "format": one(f"select tags['storage_version'] from duckdb_databases() where database_name = '{db}'"),
  "block_size": one("select block_size from pragma_database_size()"),
  "body_compression": sorted({r[0] for r in q("select compression from pragma_storage_info('raw_responses') where column_name = 'body'")}),
  "indexes": sorted(r[0] for r in q("select index_name from duckdb_indexes() where table_name = 'marketplace_products' or table_name = 'raw_responses'")),
  "bodies": {r[0]: hashlib.sha256(r[1].encode('utf-8')).hexdigest() for r in q("select request_key, coalesce((select s.body from raw_responses s where s.id = r.body_ref), r.body) from raw_responses r")},
  "sha_matches": one("select count(*) from raw_responses where body_ref is null and sha256(body) = body_sha256"),
  "tables": {},
}
for (t,) in q("select table_name from duckdb_tables() where table_name like 'marketplace_%' order by 1"):
    cols = [c for (c,) in q(f"select column_name from duckdb_columns() where table_name = '{t}' and column_name not in ('load_id', 'loaded_at') order by column_index")]
    rows = q(f'select {", ".join(chr(34) + c + chr(34) for c in cols)} from "{t}"')
    out["tables"][t] = [len(rows), hashlib.sha256(repr(sorted(map(repr, rows))).encode()).hexdigest()]
print(json.dumps(out))
`;

interface Read {
  format: string;
  block_size: number;
  body_compression: string[];
  indexes: string[];
  bodies: Record<string, string>;
  sha_matches: number;
  tables: Record<string, [number, string]>;
}

const readWithPython = (file: string) => JSON.parse(python(READ, [file])) as Read;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('DuckDB destination file format', () => {
  it('a new file is in the v1.2 format with 64 KB blocks, bodies compressed, no multi-column non-unique index; Python reads back every body exactly', async () => {
    const file = path.join(dir, 'new.duckdb');
    const db = await openDatabase(`duckdb:${file}`);
    const list = Array.from({ length: 12 }, (_, i) => product(i));
    const out = await loadBatches(db, [...list, product(0)]); // product 0 again: its body is stored once
    expect(out.failed).toBeUndefined();
    await db.close();
    const read = readWithPython(file);
    expect(read.format).toBe('v1.2.0+');
    expect(read.block_size).toBe(65536);
    expect(read.body_compression).toContain('ZSTD');
    expect(read.body_compression).not.toContain('Uncompressed');
    expect(read.indexes).toEqual(['raw_responses_body_sha256_idx']);
    expect(read.bodies).toEqual(Object.fromEntries(list.map((p) => [p.requestKey, sha256(p.raw)])));
    expect(read.sha_matches).toBe(12);
    expect(read.tables['marketplace_products']![0]).toBe(12);
  }, 120_000);

  it('a file in the earlier format keeps it, loses the indexes DuckDB never reads, and loads the same rows as a new file', async () => {
    const old = path.join(dir, 'old.duckdb');
    // The file as version 4 made it: DuckDB's default format and block size, and every index of the model.
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(old);
    const conn = await instance.connect();
    await conn.run(`CREATE TABLE ${SCHEMA_VERSION_TABLE} (version integer PRIMARY KEY, applied_at timestamp with time zone NOT NULL)`);
    for (const [name, def] of Object.entries(TABLES)) {
      for (const sql of tableDdl(name, { ...(def as AnyTableDef), indexes: [] })) await conn.run(sql);
      for (const i of (def as AnyTableDef).indexes ?? []) await conn.run(`CREATE ${i.unique ? 'UNIQUE ' : ''}INDEX "${i.name}" ON "${name}" (${i.columns.map((c) => `"${c}"`).join(', ')})`);
    }
    await conn.run(`INSERT INTO ${SCHEMA_VERSION_TABLE} VALUES (4, now())`);
    conn.closeSync();
    instance.closeSync();

    const list = Array.from({ length: 6 }, (_, i) => product(i));
    const db = await openDatabase(`duckdb:${old}`);
    for (const p of list.slice(0, 3)) await loadBatch(db, p); // one transaction each
    expect((await loadBatches(db, list.slice(3))).failed).toBeUndefined(); // a group
    await db.close();
    const fresh = await openDatabase(`duckdb:${path.join(dir, 'fresh.duckdb')}`);
    for (const p of list.slice(0, 3)) await loadBatch(fresh, p);
    expect((await loadBatches(fresh, list.slice(3))).failed).toBeUndefined();
    await fresh.close();

    const [a, b] = [readWithPython(old), readWithPython(path.join(dir, 'fresh.duckdb'))];
    expect(a.format).toBe('v1.0.0+');
    expect(a.block_size).toBe(262144);
    expect(a.indexes).toEqual(['raw_responses_body_sha256_idx']);
    expect(a.bodies).toEqual(Object.fromEntries(list.map((p) => [p.requestKey, sha256(p.raw)])));
    // Same rows in every marketplace table (lineage columns aside: load times differ), whatever the format.
    expect(a.tables).toEqual(b.tables);
    expect(Object.keys(a.tables).length).toBeGreaterThan(8);
  }, 120_000);
});
