// The flatteners are pure: response in, rows out. Checked against the real marketplace example and against
// hand-made responses for each other kind.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../../lib/json.js';
import {
  createAndRunResponseSchema,
  fullScraperSchema,
  jobBoardResponseSchema,
  marketplaceResponseSchema,
  resultsListResponseSchema,
  scrapingRunResponseSchema,
} from '../../../client/schemas.js';
import {
  flattenContentRows,
  flattenCreateRun,
  flattenJobBoard,
  flattenMarketplace,
  flattenResponse,
  flattenScrapingRun,
  jobKey,
} from '../../../db/model/flatten/index.js';
import { REAL_FIXTURES } from '../../support/fixtures.js';
import { OPEN_FIELDS } from '../../../db/model/flatten/values.js';
import type { ResultRecord } from '../../../client/schemas.js';
import { KINDS } from '../../../kinds/index.js';

const FIXTURES = REAL_FIXTURES;
const read = (name: string) => parseJson(fs.readFileSync(`${FIXTURES}/${name}`, 'utf8'));

describe('flattenMarketplace on the real example', () => {
  const response = marketplaceResponseSchema.parse(read('shopee-sync-response-1.json'));
  const rows = flattenMarketplace(response);

  it('produces one product with typed scalars, integer prices and major-unit prices', () => {
    expect(rows.marketplace_products).toHaveLength(1);
    const p = rows.marketplace_products![0]!;
    expect(p).toMatchObject({
      shop_id: 10115139,
      item_id: 4420309814,
      title: '瓦厝家-綠的抗菌沐浴露（洋梨與小蒼蘭）1000ml',
      currency: 'TWD',
      price: 16900000,
      price_min: 16900000,
      price_max: 16900000,
      price_divisor: 100000,
      price_major: 169,
      price_min_before_discount: -1,
      price_max_before_discount: -1,
      price_before_discount_major: null,
      ctime: 1584632364,
      rating_star: 5,
      total_rating_count: 2,
      cmt_count: 2,
      historical_sold: null,
      stock: null,
      is_adult: false,
      rating_count: '[2,0,0,0,0,2]',
    });
    // label_ids near 8.4e14 survive exactly in the JSON column.
    expect(p['label_ids']).toBe(
      '[1007880,844931064601283,822059780857868,844931086908638,1400285049,1717998011,1818787,1718088130,1853606]',
    );
    // Untyped item fields are kept as open fields (inferred columns), nested objects as __ paths, lists whole.
    const open = new Map((p[OPEN_FIELDS] ?? []).map(([c, v]) => [c, v]));
    expect(open.get('should_show_amp_tag')).toBe(true);
    expect(open.get('spl_info__show_spl')).toBe(false);
    expect(open.has('max_quantity')).toBe(false);
    expect(open.has('models')).toBe(false);
    // Epoch seconds also as a timestamp.
    expect(p['ctime_at']).toBe(new Date(Number(p['ctime']) * 1000).toISOString());
  });

  it('flattens models, stock locations, attributes, categories, tiers, images and the shop', () => {
    expect(rows.marketplace_product_models).toEqual([
      expect.objectContaining({
        model_id: 22017999727,
        list_index: 0,
        price: 16900000,
        price_major: 169,
        tier_index: '[0]',
      }),
    ]);
    expect(rows.marketplace_model_stocks).toEqual([
      expect.objectContaining({
        model_id: 22017999727,
        price_stock_index: 0,
        location_index: 0,
        location_id: 'TWZ',
        fulfilment_type: 2,
        available_stock: null,
      }),
    ]);
    const attrs = rows.marketplace_product_attributes!;
    expect(attrs.filter((a) => a['source'] === 'item.attributes').map((a) => [a['name'], a['value']])).toEqual([
      ['質地', '液'],
      ['產地', '台灣'],
    ]);
    expect(attrs.find((a) => a['name'] === '品牌')).toMatchObject({
      source: 'product_attributes.attrs',
      brand_id: 1124792,
      type: 1,
      attribute_id: null,
    });
    const cats = rows.marketplace_product_categories!;
    expect(cats.filter((c) => c['source'] === 'item.categories').map((c) => c['catid'])).toEqual([
      100630, 102002, 102003,
    ]);
    expect(cats.filter((c) => c['source'] === 'item.fe_categories')).toHaveLength(3);
    expect(rows.marketplace_product_tier_variations).toEqual([
      expect.objectContaining({ tier_index: 0, name: '', option_count: 1, display_indicators: '[0]' }),
    ]);
    expect(rows.marketplace_product_tier_variation_options).toEqual([
      expect.objectContaining({ tier_index: 0, option_index: 0, option: '', image: null }),
    ]);
    expect(rows.marketplace_product_images).toEqual([
      expect.objectContaining({ list_index: 0, image: 'c1e492d27fca200d8c7bb570932cc5a0' }),
    ]);
    expect(rows.marketplace_shops).toEqual([
      expect.objectContaining({
        shop_id: 10115139,
        userid: 10116436,
        username: 'watrohouse',
        rating_star: 4.968159,
        item_count: 382,
        vacation: false,
      }),
    ]);
  });

  it('uses the price divisor given, and rejects a divisor that is not positive', () => {
    const cents = flattenMarketplace(response, { priceDivisor: 100 });
    expect(cents.marketplace_products![0]!['price_major']).toBe(169000);
    expect(cents.marketplace_products![0]!['price_divisor']).toBe(100);
    expect(() => flattenMarketplace(response, { priceDivisor: 0 })).toThrow(/price divisor must be a positive number/);
  });

  it('keeps ids beyond 2^53 as bigint', () => {
    const big = read('shopee-sync-response-1.json') as { data: { data: { item: Record<string, unknown> } } };
    big.data.data.item['item_id'] = 9007199254740993n;
    const r = flattenMarketplace(marketplaceResponseSchema.parse(big));
    expect(r.marketplace_products![0]!['item_id']).toBe(9007199254740993n);
    expect(r.marketplace_product_images![0]!['item_id']).toBe(9007199254740993n);
  });
});

