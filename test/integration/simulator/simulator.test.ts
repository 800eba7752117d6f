// The simulator over real HTTP with plain fetch: shapes and content types of all eight endpoints, auth,
// validation, determinism, run lifecycle, paging, every fault knob, scripted faults, and the real command.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createAndRunResponseSchema,
  fullScraperSchema,
  jobBoardResponseSchema,
  marketplaceResponseSchema,
  resultsListResponseSchema,
  scrapersListResponseSchema,
  scrapingRunResponseSchema,
} from '../../../client/schemas.js';
import { parseJson } from '../../../lib/json.js';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../../simulator/server.js';
import { jobSchemaWith } from '../../support/job-schema.js';

const TOKEN = 'test-token-123';
const TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const PRODUCT_URL = 'https://shopee.tw/api/v2/item/get?itemid=4420309814&shopid=10115139';

const JOB_SCHEMA = jobSchemaWith({
  years_experience: { type: 'integer', description: 'an extra property' },
  remote: { type: 'boolean', description: 'another extra property' },
});

/** A hand-driven clock: lifecycle tests advance time instead of sleeping. */
function manualClock(start = Date.UTC(2026, 10, 23, 10, 0, 0, 123)) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

interface Answer {
  status: number;
  type: string | null;
  text: string;
  json: any;
  headers: Headers;
}

