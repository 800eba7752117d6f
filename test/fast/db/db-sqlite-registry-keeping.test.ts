// An SQLite connection keeps its reads of schema_history (the registry of inferred columns) between transactions
// (db/store/evolve/registry.ts readRegistryStateKept), using one while the version read in the current transaction
// (destinations/sqlite/tx.ts registryVersion) is unchanged. Other processes write the same file, and a transaction
// may be rolled back after it changed the registry: what is kept must never outlive either. Each case loads real
// marketplace responses into a real SQLite file through db/store/load.ts, the path the URL-list activity takes, with a
// second connection (to SQLite as good as another process) changing the registry between two loads of the first.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../../lib/json.js';
import { marketplaceResponseSchema } from '../../../client/schemas.js';
import { openDatabase, type Database, type SqliteDatabase } from '../../../destinations/open.js';
import { evolveFixedTables } from '../../../db/store/evolve/fixed-tables.js';
import { OPEN_FIELDS, type RowsByTable } from '../../../db/model/flatten/values.js';
import { loadBatch, loadBatches } from '../../../db/store/load.js';
import { withTransaction } from '../../../db/store/sql.js';
import { generateProduct } from '../../../simulator/generate/marketplace.js';

let dir: string;
let first: SqliteDatabase;
let second: SqliteDatabase;

const sqliteOf = (db: Database): SqliteDatabase => {
  if (db.dialect !== 'sqlite') throw new Error('expected SQLite');
  return db;
};

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-registry-keeping-'));
  const file = path.join(dir, 'r.sqlite');
  first = sqliteOf(await openDatabase(`sqlite:${file}`));
  second = sqliteOf(await openDatabase(`sqlite:${file}`));
});
afterEach(async () => {
  await first?.close();
  await second?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A generated marketplace response for item `i`, with `extra` added to its item (unknown fields: inferred columns). */
function response(i: number, extra: Record<string, unknown> = {}) {
  const doc = generateProduct(7, {
    url: `https://shop.example.tw/api/v4/pdp/get_pc?itemid=${i}&shopid=9`,
    itemId: i,
    shopId: 9,
  }) as {
    data: { data: { item: Record<string, unknown> } };
  };
  Object.assign(doc.data.data.item, extra);
  const raw = stringifyJson(doc);
  return {
    pipeline: 'p',
    kind: 'marketplace' as const,
    endpoint: 'POST /api/marketplace/sync',
    requestKey: `u${i}`,
    raw,
    data: marketplaceResponseSchema.parse(parseJson(raw)),
  };
}

const productColumns = (db: SqliteDatabase) =>
  db.sqlite.prepare(`SELECT name FROM pragma_table_info('marketplace_products')`).pluck().all() as string[];
const recorded = (db: SqliteDatabase, column: string) =>
  db.sqlite
    .prepare(`SELECT load_id FROM schema_history WHERE table_name = 'marketplace_products' AND column_name = ?`)
    .pluck()
    .safeIntegers(false)
    .all(column) as number[];
const valueOf = (db: SqliteDatabase, item: number, column: string) =>
  db.sqlite
    .prepare(`SELECT "${column}" AS v FROM marketplace_products WHERE pipeline = 'p' AND item_id = ?`)
    .pluck()
    .safeIntegers(false)
    .get(item);

describe('SQLite: registry reads kept per connection', () => {
  it('a column another connection added between two loads is seen by the next load', async () => {
    await loadBatch(first, response(1)); // the registry of the marketplace tables is read and kept
    const added = await loadBatch(second, response(2, { kept_probe_a: 'from the second connection' }));
    expect(added.schemaChanges.map((c) => c.column)).toEqual(['kept_probe_a']);
    // A kept read would plan the column again: ALTER TABLE fails (duplicate column) and the load with it.
    const next = await loadBatch(first, response(3, { kept_probe_a: 'from the first' }));
    expect(next.schemaChanges).toEqual([]);
    expect(valueOf(first, 3, 'kept_probe_a')).toBe('from the first');
    expect(recorded(first, 'kept_probe_a')).toEqual([added.loadId]);
    // And in a group (savepoints of one transaction), the path of SCRAPE_ETL_URL_LOAD_GROUP.
    await loadBatch(second, response(4, { kept_probe_b: 1 }));
    const group = await loadBatches(first, [response(5, { kept_probe_b: 2 }), response(6)]);
    expect(group.failed).toBeUndefined();
    expect(valueOf(first, 5, 'kept_probe_b')).toBe(2);
  });

  it('a column whose adding was rolled back is added by the next load', async () => {
    await loadBatch(first, response(1));
    // The load adds the column (ALTER TABLE, schema_history), then fails: all of it is rolled back.
    const failing = {
      ...response(2, { kept_probe_c: 'x' }),
      onTableWritten: () => {
        throw new Error('undone');
      },
    };
    await expect(loadBatch(first, failing)).rejects.toThrow('undone');
    expect(productColumns(first)).not.toContain('kept_probe_c');
    // A kept read holding the rolled back column would skip the ALTER and the INSERT would name a missing column.
    const next = await loadBatch(first, response(3, { kept_probe_c: 'y' }));
    expect(next.schemaChanges.map((c) => c.column)).toEqual(['kept_probe_c']);
    expect(valueOf(first, 3, 'kept_probe_c')).toBe('y');
  });

  it('a rolled back transaction that read the registry after changing it leaves nothing kept', async () => {
    const rowWith = (column: string): RowsByTable => ({
      marketplace_products: [{ shop_id: 9, item_id: 1, [OPEN_FIELDS]: [[column, 'v', JSON.stringify([column])]] }],
    });
    const evolve = (db: SqliteDatabase, column: string) =>
      withTransaction(db, (tx) =>
        evolveFixedTables(tx, 'p', rowWith(column), 'evolve', 'test', 1, '2026-11-26T00:00:00Z'),
      );
    await evolve(first, 'kept_probe_base');
    // Adds X, reads the registry again in the same transaction (X uncommitted), then rolls back.
    await expect(
      withTransaction(first, async (tx) => {
        await evolveFixedTables(tx, 'p', rowWith('kept_probe_x'), 'evolve', 'test', 2, '2026-11-26T00:00:00Z');
        await evolveFixedTables(tx, 'p', rowWith('kept_probe_x'), 'evolve', 'test', 2, '2026-11-26T00:00:00Z');
        throw new Error('undone');
      }),
    ).rejects.toThrow('undone');
    // The other connection adds Y: schema_version, row count and max rowid are then what they were inside the
    // rolled back transaction, so a read kept from it would pass for current, with X and without Y.
    await evolve(second, 'kept_probe_y');
    const out = await evolve(first, 'kept_probe_y');
    expect(out.changes).toEqual([]);
    expect(out.inferred.get('marketplace_products')?.columns).toContain('kept_probe_y');
    expect(out.inferred.get('marketplace_products')?.columns).not.toContain('kept_probe_x');
  });
});
