// Inferred, evolving tables on a real SQLite file and a real Postgres server: result content becomes typed
// columns and child tables, new fields add columns, type changes add variant columns, every change is in
// schema_history, `freeze` refuses and leaves the tables exactly as they were, merge keys make one row per key
// with the newest result winning, and concurrent loads adding the same columns neither lose rows nor add a
// column twice. Unknown job-board and marketplace fields become columns of their model tables.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../../lib/json.js';
import { jobBoardResponseSchema, marketplaceResponseSchema, type ResultRecord } from '../../../client/schemas.js';
import { openDatabase, type Database } from '../../../destinations/open.js';
import { SchemaContractError } from '../../../db/model/evolve/errors.js';
import type { SchemaMode } from '../../../db/store/evolve/registry.js';
import { loadBatch } from '../../../db/store/load.js';
import { resultsPage } from '../../support/results-page.js';
import { dumpDatabase, dumpTable } from '../../support/db-dump.js';
import { REAL_FIXTURES } from '../../support/fixtures.js';
import { testPostgresUrl } from '../../support/postgres.js';
import { duckSelect } from '../../support/duckdb.js';
import { testDatabaseUrl } from '../../support/destinations.js';

let tmp: string;
let nextId = 1000;

function result(content: unknown, id = nextId++, url = `https://x.example/${id}`): ResultRecord {
  return {
    id,
    scraper_id: 1,
    scraping_run_id: 77,
    scraper_name: 'leads',
    scraped_url: url,
    status: 'succeeded',
    content,
    created_at: '2026-01-01T00:00:00.000000Z',
    updated_at: '2026-01-01T00:00:00.000000Z',
  } as unknown as ResultRecord;
}

async function loadResults(
  db: Database,
  pipeline: string,
  records: ResultRecord[],
  opts: { mergeKey?: string[]; mode?: SchemaMode } = {},
) {
  const raw = stringifyJson({ data: records });
  return loadBatch(
    db,
    resultsPage({
      pipeline,
      raw,
      table: `${pipeline.replace(/-/g, '_')}_items`,
      requestKey: `page-${records[0]?.id ?? 0}`,
      mergeKey: opts.mergeKey,
      ...(opts.mode ? { mode: opts.mode } : {}),
    }),
  );
}

async function select(db: Database, sql: string): Promise<Array<Record<string, unknown>>> {
  if (db.dialect === 'sqlite')
    return db.sqlite.prepare(sql).safeIntegers(false).all() as Array<Record<string, unknown>>;
  if (db.dialect === 'duckdb')
    return (await duckSelect(db, sql)).map((r) =>
      Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])),
    );
  return (await db.pool.query(sql)).rows as Array<Record<string, unknown>>;
}

async function columnsOf(db: Database, table: string): Promise<string[]> {
  const rows =
    db.dialect === 'sqlite'
      ? await select(db, `SELECT name AS c FROM pragma_table_info('${table}')`)
      : await select(
          db,
          `SELECT column_name AS c FROM information_schema.columns WHERE table_name = '${table}' ORDER BY ordinal_position`,
        );
  return rows.map((r) => String(r['c']));
}

async function history(db: Database, table: string): Promise<Array<[string, string, string]>> {
  const rows = await select(
    db,
    `SELECT column_name, data_type, change FROM schema_history WHERE table_name = '${table}' AND change <> 'create_table' ORDER BY column_name`,
  );
  return rows.map((r) => [String(r['column_name']), String(r['data_type']), String(r['change'])]);
}

