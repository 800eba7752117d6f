// Loads real responses (the simulator over HTTP, the real example, hand-made edge cases) into a real SQLite
// file, a real Postgres server and a real DuckDB file, and checks: identical contents in all three, idempotent reloads, all-or-nothing
// batches, price history on change only, vanished children deleted, 64-bit ids exact.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScraperClient } from '../../../client/client.js';
import { parseJson, stringifyJson } from '../../../lib/json.js';
import { marketplaceResponseSchema, type MarketplaceResponse } from '../../../client/schemas.js';
import {
  openDatabase,
  type DuckDatabase,
  type PostgresDatabase,
  type SqliteDatabase,
} from '../../../destinations/open.js';
import { loadBatch, loadBatches, type LoadBatchOptions } from '../../../db/store/load.js';
import { readRawBody } from '../../../db/store/raw-responses.js';
import { withTransaction } from '../../../db/store/sql.js';
import { DATA_TABLES } from '../../../db/model/tables.js';
import { destinationOf } from '../../../destinations/index.js';
import { KINDS } from '../../../kinds/index.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { countRows, dumpDatabase, dumpTable, lastSeenAt } from '../../support/db-dump.js';
import { duckSelect } from '../../support/duckdb.js';
import { JOB_SCHEMA } from '../../support/job-schema.js';
import { waitForRun } from '../../support/scraping-runs.js';
import { testPostgresUrl } from '../../support/postgres.js';
import { REAL_FIXTURES } from '../../support/fixtures.js';

const TOKEN = 'db-load-test-token';
const FIXTURE = fs.readFileSync(`${REAL_FIXTURES}/shopee-sync-response-1.json`, 'utf8');
const MARKET = 'POST /api/marketplace/sync';

type Batch = LoadBatchOptions;
let sim: RunningSimulator;
const batches: Batch[] = [];
let bigModels: { raw: string; data: MarketplaceResponse };
let tmp: string;
const dbs = {} as { sqlite: SqliteDatabase; postgres: PostgresDatabase; duckdb: DuckDatabase };

/** A copy of the real example with `edit` applied, validated as the client would. */
function variant(edit: (d: { item: Record<string, unknown>; root: Record<string, unknown> }) => void): {
  raw: string;
  data: MarketplaceResponse;
} {
  const doc = parseJson(FIXTURE) as { data: { data: Record<string, unknown> } };
  edit({ item: doc.data.data['item'] as Record<string, unknown>, root: doc.data.data });
  const raw = stringifyJson(doc);
  return { raw, data: marketplaceResponseSchema.parse(parseJson(raw)) };
}