describe('flattenJobBoard', () => {
  const response = jobBoardResponseSchema.parse({
    tokenUsage: 10,
    totalDone: 3,
    result: [
      {
        job_title: 'Data Engineer',
        job_url: 'https://jobs.example/1',
        job_location: 'Berlin',
        job_salary: 65000,
        job_type: 'full-time',
        job_currency: 'EUR',
      },
      {
        job_title: 'Analyst',
        job_url: '',
        job_location: 'Jakarta',
        job_salary: '10-15 juta',
        job_type: 'contract',
        job_currency: 'IDR',
        remote: true,
      },
      {
        job_location: 'Jakarta',
        job_title: 'Analyst',
        job_url: '',
        job_salary: '10-15 juta',
        job_type: 'contract',
        job_currency: 'IDR',
        remote: true,
      },
    ],
  });
  const rows = flattenJobBoard(response).job_records!;

  it('types salary by what arrived: numbers in job_salary_number, text in job_salary_text', () => {
    expect(rows[0]).toMatchObject({
      job_key: 'https://jobs.example/1',
      job_salary_number: 65000,
      job_salary_text: null,
    });
    expect(rows[0]![OPEN_FIELDS]).toEqual([]);
    expect(rows[1]).toMatchObject({ job_salary_number: null, job_salary_text: '10-15 juta' });
    // Properties beyond the six typed ones become inferred columns of job_records.
    expect(rows[1]![OPEN_FIELDS]).toEqual([['remote', true, '["remote"]']]);
  });

  it('keys a URL-less job by a hash of the record that ignores key order', () => {
    expect(rows[1]!['job_key']).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(rows[2]!['job_key']).toBe(rows[1]!['job_key']);
    expect(jobKey({ job_url: '', job_title: 'Other' })).not.toBe(rows[1]!['job_key']);
  });
});

