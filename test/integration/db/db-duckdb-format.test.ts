// The on-disk format of a DuckDB destination (db/duckdb/database.ts, ddl.ts, rewrite-format.ts): a new file is
// written in DuckDB's v1.2 storage format with 64 KB blocks, so the raw response bodies are stored compressed (ZSTD)
// and the keys take small blocks; a file made earlier (DuckDB's default format, every index of the model) loses the
// indexes DuckDB never reads (schema step 5) and is rewritten once in the current format when first opened. Every value is read back by Python's duckdb
// package (an independent reader) and compared with what was loaded: the bodies byte for byte.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../../lib/json.js';
import { marketplaceResponseSchema } from '../../../client/schemas.js';
import { openDatabase } from '../../../destinations/open.js';
import { SCHEMA_VERSION_TABLE } from '../../../destinations/duckdb/ddl.js';
import { loadBatch, loadBatches } from '../../../db/store/load.js';
import { TABLES, type AnyTableDef } from '../../../db/model/schema/definition.js';
import { generateProduct } from '../../../simulator/generate/marketplace.js';
import { PY_READERS_DIR } from '../../support/python-readers.js';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'db-duckdb-format-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const product = (i: number) => {
  const raw = stringifyJson(
    generateProduct(7, {
      url: `https://shop.example.tw/p?itemid=${2_000_000 + i}&shopid=${600 + (i % 5)}`,
      itemId: 2_000_000 + i,
      shopId: 600 + (i % 5),
    }),
  );
  return {
    pipeline: 'fmt',
    kind: 'marketplace' as const,
    endpoint: 'POST /api/marketplace/sync',
    requestKey: `u${i}`,
    raw,
    data: marketplaceResponseSchema.parse(parseJson(raw)),
  };
};

/** Runs a Python script with Python's duckdb package (installed into the readers' cache on first use). */
function python(script: string, args: string[]): string {
  const env = { ...process.env, PYTHONPATH: PY_READERS_DIR, PYTHONDONTWRITEBYTECODE: '1' };
  try {
    execFileSync('python3', ['-c', 'import duckdb'], { env, stdio: 'ignore' });
  } catch {
    execFileSync('python3', ['-m', 'pip', 'install', '--quiet', '--target', PY_READERS_DIR, 'duckdb'], {
      stdio: 'inherit',
    });
  }
  return execFileSync('python3', ['-c', script, ...args], { env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

/**
 * What Python's duckdb sees in the file: format, block size, body storage, indexes and a digest of each table (its
 * rows without load_id and the wall-clock loaded_at and last_seen_at, which differ between files loaded apart).
 */
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
  "raw_ids": q("select id, request_key, body_ref from raw_responses order by id"),
  "sha_matches": one("select count(*) from raw_responses where body_ref is null and sha256(body) = body_sha256"),
  "tables": {},
}
for (t,) in q("select table_name from duckdb_tables() where table_name like 'marketplace_%' order by 1"):
    cols = [c for (c,) in q(f"select column_name from duckdb_columns() where table_name = '{t}' and column_name not in ('load_id', 'loaded_at', 'last_seen_at') order by column_index")]
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
  raw_ids: unknown[];
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

  it('a file in the earlier format is rewritten once in the current one when opened: every row, body, sequence, key and index kept; loads go on as in a new file', async () => {
    const list = Array.from({ length: 8 }, (_, i) => product(i));
    const fresh = path.join(dir, 'fresh.duckdb');
    const db = await openDatabase(`duckdb:${fresh}`);
    for (const p of list.slice(0, 3)) await loadBatch(db, p); // one transaction each
    expect((await loadBatches(db, list.slice(3, 6))).failed).toBeUndefined(); // a group
    await db.close();
    // The same file as version 4 made it: DuckDB's default format and blocks, every index of the model.
    const old = path.join(dir, 'old.duckdb');
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    await conn.run(`ATTACH '${fresh}' AS f (READ_ONLY)`);
    await conn.run(`ATTACH '${old}' AS o`);
    await conn.run('COPY FROM DATABASE f TO o');
    await conn.run('USE o');
    for (const [name, def] of Object.entries(TABLES)) {
      for (const i of (def as AnyTableDef).indexes ?? [])
        await conn.run(
          `CREATE ${i.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS "${i.name}" ON "${name}" (${i.columns.map((c) => `"${c}"`).join(', ')})`,
        );
    }
    await conn.run(`DELETE FROM ${SCHEMA_VERSION_TABLE}`);
    await conn.run(`INSERT INTO ${SCHEMA_VERSION_TABLE} VALUES (4, now())`);
    await conn.run('USE memory');
    await conn.run('DETACH o');
    conn.closeSync();
    instance.closeSync();
    fs.writeFileSync(`${old}.rewrite.tmp`, 'a copy a killed process left half written');
    const before = readWithPython(old);
    expect([before.format, before.block_size, before.indexes.length]).toEqual(['v1.0.0+', 262144, 4]);
    expect(before.tables).toEqual(readWithPython(fresh).tables);

    const said: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => (
      said.push(String(chunk)),
      write(chunk, ...rest)
    )) as typeof process.stderr.write;
    try {
      for (const file of [old, fresh]) {
        const d = await openDatabase(`duckdb:${file}`);
        await loadBatch(d, list[6]!);
        expect((await loadBatches(d, [list[7]!, list[0]!])).failed).toBeUndefined(); // product 0's body again: stored once
        await d.close();
      }
    } finally {
      process.stderr.write = write;
    }
    expect(said.filter((s) => s.includes(old))).toEqual([
      expect.stringMatching(
        /^scrape-etl: rewrote .*old\.duckdb in DuckDB's v1\.2\.0 storage format with 64 KB blocks \(once, .*\): [\d.]+ MB -> [\d.]+ MB/,
      ),
    ]);
    expect(fs.existsSync(`${old}.rewrite.tmp`)).toBe(false);
    expect(fs.existsSync(`${old}.wal`)).toBe(false);
    const [a, b] = [readWithPython(old), readWithPython(fresh)];
    expect([a.format, a.block_size, a.indexes]).toEqual(['v1.2.0+', 65536, ['raw_responses_body_sha256_idx']]);
    expect(a.body_compression).toContain('ZSTD');
    expect(a.bodies).toEqual(Object.fromEntries(list.map((p) => [p.requestKey, sha256(p.raw)])));
    expect(a.sha_matches).toBe(8);
    // Same rows in every marketplace table, price-history ids included (its sequence went on where it was); raw
    // response ids too (their sequence as well).
    expect(a.tables).toEqual(b.tables);
    expect(a.raw_ids).toEqual(b.raw_ids);
    expect(a.raw_ids.length).toBe(9);
    expect(Object.keys(a.tables).length).toBeGreaterThan(8);
  }, 180_000);
});
