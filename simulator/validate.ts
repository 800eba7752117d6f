// Request validation with the error body the simulator answers 422 with. The real service's error shape is not
// published; it runs on Laravel (its 401 body is Laravel's), so the simulator uses Laravel's validation shape:
//   {"message": "<first error> (and N more errors)", "errors": {"<field>": ["<error>", ...]}}

export type FieldErrors = Record<string, string[]>;

export interface ValidationErrorBody {
  message: string;
  errors: FieldErrors;
}

export function validationErrorBody(errors: FieldErrors): ValidationErrorBody {
  const all = Object.values(errors).flat();
  const first = all[0] ?? 'The given data was invalid.';
  const more = all.length - 1;
  const message = more > 0 ? `${first} (and ${more} more error${more === 1 ? '' : 's'})` : first;
  return { message, errors };
}

export type Validated<T> = { ok: true; value: T } | { ok: false; errors: FieldErrors };

export const LIMITS = {
  maxJobUrls: 100,
  maxJobRecordsPerUrl: 1000,
  maxPdfKeywords: 100,
  maxExpectedPdf: 100_000,
  maxLimitPages: 1000,
  maxExpectedData: 100_000,
  maxPerPage: 1000,
  maxSimModels: 10_000,
} as const;

class Collector {
  readonly errors: FieldErrors = {};
  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }
  get ok(): boolean {
    return Object.keys(this.errors).length === 0;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isHttpUrl(v: unknown): v is string {
  if (typeof v !== 'string') return false;
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

function requireString(c: Collector, body: Record<string, unknown>, field: string, max = 255): string | undefined {
  const v = body[field];
  if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) {
    c.add(field, `The ${field} field is required.`);
    return undefined;
  }
  if (typeof v !== 'string') {
    c.add(field, `The ${field} field must be a string.`);
    return undefined;
  }
  if (v.length > max) c.add(field, `The ${field} field must not be greater than ${max} characters.`);
  return v;
}

function optionalInteger(
  c: Collector,
  body: Record<string, unknown>,
  field: string,
  min: number,
  max: number,
  required: boolean,
): number | undefined {
  const v = body[field];
  if (v === undefined || v === null) {
    if (required) c.add(field, `The ${field} field is required.`);
    return undefined;
  }
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    c.add(field, `The ${field} field must be an integer.`);
    return undefined;
  }
  if (v < min) c.add(field, `The ${field} field must be at least ${min}.`);
  else if (v > max) c.add(field, `The ${field} field must not be greater than ${max}.`);
  return v;
}

// ---------------------------------------------------------------------------------------------------------

export interface JobSchemaProperty {
  type?: unknown;
  description?: unknown;
  enum?: unknown;
  items?: unknown;
  properties?: unknown;
  format?: unknown;
}
export interface JobBoardInput {
  urls: string[];
  min: number;
  max: number;
  timeout: number;
  schema: Record<string, unknown>;
  properties: Record<string, JobSchemaProperty>;
}

/** Defaults when a job-board request leaves them out (every usage case sends them). */
export const JOB_DEFAULTS = { min: 1, max: 10, timeout: 60 } as const;

export function validateJobBoard(body: unknown): Validated<JobBoardInput> {
  const c = new Collector();
  if (!isObject(body)) return { ok: false, errors: { body: ['The request body must be a JSON object.'] } };
  const urls = body['urls'];
  if (!Array.isArray(urls) || urls.length === 0)
    c.add('urls', 'The urls field is required and must be a non-empty array.');
  else if (urls.length > LIMITS.maxJobUrls)
    c.add('urls', `The urls field must not have more than ${LIMITS.maxJobUrls} items.`);
  else
    urls.forEach((u, i) => {
      if (!isHttpUrl(u)) c.add(`urls.${i}`, `The urls.${i} field must be a valid http(s) URL.`);
    });
  const min = optionalInteger(c, body, 'min', 0, LIMITS.maxJobRecordsPerUrl, false) ?? JOB_DEFAULTS.min;
  const max = optionalInteger(c, body, 'max', 0, LIMITS.maxJobRecordsPerUrl, false) ?? Math.max(JOB_DEFAULTS.max, min);
  if (min > max) c.add('max', 'The max field must be greater than or equal to min.');
  const timeout = optionalInteger(c, body, 'timeout', 1, 86_400, false) ?? JOB_DEFAULTS.timeout;
  const schema = body['schema'];
  let properties: Record<string, JobSchemaProperty> = {};
  if (!isObject(schema)) c.add('schema', 'The schema field is required and must be an object.');
  else {
    const items = schema['items'];
    const props = isObject(items) ? items['properties'] : undefined;
    if (!isObject(props) || Object.keys(props).length === 0) {
      c.add(
        'schema.items.properties',
        'The schema.items.properties field must be an object with at least one property.',
      );
    } else {
      for (const [name, p] of Object.entries(props)) {
        if (!isObject(p))
          c.add(`schema.items.properties.${name}`, `The property ${name} must be an object with a type.`);
      }
      properties = props as Record<string, JobSchemaProperty>;
    }
  }
  if (!c.ok || !isObject(schema)) return { ok: false, errors: c.errors };
  return { ok: true, value: { urls: urls as string[], min, max, timeout, schema, properties } };
}