describe('result content', () => {
  const record = (id: number, content: unknown, extra: Record<string, unknown> = {}) =>
    ({
      id,
      scraper_id: 1,
      scraping_run_id: 7,
      scraper_name: 's',
      scraped_url: `https://x.example/${id}`,
      status: 'succeeded',
      content,
      created_at: null,
      updated_at: null,
      ...extra,
    }) as unknown as ResultRecord;

  it('lands the documented string content as text, and as one `value` field of the inferred table', () => {
    const list = resultsListResponseSchema.parse(read('results-response-1.json'));
    const rows = flattenResponse({ kind: 'results', data: list });
    expect(rows.scraper_results!.map((r) => [r['id'], r['content_type'], r['content']])).toEqual([
      [2, 'string', '<your-extracted-data>'],
      [1, 'string', '<your-extracted-data>'],
    ]);
    const roots = flattenContentRows(list.data, { table: 'docs_items' });
    expect(roots.map((r) => [r.rowKey, r.fields])).toEqual([
      ['1', [['value', '<your-extracted-data>', '["value"]']]],
      ['2', [['value', '<your-extracted-data>', '["value"]']]],
    ]);
  });

  it('flattens nested objects into __ columns, arrays into child tables with parent keys and list indexes', () => {
    const [root] = flattenContentRows(
      [
        record(5, {
          title: 'Report',
          pages: 12,
          big: 12345678901234567890n,
          ok: true,
          none: null,
          'Odd Key!': { innerValue: 1 },
          tags: ['a', 'b'],
          authors: [{ name: 'Ana', links: [{ url: 'u1' }] }, { name: 'Chen' }],
          pipeline: 'clash',
        }),
      ],
      { table: 'p_items' },
    );
    // Candidate names with the original key path as source: the registry makes the final names (a key named like
    // a system column, `pipeline`, gets `_pipeline` there).
    expect(root!.fields).toEqual([
      ['title', 'Report', '["title"]'],
      ['pages', 12, '["pages"]'],
      ['big', 12345678901234567890n, '["big"]'],
      ['ok', true, '["ok"]'],
      ['none', null, '["none"]'],
      ['odd_key__inner_value', 1, '["Odd Key!","innerValue"]'],
      ['pipeline', 'clash', '["pipeline"]'],
    ]);
    expect(
      root!.children.map((c) => [c.table, c.tableSource, c.rowKey, c.parentKey, c.rootKey, c.listIndex, c.fields]),
    ).toEqual([
      ['p_items__tags', '[["tags"]]', '5#0', '5', '5', 0, [['value', 'a', '[]']]],
      ['p_items__tags', '[["tags"]]', '5#1', '5', '5', 1, [['value', 'b', '[]']]],
      ['p_items__authors', '[["authors"]]', '5#0', '5', '5', 0, [['name', 'Ana', '["name"]']]],
      ['p_items__authors__links', '[["authors"],["links"]]', '5#0#0', '5#0', '5', 0, [['url', 'u1', '["url"]']]],
      ['p_items__authors', '[["authors"]]', '5#1', '5', '5', 1, [['name', 'Chen', '["name"]']]],
    ]);
  });

  it('parses a string holding JSON, and gives null content (a running run) no fields', () => {
    const [a, b, c] = flattenContentRows([record(1, '{"a":{"b":2}}'), record(2, '{not json'), record(3, null)], {
      table: 't',
    });
    expect([a!.fields, b!.fields, c!.fields]).toEqual([
      [['a__b', 2, '["a","b"]']],
      [['value', '{not json', '["value"]']],
      [],
    ]);
  });

  it('keys rows by merge key values, falls back to the result id on null, keeps the newest result of a key', () => {
    const roots = flattenContentRows(
      [
        record(1, { email: 'a@x', n: 1 }),
        record(3, { email: 'a@x', n: 3 }),
        record(2, { email: 'a@x', n: 2 }),
        record(4, { email: null, n: 4 }),
      ],
      { table: 't', mergeKey: ['email'] },
    );
    expect(roots.map((r) => [r.rowKey, String(r.resultId)])).toEqual([
      ['4', '4'],
      ['["a@x"]', '3'],
    ]);
    expect(() => flattenContentRows([record(1, { mail: 'a@x' })], { table: 't', mergeKey: ['email'] })).toThrow(
      /merge_key path 'email' is not in the content of result 1 \(its fields: mail\)/,
    );
    expect(() => flattenContentRows([record(1, { author: { id: 1 } })], { table: 't', mergeKey: ['author'] })).toThrow(
      /holds an object/,
    );
    expect(
      flattenContentRows([record(1, { author: { id: 9 } })], { table: 't', mergeKey: ['author.id'] })[0]!.rowKey,
    ).toBe('[9]');
  });

  it('sends scraping-run results to the table of the pipeline kind', () => {
    const run = scrapingRunResponseSchema.parse(read('scraping-runs-id-response-1.json'));
    const pdf = flattenResponse({ kind: 'scraping-run', data: run }, { resultTable: KINDS.pdf.resultTable });
    expect(pdf.pdf_results).toHaveLength(1);
    expect(pdf.scraper_results).toBeUndefined();
    expect(pdf.scraping_runs).toEqual([
      { id: 12, scraper_id: 88683, status: 'succeeded', created_at: '2022-11-20T11:54:52.000000Z' },
    ]);
    expect(flattenScrapingRun(run, 'leads_results').leads_results).toHaveLength(1);
    expect(flattenResponse({ kind: 'scraping-run', data: run }).scraper_results).toHaveLength(1);
  });
});