const lead = (n: number, extra: Record<string, unknown> = {}) => ({
  name: `Lead ${n}`,
  email: `lead${n}@example.com`,
  phone: n % 2 ? `+1 555 ${n}` : null,
  company: { name: `Co ${n}`, size: n * 10 },
  score: n + 0.5,
  verified: n % 3 === 0,
  seen_at: '2026-02-03T04:05:06.789Z',
  big_id: 9007199254740993n + BigInt(n),
  social_profiles: [
    { platform: 'x', handle: `h${n}` },
    { platform: 'y', handle: `g${n}` },
  ],
  tags: ['a', `t${n}`],
  ...extra,
});

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'db-evolve-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe.each(['sqlite', 'postgres', 'duckdb'] as const)('%s', (dialect) => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase(await testDatabaseUrl(dialect, tmp, 'evolve'));
  });
  afterAll(async () => db.close());

  it('flattens content into typed columns, nested objects into __ columns and arrays into child tables', async () => {
    await loadResults(db, 'leads-a', [result(lead(1), 1), result(lead(2), 2)]);
    expect(await columnsOf(db, 'leads_a_items')).toEqual(
      expect.arrayContaining([
        'name',
        'email',
        'phone',
        'company__name',
        'company__size',
        'score',
        'verified',
        'seen_at',
        'big_id',
      ]),
    );
    const rows = await select(
      db,
      `SELECT row_key, result_id, name, email, phone, company__size, score, verified, seen_at, CAST(big_id AS TEXT) AS big FROM leads_a_items ORDER BY row_key`,
    );
    expect(
      rows.map((r) => [
        r['row_key'],
        String(r['result_id']),
        r['name'],
        r['phone'],
        Number(r['company__size']),
        r['score'],
        Boolean(r['verified']),
      ]),
    ).toEqual([
      ['1', '1', 'Lead 1', '+1 555 1', 10, 1.5, false],
      ['2', '2', 'Lead 2', null, 20, 2.5, false],
    ]);
    // 64-bit integers exact; ISO strings as timestamps.
    expect(rows.map((r) => r['big'])).toEqual(['9007199254740994', '9007199254740995']);
    expect(new Date(rows[0]!['seen_at'] as string).toISOString()).toBe('2026-02-03T04:05:06.789Z');
    expect(await history(db, 'leads_a_items')).toEqual(
      expect.arrayContaining([
        ['big_id', 'bigint', 'add_column'],
        ['score', 'double', 'add_column'],
        ['verified', 'bool', 'add_column'],
        ['seen_at', 'timestamp', 'add_column'],
        ['company__name', 'text', 'add_column'],
      ]),
    );
    const profiles = await select(
      db,
      `SELECT row_key, root_key, parent_key, list_index, platform, handle FROM leads_a_items__social_profiles ORDER BY row_key`,
    );
    expect(
      profiles.map((r) => [
        r['row_key'],
        r['root_key'],
        r['parent_key'],
        Number(r['list_index']),
        r['platform'],
        r['handle'],
      ]),
    ).toEqual([
      ['1#0', '1', '1', 0, 'x', 'h1'],
      ['1#1', '1', '1', 1, 'y', 'g1'],
      ['2#0', '2', '2', 0, 'x', 'h2'],
      ['2#1', '2', '2', 1, 'y', 'g2'],
    ]);
    const tags = await select(db, `SELECT row_key, value FROM leads_a_items__tags ORDER BY row_key`);
    expect(tags.map((r) => [r['row_key'], r['value']])).toEqual([
      ['1#0', 'a'],
      ['1#1', 't1'],
      ['2#0', 'a'],
      ['2#1', 't2'],
    ]);
  });

  it('a new field adds a column (older rows NULL), a type change adds a variant column, and history records both', async () => {
    await loadResults(db, 'leads-b', [result(lead(1), 11)]);
    const first = await select(db, `SELECT load_id FROM leads_b_items`);
    await loadResults(db, 'leads-b', [result(lead(2, { fax: '+1 555 0000', score: 'high' }), 12)]);
    const rows = await select(db, `SELECT row_key, fax, score, score__v_text FROM leads_b_items ORDER BY row_key`);
    expect(rows.map((r) => [r['row_key'], r['fax'], r['score'], r['score__v_text']])).toEqual([
      ['11', null, 1.5, null],
      ['12', '+1 555 0000', null, 'high'],
    ]);
    const h = await select(
      db,
      `SELECT column_name, data_type, change, variant_of, load_id FROM schema_history WHERE table_name = 'leads_b_items' AND column_name IN ('fax', 'score__v_text', 'score') ORDER BY column_name`,
    );
    expect(h.map((r) => [r['column_name'], r['data_type'], r['change'], r['variant_of']])).toEqual([
      ['fax', 'text', 'add_column', null],
      ['score', 'double', 'add_column', null],
      ['score__v_text', 'text', 'add_variant', 'score'],
    ]);
    // The first load id of each column: score came with the first batch, fax and the variant with the second.
    expect(Number(h[1]!['load_id'])).toBe(Number(first[0]!['load_id']));
    expect(Number(h[0]!['load_id'])).toBeGreaterThan(Number(first[0]!['load_id']));
    // Integers then floats in one new column widen it to double instead of splitting it.
    await loadResults(db, 'leads-b', [result({ n: 1 }, 13), result({ n: 2.5 }, 14)]);
    expect(await history(db, 'leads_b_items')).toContainEqual(['n', 'double', 'add_column']);
  });

  it('freeze fails the batch naming table, column and load, and leaves every table exactly as before', async () => {
    await loadResults(db, 'leads-c', [result(lead(1), 21)]);
    const before = await dumpDatabase(db, { keepLoadedAt: true });
    const err = await loadResults(db, 'leads-c', [result(lead(2, { linkedin: 'in/x' }), 22)], { mode: 'freeze' }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SchemaContractError);
    expect((err as Error).message).toMatch(
      /pipeline 'leads-c' has schema mode freeze, and load \d+ \(GET \/api\/results, page-22\) brings new column 'linkedin' \(text\) in table 'leads_c_items'; nothing of this batch was written/,
    );
    const typeChange = await loadResults(db, 'leads-c', [result(lead(3, { score: 'x' }), 23)], {
      mode: 'freeze',
    }).catch((e: unknown) => e);
    expect((typeChange as Error).message).toMatch(/a text value for column 'score' of table 'leads_c_items'/);
    const childTable = await loadResults(db, 'leads-c', [result(lead(4, { offices: [{ city: 'Oslo' }] }), 24)], {
      mode: 'freeze',
    }).catch((e: unknown) => e);
    expect((childTable as Error).message).toMatch(/new table 'leads_c_items__offices'/);
    expect(await dumpDatabase(db, { keepLoadedAt: true })).toEqual(before);
    // Known columns only: a frozen pipeline still loads.
    await loadResults(db, 'leads-c', [result(lead(5), 25)], { mode: 'freeze' });
    expect(await select(db, `SELECT row_key FROM leads_c_items ORDER BY row_key`)).toHaveLength(2);
    // discard_columns loads the row without the new field.
    await loadResults(db, 'leads-c', [result(lead(6, { linkedin: 'in/y', offices: [{ city: 'Rome' }] }), 26)], {
      mode: 'discard_columns',
    });
    expect(await columnsOf(db, 'leads_c_items')).not.toContain('linkedin');
    expect(await columnsOf(db, 'leads_c_items__offices')).toEqual([]);
    expect(await select(db, `SELECT row_key FROM leads_c_items WHERE row_key = '26'`)).toHaveLength(1);
  });

  it('a merge key makes one row per key, the newest result wins, its children are replaced, and older results never undo it', async () => {
    const mk = { mergeKey: ['email'] };
    await loadResults(db, 'leads-d', [result(lead(1), 31, 'u1'), result(lead(2), 32, 'u2')], mk);
    await loadResults(
      db,
      'leads-d',
      [
        result(lead(1, { name: 'Lead One', social_profiles: [{ platform: 'z', handle: 'new' }] }), 41, 'u1'),
        result(lead(2), 42, 'u2'),
      ],
      mk,
    );
    const rows = await select(
      db,
      `SELECT row_key, CAST(result_id AS TEXT) AS rid, name FROM leads_d_items ORDER BY row_key`,
    );
    // Lead 2's content and URL did not change: its row keeps the result that last changed it.
    expect(rows.map((r) => [r['row_key'], r['rid'], r['name']])).toEqual([
      ['["lead1@example.com"]', '41', 'Lead One'],
      ['["lead2@example.com"]', '32', 'Lead 2'],
    ]);
    const profiles = await select(
      db,
      `SELECT row_key, handle FROM leads_d_items__social_profiles WHERE root_key = '["lead1@example.com"]' ORDER BY row_key`,
    );
    expect(profiles.map((r) => [r['row_key'], r['handle']])).toEqual([['["lead1@example.com"]#0', 'new']]);
    // A replayed older page (result 31) changes nothing.
    const before = await dumpTable(db, 'leads_d_items', { keepLoadedAt: true });
    const again = await loadResults(db, 'leads-d', [result(lead(1), 31, 'u1')], mk);
    expect(again.changedByTable['leads_d_items']).toBe(0);
    expect(await dumpTable(db, 'leads_d_items', { keepLoadedAt: true })).toEqual(before);
    // Without a merge key every result id is its own row.
    await loadResults(db, 'leads-e', [result(lead(1), 51), result(lead(1), 52)]);
    expect(await select(db, `SELECT row_key FROM leads_e_items`)).toHaveLength(2);
  });

  it('job-board properties beyond the six typed ones and unknown marketplace fields become columns', async () => {
    const jobsRaw = stringifyJson({
      tokenUsage: 3,
      totalDone: 2,
      result: [
        { job_title: 'A', job_url: 'https://j.example/1', remote: true, team: { name: 'Data', size: 4 } },
        { job_title: 'B', job_url: 'https://j.example/2', remote: 'hybrid' },
      ],
    });
    await loadBatch(db, {
      pipeline: 'jobs',
      kind: 'job-board',
      endpoint: 'POST /api/jobs',
      requestKey: 'q',
      raw: jobsRaw,
      data: jobBoardResponseSchema.parse(parseJson(jobsRaw)),
    });
    const jobs = await select(
      db,
      `SELECT job_key, remote, remote__v_text, team__name, team__size FROM job_records WHERE pipeline = 'jobs' ORDER BY job_key`,
    );
    expect(
      jobs.map((r) => [
        r['job_key'],
        r['remote'] === null ? null : Boolean(r['remote']),
        r['remote__v_text'],
        r['team__name'],
        r['team__size'] === null ? null : Number(r['team__size']),
      ]),
    ).toEqual([
      ['https://j.example/1', true, null, 'Data', 4],
      ['https://j.example/2', null, 'hybrid', null, null],
    ]);
    const doc = parseJson(fs.readFileSync(`${REAL_FIXTURES}/shopee-sync-response-1.json`, 'utf8')) as {
      data: { data: { item: Record<string, unknown>; shop_detailed: Record<string, unknown> } };
    };
    doc.data.data.item['flash_sale_badge'] = { label: 'hot', ends_at: '2026-05-01T00:00:00Z' };
    doc.data.data.shop_detailed['brand_story'] = 'since 1999';
    const raw = stringifyJson(doc);
    await loadBatch(db, {
      pipeline: 'shop',
      kind: 'marketplace',
      endpoint: 'POST /api/marketplace/sync',
      requestKey: 'u',
      raw,
      data: marketplaceResponseSchema.parse(parseJson(raw)),
    });
    const p = await select(
      db,
      `SELECT flash_sale_badge__label, should_show_amp_tag FROM marketplace_products WHERE pipeline = 'shop'`,
    );
    expect(p.map((r) => [r['flash_sale_badge__label'], Boolean(r['should_show_amp_tag'])])).toEqual([['hot', true]]);
    expect(await select(db, `SELECT brand_story FROM marketplace_shops WHERE pipeline = 'shop'`)).toEqual([
      { brand_story: 'since 1999' },
    ]);
    // The same response again changes nothing; without the field the newest answer reads NULL.
    const again = await loadBatch(db, {
      pipeline: 'shop',
      kind: 'marketplace',
      endpoint: 'POST /api/marketplace/sync',
      requestKey: 'u',
      raw,
      data: marketplaceResponseSchema.parse(parseJson(raw)),
    });
    expect(again.changedByTable.marketplace_products).toBe(0);
    delete doc.data.data.shop_detailed['brand_story'];
    const raw2 = stringifyJson(doc);
    await loadBatch(db, {
      pipeline: 'shop',
      kind: 'marketplace',
      endpoint: 'POST /api/marketplace/sync',
      requestKey: 'u',
      raw: raw2,
      data: marketplaceResponseSchema.parse(parseJson(raw2)),
    });
    expect(await select(db, `SELECT brand_story FROM marketplace_shops WHERE pipeline = 'shop'`)).toEqual([
      { brand_story: null },
    ]);
  });

  it('concurrent loads of overlapping content with new columns lose no row and add each column once', async () => {
    const pipelines = dialect === 'postgres' ? 8 : 4;
    const loads: Array<Promise<unknown>> = [];
    for (let w = 0; w < pipelines; w++) {
      // Every load brings the same new columns (and some of its own) for overlapping merge keys.
      const records = Array.from({ length: 30 }, (_, i) =>
        result(lead(i, { [`field_${w % 3}`]: w, shared_new: `w${w}`, nested: [{ k: w }] }), 10_000 + w * 100 + i),
      );
      loads.push(loadResults(db, 'leads-f', records, { mergeKey: ['email'] }));
    }
    await Promise.all(loads);
    const rows = await select(
      db,
      `SELECT row_key, CAST(result_id AS TEXT) AS rid, shared_new FROM leads_f_items ORDER BY row_key`,
    );
    expect(rows).toHaveLength(30);
    // Newest wins whatever order the loads committed in: every row holds the last load's result.
    expect(new Set(rows.map((r) => r['shared_new']))).toEqual(new Set([`w${pipelines - 1}`]));
    const cols = await columnsOf(db, 'leads_f_items');
    expect(cols.length).toBe(new Set(cols).size);
    expect(cols.filter((c) => c.startsWith('field_')).sort()).toEqual(['field_0', 'field_1', 'field_2']);
    const nested = await select(db, `SELECT root_key FROM leads_f_items__nested`);
    expect(nested).toHaveLength(30);
    const h = await select(db, `SELECT column_name FROM schema_history WHERE table_name = 'leads_f_items'`);
    expect(h.length).toBe(new Set(h.map((r) => r['column_name'])).size);
  });
});