export interface PdfKeyword {
  keyword: string;
  prompt: string;
}
export interface PdfInput {
  name: string;
  keywords: PdfKeyword[];
  unique: boolean;
  expected_pdf: number;
}

/** Results per keyword when expected_pdf is absent. */
export const DEFAULT_PDF_PER_KEYWORD = 3;

export function validatePdf(body: unknown): Validated<PdfInput> {
  const c = new Collector();
  if (!isObject(body)) return { ok: false, errors: { body: ['The request body must be a JSON object.'] } };
  const name = requireString(c, body, 'name');
  const kws = body['keywords'];
  const keywords: PdfKeyword[] = [];
  if (!Array.isArray(kws) || kws.length === 0)
    c.add('keywords', 'The keywords field is required and must be a non-empty array.');
  else if (kws.length > LIMITS.maxPdfKeywords)
    c.add('keywords', `The keywords field must not have more than ${LIMITS.maxPdfKeywords} items.`);
  else {
    kws.forEach((k, i) => {
      if (!isObject(k)) {
        c.add(`keywords.${i}`, `The keywords.${i} field must be an object with keyword and prompt.`);
        return;
      }
      const keyword = requireString(c, k, 'keyword', 500);
      const prompt = requireString(c, k, 'prompt', 2000);
      // Re-key the nested messages so the field path says which keyword is wrong.
      for (const f of ['keyword', 'prompt']) {
        const msgs = c.errors[f];
        if (msgs) {
          delete c.errors[f];
          c.errors[`keywords.${i}.${f}`] = msgs.map((m) => m.replace(`The ${f} field`, `The keywords.${i}.${f} field`));
        }
      }
      if (keyword !== undefined && prompt !== undefined) keywords.push({ keyword, prompt });
    });
  }
  const unique = body['unique'];
  if (unique !== undefined && unique !== null && typeof unique !== 'boolean')
    c.add('unique', 'The unique field must be true or false.');
  const ep = body['expected_pdf'];
  let expected: number | undefined;
  if (ep !== undefined && ep !== null) {
    if (typeof ep !== 'number' || !Number.isFinite(ep))
      c.add('expected_pdf', 'The expected_pdf field must be a number.');
    else if (ep < 1) c.add('expected_pdf', 'The expected_pdf field must be at least 1.');
    else if (ep > LIMITS.maxExpectedPdf)
      c.add('expected_pdf', `The expected_pdf field must not be greater than ${LIMITS.maxExpectedPdf}.`);
    else expected = Math.floor(ep);
  }
  if (!c.ok || name === undefined) return { ok: false, errors: c.errors };
  return {
    ok: true,
    value: {
      name,
      keywords,
      unique: unique === true,
      expected_pdf: expected ?? keywords.length * DEFAULT_PDF_PER_KEYWORD,
    },
  };
}

export interface LeadsSearchEngineInput {
  name: string;
  search_type: 'url' | 'keywords';
  limit_pages: number;
  keywords?: string;
  url?: string;
}

export function validateLeadsSearchEngine(body: unknown): Validated<LeadsSearchEngineInput> {
  const c = new Collector();
  if (!isObject(body)) return { ok: false, errors: { body: ['The request body must be a JSON object.'] } };
  const name = requireString(c, body, 'name');
  const st = body['search_type'];
  if (st === undefined || st === null || st === '') c.add('search_type', 'The search_type field is required.');
  else if (st !== 'url' && st !== 'keywords')
    c.add('search_type', 'The selected search_type is invalid (expected url or keywords).');
  const limitPages = optionalInteger(c, body, 'limit_pages', 1, LIMITS.maxLimitPages, true);
  let keywords: string | undefined;
  let url: string | undefined;
  if (st === 'keywords') keywords = requireStringIf(c, body, 'keywords', 'search_type is keywords');
  else if (body['keywords'] !== undefined && body['keywords'] !== null && typeof body['keywords'] !== 'string') {
    c.add('keywords', 'The keywords field must be a string.');
  }
  if (st === 'url') {
    url = requireStringIf(c, body, 'url', 'search_type is url');
    if (url !== undefined && !isHttpUrl(url)) c.add('url', 'The url field must be a valid http(s) URL.');
  } else if (body['url'] !== undefined && body['url'] !== null && !isHttpUrl(body['url'])) {
    c.add('url', 'The url field must be a valid http(s) URL.');
  }
  if (!c.ok || name === undefined || limitPages === undefined) return { ok: false, errors: c.errors };
  const value: LeadsSearchEngineInput = { name, search_type: st as 'url' | 'keywords', limit_pages: limitPages };
  if (keywords !== undefined) value.keywords = keywords;
  if (url !== undefined) value.url = url;
  return { ok: true, value };
}

