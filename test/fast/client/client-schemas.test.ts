import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ApiValidationError,
  int64,
  jobBoardRequestSchema,
  jobRecordSchemaFor,
  leadsSearchEngineRequestSchema,
  leadsSocialRequestSchema,
  marketplaceResponseSchema,
  marketplaceSyncRequestSchema,
  parseJson,
  pdfCreateRequestSchema,
  resultsListResponseSchema,
  scrapersListResponseSchema,
  scrapingRunResponseSchema,
  stringifyJson,
  validateWith,
} from '../../../client/index.js';
import { REAL_FIXTURES } from '../../support/fixtures.js';

const FIXTURES = REAL_FIXTURES;
const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');
const MARKET = 'POST /api/marketplace/sync';

function expectValidationError(fn: () => unknown): ApiValidationError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiValidationError);
    return err as ApiValidationError;
  }
  throw new Error('expected an ApiValidationError, nothing was thrown');
}

describe('parseJson / stringifyJson', () => {
  it('keeps safe integers as numbers and turns larger ones into bigint', () => {
    const v = parseJson(
      '{"a": 9007199254740991, "b": 9007199254740993, "c": -12345678901234567890, "d": 1.5, "e": "12345678901234567"}',
    ) as Record<string, unknown>;
    expect(v.a).toBe(9007199254740991);
    expect(v.b).toBe(9007199254740993n);
    expect(v.c).toBe(-12345678901234567890n);
    expect(v.d).toBe(1.5);
    expect(v.e).toBe('12345678901234567');
    // Only digits outside strings count: in a key or a string they do not make a number big, next to one they do.
    const w = parseJson('{"k12345678901234567": 9007199254740993, "s": "id 12345678901234567", "n": 12}') as Record<
      string,
      unknown
    >;
    expect(w).toEqual({ k12345678901234567: 9007199254740993n, s: 'id 12345678901234567', n: 12 });
    expect(parseJson('["x\\"", 12345678901234567890]')).toEqual(['x"', 12345678901234567890n]);
  });

  it('writes bigints back as plain JSON numbers, losslessly', () => {
    const text = '{"id":18446744073709551615,"list":[1,9007199254740993],"s":"x"}';
    expect(stringifyJson(parseJson(text))).toBe(text);
    expect(stringifyJson({ a: 1, b: [true, null] })).toBe('{"a":1,"b":[true,null]}');
  });

  it('gives the same value on the fast and the lossless path for the marketplace fixture', () => {
    const text = fixture('shopee-sync-response-1.json');
    // label_ids of ~8.4e14 have 15 digits, so the fixture takes the fast path; force the slow one with a
    // big integer (digits inside strings no longer do) and compare.
    const slow = parseJson(text.replace(/^\s*\{/, '{"big": 12345678901234567890,')) as { big: unknown };
    const fast = parseJson(text);
    const { big, ...rest } = slow;
    expect(big).toBe(12345678901234567890n);
    expect(rest).toEqual(fast);
  });

  it('rejects the trailing commas of the verbatim documentation examples (no silent repair)', () => {
    for (const name of ['scrapers-response-1.raw.txt', 'scraping-runs-id-response-1.raw.txt']) {
      const raw = fixture(name);
      expect(() => parseJson(raw), name).toThrow(SyntaxError);
      // The trailing comma is the only defect: without it the text equals the cleaned .json fixture.
      const repaired = raw.replace(/,(\s*[}\]])/g, '$1');
      expect(parseJson(repaired)).toEqual(parseJson(fixture(name.replace('.raw.txt', '.json'))));
    }
  });
});

