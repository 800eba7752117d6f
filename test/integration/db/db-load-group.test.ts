// The group writer (db/store/load-group.ts, with the Postgres and the DuckDB statements) against the per-response loader
// it replaces for speed:
// the same responses loaded one by one into one database and as one group into another must leave identical
// tables (rows, lineage, price history, deleted children, raw landing with shared bodies) and report the same
// counts per response. The group is built to hit every rule that depends on order: a product changing twice, a
// model dropped and brought back, children vanishing, identical bodies stored earlier and within the group, ids
// beyond 2^53. A group that brings a new column goes one by one, so schema_history names the right load.
// The reference is the per-response writer itself (writeBatch, one transaction each): loadBatch into DuckDB writes a
// lone response as a group of one, so it is checked against the same reference (`alone`).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../../lib/json.js';
import { marketplaceResponseSchema } from '../../../client/schemas.js';
import { openDatabase, type Database } from '../../../destinations/open.js';
import {
  loadBatch,
  loadBatches,
  loadGroups,
  writeBatch,
  type LoadBatchesResult,
  type LoadBatchOptions,
} from '../../../db/store/load.js';
import { GroupChangesSchemaAt } from '../../../db/store/load-group.js';
import { writeGroupDuckdb } from '../../../destinations/duckdb/load-group.js';
import { writeGroupPostgres } from '../../../destinations/postgres/load-group.js';
import { prepareBatch, type LoadBatchResult, type PreparedBatch } from '../../../db/store/load-rows.js';
import { withTransaction, type Param, type Tx } from '../../../db/store/sql.js';
import { generateProduct } from '../../../simulator/generate/marketplace.js';
import { dumpDatabase } from '../../support/db-dump.js';
import { testPostgresUrl } from '../../support/postgres.js';

type Doc = { data: { data: { item: Record<string, unknown> } & Record<string, unknown> } };

/** A generated product (the simulator's own generator), edited, as a marketplace batch of pipeline `shop`. */
function product(
  itemId: number | bigint,
  edit: (item: Record<string, unknown>, root: Record<string, unknown>) => void = () => {},
): LoadBatchOptions {
  const url = `https://shop.example.tw/api/v4/pdp/get_pc?itemid=${itemId}&shopid=77`;
  const doc = parseJson(stringifyJson(generateProduct(5, { url, itemId: Number(itemId), shopId: 77 }))) as Doc;
  const item = doc.data.data.item;
  if (typeof itemId === 'bigint') item['item_id'] = itemId;
  edit(item, doc.data.data);
  const raw = stringifyJson(doc);
  return {
    pipeline: 'shop',
    kind: 'marketplace',
    endpoint: 'POST /api/marketplace/sync',
    requestKey: url,
    raw,
    data: marketplaceResponseSchema.parse(parseJson(raw)),
  };
}

const models = (item: Record<string, unknown>) => item['models'] as Array<Record<string, unknown>>;

const BASE = [product(1), product(2)];
const GROUP = [
  // Product 1: new price, first model and an attribute dropped.
  product(1, (item) => {
    item['price'] = Number(item['price']) + 100_000;
    item['models'] = models(item).slice(1);
    item['attributes'] = (item['attributes'] as unknown[]).slice(1);
  }),
  product(3),
  // Product 1 again: another price, every model back (the dropped one is inserted again).
  product(1, (item) => {
    item['price'] = Number(item['price']) + 200_000;
  }),
  BASE[1]!, // unchanged, its body already stored
  product(3), // the same body as earlier in the group
  product(9007199254740993n),
];

/** The per-response path: one transaction per response, written by writeBatch (what loadBatch was before DuckDB wrote lone responses as groups). */
const loadOne = (db: Database, b: LoadBatchOptions) => withTransaction(db, (tx) => writeBatch(tx, prepareBatch(b)));

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'db-load-group-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** One value of a query's first row, as a number (Postgres int8 and DuckDB BIGINT both read exactly). */
async function scalar(db: Database, sql: string, params: Param[] = []): Promise<number> {
  const rows = await withTransaction(db, (tx) => tx.all(sql, params));
  return Number(Object.values(rows[0]!)[0]);
}