function requireStringIf(c: Collector, body: Record<string, unknown>, field: string, when: string): string | undefined {
  const v = body[field];
  if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) {
    c.add(field, `The ${field} field is required when ${when}.`);
    return undefined;
  }
  if (typeof v !== 'string') {
    c.add(field, `The ${field} field must be a string.`);
    return undefined;
  }
  return v;
}

export const SENTIMENTS = ['all', 'positive', 'neutral', 'negative'] as const;
export type Sentiment = (typeof SENTIMENTS)[number];

export interface LeadsSocialInput {
  name: string;
  keywords: string;
  sentiment_type: Sentiment;
  expected_data: number;
}

export function validateLeadsSocial(body: unknown): Validated<LeadsSocialInput> {
  const c = new Collector();
  if (!isObject(body)) return { ok: false, errors: { body: ['The request body must be a JSON object.'] } };
  const name = requireString(c, body, 'name');
  const keywords = requireString(c, body, 'keywords', 1000);
  const st = body['sentiment_type'];
  if (st === undefined || st === null || st === '') c.add('sentiment_type', 'The sentiment_type field is required.');
  else if (!SENTIMENTS.includes(st as Sentiment)) {
    c.add('sentiment_type', 'The selected sentiment_type is invalid (expected all, positive, neutral or negative).');
  }
  const expected = optionalInteger(c, body, 'expected_data', 1, LIMITS.maxExpectedData, true);
  if (!c.ok || name === undefined || keywords === undefined || expected === undefined)
    return { ok: false, errors: c.errors };
  return { ok: true, value: { name, keywords, sentiment_type: st as Sentiment, expected_data: expected } };
}

export interface MarketplaceInput {
  url: string;
  itemId: number;
  shopId: number;
  /** `sim_models` query parameter: the number of models to generate (benchmarks); absent = 2..8 by hash. */
  models?: number;
}

export function validateMarketplace(body: unknown): Validated<MarketplaceInput> {
  const c = new Collector();
  if (!isObject(body)) return { ok: false, errors: { body: ['The request body must be a JSON object.'] } };
  const url = requireString(c, body, 'url', 4000);
  if (url === undefined) return { ok: false, errors: c.errors };
  const parsed = parseProductUrl(url);
  if (!parsed.ok) return parsed;
  return parsed;
}

/**
 * Reads the item and shop ids and sim_models from a product-detail API URL: `itemid`/`shopid` (v2) or
 * `item_id`/`shop_id` (v4), whichever the URL carries.
 */
export function parseProductUrl(url: string): Validated<MarketplaceInput> {
  const c = new Collector();
  if (!isHttpUrl(url)) {
    c.add('url', 'The url field must be a valid http(s) URL.');
    return { ok: false, errors: c.errors };
  }
  const q = new URL(url).searchParams;
  const id = (name: string): number | undefined => {
    const v4 = name === 'itemid' ? 'item_id' : 'shop_id';
    const raw = q.get(name) ?? q.get(v4);
    if (raw === null || !/^\d{1,16}$/.test(raw) || !Number.isSafeInteger(Number(raw)) || Number(raw) === 0) {
      c.add('url', `The url must carry a positive integer ${name} (or ${v4}) query parameter.`);
      return undefined;
    }
    return Number(raw);
  };
  const itemId = id('itemid');
  const shopId = id('shopid');
  let models: number | undefined;
  const sm = q.get('sim_models');
  if (sm !== null) {
    const n = Number(sm);
    if (!/^\d+$/.test(sm) || n < 1 || n > LIMITS.maxSimModels)
      c.add('url', `sim_models must be an integer from 1 to ${LIMITS.maxSimModels}.`);
    else models = n;
  }
  if (!c.ok || itemId === undefined || shopId === undefined) return { ok: false, errors: c.errors };
  const value: MarketplaceInput = { url, itemId, shopId };
  if (models !== undefined) value.models = models;
  return { ok: true, value };
}

export interface PageQuery {
  page: number;
  perPage: number;
}

export const DEFAULT_PER_PAGE = 20;

export function validatePageQuery(q: URLSearchParams): Validated<PageQuery> {
  const c = new Collector();
  const read = (name: string, fallback: number, max: number): number => {
    const raw = q.get(name);
    if (raw === null || raw === '') return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < 1) {
      c.add(name, `The ${name} field must be an integer of at least 1.`);
      return fallback;
    }
    if (Number(raw) > max) {
      c.add(name, `The ${name} field must not be greater than ${max}.`);
      return fallback;
    }
    return Number(raw);
  };
  const page = read('page', 1, Number.MAX_SAFE_INTEGER);
  const perPage = read('per_page', DEFAULT_PER_PAGE, LIMITS.maxPerPage);
  return c.ok ? { ok: true, value: { page, perPage } } : { ok: false, errors: c.errors };
}