describe('response schemas on the real fixtures', () => {
  it('list results', () => {
    const data = validateWith(resultsListResponseSchema, parseJson(fixture('results-response-1.json')), {
      endpoint: 'GET /api/results',
      side: 'response',
    });
    expect(data.data.map((r) => r.id)).toEqual([2, 1]);
    expect(data.data[0]?.content).toBe('<your-extracted-data>');
  });

  it('list scrapers (nullable schedule)', () => {
    const data = validateWith(scrapersListResponseSchema, parseJson(fixture('scrapers-response-1.json')), {
      endpoint: 'GET /api/scrapers',
      side: 'response',
    });
    expect(data.data.map((s) => [s.id, s.schedule])).toEqual([
      [88683, null],
      [88684, '15 1 * * *'],
    ]);
  });

  it('scraping run (no updated_at on the run itself)', () => {
    const data = validateWith(scrapingRunResponseSchema, parseJson(fixture('scraping-runs-id-response-1.json')), {
      endpoint: 'GET /api/scraping-runs/12',
      side: 'response',
    });
    expect(data.data.id).toBe(12);
    expect(data.data.results).toHaveLength(1);
  });

  it('marketplace product: every section, unknown fields kept', () => {
    const body = parseJson(fixture('shopee-sync-response-1.json')) as { data: { data: Record<string, unknown> } };
    body.data.data.brand_new_section = { x: 1 };
    (body.data.data.item as Record<string, unknown>).future_field = 'kept';
    const data = validateWith(marketplaceResponseSchema, body, { endpoint: MARKET, side: 'response' });
    const inner = data.data.data;
    expect(inner.item.item_id).toBe(4420309814);
    expect(inner.item.price).toBe(16900000);
    expect(inner.item.price_min_before_discount).toBe(-1);
    expect(inner.item.label_ids).toContain(844931064601283);
    expect(inner.item.models[0]?.model_id).toBe(22017999727);
    expect(inner.item.tier_variations).toHaveLength(1);
    expect(inner.shop_detailed.rating_star).toBeCloseTo(4.968159);
    expect(inner.product_attributes.attrs.length).toBeGreaterThan(0);
    expect((inner as Record<string, unknown>).brand_new_section).toEqual({ x: 1 });
    expect((inner.item as Record<string, unknown>).future_field).toBe('kept');
  });

  it('accepts 64-bit ids beyond the safe range as bigint, up to 2^63-1 (the database columns are signed 64-bit)', () => {
    const text = fixture('shopee-sync-response-1.json').replace(
      '"item_id": 4420309814',
      '"item_id": 9223372036854775807',
    );
    const data = validateWith(marketplaceResponseSchema, parseJson(text), { endpoint: MARKET, side: 'response' });
    expect(data.data.data.item.item_id).toBe(9223372036854775807n);
    // Unsigned 64-bit (2^64 - 59) fits no bigint column: a contract error naming endpoint and path, not a DB error later.
    const unsigned = fixture('shopee-sync-response-1.json').replace(
      '"item_id": 4420309814',
      '"item_id": 18446744073709551557',
    );
    const err = expectValidationError(() =>
      validateWith(marketplaceResponseSchema, parseJson(unsigned), { endpoint: MARKET, side: 'response' }),
    );
    expect(err.path).toBe('data.data.item.item_id');
    expect(err.retryable).toBe(false);
  });

  it('is permissive on null-observed fields and strict on typed ones', () => {
    const body = parseJson(fixture('shopee-sync-response-1.json')) as any;
    body.data.data.flash_sale = { starts: 1 };
    body.data.data.item.stock = 17;
    body.data.data.item.models[0].sold = 'many';
    expect(marketplaceResponseSchema.safeParse(body).success).toBe(true);

    body.data.data.item.models[0].price = '16900000';
    const err = expectValidationError(() =>
      validateWith(marketplaceResponseSchema, body, { endpoint: MARKET, side: 'response' }),
    );
    expect(err.message).toBe(`${MARKET}: data.data.item.models[0].price: expected integer, got string`);
    expect(err.path).toBe('data.data.item.models[0].price');
    expect(err.endpoint).toBe(MARKET);
    expect(err.retryable).toBe(false);
  });

  it('names a missing required field and counts further issues', () => {
    const body = parseJson(fixture('shopee-sync-response-1.json')) as any;
    delete body.data.data.item.title;
    body.data.data.item.attributes[1].name = 5;
    body.data.data.shop_detailed.vacation = 'no';
    const err = expectValidationError(() =>
      validateWith(marketplaceResponseSchema, body, { endpoint: MARKET, side: 'response' }),
    );
    expect(err.message).toBe(
      `${MARKET}: data.data.item.title: expected string, got nothing (field missing) (and 2 more issues)`,
    );
    expect(err.issues.map((i) => i.path)).toEqual([
      'data.data.item.title',
      'data.data.item.attributes[1].name',
      'data.data.shop_detailed.vacation',
    ]);
  });

  it('int64 rejects fractions and strings', () => {
    expect(int64.safeParse(3).success).toBe(true);
    expect(int64.safeParse(3n).success).toBe(true);
    expect(int64.safeParse(3.5).success).toBe(false);
    expect(int64.safeParse('3').success).toBe(false);
  });
});