describe('flattenCreateRun', () => {
  it('writes the scraper (type from the nested full form) and one run record per keyword', () => {
    const fullScraper = {
      ...Object.fromEntries(Object.keys(fullScraperSchema.shape).map((k) => [k, null])),
      id: 7,
      user_id: 3,
      sharing: false,
      share_uuid: null,
      name: 'reports',
      type: 'pdf',
      urls: 'Default',
      pdf_urls: 'Default',
      delay: 0,
      html_wanted: false,
      screenshot_wanted: false,
      scheduled: false,
      cron_timezone: 'UTC',
      paginate: 0,
      cron_minutes: '*',
      cron_hours: '*',
      cron_day_of_month: '*',
      cron_month: '*',
      cron_day_of_week: '*',
      click_action_enabled: false,
      click_action_wait: 'no',
      workflow: [],
      version: 2,
      proxy_type: 'rotation',
      created_at: '2024-01-01T00:00:00.000000Z',
      updated_at: '2024-01-01T00:00:00.000000Z',
    };
    const run = (id: number, keyword: string) => ({
      id,
      scraping_run_id: 100 + id,
      user_id: 3,
      scraper_id: 7,
      scraper_name: 'reports',
      scrapped_url: keyword,
      scraped_url: keyword,
      status: 'running',
      created_at: '2024-01-01T00:00:00.000000Z',
      updated_at: '2024-01-01T00:00:00.000000Z',
      scraper: fullScraper,
    });
    const response = createAndRunResponseSchema.parse({
      message: 'queued',
      scraper: {
        id: 7,
        name: 'reports',
        url: ['Default'],
        urls: ['Default'],
        scheduled: false,
        schedule: null,
        created_at: '2024-01-01T00:00:00.000000Z',
        updated_at: '2024-01-01T00:00:00.000000Z',
      },
      results: [run(1, 'annual report'), run(2, '年度报告')],
    });
    const rows = flattenCreateRun(response);
    expect(rows.scrapers).toEqual([
      expect.objectContaining({ id: 7, type: 'pdf', urls: '["Default"]', scheduled: false }),
    ]);
    expect(rows.run_records!.map((r) => [r['id'], r['scraping_run_id'], r['scrapped_url']])).toEqual([
      [1, 101, 'annual report'],
      [2, 102, '年度报告'],
    ]);
    expect(JSON.parse(rows.run_records![0]!['scraper'] as string)).toMatchObject({ type: 'pdf', version: 2 });
  });
});