const DIALECTS: Array<{
  name: string;
  open: () => Promise<Database>;
  writeGroup: (tx: Tx, preps: readonly PreparedBatch[]) => Promise<LoadBatchResult[]>;
}> = [
  { name: 'Postgres', open: async () => openDatabase(await testPostgresUrl()), writeGroup: writeGroupPostgres },
  {
    name: 'DuckDB',
    open: () => openDatabase(`duckdb:${fs.mkdtempSync(path.join(tmp, 'duck-'))}/load.duckdb`),
    writeGroup: writeGroupDuckdb,
  },
];

describe.each(DIALECTS)('$name group writer', ({ open, writeGroup }) => {
  let seq: Database;
  let grp: Database;
  let alone: Database;

  async function fresh(): Promise<Database> {
    const db = await open();
    for (const b of BASE) await loadOne(db, b);
    return db;
  }

  beforeAll(async () => {
    [seq, grp, alone] = await Promise.all([fresh(), fresh(), fresh()]);
  });

  afterAll(async () => {
    await seq?.close();
    await grp?.close();
    await alone?.close();
  });

  it('the generated products have several models, so dropping one is a real change', () => {
    expect(models((parseJson(BASE[0]!.raw) as Doc).data.data.item).length).toBeGreaterThan(1);
  });

  it('leaves the same tables and reports the same counts as loading the responses one by one', async () => {
    const one: Awaited<ReturnType<typeof loadBatch>>[] = [];
    for (const b of GROUP) one.push(await loadOne(seq, b));
    // loadBatch, one response at a time (DuckDB: each a group of one), leaves what the per-response path leaves.
    const lone: typeof one = [];
    for (const b of GROUP) lone.push(await loadBatch(alone, b));
    expect(await dumpDatabase(alone)).toEqual(await dumpDatabase(seq));
    expect(lone.map((r) => [r.loadId, r.rowsByTable, r.changedByTable, r.deletedByTable])).toEqual(
      one.map((r) => [r.loadId, r.rowsByTable, r.changedByTable, r.deletedByTable]),
    );
    // Called directly (not through loadBatches, which would fall back silently) so the group path is what runs.
    const all = await withTransaction(grp, (tx) => writeGroup(tx, GROUP.map(prepareBatch)));

    expect(await dumpDatabase(grp)).toEqual(await dumpDatabase(seq));
    expect(all.map((r) => r.loadId)).toEqual(one.map((r) => r.loadId));
    // The dump leaves generated ids out: the history rows also got theirs in the same order.
    const historyOrder = (db: Database) =>
      withTransaction(db, (tx) =>
        tx.all('SELECT id, load_id, item_id, model_id FROM marketplace_price_history ORDER BY id', []),
      ).then((rows) => rows.map((r) => Object.values(r).map(String)));
    expect(await historyOrder(grp)).toEqual(await historyOrder(seq));
    expect(all.map((r) => r.rowsByTable)).toEqual(one.map((r) => r.rowsByTable));
    expect(all.map((r) => r.deletedByTable)).toEqual(one.map((r) => r.deletedByTable));
    expect(all.map((r) => r.changedByTable)).toEqual(one.map((r) => r.changedByTable));
    // The rules were exercised: a model deleted, then inserted again; history for both price changes.
    expect(one[0]!.deletedByTable.marketplace_product_models).toBe(1);
    expect(one[2]!.changedByTable.marketplace_product_models).toBeGreaterThan(0);
    expect(one[3]!.changedByTable.marketplace_products).toBe(0);
    expect(
      await scalar(grp, `SELECT count(*) AS n FROM marketplace_price_history WHERE item_id = 1 AND model_id IS NULL`),
    ).toBe(3);
    expect(await scalar(grp, `SELECT count(*) AS n FROM raw_responses WHERE body_ref IS NOT NULL`)).toBe(2);
    // The id beyond 2^53 kept every digit.
    const big = await withTransaction(grp, (tx) =>
      tx.all(`SELECT item_id FROM marketplace_products WHERE item_id > 9007199254740992`, []),
    );
    expect(big.map((r) => String(r['item_id']))).toEqual(['9007199254740993']);

    // The same group again, onto what it wrote: product 1 changes back and forth, everything else stays.
    const again = await withTransaction(grp, (tx) => writeGroup(tx, GROUP.map(prepareBatch)));
    const oneAgain: typeof one = [];
    for (const b of GROUP) oneAgain.push(await loadOne(seq, b));
    expect(again.map((r) => [r.changedByTable, r.deletedByTable])).toEqual(
      oneAgain.map((r) => [r.changedByTable, r.deletedByTable]),
    );
    expect(oneAgain[1]!.changedByTable.marketplace_products).toBe(0);
    expect(await dumpDatabase(grp)).toEqual(await dumpDatabase(seq));
    const loneAgain: typeof one = [];
    for (const b of GROUP) loneAgain.push(await loadBatch(alone, b));
    expect(loneAgain.map((r) => [r.changedByTable, r.deletedByTable])).toEqual(
      oneAgain.map((r) => [r.changedByTable, r.deletedByTable]),
    );
    expect(await dumpDatabase(alone)).toEqual(await dumpDatabase(seq));
  });

  it('names the response of a group that adds a column; loadBatches writes it alone, so schema_history names its load', async () => {
    const withFields = [
      product(20),
      product(21, (item) => {
        item['brand_story'] = 'since 1990';
      }),
      product(22),
      product(23),
      product(24, (item) => {
        item['eco_label'] = true;
      }),
      product(25),
      product(26),
    ];
    const refused = withTransaction(grp, (tx) => writeGroup(tx, withFields.map(prepareBatch)));
    await expect(refused).rejects.toBeInstanceOf(GroupChangesSchemaAt);
    await expect(refused).rejects.toMatchObject({ response: 1 });
    const out = await loadBatches(grp, withFields);
    expect(out.failed).toBeUndefined();
    expect(out.results).toHaveLength(withFields.length);
    const one = [];
    for (const b of withFields) one.push(await loadOne(seq, b));
    // Refused before drawing load ids: the ids are the same as one by one.
    expect(await dumpDatabase(grp)).toEqual(await dumpDatabase(seq));
    expect(out.results.map((r) => [r.loadId, r.changedByTable, r.schemaChanges.map((c) => c.column)])).toEqual(
      one.map((r) => [r.loadId, r.changedByTable, r.schemaChanges.map((c) => c.column)]),
    );
    // loadBatch of a lone response that adds a column: its group of one is refused, and it is written alone (the
    // per-response path), so schema_history names its load here too.
    const lone = [];
    for (const b of withFields) lone.push(await loadBatch(alone, b));
    expect(await dumpDatabase(alone)).toEqual(await dumpDatabase(seq));
    expect(lone.map((r) => [r.loadId, r.changedByTable, r.schemaChanges.map((c) => c.column)])).toEqual(
      one.map((r) => [r.loadId, r.changedByTable, r.schemaChanges.map((c) => c.column)]),
    );
    const added = await withTransaction(grp, (tx) =>
      tx.all(
        `SELECT column_name, load_id FROM schema_history WHERE column_name IN ('brand_story', 'eco_label') ORDER BY column_name`,
        [],
      ),
    );
    expect(added.map((r) => [r['column_name'], Number(r['load_id'])])).toEqual([
      ['brand_story', out.results[1]!.loadId],
      ['eco_label', out.results[4]!.loadId],
    ]);
  });

  it('loadGroups: results in order, stops after a failed group, and lands the group in flight when the source fails', async () => {
    const rawCount = (pipeline: string) =>
      scalar(grp, 'SELECT count(*) AS n FROM raw_responses WHERE pipeline = $1', [pipeline]);
    const as = (pipeline: string, b: LoadBatchOptions): LoadBatchOptions => ({ ...b, pipeline });
    const broken = (pipeline: string): LoadBatchOptions => ({
      ...as(pipeline, product(40)),
      onTableWritten: () => {
        throw new Error('injected');
      },
    });
    const seen: LoadBatchesResult[] = [];
    const groups = [
      [as('g1', product(30)), as('g1', product(31))],
      [as('g1', product(32)), broken('g1')],
      [as('g1', product(33))],
    ];
    for await (const out of loadGroups(grp, groups)) seen.push(out);
    expect(seen.map((o) => [o.results.length, o.failed?.index])).toEqual([
      [2, undefined],
      [1, 1],
    ]);
    expect(String((seen[1]!.failed!.error as Error).message)).toBe('injected');
    expect(await rawCount('g1')).toBe(3);

    async function* failingSource() {
      yield [as('g2', product(30)), as('g2', product(31))];
      throw new Error('cannot read the next file');
    }
    const landed: LoadBatchesResult[] = [];
    await expect(
      (async () => {
        for await (const out of loadGroups(grp, failingSource())) landed.push(out);
      })(),
    ).rejects.toThrow('cannot read the next file');
    expect(landed).toHaveLength(1);
    expect(await rawCount('g2')).toBe(2);
  });
});