describe('request schemas', () => {
  const opts = { endpoint: 'POST /x', side: 'request' as const };

  it('accepts the real leads-generator requests', () => {
    expect(
      leadsSearchEngineRequestSchema.parse(parseJson(fixture('leads-generator-google-request-1.json'))),
    ).toMatchObject({
      search_type: 'url',
      limit_pages: 1,
    });
    expect(leadsSocialRequestSchema.parse(parseJson(fixture('leads-generator-twitter-request-1.json')))).toMatchObject({
      sentiment_type: 'positive',
    });
    expect(marketplaceSyncRequestSchema.parse(parseJson(fixture('shopee-sync-request-1.json'))).url).toContain(
      'itemid=',
    );
  });

  it('enforces the conditional url / keywords rule of the search-engine variant', () => {
    const urlErr = expectValidationError(() =>
      validateWith(
        leadsSearchEngineRequestSchema,
        { name: 'a', search_type: 'url', limit_pages: 1, keywords: 'x' },
        opts,
      ),
    );
    expect(urlErr.message).toContain("url: required when search_type is 'url'");
    const kwErr = expectValidationError(() =>
      validateWith(
        leadsSearchEngineRequestSchema,
        { name: 'a', search_type: 'keywords', limit_pages: 1, url: 'https://a.b/' },
        opts,
      ),
    );
    expect(kwErr.path).toBe('keywords');
    expect(
      leadsSearchEngineRequestSchema.safeParse({ name: 'a', search_type: 'keywords', limit_pages: 2, keywords: 'k' })
        .success,
    ).toBe(true);
    const enumErr = expectValidationError(() =>
      validateWith(leadsSearchEngineRequestSchema, { name: 'a', search_type: 'site', limit_pages: 1 }, opts),
    );
    expect(enumErr.message).toContain("search_type: expected 'url' or 'keywords'");
  });

  it('enforces the sentiment enum and rejects unknown (misspelled) keys', () => {
    const base = { name: 'n', keywords: 'k', expected_data: 10 };
    for (const s of ['all', 'positive', 'neutral', 'negative']) {
      expect(leadsSocialRequestSchema.safeParse({ ...base, sentiment_type: s }).success).toBe(true);
    }
    const err = expectValidationError(() =>
      validateWith(leadsSocialRequestSchema, { ...base, sentiment_type: 'happy' }, opts),
    );
    expect(err.message).toContain('sentiment_type');
    const typo = expectValidationError(() =>
      validateWith(
        pdfCreateRequestSchema,
        { name: 'p', keywords: [{ keyword: 'k', prompt: 'p' }], expected_pdfs: 3 },
        opts,
      ),
    );
    expect(typo.message).toBe(
      "POST /x: expected_pdfs: unknown field 'expected_pdfs' (check the spelling) [invalid request, not sent]",
    );
  });

  it('checks job records against the data schema the request sent', () => {
    const req = jobBoardRequestSchema.parse({
      urls: ['https://jobs.example.com/search?q=ts'],
      min: 1,
      max: 5,
      timeout: 60,
      schema: {
        type: 'array',
        description: 'jobs',
        items: {
          type: 'object',
          description: 'a job',
          properties: {
            job_title: { type: 'string', description: 't' },
            job_salary: { type: 'number', description: 's' },
          },
          required: ['job_title', 'job_salary'],
        },
        required: ['items'],
      },
    });
    const records = jobRecordSchemaFor(req.schema);
    expect(records.safeParse({ job_title: 'Dev', job_salary: 0, extra: 1 }).success).toBe(true);
    expect(records.safeParse({ job_title: 'Dev', job_salary: '1000-2000' }).success).toBe(false);
    expect(records.safeParse({ job_salary: 10 }).success).toBe(false);
    const bad = expectValidationError(() =>
      validateWith(
        jobBoardRequestSchema,
        { ...req, schema: { ...req.schema, items: { ...req.schema.items, required: ['job_title', 'job_url'] } } },
        opts,
      ),
    );
    expect(bad.message).toContain(
      "schema.items.required[1]: 'job_url' is required but not defined in items.properties",
    );
  });
});
