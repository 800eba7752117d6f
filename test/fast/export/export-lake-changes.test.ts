// The lake's change kinds and compacted snapshots on a local folder (export/targets/lake-changes.ts and
// lake-snapshot.ts), read back by pyarrow: a product first exported is an `insert`, the same product changed and
// exported by a later run an `update`; the snapshot's manifest names one complete generation holding each product
// once with its current values, the previous generation kept one run longer and older ones deleted; a lake whose
// earlier runs left no key index gets NULL kinds once and exact kinds after.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../destinations/open.js';
import type { Database } from '../../../destinations/contract.js';
import { exportToLake, type LakeManifest } from '../../../export/targets/lake.js';
import type { SnapshotManifest } from '../../../export/targets/lake-snapshot.js';
import { readFilesWithPyarrow } from '../../support/lake-readers.js';
import { filesUnder, loadMarketplaceProduct } from '../../support/lake-fixtures.js';

let dir: string;
let db: Database;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-lake-changes-'));
  db = await openDatabase(`sqlite:${join(dir, 'db.sqlite')}`);
});
afterAll(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

const ITEM = 9_100_000_000_000;

/** Loads product `i`; another `seed` gives the same product other values (a price change, other counts). */
async function loadProduct(i: number, seed: number, request: string): Promise<void> {
  await loadMarketplaceProduct(db, { pipeline: 'c', itemId: ITEM + i, shopId: 7, requestKey: request, seed });
}

function destinationProducts(): Array<{ item_id: number; price: number | null; load_id: number }> {
  if (db.dialect !== 'sqlite') throw new Error('sqlite only');
  return db.sqlite
    .prepare(`select item_id, price, load_id from marketplace_products where pipeline = 'c' order by item_id`)
    .all() as Array<{ item_id: number; price: number | null; load_id: number }>;
}

async function manifestOf(lake: string, table: string, run: string): Promise<LakeManifest> {
  return JSON.parse(await readFile(join(lake, 'c', table, '_manifests', `${run}.json`), 'utf8')) as LakeManifest;
}

async function snapshotOf(lake: string, table: string): Promise<SnapshotManifest> {
  return JSON.parse(await readFile(join(lake, 'c', '_snapshot', table, 'manifest.json'), 'utf8')) as SnapshotManifest;
}

/** The change files of one run's manifest, read by pyarrow: item id -> change kind. */
function kindsOf(lake: string, m: LakeManifest): Record<string, unknown> {
  const read = readFilesWithPyarrow(
    m.files.map((f) => join(lake, f.key)),
    ['item_id', '_change_kind'],
  );
  return Object.fromEntries(read.rows.map((r) => [String(r['item_id']), r['_change_kind']]));
}

describe('change kinds and the compacted snapshot on a local folder', () => {
  const lake = () => join(dir, 'lake');
  const run = (id: string, day: string) =>
    exportToLake(db, {
      to: lake(),
      pipeline: 'c',
      format: 'parquet',
      tables: ['marketplace_products', 'marketplace_price_history'],
      snapshot: true,
      runId: id,
      timestamp: new Date(`${day}T10:00:00Z`),
    });

  it('marks first exports insert, a changed product update, and keeps one current snapshot', async () => {
    await loadProduct(0, 42, 'a0');
    await loadProduct(1, 42, 'a1');
    await run('c--run-1', '2026-11-01');
    const m1 = await manifestOf(lake(), 'marketplace_products', 'c--run-1');
    expect(m1.change_kinds).toEqual({ insert: 2, update: 0 });
    expect(m1.schema.at(-1)).toEqual({ name: '_change_kind', type: 'text' });
    expect(kindsOf(lake(), m1)).toEqual({ [ITEM]: 'insert', [ITEM + 1]: 'insert' });
    expect(m1.keys).toBe('c/_keys/marketplace_products/c--run-1.keys');

    // Product 0 changes (other values), product 2 is new, product 1 stays as it was.
    await loadProduct(0, 43, 'b0');
    await loadProduct(2, 42, 'b2');
    await run('c--run-2', '2026-11-02');
    const m2 = await manifestOf(lake(), 'marketplace_products', 'c--run-2');
    expect(m2.change_kinds).toEqual({ insert: 1, update: 1 });
    expect(kindsOf(lake(), m2)).toEqual({ [ITEM]: 'update', [ITEM + 2]: 'insert' });
    // pyarrow sees the column as a string beside the table's own columns.
    const schema = Object.fromEntries(
      readFilesWithPyarrow(
        m2.files.map((f) => join(lake(), f.key)),
        ['item_id'],
      ).schema,
    );
    expect(schema).toMatchObject({ _change_kind: 'string', item_id: 'int64', label_ids: 'list<element: int64>' });
    // An append-only table (no natural key) has inserts only.
    const history = await manifestOf(lake(), 'marketplace_price_history', 'c--run-2');
    expect(history.change_kinds).toMatchObject({ update: 0 });
    expect(history.keys).toBeUndefined();

    // The snapshot: every product once, with its current values (the destination's), none of _change_kind.
    const snap = await snapshotOf(lake(), 'marketplace_products');
    expect({ run: snap.run, rows: snap.rows }).toEqual({ run: 'c--run-2', rows: 3 });
    expect(m2.snapshot).toBe('c/_snapshot/marketplace_products/manifest.json');
    const read = readFilesWithPyarrow(
      snap.files.map((f) => join(lake(), f.key)),
      ['item_id', 'price', 'load_id'],
    );
    expect(read.schema.map(([n]) => n)).not.toContain('_change_kind');
    expect(read.rows.sort((a, b) => Number(a['item_id']) - Number(b['item_id']))).toEqual(destinationProducts());
    for (const f of snap.files) expect(f.key.startsWith('c/_snapshot/marketplace_products/c--run-2/')).toBe(true);
    // The previous generation stays for a reader of the previous manifest; the key index of run 1 is gone.
    const files = await filesUnder(lake());
    expect(files.filter((f) => f.startsWith('c/_snapshot/marketplace_products/c--run-1/')).length).toBeGreaterThan(0);
    expect(files.filter((f) => f.startsWith('c/_keys/marketplace_products/'))).toEqual([
      'c/_keys/marketplace_products/c--run-2.keys',
    ]);

    // A third run that changes product 1: run 1's generation is deleted, run 2's kept, run 3's named.
    await loadProduct(1, 44, 'c1');
    await run('c--run-3', '2026-11-03');
    const m3 = await manifestOf(lake(), 'marketplace_products', 'c--run-3');
    expect(kindsOf(lake(), m3)).toEqual({ [ITEM + 1]: 'update' });
    const after = await filesUnder(lake());
    expect(after.filter((f) => f.startsWith('c/_snapshot/marketplace_products/c--run-1/'))).toEqual([]);
    expect(after.filter((f) => f.startsWith('c/_snapshot/marketplace_products/c--run-2/')).length).toBeGreaterThan(0);
    const snap3 = await snapshotOf(lake(), 'marketplace_products');
    expect(snap3.run).toBe('c--run-3');
    const read3 = readFilesWithPyarrow(
      snap3.files.map((f) => join(lake(), f.key)),
      ['item_id', 'price', 'load_id'],
    );
    expect(read3.rows.sort((a, b) => Number(a['item_id']) - Number(b['item_id']))).toEqual(destinationProducts());
  });

  it('the same run again writes nothing new; with its key index lost, kinds are NULL once, then exact', async () => {
    const before = await filesUnder(lake());
    const again = await run('c--run-3', '2026-11-03');
    expect(again.files.map((f) => f.table)).toContain('marketplace_products');
    expect(await filesUnder(lake())).toEqual(before);

    await rm(join(lake(), 'c', '_keys'), { recursive: true });
    await loadProduct(2, 45, 'd2');
    await run('c--run-4', '2026-11-04');
    const m4 = await manifestOf(lake(), 'marketplace_products', 'c--run-4');
    expect(m4.change_kinds).toBeNull();
    expect(kindsOf(lake(), m4)).toEqual({ [ITEM + 2]: null });
    await loadProduct(0, 46, 'e0');
    await loadProduct(3, 42, 'e3');
    await run('c--run-5', '2026-11-05');
    const m5 = await manifestOf(lake(), 'marketplace_products', 'c--run-5');
    expect(kindsOf(lake(), m5)).toEqual({ [ITEM]: 'update', [ITEM + 3]: 'insert' });
  });
});
