// One pipeline's Parquet from each destination (a real SQLite file, a real Postgres server, a real DuckDB file),
// read by pyarrow: the same tables with the same schema, names and types, whichever destination wrote them, and
// the exact types the model means: BOOLEAN for booleans (also those the loader inferred, stored 0/1 in SQLite),
// INT64 for 64-bit ids, lists for the JSON arrays the service's schema types (label_ids, rating_count: issue #38),
// JSON for the other JSON values, TIMESTAMP with zone for instants.
import { basename, join } from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../../lib/json.js';
import { marketplaceResponseSchema, type ResultRecord } from '../../../client/schemas.js';
import { openDatabase, type Database } from '../../../destinations/open.js';
import { loadBatch } from '../../../db/store/load.js';
import { resultsPage } from '../../support/results-page.js';
import { exportTables } from '../../../export/export.js';
import { generateProduct } from '../../../simulator/generate/marketplace.js';
import { testDatabaseUrl, type TestDialect } from '../../support/destinations.js';
import { readParquetWithPyarrow, type PyValue } from '../../support/python-readers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-parquet-destinations-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const JSON_TYPE = 'extension<arrow.json>';
const UTC = 'timestamp[us, tz=UTC]';
const INT64_LIST = 'list<element: int64>';

/** Two generated products, one with a field the model does not know (an inferred boolean column). */
function generatedProducts(): string[] {
  return [0, 1].map((i) => {
    const doc = generateProduct(42, {
      url: `https://shop.example.tw/api/v4/pdp/get_pc?itemid=${9_000_000_000_000 + i}&shopid=7`,
      itemId: 9_000_000_000_000 + i,
      shopId: 7,
    }) as {
      data: { data: { item: Record<string, unknown> } };
    };
    doc.data.data.item['is_hot_deal'] = i === 0;
    return stringifyJson(doc);
  });
}

function leads(): string {
  const records = [1, 2].map((id) => ({
    id,
    scraper_id: 1,
    scraping_run_id: 77,
    scraper_name: 'leads',
    scraped_url: `https://x.example/${id}`,
    status: 'succeeded',
    content: {
      email: `a${id}@x.example`,
      verified: id === 1,
      score: id * 1.5,
      seen_at: '2026-01-02T03:04:05Z',
      tags: ['a', 'b'],
    },
    created_at: '2026-01-01T00:00:00.000000Z',
    updated_at: '2026-01-01T00:00:00.000000Z',
  })) as unknown as ResultRecord[];
  return stringifyJson({ data: records });
}

async function loadPipeline(db: Database): Promise<void> {
  for (const [i, raw] of generatedProducts().entries()) {
    await loadBatch(db, {
      pipeline: 'p',
      kind: 'marketplace',
      endpoint: 'POST /api/marketplace/sync',
      requestKey: `u${i}`,
      raw,
      data: marketplaceResponseSchema.parse(parseJson(raw)),
    });
  }
  const raw = leads();
  await loadBatch(db, resultsPage({ pipeline: 'p', raw, table: 'p_items', requestKey: 'page-1' }));
}

/** Per destination, the label_ids lists pyarrow reads from marketplace_products, in item order. */
const labelLists: Record<string, PyValue[]> = {};

/** Per table (by file name), the schema pyarrow reads. */
async function exportSchemas(dialect: TestDialect): Promise<Record<string, Array<[string, string]>>> {
  const db = await openDatabase(await testDatabaseUrl(dialect, dir, `dest-${dialect}`));
  try {
    await loadPipeline(db);
    const files = await exportTables(db, {
      pipeline: 'p',
      outDir: join(dir, `out-${dialect}`),
      format: 'parquet',
      fileName: '{table}.parquet',
    });
    const read = Object.fromEntries(files.map((f) => [basename(f.file, '.parquet'), readParquetWithPyarrow(f.file)]));
    const products = [...read['marketplace_products']!.rows].sort((a, b) =>
      String(JSON.stringify(a['item_id'])).localeCompare(JSON.stringify(b['item_id'])),
    );
    labelLists[dialect] = products.map((r) => r['label_ids']!);
    return Object.fromEntries(Object.entries(read).map(([t, r]) => [t, r.schema]));
  } finally {
    await db.close();
  }
}

describe('Parquet from every destination', () => {
  it('has the same schema from SQLite, Postgres and DuckDB, with exact types', async () => {
    const sqlite = await exportSchemas('sqlite');
    const postgres = await exportSchemas('postgres');
    const duckdb = await exportSchemas('duckdb');
    expect(Object.keys(sqlite).sort()).toEqual(
      expect.arrayContaining(['marketplace_products', 'marketplace_shops', 'p_items']),
    );
    expect(postgres).toEqual(sqlite);
    expect(duckdb).toEqual(sqlite);
    // The lists hold the very integers the service sent (beyond 2^53 too), the same from each destination.
    const expected = generatedProducts().map(
      (p) => (parseJson(p) as { data: { data: { item: { label_ids: bigint[] } } } }).data.data.item.label_ids,
    );
    expect(labelLists['sqlite']).toEqual(expected.map((ids) => ({ list: ids.map((id) => ({ int: String(id) })) })));
    expect(labelLists['postgres']).toEqual(labelLists['sqlite']);
    expect(labelLists['duckdb']).toEqual(labelLists['sqlite']);

    const products = Object.fromEntries(sqlite['marketplace_products']!);
    expect(products).toMatchObject({
      item_id: 'int64',
      shop_id: 'int64',
      load_id: 'int64',
      is_adult: 'bool',
      is_free_shipping: 'bool',
      // A field the model does not know: the loader inferred a boolean column (0/1 in SQLite).
      is_hot_deal: 'bool',
      label_ids: INT64_LIST,
      rating_count: INT64_LIST,
      loaded_at: UTC,
    });
    const items = Object.fromEntries(sqlite['p_items']!);
    expect(items).toMatchObject({ verified: 'bool', score: 'double', seen_at: UTC, load_id: 'int64' });
    // The service's timestamps are instants on every destination (issue 40), and rows carry when they were last seen.
    expect(items).toMatchObject({ result_created_at: UTC });
    expect(Object.fromEntries(sqlite['leads_results']!)).toMatchObject({
      created_at: UTC,
      updated_at: UTC,
      last_seen_at: UTC,
      extra: JSON_TYPE,
      content: 'string',
    });
    expect(products).toMatchObject({ last_seen_at: UTC });
    // Every column of every table is one of the exact types: no BIGINT 0/1 standing in for a boolean.
    for (const [table, schema] of Object.entries(sqlite)) {
      for (const [name, type] of schema)
        expect({
          table,
          name,
          type: ['int64', 'double', 'bool', 'string', 'binary', JSON_TYPE, INT64_LIST, UTC, 'timestamp[us]'].includes(
            type,
          ),
        }).toEqual({ table, name, type: true });
    }
  }, 240_000);
});