function marketBatch(pipeline: string, v: { raw: string; data: MarketplaceResponse }, requestKey = 'edge'): Batch {
  return { pipeline, kind: 'marketplace', endpoint: MARKET, requestKey, raw: v.raw, data: v.data };
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'db-load-'));
  sim = await startSimulator({ port: 0, token: TOKEN, seed: 11, runDurationMs: 50 });
  const client = new ScraperClient({ baseUrl: sim.baseUrl, token: TOKEN, retry: { maxAttempts: 1 } });

  const urls = [
    'https://shop.example.tw/api/v4/pdp/get_pc?itemid=101&shopid=7',
    'https://shop.example.tw/api/v4/pdp/get_pc?itemid=102&shopid=7',
    'https://shop.example.tw/api/v4/pdp/get_pc?itemid=103&shopid=8&sim_models=300',
  ];
  for (const url of urls) {
    const r = await client.marketplaceSync({ url });
    batches.push({
      pipeline: 'market',
      kind: 'marketplace',
      endpoint: r.endpoint,
      requestKey: url,
      raw: r.raw,
      data: r.data,
    });
    if (url.includes('sim_models')) bigModels = { raw: r.raw, data: r.data };
  }

  const jobs = await client.jobBoardScrape({
    urls: ['https://jobs.example.com/search?q=data'],
    min: 3,
    max: 6,
    timeout: 30,
    schema: JOB_SCHEMA,
  });
  batches.push({
    pipeline: 'jobs',
    kind: 'job-board',
    endpoint: jobs.endpoint,
    requestKey: 'q=data',
    raw: jobs.raw,
    data: jobs.data,
  });

  const pdf = await client.createPdfScraper({
    name: 'annual reports',
    keywords: [
      { keyword: 'annual report 2023', prompt: 'Is this an annual report?' },
      { keyword: '年度报告', prompt: '这是年度报告吗？' },
    ],
    expected_pdf: 4,
  });
  batches.push({
    pipeline: 'reports',
    resultTable: KINDS.pdf.resultTable,
    kind: 'create-run',
    endpoint: pdf.endpoint,
    raw: pdf.raw,
    data: pdf.data,
  });
  const social = await client.createLeadsSocialScraper({
    name: 'mentions',
    keywords: 'coffee',
    sentiment_type: 'positive',
    expected_data: 5,
  });
  batches.push({
    pipeline: 'mentions',
    resultTable: KINDS['leads-social'].resultTable,
    kind: 'create-run',
    endpoint: social.endpoint,
    raw: social.raw,
    data: social.data,
  });
  for (const [created, pipeline, pipelineKind] of [
    [pdf, 'reports', 'pdf'],
    [social, 'mentions', 'leads-social'],
  ] as const) {
    for (const rec of created.data.results) {
      const run = await waitForRun(client, rec.scraping_run_id);
      batches.push({
        pipeline,
        resultTable: KINDS[pipelineKind].resultTable,
        kind: 'scraping-run',
        endpoint: run.endpoint,
        scrapingRunId: rec.scraping_run_id,
        raw: run.raw,
        data: run.data,
      });
    }
  }
  const list = await client.listResults({ page: 1, per_page: 50 });
  expect(list.data.data.length).toBeGreaterThan(0);
  batches.push({
    pipeline: 'sync',
    resultTable: KINDS.results.resultTable,
    kind: 'results',
    endpoint: list.endpoint,
    requestKey: 'page=1',
    raw: list.raw,
    data: list.data,
  });

  // Hand-made edge cases on top of the real example.
  batches.push(
    marketBatch('edge', { raw: FIXTURE, data: marketplaceResponseSchema.parse(parseJson(FIXTURE)) }, 'real'),
  );
  batches.push(
    marketBatch(
      'edge',
      variant(({ item, root }) => {
        item['item_id'] = 9007199254740993n;
        item['shop_id'] = 9007199254740995n;
        (item['models'] as Array<Record<string, unknown>>)[0]!['model_id'] = 18446744073709551n;
        item['label_ids'] = [9223372036854775807n, 1];
        (root['shop_detailed'] as Record<string, unknown>)['shopid'] = 9007199254740995n;
      }),
      'big-ids',
    ),
  );
  batches.push(
    marketBatch(
      'edge',
      variant(({ item, root }) => {
        item['item_id'] = 555;
        for (const k of [
          'models',
          'attributes',
          'categories',
          'fe_categories',
          'tier_variations',
          'label_ids',
          'wholesale_tier_list',
        ])
          item[k] = [];
        (root['product_images'] as Record<string, unknown>)['images'] = [];
        (root['product_attributes'] as Record<string, unknown>)['attrs'] = [];
        (root['product_attributes'] as Record<string, unknown>)['categories'] = [];
        item['price'] = -1;
        item['price_min'] = -1;
        item['price_max'] = -1;
      }),
      'empty',
    ),
  );
  batches.push(
    marketBatch(
      'edge',
      variant(({ item, root }) => {
        item['item_id'] = 556;
        item['title'] = 'Ünïcødé ✓ 😀 עברית العربية 中文 \u0000 end';
        item['description'] = 'line1\nline2\ttab "quotes" \\ backslash';
        const shop = root['shop_detailed'] as Record<string, unknown>;
        // A shop of its own: a second version of shop 10115139 in the same pipeline would (rightly) update it.
        shop['shopid'] = 777;
        for (const k of ['name', 'item_count', 'follower_count', 'response_rate', 'is_official_shop']) shop[k] = null;
        const m = (item['models'] as Array<Record<string, unknown>>)[0]!;
        m['price_stocks'] = [{ allocated_stock: null, stock_breakdown_by_location: [], promotion_type: 0 }];
      }),
      'unicode-nulls',
    ),
  );

  const s = await openDatabase(`sqlite:${path.join(tmp, 'load.sqlite')}`);
  const p = await openDatabase(await testPostgresUrl());
  const d = await openDatabase(`duckdb:${path.join(tmp, 'load.duckdb')}`);
  if (s.dialect !== 'sqlite' || p.dialect !== 'postgres' || d.dialect !== 'duckdb')
    throw new Error('unexpected dialects');
  dbs.sqlite = s;
  dbs.postgres = p;
  dbs.duckdb = d;
  for (const b of batches) {
    await loadBatch(dbs.sqlite, b);
    await loadBatch(dbs.postgres, b);
    await loadBatch(dbs.duckdb, b);
  }
}, 60_000);

