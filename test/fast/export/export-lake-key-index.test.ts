// The lake's key index (export/targets/lake-changes.ts) holds each key column with the type the lake's files give it,
// read by pyarrow: INT64 shop and item ids, whether the key column is in the file or in the path (partition_by
// shop_id). A run's kinds are exact against it, and against an index an earlier version wrote with every key as
// text (rewritten here by pyarrow), after which the index is typed again.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../destinations/open.js';
import type { Database } from '../../../destinations/contract.js';
import { exportToLake, type LakeManifest } from '../../../export/targets/lake.js';
import { readFilesWithPyarrow } from '../../support/lake-readers.js';
import { pythonReadersEnv, readParquetWithPyarrow } from '../../support/python-readers.js';
import { loadMarketplaceProduct } from '../../support/lake-fixtures.js';

let dir: string;
let db: Database;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-lake-key-index-'));
  db = await openDatabase(`sqlite:${join(dir, 'db.sqlite')}`);
});
afterAll(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

const ITEM = 9_200_000_000_000;

/** Loads product `i` of shop 7 + i % 2; another `seed` gives the same product other values. */
async function loadProduct(i: number, seed: number, request: string): Promise<void> {
  await loadMarketplaceProduct(db, { pipeline: 'k', itemId: ITEM + i, shopId: 7 + (i % 2), requestKey: request, seed });
}

const lake = () => join(dir, 'lake');
const run = (id: string, day: string) =>
  exportToLake(db, {
    to: lake(),
    pipeline: 'k',
    format: 'parquet',
    tables: ['marketplace_products'],
    partitionBy: ['shop_id'],
    runId: id,
    timestamp: new Date(`${day}T10:00:00Z`),
  });

async function manifestOf(runId: string): Promise<LakeManifest> {
  return JSON.parse(
    await readFile(join(lake(), 'k', 'marketplace_products', '_manifests', `${runId}.json`), 'utf8'),
  ) as LakeManifest;
}

/** The change files of a run, read by pyarrow with the shop id from the path: "shop|item" -> change kind. */
function kindsOf(m: LakeManifest): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of m.files) {
    const read = readFilesWithPyarrow([join(lake(), f.key)], ['item_id', '_change_kind']);
    for (const r of read.rows) out[`${f.partition['shop_id']}|${String(r['item_id'])}`] = r['_change_kind'];
  }
  return out;
}

/** The index a manifest names, as pyarrow reads it: its schema and its keys sorted. */
function indexOf(m: LakeManifest): { schema: Array<[string, string]>; keys: string[] } {
  const read = readParquetWithPyarrow(join(lake(), m.keys!));
  const text = (v: unknown) => (typeof v === 'object' && v !== null && 'int' in v ? String(v.int) : String(v));
  return {
    schema: read.schema,
    keys: read.rows.map((r) => `${text(r['shop_id'])}|${text(r['item_id'])}`).sort(),
  };
}

const key = (i: number) => `${7 + (i % 2)}|${ITEM + i}`;

describe('the key index of a lake', () => {
  it('is typed as the files are, with a key column in the path too, and marks kinds exactly', async () => {
    await loadProduct(0, 42, 'a0');
    await loadProduct(1, 42, 'a1');
    await run('k--run-1', '2026-11-01');
    const m1 = await manifestOf('k--run-1');
    expect(kindsOf(m1)).toEqual({ [key(0)]: 'insert', [key(1)]: 'insert' });
    expect(indexOf(m1)).toEqual({
      schema: [
        ['shop_id', 'int64'],
        ['item_id', 'int64'],
      ],
      keys: [key(0), key(1)].sort(),
    });

    await loadProduct(0, 43, 'b0');
    await loadProduct(2, 42, 'b2');
    await run('k--run-2', '2026-11-02');
    const m2 = await manifestOf('k--run-2');
    expect(m2.change_kinds).toEqual({ insert: 1, update: 1 });
    expect(kindsOf(m2)).toEqual({ [key(0)]: 'update', [key(2)]: 'insert' });
    expect(indexOf(m2).keys).toEqual([key(0), key(1), key(2)].sort());
  });

  it('reads an index an earlier version wrote as text, and writes the next one typed', async () => {
    const m2 = await manifestOf('k--run-2');
    // The index as the earlier version wrote it: every key column cast to text.
    execFileSync(
      'python3',
      [
        '-c',
        `import sys, pyarrow as pa, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
pq.write_table(t.cast(pa.schema([(f.name, pa.string()) for f in t.schema])), sys.argv[1])`,
        join(lake(), m2.keys!),
      ],
      { env: pythonReadersEnv() },
    );
    expect(indexOf(m2).schema).toEqual([
      ['shop_id', 'string'],
      ['item_id', 'string'],
    ]);

    await loadProduct(1, 44, 'c1');
    await loadProduct(3, 42, 'c3');
    await run('k--run-3', '2026-11-03');
    const m3 = await manifestOf('k--run-3');
    expect(m3.change_kinds).toEqual({ insert: 1, update: 1 });
    expect(kindsOf(m3)).toEqual({ [key(1)]: 'update', [key(3)]: 'insert' });
    expect(indexOf(m3)).toEqual({
      schema: [
        ['shop_id', 'int64'],
        ['item_id', 'int64'],
      ],
      keys: [key(0), key(1), key(2), key(3)].sort(),
    });
  });
});