function client(sim: RunningSimulator, token: string | null = TOKEN) {
  const call = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (token !== null) headers['Authorization'] = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(`${sim.baseUrl}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, type: res.headers.get('content-type'), text, json, headers: res.headers };
  };
  return { get: (p: string) => call('GET', p), post: (p: string, b: unknown) => call('POST', p, b), call };
}

const pdfBody = {
  name: 'Energy reports',
  keywords: [
    { keyword: 'solar energy report', prompt: 'Is this an annual report about solar energy?' },
    { keyword: 'wind turbine datasheet', prompt: 'Is this a technical datasheet?' },
    { keyword: 'hydrogen policy', prompt: 'Is this a policy review?' },
  ],
  unique: true,
  expected_pdf: 10,
};
const seBody = {
  name: 'Google Leads Generator Example',
  search_type: 'url',
  url: 'https://www.apple.com/',
  limit_pages: 2,
};
const socialBody = {
  name: 'Twitter Sentiment Scraper Example',
  keywords: 'AI, Machine Learning',
  sentiment_type: 'positive',
  expected_data: 7,
};

const sims: RunningSimulator[] = [];
async function sim(opts: Partial<SimulatorOptions> = {}): Promise<RunningSimulator> {
  const s = await startSimulator({ token: TOKEN, ...opts });
  sims.push(s);
  return s;
}
afterAll(async () => {
  await Promise.all(sims.map((s) => s.close()));
});

describe('endpoints', () => {
  let s: RunningSimulator;
  let api: ReturnType<typeof client>;
  const clock = manualClock();
  beforeAll(async () => {
    s = await sim({ seed: 42, clock: clock.now, runDurationMs: 3000 });
    api = client(s);
  });

  it('answers 401 with the real body to a missing or wrong token, on every endpoint', async () => {
    const paths: Array<[string, string]> = [
      ['POST', '/api/job-board-scrape'],
      ['POST', '/api/scrapers/pdf/create-and-run'],
      ['POST', '/api/scrapers/leads-generator/search-engine/create-and-run'],
      ['POST', '/api/scrapers/leads-generator/social/create-and-run'],
      ['POST', '/api/marketplace/sync'],
      ['GET', '/api/results'],
      ['GET', '/api/scrapers'],
      ['GET', '/api/scraping-runs/5001'],
      ['GET', '/_sim/state'],
    ];
    for (const c of [client(s, null), client(s, 'wrong-token'), client(s, `${TOKEN}x`)]) {
      for (const [m, p] of paths) {
        const r = await c.call(m, p, m === 'POST' ? {} : undefined);
        expect(r.status, `${m} ${p}`).toBe(401);
        expect(r.text).toBe('{"message":"Unauthenticated."}');
        expect(r.type).toBe('application/json');
      }
    }
    expect(s.truth.scrapers()).toHaveLength(0);
  });

  it('job-board: records typed by the request schema, count between min and max, as the truth says', async () => {
    const urls = [
      'https://www.indeed.com/jobs?q=data+engineer',
      'https://weworkremotely.com/categories/remote-programming-jobs',
    ];
    const r = await api.post('/api/job-board-scrape', { urls, min: 3, max: 9, timeout: 30, schema: JOB_SCHEMA });
    expect(r.status).toBe(200);
    expect(r.type).toBe('application/json');
    expect(jobBoardResponseSchema.safeParse(r.json).success).toBe(true);
    const expected = urls.flatMap((u) => s.truth.jobs(u, JOB_SCHEMA, 3, 9));
    expect(r.json.result).toEqual(expected);
    expect(r.json.totalDone).toBe(expected.length);
    expect(Number.isInteger(r.json.tokenUsage) && r.json.tokenUsage > 0).toBe(true);
    for (const u of urls) {
      const n = s.truth.jobs(u, JOB_SCHEMA, 3, 9).length;
      expect(n).toBeGreaterThanOrEqual(3);
      expect(n).toBeLessThanOrEqual(9);
    }
    for (const rec of r.json.result) {
      expect(Object.keys(rec).sort()).toEqual(Object.keys(JOB_SCHEMA.items.properties).sort());
      expect(typeof rec.job_title).toBe('string');
      expect(typeof rec.job_salary).toBe('number');
      expect(Number.isInteger(rec.years_experience)).toBe(true);
      expect(typeof rec.remote).toBe('boolean');
      expect(new URL(rec.job_url).protocol).toBe('https:');
    }
    // A string-typed salary comes back as a string.
    const stringSchema = jobSchemaWith({ job_salary: { type: 'string', description: 'salary as written' } });
    const r2 = await api.post('/api/job-board-scrape', {
      urls: [urls[0]],
      min: 5,
      max: 5,
      timeout: 30,
      schema: stringSchema,
    });
    expect(r2.json.result).toHaveLength(5);
    for (const rec of r2.json.result) expect(typeof rec.job_salary).toBe('string');
    // Counts spread over the range across URLs rather than sticking to one value.
    const counts = new Set(
      Array.from(
        { length: 40 },
        (_, i) => s.truth.jobs(`https://www.indeed.com/jobs?start=${i}`, JOB_SCHEMA, 0, 20).length,
      ),
    );
    expect(counts.size).toBeGreaterThan(5);
  });

  it('pdf create-and-run: one run record per keyword with the full nested scraper mirroring the keywords', async () => {
    const r = await api.post('/api/scrapers/pdf/create-and-run', pdfBody);
    expect(r.status).toBe(200);
    expect(r.type).toBe('application/json');
    expect(createAndRunResponseSchema.safeParse(r.json).success).toBe(true);
    expect(r.json.message).toBe('Scraper created and queued successfully.');
    const scraper = r.json.scraper;
    expect(scraper).toMatchObject({
      name: pdfBody.name,
      url: ['Default'],
      urls: ['Default'],
      scheduled: false,
      schedule: null,
    });
    expect(scraper.created_at).toMatch(TS);
    expect(r.json.results).toHaveLength(3);
    r.json.results.forEach((rec: any, i: number) => {
      const kw = pdfBody.keywords[i]!;
      expect(rec).toMatchObject({
        scraper_id: scraper.id,
        scraper_name: pdfBody.name,
        scrapped_url: kw.keyword,
        scraped_url: kw.keyword,
        status: 'running',
      });
      expect(rec.created_at).toMatch(TS);
      expect(fullScraperSchema.strict().safeParse(rec.scraper).success).toBe(true);
      expect(rec.scraper).toMatchObject({
        id: scraper.id,
        type: 'pdf',
        urls: 'Default',
        pdf_urls: 'Default',
        version: 2,
        proxy_type: 'rotation',
        cron_timezone: 'UTC',
        click_action_wait: 'no',
      });
      expect(rec.scraper.workflow).toEqual([
        {
          type: 'options',
          data: {
            keywords: pdfBody.keywords.map((k) => ({
              type: 'keyword',
              data: { keyword: k.keyword, prompt: k.prompt },
            })),
          },
        },
      ]);
    });
    const runIds = r.json.results.map((x: any) => x.scraping_run_id);
    expect(new Set(runIds).size).toBe(3);
    // expected_pdf 10 over 3 keywords: 4, 3, 3.
    expect(runIds.map((id: number) => s.truth.runResults(id).length)).toEqual([4, 3, 3]);
    const first = s.truth.runResults(runIds[0])[0]!;
    expect(first.content).toMatchObject({ keyword: pdfBody.keywords[0]!.keyword, classifier: { answer: true } });
    expect(first.scraped_url).toBe(first.content['pdf_url']);
    expect(Array.isArray(first.content['authors']) && typeof (first.content['authors'] as unknown[])[0]).toBe('object');
    // Without expected_pdf: 3 per keyword.
    const r2 = await api.post('/api/scrapers/pdf/create-and-run', {
      name: 'two',
      keywords: pdfBody.keywords.slice(0, 2),
    });
    expect(r2.json.results.map((x: any) => s.truth.runResults(x.scraping_run_id).length)).toEqual([3, 3]);
  });

  it('leads create-and-run, both variants: no nested scraper, Default urls, result counts', async () => {
    const r = await api.post('/api/scrapers/leads-generator/search-engine/create-and-run', seBody);
    expect(r.status).toBe(200);
    expect(createAndRunResponseSchema.safeParse(r.json).success).toBe(true);
    expect(r.json.scraper.url).toEqual([seBody.url]);
    expect(r.json.results).toHaveLength(1);
    const rec = r.json.results[0];
    expect(rec).toMatchObject({
      scrapped_url: 'Default',
      scraped_url: 'Default',
      status: 'running',
      scraper_name: seBody.name,
    });
    expect('scraper' in rec).toBe(false);
    expect(s.truth.runResults(rec.scraping_run_id)).toHaveLength(20);
    const lead = s.truth.runResults(rec.scraping_run_id)[0]!.content;
    expect(Array.isArray(lead['social_profiles'])).toBe(true);
    expect(typeof lead['name']).toBe('string');

    const kw = await api.post('/api/scrapers/leads-generator/search-engine/create-and-run', {
      name: 'kw',
      search_type: 'keywords',
      keywords: 'coffee roasters berlin',
      limit_pages: 1,
    });
    expect(kw.status).toBe(200);
    expect(kw.json.scraper.url).toEqual(['Default']);
    expect(s.truth.runResults(kw.json.results[0].scraping_run_id)).toHaveLength(10);

    const so = await api.post('/api/scrapers/leads-generator/social/create-and-run', socialBody);
    expect(so.status).toBe(200);
    expect(createAndRunResponseSchema.safeParse(so.json).success).toBe(true);
    expect(so.json.results[0]).toMatchObject({ scrapped_url: 'Default', scraped_url: 'Default', status: 'running' });
    expect('scraper' in so.json.results[0]).toBe(false);
    const posts = s.truth.runResults(so.json.results[0].scraping_run_id);
    expect(posts).toHaveLength(7);
    for (const p of posts)
      expect(p.content).toMatchObject({
        sentiment: 'positive',
        metrics: { likes: expect.any(Number) },
        author: { handle: expect.any(String) },
      });
  });

  it('422 with {message, errors} for every invalid body, per conditional rule', async () => {
    const cases: Array<[string, unknown, string]> = [
      [
        '/api/scrapers/leads-generator/search-engine/create-and-run',
        { name: 'a', search_type: 'url', limit_pages: 1 },
        'url',
      ],
      [
        '/api/scrapers/leads-generator/search-engine/create-and-run',
        { name: 'a', search_type: 'url', url: 'not a url', limit_pages: 1 },
        'url',
      ],
      [
        '/api/scrapers/leads-generator/search-engine/create-and-run',
        { name: 'a', search_type: 'keywords', limit_pages: 1 },
        'keywords',
      ],
      [
        '/api/scrapers/leads-generator/search-engine/create-and-run',
        { name: 'a', search_type: 'keywords', keywords: '  ', limit_pages: 1 },
        'keywords',
      ],
      [
        '/api/scrapers/leads-generator/search-engine/create-and-run',
        { name: 'a', search_type: 'maps', url: 'https://a.example', limit_pages: 1 },
        'search_type',
      ],
      [
        '/api/scrapers/leads-generator/search-engine/create-and-run',
        { name: 'a', search_type: 'url', url: 'https://a.example' },
        'limit_pages',
      ],
      [
        '/api/scrapers/leads-generator/search-engine/create-and-run',
        { name: 'a', search_type: 'url', url: 'https://a.example', limit_pages: 1.5 },
        'limit_pages',
      ],
      [
        '/api/scrapers/leads-generator/search-engine/create-and-run',
        { search_type: 'url', url: 'https://a.example', limit_pages: 1 },
        'name',
      ],
      [
        '/api/scrapers/leads-generator/social/create-and-run',
        { ...socialBody, sentiment_type: 'angry' },
        'sentiment_type',
      ],
      [
        '/api/scrapers/leads-generator/social/create-and-run',
        { ...socialBody, expected_data: undefined },
        'expected_data',
      ],
      ['/api/scrapers/leads-generator/social/create-and-run', { ...socialBody, keywords: undefined }, 'keywords'],
      ['/api/scrapers/pdf/create-and-run', { name: 'p', keywords: [] }, 'keywords'],
      ['/api/scrapers/pdf/create-and-run', { name: 'p', keywords: [{ keyword: 'x' }] }, 'keywords.0.prompt'],
      [
        '/api/scrapers/pdf/create-and-run',
        { name: 'p', keywords: [{ keyword: 'x', prompt: 'y' }], expected_pdf: 'ten' },
        'expected_pdf',
      ],
      ['/api/job-board-scrape', { urls: ['https://x.example'], min: 1, max: 2, timeout: 1 }, 'schema'],
      ['/api/job-board-scrape', { urls: [], schema: JOB_SCHEMA }, 'urls'],
      ['/api/job-board-scrape', { urls: ['https://x.example'], min: 5, max: 2, schema: JOB_SCHEMA }, 'max'],
      ['/api/marketplace/sync', { url: 'https://shopee.tw/api/v2/item/get?shopid=1' }, 'url'],
      ['/api/marketplace/sync', {}, 'url'],
    ];
    const scrapersBefore = s.truth.scrapers().length;
    for (const [path, body, field] of cases) {
      const r = await api.post(path, body);
      expect(r.status, `${path} ${JSON.stringify(body)}`).toBe(422);
      expect(r.type).toBe('application/json');
      expect(typeof r.json.message).toBe('string');
      expect(Object.keys(r.json.errors), JSON.stringify(r.json)).toContain(field);
      expect(Array.isArray(r.json.errors[field]) && typeof r.json.errors[field][0]).toBe('string');
    }
    expect(s.truth.scrapers()).toHaveLength(scrapersBefore);
    const bad = await api.get('/api/results?per_page=0');
    expect(bad.status).toBe(422);
    expect(bad.json.errors.per_page).toBeDefined();
    const badJson = await fetch(`${s.baseUrl}/api/marketplace/sync`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}` },
      body: '{"url":',
    });
    expect(badJson.status).toBe(400);
  });

  it('marketplace: every section, ids from the URL, consistent models and tiers', async () => {
    const r = await api.post('/api/marketplace/sync', { url: PRODUCT_URL });
    expect(r.status).toBe(200);
    expect(r.type).toBe('application/json');
    expect(marketplaceResponseSchema.safeParse(r.json).success).toBe(true);
    expect(r.json).toEqual(s.truth.product(PRODUCT_URL));
    const fixtureKeys = (
      await import('../../../../shared/fixtures/real/shopee-sync-response-1.json', { with: { type: 'json' } })
    ).default as any;
    expect(Object.keys(r.json.data.data).sort()).toEqual(Object.keys(fixtureKeys.data.data).sort());
    expect(Object.keys(r.json.data.data.item).sort()).toEqual(Object.keys(fixtureKeys.data.data.item).sort());
    expect(Object.keys(r.json.data.data.shop_detailed).sort()).toEqual(
      Object.keys(fixtureKeys.data.data.shop_detailed).sort(),
    );
    const item = r.json.data.data.item;
    expect(item.item_id).toBe(4420309814);
    expect(item.shop_id).toBe(10115139);
    expect(r.json.data.data.shop_detailed.shopid).toBe(10115139);
    expect(item.models.length).toBeGreaterThanOrEqual(2);
    expect(item.models.length).toBeLessThanOrEqual(8);
    expect(/[^\x00-\x7f]/.test(item.title)).toBe(true);
    expect(item.label_ids.some((id: number) => id > 8e14)).toBe(true);
    checkProduct(r.json);
  });

  it('marketplace: sim_models asks for N models, up to 500', async () => {
    for (const n of [1, 5, 7, 37]) {
      const r = await api.post('/api/marketplace/sync', { url: `${PRODUCT_URL}&sim_models=${n}` });
      expect(r.json.data.data.item.models).toHaveLength(n);
      checkProduct(r.json);
    }
    // How fast the simulator generates them is a benchmark's question, not a unit test's (bench/).
    const big = await api.post('/api/marketplace/sync', { url: `${PRODUCT_URL}&sim_models=500` });
    expect(big.json.data.data.item.models).toHaveLength(500);
    checkProduct(big.json);
  });

  it('run lifecycle: running until the duration passes, then succeeded with results that join /api/results', async () => {
    const created = await api.post('/api/scrapers/leads-generator/social/create-and-run', {
      ...socialBody,
      name: 'lifecycle',
      expected_data: 5,
    });
    const runId = created.json.results[0].scraping_run_id;
    const listedBefore = s.truth.allResults().length;
    clock.advance(2999);
    const running = await api.get(`/api/scraping-runs/${runId}`);
    expect(running.status).toBe(200);
    expect(running.type).toBe('text/plain; charset=UTF-8');
    expect(scrapingRunResponseSchema.safeParse(running.json).success).toBe(true);
    expect(running.json.data).toMatchObject({ id: runId, status: 'running', results: [] });
    expect(s.truth.allResults()).toHaveLength(listedBefore);
    clock.advance(1);
    const done = await api.get(`/api/scraping-runs/${runId}`);
    expect(done.json.data.status).toBe('succeeded');
    expect(done.json.data.results).toEqual(s.truth.runResults(runId));
    expect(done.json.data.results).toHaveLength(5);
    for (const rec of done.json.data.results) {
      expect(rec).toMatchObject({ scraping_run_id: runId, scraper_name: 'lifecycle', status: 'succeeded' });
      expect(rec.created_at).toMatch(TS);
    }
    const listed = await api.get('/api/results?per_page=5');
    expect(listed.json.data.map((x: any) => x.id)).toEqual(
      s.truth
        .runResults(runId)
        .map((x) => x.id)
        .reverse(),
    );
    const missing = await api.get('/api/scraping-runs/999999');
    expect(missing.status).toBe(404);
    expect(missing.json.message).toContain('999999');
  });

  it('results list: newest first, paged from 1, default per_page 20; scrapers list is text/plain', async () => {
    clock.advance(10_000);
    const all = s.truth.allResults();
    expect(all.length).toBeGreaterThan(45);
    const ids = all.map((r) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const p1 = await api.get('/api/results');
    expect(resultsListResponseSchema.safeParse(p1.json).success).toBe(true);
    expect(p1.json.data.map((r: any) => r.id)).toEqual(ids.slice(0, 20));
    const collected: number[] = [];
    for (let page = 1; ; page++) {
      const r = await api.get(`/api/results?page=${page}&per_page=7`);
      collected.push(...r.json.data.map((x: any) => x.id));
      if (r.json.data.length < 7) break;
    }
    expect(collected).toEqual(ids);
    const beyond = await api.get('/api/results?page=1000&per_page=50');
    expect(beyond.json.data).toEqual([]);

    const sc = await api.get('/api/scrapers?per_page=2&page=2');
    expect(sc.type).toBe('text/plain; charset=UTF-8');
    expect(scrapersListResponseSchema.safeParse(sc.json).success).toBe(true);
    expect(sc.json.data.map((x: any) => x.id)).toEqual([1003, 1004]);
    expect(sc.json.data[0]).toEqual(s.truth.scrapers()[2]);
  });
});

/** Model / tier / price consistency of one marketplace body. */
function checkProduct(body: any): void {
  const item = body.data.data.item;
  const tiers = item.tier_variations;
  const seenIdx = new Set<string>();
  const modelIds = new Set<number>();
  for (const m of item.models) {
    expect(m.extinfo.tier_index).toHaveLength(tiers.length);
    const names = m.extinfo.tier_index.map((ti: number, t: number) => {
      expect(ti).toBeLessThan(tiers[t].options.length);
      return tiers[t].options[ti];
    });
    if (item.models.length > 1) expect(m.name).toBe(names.join(','));
    seenIdx.add(m.extinfo.tier_index.join('/'));
    modelIds.add(m.model_id);
    expect(Number.isSafeInteger(m.price) && m.price % 1000 === 0).toBe(true);
    const breakdown = m.price_stocks[0].stock_breakdown_by_location;
    expect(breakdown.reduce((s: number, b: any) => s + b.available_stock, 0)).toBe(m.stock);
  }
  expect(seenIdx.size).toBe(item.models.length);
  expect(modelIds.size).toBe(item.models.length);
  const prices = item.models.map((m: any) => m.price);
  expect(item.price_min).toBe(Math.min(...prices));
  expect(item.price_max).toBe(Math.max(...prices));
  const p = body.data.data.product_price.price;
  if (item.price_min === item.price_max)
    expect(p).toMatchObject({ single_value: item.price_min, range_min: -1, range_max: -1 });
  else expect(p).toMatchObject({ single_value: -1, range_min: item.price_min, range_max: item.price_max });
  if (item.raw_discount === 0)
    expect([item.price_min_before_discount, item.price_max_before_discount]).toEqual([-1, -1]);
  else expect(item.price_min_before_discount).toBeGreaterThan(item.price_min);
}

describe('determinism', () => {
  async function script(seed: number): Promise<string[]> {
    const clock = manualClock();
    const s = await sim({ seed, clock: clock.now, runDurationMs: 1000 });
    const api = client(s);
    const bodies: string[] = [];
    bodies.push(
      (
        await api.post('/api/job-board-scrape', {
          urls: ['https://www.indeed.com/jobs?q=x'],
          min: 2,
          max: 6,
          timeout: 10,
          schema: JOB_SCHEMA,
        })
      ).text,
    );
    bodies.push((await api.post('/api/marketplace/sync', { url: `${PRODUCT_URL}&sim_models=12` })).text);
    bodies.push((await api.post('/api/scrapers/pdf/create-and-run', pdfBody)).text);
    bodies.push((await api.post('/api/scrapers/leads-generator/search-engine/create-and-run', seBody)).text);
    bodies.push((await api.post('/api/scrapers/leads-generator/social/create-and-run', socialBody)).text);
    clock.advance(1000);
    bodies.push((await api.get('/api/scraping-runs/5002')).text);
    bodies.push((await api.get('/api/results?per_page=50')).text);
    bodies.push((await api.get('/api/scrapers')).text);
    await s.close();
    return bodies;
  }

  it('same seed gives byte-identical bodies; another seed gives different data', async () => {
    const a = await script(7);
    const b = await script(7);
    const c = await script(8);
    expect(a).toEqual(b);
    // Job records, the product, and results content differ with the seed.
    for (const i of [0, 1, 5, 6]) expect(c[i]).not.toEqual(a[i]);
    // Ids come from counters, not the seed.
    expect(JSON.parse(c[2]!).scraper.id).toBe(JSON.parse(a[2]!).scraper.id);
  });

  it('content is keyed by request content, not request order', async () => {
    const s1 = await sim({ seed: 3 });
    const s2 = await sim({ seed: 3 });
    const other = 'https://shopee.tw/api/v2/item/get?itemid=1&shopid=2';
    await client(s1).post('/api/marketplace/sync', { url: other });
    const x = await client(s1).post('/api/marketplace/sync', { url: PRODUCT_URL });
    const y = await client(s2).post('/api/marketplace/sync', { url: PRODUCT_URL });
    expect(x.text).toBe(y.text);
  });
});

describe('faults', () => {
  let s: RunningSimulator;
  let api: ReturnType<typeof client>;
  const clock = manualClock();
  beforeAll(async () => {
    s = await sim({ seed: 5, clock: clock.now, runDurationMs: 100 });
    api = client(s);
  });
  afterEach(() => {
    s.clearFaults();
    s.resetStats();
  });

  it('errorRate 1: every /api request gets a 5xx JSON body and is not processed; /_sim is never faulted', async () => {
    s.setFaults({ errorRate: 1 });
    for (let i = 0; i < 5; i++) {
      const r = await api.post('/api/scrapers/leads-generator/social/create-and-run', socialBody);
      expect([500, 502, 503]).toContain(r.status);
      expect(typeof r.json.message).toBe('string');
    }
    expect(s.truth.runs()).toHaveLength(0);
    const state = await api.get('/_sim/state');
    expect(state.status).toBe(200);
    expect(s.stats().byEndpoint['POST /api/scrapers/leads-generator/social/create-and-run']).toBe(5);
  });

  it('rateLimitRate 1: 429 with Retry-After', async () => {
    s.setFaults({ rateLimitRate: 1, retryAfterSeconds: 7 });
    const r = await api.get('/api/results');
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('7');
    expect(r.json).toEqual({ message: 'Too Many Attempts.' });
  });

  it('malformedRate 1: status 200, valid JSON, but the schema check fails', async () => {
    s.setFaults({ malformedRate: 1 });
    const checks: Array<[() => Promise<Answer>, { safeParse(v: unknown): { success: boolean } }]> = [
      [() => api.post('/api/marketplace/sync', { url: PRODUCT_URL }), marketplaceResponseSchema],
      [() => api.post('/api/scrapers/pdf/create-and-run', pdfBody), createAndRunResponseSchema],
      [() => api.get('/api/scrapers'), scrapersListResponseSchema],
      [() => api.get('/api/scraping-runs/5001'), scrapingRunResponseSchema],
      [
        () =>
          api.post('/api/job-board-scrape', {
            urls: ['https://x.example/jobs'],
            min: 1,
            max: 2,
            timeout: 5,
            schema: JOB_SCHEMA,
          }),
        jobBoardResponseSchema,
      ],
    ];
    for (let round = 0; round < 4; round++) {
      for (const [call, schema] of checks) {
        const r = await call();
        expect(r.status).toBe(200);
        expect(r.json, r.text.slice(0, 200)).toBeDefined();
        expect(schema.safeParse(r.json).success, r.headers.get('x-sim-fault') ?? '').toBe(false);
      }
    }
  });

  it('truncatedRate 1: status 200 with a body cut short', async () => {
    s.setFaults({ truncatedRate: 1 });
    const r = await api.post('/api/marketplace/sync', { url: PRODUCT_URL });
    expect(r.status).toBe(200);
    expect(r.json).toBeUndefined();
    expect(JSON.stringify(s.truth.product(PRODUCT_URL)).startsWith(r.text)).toBe(true);
  });

  it('runFailureRate 1 ends runs failed; runHangRate 1 keeps them running', async () => {
    s.setFaults({ runFailureRate: 1 });
    const f = await api.post('/api/scrapers/leads-generator/social/create-and-run', socialBody);
    s.setFaults({ runFailureRate: 0, runHangRate: 1 });
    const h = await api.post('/api/scrapers/leads-generator/social/create-and-run', socialBody);
    s.setFaults({ runHangRate: 0 });
    const ok = await api.post('/api/scrapers/leads-generator/social/create-and-run', socialBody);
    clock.advance(60_000);
    const [fd, hd, od] = await Promise.all(
      [f, h, ok].map((x) => api.get(`/api/scraping-runs/${x.json.results[0].scraping_run_id}`)),
    );
    expect(fd!.json.data).toMatchObject({ status: 'failed', results: [] });
    expect(hd!.json.data).toMatchObject({ status: 'running', results: [] });
    expect(od!.json.data.status).toBe('succeeded');
    expect(od!.json.data.results).toHaveLength(socialBody.expected_data);
    const listedRuns = new Set(s.truth.allResults().map((r) => r.scraping_run_id));
    expect(listedRuns.has(f.json.results[0].scraping_run_id)).toBe(false);
    expect(listedRuns.has(h.json.results[0].scraping_run_id)).toBe(false);
  });

  it('latencyMs delays every /api answer', async () => {
    s.setFaults({ latencyMs: 150 });
    const t0 = performance.now();
    await api.get('/api/scrapers');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
  });

  it('scripted faults apply in order to the next matching requests, then normal answers resume', async () => {
    s.queueFaults([{ status: 503 }, { status: 429, retryAfterSeconds: 1 }, { kind: 'truncated' }], {
      path: '/api/scraping-runs',
    });
    const other = await api.get('/api/results');
    expect(other.status).toBe(200);
    const a = await api.get('/api/scraping-runs/5001');
    const b = await api.get('/api/scraping-runs/5001');
    const c = await api.get('/api/scraping-runs/5001');
    const d = await api.get('/api/scraping-runs/5001');
    expect([a.status, b.status, c.status, d.status]).toEqual([503, 429, 200, 200]);
    expect(b.headers.get('retry-after')).toBe('1');
    expect(c.json).toBeUndefined();
    expect(d.json.data.id).toBe(5001);
    expect(s.stats().byEndpoint['GET /api/scraping-runs/:id']).toBe(4);
    expect(s.stats().byStatus['503']).toBe(1);

    s.queueFaults([{ kind: 'reset' }]);
    await expect(api.get('/api/scrapers')).rejects.toThrow();
    s.queueFaults([{ kind: 'malformed' }]);
    const m = await api.get('/api/scrapers');
    expect(scrapersListResponseSchema.safeParse(m.json).success).toBe(false);
  });

  it('POST /_sim/faults sets rates and queues faults with the token; refuses bad settings and bad tokens', async () => {
    const set = await api.post('/_sim/faults', { errorRate: 1 });
    expect(set.status).toBe(200);
    expect(set.json.faults.errorRate).toBe(1);
    expect((await api.get('/api/scrapers')).status).toBeGreaterThanOrEqual(500);
    await api.post('/_sim/faults', { clear: true, queue: [{ status: 502 }], match: { path: '/api/results' } });
    expect((await api.get('/api/scrapers')).status).toBe(200);
    expect((await api.get('/api/results')).status).toBe(502);
    expect((await api.get('/api/results')).status).toBe(200);
    const bad = await api.post('/_sim/faults', { errorRate: 2, bogus: 1 });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.json.errors).sort()).toEqual(['bogus', 'errorRate']);
    expect((await client(s, 'nope').post('/_sim/faults', { errorRate: 1 })).status).toBe(401);
    expect(s.faults().errorRate).toBe(0);
    expect(() => s.setFaults({ truncatedRate: -1 })).toThrow(/truncatedRate/);
  });
});

describe('large outputs and limits', () => {
  // How fast a 10,000-result run is generated is a speed question: it belongs in bench/, not in a timed unit test.
  it('a run with 10,000 results: runDetailResultsLimit caps the run detail, the results API pages all of them', async () => {
    const clock = manualClock();
    const s = await sim({ clock: clock.now, runDurationMs: 10, runDetailResultsLimit: 250 });
    const api = client(s);
    const r = await api.post('/api/scrapers/pdf/create-and-run', {
      name: 'big',
      keywords: [{ keyword: 'annual report', prompt: 'is it one?' }],
      expected_pdf: 10_000,
    });
    const runId = r.json.results[0].scraping_run_id;
    clock.advance(10);
    const detail = await api.get(`/api/scraping-runs/${runId}`);
    expect(detail.json.data.status).toBe('succeeded');
    expect(detail.json.data.results).toHaveLength(250);
    expect(s.truth.runResults(runId)).toHaveLength(10_000);
    const page = await api.get('/api/results?per_page=1000&page=10');
    expect(page.json.data).toHaveLength(1000);
    expect(page.json.data[999].id).toBe(1);
  });

  it('runs on real time by default', async () => {
    const s = await sim({ runDurationMs: 200 });
    const api = client(s);
    const r = await api.post('/api/scrapers/leads-generator/search-engine/create-and-run', seBody);
    const id = r.json.results[0].scraping_run_id;
    expect((await api.get(`/api/scraping-runs/${id}`)).json.data.status).toBe('running');
    await new Promise((res) => setTimeout(res, 250));
    expect((await api.get(`/api/scraping-runs/${id}`)).json.data.status).toBe('succeeded');
  });
});

describe('scrape-etl simulate', () => {
  it('prints its URL first, answers requests, and exits 0 on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      ['bin/scrape-etl.js', 'simulate', '--port', '0', '--token', 't', '--seed', '9'],
      {
        cwd: new URL('../../..', import.meta.url).pathname,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      const lines = createInterface({ input: child.stdout });
      const [first] = (await once(lines, 'line')) as [string];
      expect(first).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${first}/api/marketplace/sync`, {
        method: 'POST',
        headers: { Authorization: 'Bearer t', 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: PRODUCT_URL }),
      });
      expect(res.status).toBe(200);
      const same = await sim({ seed: 9 });
      expect(await res.json()).toEqual(same.truth.product(PRODUCT_URL));
      expect((await fetch(`${first}/api/results`)).status).toBe(401);
      expect(stderr).not.toContain('Bearer t');
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = (await once(child, 'exit')) as [number | null];
    // Ended by SIGTERM: 143, as every command (README, "Exit codes").
    expect(code, stderr).toBe(143);
  });

  it("answers every curl of simulator/README.md as written, with the spec's shapes and content types", async () => {
    const readme = fs.readFileSync(new URL('../../../simulator/README.md', import.meta.url), 'utf8');
    const block = /## curl\n\n```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    expect(block).toContain('B=http://127.0.0.1:8787;');
    const child = spawn(process.execPath, ['bin/scrape-etl.js', 'simulate', '--port', '0', '--token', 'sim-token'], {
      cwd: new URL('../../..', import.meta.url).pathname,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const [base] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      // The README's commands unchanged, but for the port; each answer is followed by a line with status and type.
      const script = [
        `curl() { command curl -w '\\n@@ %{http_code} %{content_type}\\n' "$@"; }`,
        block!.replace('B=http://127.0.0.1:8787;', `B=${base};`),
      ].join('\n');
      const { stdout } = await promisify(execFile)('bash', ['-euc', script]);
      const answers = stdout.split(/\n@@ (\d+) ([^\n]*)\n/);
      const parsed: Array<{ body: unknown; status: string; type: string }> = [];
      for (let i = 0; i + 2 < answers.length; i += 3)
        parsed.push({ body: parseJson(answers[i]!), status: answers[i + 1]!, type: answers[i + 2]! });
      expect(parsed).toHaveLength(15);
      for (const a of parsed) expect(a.status).toBe('200');
      const schemas = [
        jobBoardResponseSchema,
        createAndRunResponseSchema,
        createAndRunResponseSchema,
        createAndRunResponseSchema,
        marketplaceResponseSchema,
        resultsListResponseSchema,
        scrapersListResponseSchema,
        scrapingRunResponseSchema,
      ];
      const types = [
        'application/json',
        'application/json',
        'application/json',
        'application/json',
        'application/json',
        'application/json',
        'text/plain',
        'text/plain',
      ];
      schemas.forEach((schema, i) => {
        expect(schema.safeParse(parsed[i]!.body).success, `README curl ${i + 1}`).toBe(true);
        expect(parsed[i]!.type.split(';')[0], `README curl ${i + 1}`).toBe(types[i]);
      });
      expect((parsed[3]!.body as { scraper: { name: string } }).scraper.name).toBe('Social');
      expect((parsed[7]!.body as { data: { id: number } }).data.id).toBe(5001);
      expect(parsed[9]!.body).toMatchObject({ scripted_pending: 2 });
      // The drift lines (README, with the token as every /_sim route): its state, then the next epoch asked for.
      expect(parsed[13]!.body).toMatchObject({ epoch: 0 });
      expect(parsed[14]!.body).toMatchObject({ epoch: 1 });
    } finally {
      child.kill('SIGTERM');
    }
    await once(child, 'exit');
  });

  it('sets every fault knob from its flag, as /_sim/faults and /_sim/state report them', async () => {
    const flags = [
      '--latency-ms',
      '7',
      '--error-rate',
      '0.1',
      '--rate-limit-rate',
      '0.2',
      '--retry-after-seconds',
      '3',
      '--malformed-rate',
      '0.3',
      '--truncated-rate',
      '0.4',
      '--dropped-rate',
      '0.05',
      '--run-failure-rate',
      '0.5',
      '--run-hang-rate',
      '0.6',
      '--run-duration-ms',
      '1234',
      '--run-detail-results-limit',
      '5',
      '--seed',
      '42',
    ];
    const child = spawn(process.execPath, ['bin/scrape-etl.js', 'simulate', '--port', '0', '--token', 't', ...flags], {
      cwd: new URL('../../..', import.meta.url).pathname,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const [base] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const get = async (p: string) =>
        (await fetch(`${base}${p}`, { headers: { Authorization: 'Bearer t' } })).json() as Promise<
          Record<string, unknown>
        >;
      const faults = {
        latencyMs: 7,
        errorRate: 0.1,
        rateLimitRate: 0.2,
        retryAfterSeconds: 3,
        malformedRate: 0.3,
        truncatedRate: 0.4,
        droppedRate: 0.05,
        runFailureRate: 0.5,
        runHangRate: 0.6,
      };
      expect((await get('/_sim/faults'))['faults']).toEqual(faults);
      expect(await get('/_sim/state')).toMatchObject({
        seed: 42,
        run_duration_ms: 1234,
        run_detail_results_limit: 5,
        faults,
      });
    } finally {
      child.kill('SIGTERM');
    }
    await once(child, 'exit');
  });

  it('exits 130 on SIGINT sent as soon as the URL is printed (handled, not killed by the signal)', async () => {
    const child = spawn(process.execPath, ['bin/scrape-etl.js', 'simulate', '--port', '0'], {
      cwd: new URL('../../..', import.meta.url).pathname,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const [first] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    expect(first).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    child.kill('SIGINT');
    const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
    // 130 as every command ended by Ctrl-C (README, "Exit codes"), from its own handler: no signal death.
    expect({ code, signal }).toEqual({ code: 130, signal: null });
  });

  it('exits 2 on a bad flag', async () => {
    const child = spawn(process.execPath, ['bin/scrape-etl.js', 'simulate', '--error-rate', '1.5'], {
      cwd: new URL('../../..', import.meta.url).pathname,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(2);
    expect(stderr).toContain('--error-rate must be a number from 0 to 1');
  });
});