afterAll(async () => {
  await dbs.sqlite?.close();
  await dbs.postgres?.close();
  await dbs.duckdb?.close();
  await sim?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('the same responses in SQLite, Postgres and DuckDB', () => {
  it('give identical table contents', async () => {
    const a = await dumpDatabase(dbs.sqlite);
    const b = await dumpDatabase(dbs.postgres);
    const c = await dumpDatabase(dbs.duckdb);
    for (const table of Object.keys(a)) expect({ table, rows: b[table] }).toEqual({ table, rows: a[table] });
    for (const table of Object.keys(a)) expect({ table, rows: c[table] }).toEqual({ table, rows: a[table] });
    // The comparison is only meaningful if every kind of table was exercised.
    const empty = DATA_TABLES.filter((t) => (a[t] ?? []).length === 0);
    expect(empty).toEqual([]);
    expect(a['marketplace_product_models']!.filter((m) => m['item_id'] === '103')).toHaveLength(300);
  });

  it('store ids beyond 2^53 exactly (9007199254740993 round-trips)', async () => {
    const s = dbs.sqlite.sqlite
      .prepare('SELECT item_id, shop_id FROM marketplace_products WHERE pipeline = ? AND item_id > ?')
      .safeIntegers(true)
      .all('edge', 2n ** 53n);
    expect(s).toEqual([{ item_id: 9007199254740993n, shop_id: 9007199254740995n }]);
    const p = await dbs.postgres.pool.query(
      'SELECT item_id, shop_id FROM marketplace_products WHERE pipeline = $1 AND item_id > $2',
      ['edge', (2n ** 53n).toString()],
    );
    expect(p.rows).toEqual([{ item_id: '9007199254740993', shop_id: '9007199254740995' }]);
    const [model] = await dumpTable(dbs.postgres, 'marketplace_product_models').then((r) =>
      r.filter((m) => m['item_id'] === '9007199254740993'),
    );
    expect(model!['model_id']).toBe('18446744073709551');
    const d = await duckSelect(
      dbs.duckdb,
      `SELECT item_id, shop_id FROM marketplace_products WHERE pipeline = 'edge' AND item_id > ${2n ** 53n}`,
    );
    expect(d).toEqual([{ item_id: 9007199254740993n, shop_id: 9007199254740995n }]);
    const [product] = (await dumpTable(dbs.sqlite, 'marketplace_products')).filter(
      (r) => r['item_id'] === '9007199254740993',
    );
    expect(product!['label_ids']).toBe('[9223372036854775807,1]');
  });

  it('land edge cases as documented: -1 prices have no major value, NUL is replaced, empty lists give no children', async () => {
    for (const db of [dbs.sqlite, dbs.postgres, dbs.duckdb]) {
      const products = await dumpTable(db, 'marketplace_products');
      const empty = products.find((p) => p['item_id'] === '555')!;
      expect(empty).toMatchObject({ price: '-1', price_major: null, price_min_major: null, label_ids: '[]' });
      const unicode = products.find((p) => p['item_id'] === '556')!;
      expect(unicode['title']).toBe('Ünïcødé ✓ 😀 עברית العربية 中文 \uFFFD end');
      const children = await dumpTable(db, 'marketplace_product_models');
      expect(children.filter((m) => m['item_id'] === '555')).toEqual([]);
      const stocks = await dumpTable(db, 'marketplace_model_stocks');
      expect(stocks.filter((s) => s['item_id'] === '556')).toEqual([
        expect.objectContaining({ location_index: '-1', location_id: null }),
      ]);
    }
  });
});

describe.each(['sqlite', 'postgres', 'duckdb'] as const)('%s', (dialect) => {
  it('loading everything again changes no table but raw_responses, and moves last_seen_at of every row it saw', async () => {
    const db = dbs[dialect];
    // last_seen_at is left out of the comparison: a reload moves it on every row it saw, which is asserted below.
    const before = await dumpDatabase(db, { keepLoadedAt: true, keepLastSeen: false });
    const pipelines = [...new Set(batches.map((b) => b.pipeline))];
    const seenBefore = await lastSeenAt(db, pipelines);
    const reloadStart = Date.now();
    for (const b of batches) {
      const res = await loadBatch(db, b);
      expect({ kind: b.kind, changed: Object.entries(res.changedByTable).filter(([, n]) => n !== 0) }).toEqual({
        kind: b.kind,
        changed: [],
      });
      expect(res.deletedByTable).toEqual({});
    }
    const after = await dumpDatabase(db, { keepLoadedAt: true, keepLastSeen: false });
    for (const t of DATA_TABLES) expect({ t, rows: after[t] }).toEqual({ t, rows: before[t] });
    expect(after['raw_responses']!.length).toBe(before['raw_responses']!.length + batches.length);
    // Every row of these pipelines came from one of the batches, so the reload saw each one: its last_seen_at was
    // before the reload and is now the reload's time (the loads' clocks are this process's).
    const seenAfter = await lastSeenAt(db, pipelines);
    expect(Object.keys(seenAfter).sort()).toEqual(Object.keys(seenBefore).sort());
    expect(Object.keys(seenAfter)).toEqual(expect.arrayContaining(['marketplace_products', 'job_records']));
    for (const [t, times] of Object.entries(seenBefore))
      expect({ t, notBefore: times.filter((ms) => ms >= reloadStart) }).toEqual({ t, notBefore: [] });
    for (const [t, times] of Object.entries(seenAfter))
      expect({ t, stale: times.filter((ms) => ms < reloadStart), rows: times.length }).toEqual({
        t,
        stale: [],
        rows: seenBefore[t]!.length,
      });
  });

  it('a body identical to one already landed is stored once: the new row points at it and reads back whole', async () => {
    const db = dbs[dialect];
    const stored = async () => {
      const [row] = await withTransaction(db, (tx) =>
        tx.all(`SELECT sum(length(body)) AS n, count(*) AS rows FROM raw_responses`, []),
      );
      return { bytes: Number(row?.['n']), rows: Number(row?.['rows']) };
    };
    const before = await stored();
    const batch = batches[0]!;
    const res = await loadBatch(db, batch);
    const after = await stored();
    expect(after.rows).toBe(before.rows + 1);
    expect(after.bytes).toBe(before.bytes);
    const [landed] = await withTransaction(db, (tx) =>
      tx.all(`SELECT body, body_ref, body_bytes FROM raw_responses WHERE id = ${tx.ph(1)}`, [res.loadId]),
    );
    expect(landed?.['body']).toBe('');
    expect(Number(landed?.['body_ref'])).toBeGreaterThan(0);
    expect(Number(landed?.['body_bytes'])).toBe(Buffer.byteLength(batch.raw));
    expect(await readRawBody(db, res.loadId)).toBe(batch.raw);
  });

  it('a batch failing midway leaves nothing of itself behind', async () => {
    const db = dbs[dialect];
    const rawBefore = await countRows(db, 'raw_responses');
    const written: string[] = [];
    await expect(
      loadBatch(db, {
        ...marketBatch('failing', { raw: bigModels.raw, data: bigModels.data }),
        onTableWritten: (table) => {
          written.push(table);
          if (table === 'marketplace_product_models') throw new Error('injected failure');
        },
      }),
    ).rejects.toThrow('injected failure');
    // Each attempt stops at the table that failed. DuckDB writes a lone response as a group of one first and, when
    // that fails, once more on the per-response path (whose error is the one reported): two attempts.
    const attempt = ['marketplace_shops', 'marketplace_products', 'marketplace_product_models'];
    expect(written).toEqual(destinationOf(db).loneLoadsAsLists ? [...attempt, ...attempt] : attempt);
    expect(await countRows(db, 'raw_responses')).toBe(rawBefore);
    for (const t of DATA_TABLES) {
      const rows = (await dumpTable(db, t)).filter((r) => r['pipeline'] === 'failing');
      expect({ t, rows }).toEqual({ t, rows: [] });
    }
    // The connection is usable afterwards and the same batch then loads completely.
    const ok = await loadBatch(db, marketBatch('failing', { raw: bigModels.raw, data: bigModels.data }));
    expect(ok.changedByTable.marketplace_product_models).toBe(300);
  });

  // SQLite writes the list in one transaction, each response in a savepoint. Postgres and DuckDB write the group as
  // one transaction (load-group.ts) and, when it fails, each response in a transaction of its own: the same outcome.
  it('loadBatches: each response of a group atomic; a failure keeps the ones before it', async () => {
    const db = dbs[dialect];
    const group = (pipeline: string, failAt?: number): Batch[] =>
      batches
        .filter((b) => b.kind === 'marketplace')
        .slice(0, 3) // the simulator's three products, each with models
        .map((b, i) => ({
          ...b,
          pipeline,
          ...(i === failAt
            ? {
                onTableWritten: (table: string) => {
                  if (table === 'marketplace_product_models') throw new Error('injected failure');
                },
              }
            : {}),
        }));
    const rowsOf = async (pipeline: string) => {
      const out: Record<string, unknown[]> = {};
      for (const t of DATA_TABLES)
        out[t] = (await dumpTable(db, t))
          .filter((r) => r['pipeline'] === pipeline)
          .map(({ load_id: _l, loaded_at: _a, pipeline: _p, ...r }) => r);
      return out;
    };
    const rawOf = async (pipeline: string) =>
      Number(
        (
          await withTransaction(db, (tx) =>
            tx.all(`SELECT count(*) AS n FROM raw_responses WHERE pipeline = ${tx.ph(1)}`, [pipeline]),
          )
        )[0]?.['n'],
      );

    // The whole group: the same rows as loading the responses one by one.
    const whole = await loadBatches(db, group('grouped'));
    expect(whole.failed).toBeUndefined();
    expect(whole.results).toHaveLength(3);
    for (const b of group('one-by-one')) await loadBatch(db, b);
    expect(await rowsOf('grouped')).toEqual(await rowsOf('one-by-one'));
    expect(new Set(whole.results.map((r) => r.loadId)).size).toBe(3);

    // The second fails after writing some of its tables: it leaves nothing, the first stays, the third is not tried.
    const partial = await loadBatches(db, group('group-fails', 1));
    expect(partial.results).toHaveLength(1);
    expect(partial.failed?.index).toBe(1);
    expect(String((partial.failed?.error as Error).message)).toBe('injected failure');
    expect(await rawOf('group-fails')).toBe(1);
    const first = await rowsOf('group-fails');
    await loadBatch(db, group('first-only')[0]!);
    expect(first).toEqual(await rowsOf('first-only'));

    // The transaction stayed usable: the same group loads completely afterwards, the first response unchanged.
    const again = await loadBatches(db, group('group-fails'));
    expect(again.failed).toBeUndefined();
    expect(again.results[0]!.changedByTable).toEqual(
      Object.fromEntries(Object.keys(again.results[0]!.changedByTable).map((t) => [t, 0])),
    );
    expect(await rowsOf('group-fails')).toEqual(await rowsOf('one-by-one'));
  });

  it('appends price history only when a price changes', async () => {
    const db = dbs[dialect];
    const pipeline = 'prices';
    const history = async () =>
      (await dumpTable(db, 'marketplace_price_history'))
        .filter((r) => r['pipeline'] === pipeline)
        // Within a load the product's row comes before its models'.
        .sort(
          (a, b) =>
            Number(a['load_id']) - Number(b['load_id']) ||
            (a['model_id'] === null ? -1 : b['model_id'] === null ? 1 : 0),
        );
    const base = variant(() => {});
    await loadBatch(db, marketBatch(pipeline, base));
    expect((await history()).map((h) => [h['model_id'], h['price'], h['previous_price']])).toEqual([
      [null, '16900000', null],
      ['22017999727', '16900000', null],
    ]);
    await loadBatch(db, marketBatch(pipeline, base));
    expect(await history()).toHaveLength(2);

    const cheaper = variant(({ item }) => {
      (item['models'] as Array<Record<string, unknown>>)[0]!['price'] = 15900000;
    });
    const res = await loadBatch(db, marketBatch(pipeline, cheaper));
    expect(res.changedByTable.marketplace_price_history).toBe(1);
    const h = await history();
    expect(h).toHaveLength(3);
    expect(h.find((r) => r['price'] === '15900000')).toMatchObject({
      model_id: '22017999727',
      previous_price: '16900000',
      price_major: 159,
      currency: 'TWD',
    });
    await loadBatch(db, marketBatch(pipeline, cheaper));
    expect(await history()).toHaveLength(3);

    await loadBatch(
      db,
      marketBatch(
        pipeline,
        variant(({ item }) => {
          item['price'] = 17900000;
          (item['models'] as Array<Record<string, unknown>>)[0]!['price'] = 15900000;
        }),
      ),
    );
    const last = await history();
    expect(last).toHaveLength(4);
    expect(last.find((r) => r['price'] === '17900000')).toMatchObject({ model_id: null, previous_price: '16900000' });
  });

  it('deletes children that disappear from a newer response of the same product', async () => {
    const db = dbs[dialect];
    const pipeline = 'shrink';
    await loadBatch(db, marketBatch(pipeline, bigModels));
    const models = async () =>
      (await dumpTable(db, 'marketplace_product_models')).filter((r) => r['pipeline'] === pipeline);
    const stocks = async () =>
      (await dumpTable(db, 'marketplace_model_stocks')).filter((r) => r['pipeline'] === pipeline);
    expect(await models()).toHaveLength(300);
    const doc = parseJson(bigModels.raw) as { data: { data: { item: { models: unknown[] } } } };
    doc.data.data.item.models = doc.data.data.item.models.slice(0, 3);
    const raw = stringifyJson(doc);
    const res = await loadBatch(
      db,
      marketBatch(pipeline, { raw, data: marketplaceResponseSchema.parse(parseJson(raw)) }),
    );
    expect(res.deletedByTable.marketplace_product_models).toBe(297);
    expect(res.changedByTable.marketplace_product_models).toBe(0);
    expect(await models()).toHaveLength(3);
    const keptIds = new Set((await models()).map((m) => m['model_id']));
    expect((await stocks()).every((s) => keptIds.has(s['model_id']))).toBe(true);
  });
});
