import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ApiConfigError,
  ApiHttpError,
  ApiMalformedBodyError,
  ApiNetworkError,
  ApiScrapeFailedError,
  ApiTimeoutError,
  ApiUnauthorizedError,
  ApiValidationError,
  ScraperApiError,
  ScraperClient,
  type RetryInfo,
  type ScraperClientOptions,
} from '../../../client/index.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { JOB_SCHEMA } from '../../support/job-schema.js';
import { waitForRun } from '../../support/scraping-runs.js';
import { REAL_FIXTURES } from '../../support/fixtures.js';

const TOKEN = `tok_${randomBytes(16).toString('hex')}`;
const RUN_MS = 150;

// Everything the suite's clients log and throw is kept, so the last test can prove the token is in none of it.
const logLines: string[] = [];
const logger = pino(
  { level: 'debug' },
  new Writable({
    write(chunk: Buffer, _enc, cb) {
      logLines.push(chunk.toString('utf8'));
      cb();
    },
  }),
);
const thrown: unknown[] = [];
const allRetries: RetryInfo[] = [];

async function rejectionOf(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    thrown.push(err);
    return err;
  }
  throw new Error('expected the call to fail, it succeeded');
}

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    thrown.push(err);
    return err as Error;
  }
  throw new Error('expected the call to throw, it returned');
}

let sim: RunningSimulator;

function client(extra: Partial<ScraperClientOptions> = {}): ScraperClient {
  return new ScraperClient({
    baseUrl: sim.baseUrl,
    token: TOKEN,
    logger,
    timeoutMs: 3000,
    retry: { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 3000 },
    ...extra,
  });
}

/**
 * A simulator of its own for a test that abandons requests (client timeouts, aborts): the server still answers
 * them later, and on the shared simulator that answer was counted in whichever test ran by then (the 404 test's
 * exact status counts, on a loaded machine). Closing it drops the abandoned requests with their connections.
 */
async function withOwnSimulator<T>(
  fn: (own: RunningSimulator, make: (extra?: Partial<ScraperClientOptions>) => ScraperClient) => Promise<T>,
): Promise<T> {
  const own = await startSimulator({ port: 0, token: TOKEN, seed: 7, runDurationMs: RUN_MS });
  try {
    return await fn(own, (extra = {}) => client({ baseUrl: own.baseUrl, ...extra }));
  } finally {
    await own.close();
  }
}

function retryCounter(): { retries: RetryInfo[]; onRetry: (i: RetryInfo) => void } {
  const retries: RetryInfo[] = [];
  return {
    retries,
    onRetry: (i) => {
      retries.push(i);
      allRetries.push(i);
    },
  };
}

beforeAll(async () => {
  sim = await startSimulator({ port: 0, token: TOKEN, seed: 7, runDurationMs: RUN_MS });
});
afterAll(async () => {
  await sim?.close();
});
beforeEach(() => {
  sim.clearFaults();
  // Attempts are counted where they arrive, not only by the client's own onRetry reports.
  sim.resetStats();
});

describe('configuration', () => {
  it('requires https unless the host is loopback', () => {
    const err = errorOf(() => new ScraperClient({ baseUrl: 'http://api.example.com', token: TOKEN }));
    expect(err).toBeInstanceOf(ApiConfigError);
    expect(err.message).toMatch(/must use https.*loopback/);
    for (const ok of [
      'https://api.example.com/',
      'http://127.0.0.1:9',
      'http://127.8.9.10',
      'http://localhost:3000',
      'http://[::1]:8080',
    ]) {
      expect(new ScraperClient({ baseUrl: ok, token: TOKEN }).baseUrl).toBe(ok.replace(/\/$/, ''));
    }
    expect(errorOf(() => new ScraperClient({ baseUrl: 'http://128.0.0.1', token: TOKEN }))).toBeInstanceOf(
      ApiConfigError,
    );
    expect(errorOf(() => new ScraperClient({ baseUrl: 'ftp://example.com', token: TOKEN })).message).toMatch(/https/);
    expect(errorOf(() => new ScraperClient({ baseUrl: 'not a url', token: TOKEN })).message).toMatch(
      /not an absolute URL/,
    );
  });

  it('reads env and names SCRAPER_API_TOKEN / SCRAPER_BASE_URL when missing', () => {
    const fromEnv = new ScraperClient({
      env: { SCRAPER_BASE_URL: 'https://svc.example.com/base/', SCRAPER_API_TOKEN: TOKEN },
    });
    expect(fromEnv.baseUrl).toBe('https://svc.example.com/base');
    expect(errorOf(() => new ScraperClient({ env: { SCRAPER_BASE_URL: 'https://svc.example.com' } })).message).toMatch(
      /SCRAPER_API_TOKEN/,
    );
    expect(errorOf(() => new ScraperClient({ env: { SCRAPER_API_TOKEN: TOKEN } })).message).toMatch(/SCRAPER_BASE_URL/);
    expect(errorOf(() => new ScraperClient({ baseUrl: 'https://a.example.com', token: `${TOKEN}\n` }))).toBeInstanceOf(
      ApiConfigError,
    );
    // The client itself never serialises or prints the token.
    expect(JSON.stringify(fromEnv)).not.toContain(TOKEN);
    expect(inspect(fromEnv, { depth: 5, showHidden: true })).not.toContain(TOKEN);
  });

  it('validates requests before sending anything', async () => {
    sim.resetStats();
    const c = client();
    const err = await rejectionOf(
      c.createLeadsSearchEngineScraper({ name: 'leads', search_type: 'url', limit_pages: 1 } as never),
    );
    expect(err).toBeInstanceOf(ApiValidationError);
    expect((err as ApiValidationError).message).toBe(
      "POST /api/scrapers/leads-generator/search-engine/create-and-run: url: required when search_type is 'url' [invalid request, not sent]",
    );
    const social = await rejectionOf(
      c.createLeadsSocialScraper({ name: 's', keywords: 'k', sentiment_type: 'angry', expected_data: 3 } as never),
    );
    expect((social as ApiValidationError).path).toBe('sentiment_type');
    expect(sim.stats().total).toBe(0);
  });
});

describe('happy paths against the simulator', () => {
  it('job-board scrape', async () => {
    const res = await client().jobBoardScrape({
      urls: ['https://jobs.example.com/search?q=data', 'https://remote.example.org/jobs'],
      min: 2,
      max: 6,
      timeout: 60,
      schema: JOB_SCHEMA,
    });
    expect(res.status).toBe(200);
    expect(res.endpoint).toBe('POST /api/job-board-scrape');
    expect(res.receivedAt).toBeInstanceOf(Date);
    expect(JSON.parse(res.raw)).toEqual(JSON.parse(JSON.stringify(res.data)));
    expect(res.data.result.length).toBeGreaterThanOrEqual(4);
    expect(res.data.totalDone).toBe(res.data.result.length);
    for (const rec of res.data.result) {
      expect(typeof rec.job_title).toBe('string');
      expect(typeof rec.job_salary).toBe('number');
    }
  });

  it('PDF create-and-run, then the run detail once it has finished', async () => {
    const c = client();
    const res = await c.createPdfScraper({
      name: 'reports',
      keywords: [
        { keyword: 'annual report 2023', prompt: 'Is this an annual report?' },
        { keyword: 'energy outlook', prompt: 'Is this about energy?' },
      ],
      expected_pdf: 5,
    });
    expect(res.data.results).toHaveLength(2);
    const first = res.data.results[0]!;
    expect(first.status).toBe('running');
    expect(first.scrapped_url).toBe('annual report 2023');
    expect(first.scraper?.type).toBe('pdf');
    expect(first.scraper?.workflow[0]?.data.keywords.map((k) => k.data.keyword)).toEqual([
      'annual report 2023',
      'energy outlook',
    ]);
    await waitForRun(c, first.scraping_run_id);
    const run = await c.getScrapingRun(first.scraping_run_id);
    expect(run.endpoint).toBe(`GET /api/scraping-runs/${first.scraping_run_id}`);
    expect(run.data.data.status).toBe('succeeded');
    expect(run.data.data.results.map((r) => r.id)).toEqual(
      sim.truth.runResults(Number(first.scraping_run_id)).map((r) => r.id),
    );
    expect(run.data.data.results).toHaveLength(3); // 5 split over 2 keywords: 3 + 2
  });

  it('leads-generator search-engine (url and keywords) and social', async () => {
    const c = client();
    const byUrl = await c.createLeadsSearchEngineScraper({
      name: 'apple',
      search_type: 'url',
      url: 'https://www.apple.com/',
      limit_pages: 1,
    });
    expect(byUrl.data.scraper.urls).toEqual(['https://www.apple.com/']);
    expect(byUrl.data.results[0]?.scraper).toBeUndefined();
    expect(byUrl.data.results[0]?.scrapped_url).toBe('Default');
    const byKw = await c.createLeadsSearchEngineScraper({
      name: 'kw',
      search_type: 'keywords',
      keywords: 'coffee roasters',
      limit_pages: 2,
    });
    expect(byKw.data.results).toHaveLength(1);
    const social = await c.createLeadsSocialScraper({
      name: 'soc',
      keywords: 'AI, ML',
      sentiment_type: 'neutral',
      expected_data: 4,
    });
    expect(social.data.message).toBe(byUrl.data.message);
    const runId = social.data.results[0]!.scraping_run_id;
    await waitForRun(c, runId);
    expect((await c.getScrapingRun(runId)).data.data.results).toHaveLength(4);
  });

  it('marketplace sync', async () => {
    const url = 'https://shopee.tw/api/v2/item/get?itemid=4420309814&shopid=10115139';
    const res = await client().marketplaceSync({ url });
    expect(res.data.success).toBe(true);
    const item = res.data.data.data.item;
    expect(item.item_id).toBe(4420309814);
    expect(item.shop_id).toBe(10115139);
    expect(item.models.length).toBeGreaterThan(0);
    expect(res.data.data.data.shop_detailed.shopid).toBe(10115139);
    expect(JSON.parse(res.raw)).toEqual(sim.truth.product(url));
  });

  it('list results and list scrapers (text/plain declared, JSON parsed)', async () => {
    const c = client();
    const results = await c.listResults({ page: 1, per_page: 5 });
    expect(results.data.data.length).toBeGreaterThan(0);
    expect(results.data.data.map((r) => r.id)).toEqual(
      sim.truth
        .allResults()
        .slice(0, 5)
        .map((r) => r.id),
    );
    const scrapers = await c.listScrapers({ page: 1, per_page: 100 });
    expect(scrapers.endpoint).toBe('GET /api/scrapers');
    expect(scrapers.data.data.map((s) => s.id).sort()).toEqual(
      sim.truth
        .scrapers()
        .map((s) => s['id'])
        .sort(),
    );
  });
});

describe('paging', () => {
  it('yields every result exactly once, even when new results arrive mid-iteration', async () => {
    const c = client();
    const created = await c.createLeadsSocialScraper({
      name: 'paging',
      keywords: 'k',
      sentiment_type: 'all',
      expected_data: 23,
    });
    await waitForRun(c, created.data.results[0]!.scraping_run_id);
    const before = sim.truth.allResults().map((r) => r.id);
    expect(before.length).toBeGreaterThan(23);

    const seen: Array<number | bigint> = [];
    let injected = false;
    for await (const r of c.iterateResults({ perPage: 7 })) {
      seen.push(r.id);
      if (seen.length === 10 && !injected) {
        // 6 new results land at the top of the newest-first list: every later page shifts by 6.
        injected = true;
        const more = await c.createLeadsSocialScraper({
          name: 'late',
          keywords: 'k',
          sentiment_type: 'all',
          expected_data: 6,
        });
        await waitForRun(c, more.data.results[0]!.scraping_run_id);
      }
    }
    expect(injected).toBe(true);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort((a, b) => Number(a) - Number(b))).toEqual([...before].sort((a, b) => a - b));
  });

  it('pages() stops on a short page and on an empty page, and resumes from startPage', async () => {
    const c = client();
    const total = sim.truth.allResults().length;
    const pages: Array<{ page: number; n: number }> = [];
    for await (const p of c.pages('results', { perPage: 10 })) pages.push({ page: p.page, n: p.items.length });
    expect(pages.reduce((s, p) => s + p.n, 0)).toBe(total);
    expect(pages.map((p) => p.page)).toEqual(pages.map((_, i) => i + 1));

    // Exactly divisible: one extra (empty) request, which is not yielded.
    sim.resetStats();
    const exact: number[] = [];
    for await (const p of c.pages('results', { perPage: total / (total % 2 === 0 ? 2 : 1) }))
      exact.push(p.items.length);
    expect(exact.every((n) => n > 0)).toBe(true);
    expect(sim.stats().byEndpoint['GET /api/results']).toBe(exact.length + 1);

    const resumed: number[] = [];
    for await (const p of c.pages('results', { perPage: 10, startPage: 2 })) resumed.push(p.page);
    expect(resumed[0]).toBe(2);

    const scrapers: Array<number | bigint> = [];
    for await (const s of c.iterateScrapers({ perPage: 2 })) scrapers.push(s.id);
    expect(scrapers.length).toBe(sim.truth.scrapers().length);
  });
});

describe('retries', () => {
  it('retries 5xx and succeeds once the server recovers', async () => {
    sim.queueFaults([{ status: 500 }, { status: 503 }]);
    const { retries, onRetry } = retryCounter();
    const res = await client({ onRetry }).listResults({ per_page: 3 });
    expect(res.status).toBe(200);
    expect(retries.map((r) => r.status)).toEqual([500, 503]);
    expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
    expect(sim.stats().byStatus).toEqual({ '200': 1, '500': 1, '503': 1 });
    expect(retries.every((r) => r.delayMs >= 0 && r.delayMs <= 20)).toBe(true);
  });

  it('gives up after maxAttempts with a retryable ApiHttpError', async () => {
    sim.setFaults({ errorRate: 1 });
    const { retries, onRetry } = retryCounter();
    const err = await rejectionOf(
      client({ onRetry, retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 } }).listScrapers(),
    );
    expect(err).toBeInstanceOf(ApiHttpError);
    expect((err as ApiHttpError).retryable).toBe(true);
    expect((err as ApiHttpError).status).toBeGreaterThanOrEqual(500);
    expect((err as Error).message).toMatch(/^GET \/api\/scrapers: 50\d server error .*gave up after 3 attempts/);
    expect(retries).toHaveLength(2);
    expect(sim.stats().byEndpoint).toEqual({ 'GET /api/scrapers': 3 });
  });

  it('honours Retry-After on 429 (measured), capped by maxRetryAfterMs', async () => {
    sim.queueFaults([{ status: 429, retryAfterSeconds: 1 }], { path: '/api/results' });
    const { retries, onRetry } = retryCounter();
    const t0 = performance.now();
    const res = await client({ onRetry }).listResults({ per_page: 1 });
    const elapsed = performance.now() - t0;
    expect(res.status).toBe(200);
    expect(retries).toEqual([expect.objectContaining({ status: 429, delayMs: 1000, attempt: 1 })]);
    expect(elapsed).toBeGreaterThanOrEqual(990);
    expect(elapsed).toBeLessThan(2500);

    sim.queueFaults([{ status: 429, retryAfterSeconds: 120 }]);
    const capped = retryCounter();
    const t1 = performance.now();
    await client({
      onRetry: capped.onRetry,
      retry: { maxRetryAfterMs: 50, baseDelayMs: 1, maxDelayMs: 2 },
    }).listResults({ per_page: 1 });
    expect(capped.retries[0]?.delayMs).toBe(50);
    expect(performance.now() - t1).toBeLessThan(1000);
  });

  it('retries truncated bodies (ApiMalformedBodyError) and connection resets', async () => {
    sim.queueFaults([{ kind: 'truncated' }, { kind: 'reset' }]);
    const { retries, onRetry } = retryCounter();
    const res = await client({ onRetry }).marketplaceSync({
      url: 'https://shopee.tw/api/v2/item/get?itemid=1&shopid=2',
    });
    expect(res.data.data.data.item.item_id).toBe(1);
    expect(retries).toHaveLength(2);
    expect(retries[0]?.reason).toMatch(/^POST \/api\/marketplace\/sync: response body is not valid JSON/);
    expect(retries[1]?.reason).toMatch(/^POST \/api\/marketplace\/sync: network error/);

    sim.setFaults({ truncatedRate: 1 });
    const err = await rejectionOf(client({ retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 } }).listResults());
    expect(err).toBeInstanceOf(ApiMalformedBodyError);
    expect((err as ApiMalformedBodyError).endpoint).toBe('GET /api/results');
    expect((err as ApiMalformedBodyError).status).toBe(200);
  });

  it('times out slow responses per attempt and retries them', async () => {
    await withOwnSimulator(async (own, make) => {
      own.queueFaults([{ kind: 'delay', ms: 400 }]);
      const { retries, onRetry } = retryCounter();
      const res = await make({ onRetry, timeoutMs: 100 }).listScrapers({ per_page: 1 });
      expect(res.status).toBe(200);
      expect(retries).toHaveLength(1);
      expect(retries[0]?.reason).toBe('GET /api/scrapers: no complete response within 100 ms');

      own.setFaults({ latencyMs: 300 });
      const err = await rejectionOf(
        make({ timeoutMs: 50, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 } }).listScrapers(),
      );
      expect(err).toBeInstanceOf(ApiTimeoutError);
      expect((err as ApiTimeoutError).retryable).toBe(true);
    });
  });

  it("stops at once when the caller's signal aborts, in flight or between attempts", async () => {
    await withOwnSimulator(async (own, make) => {
      own.setFaults({ errorRate: 1 });
      const ac = new AbortController();
      const retries: RetryInfo[] = [];
      const slow = make({
        retry: { maxAttempts: 10, baseDelayMs: 5000, maxDelayMs: 5000 },
        onRetry: (i) => {
          retries.push(i);
          setTimeout(() => ac.abort(new Error('caller gave up')), 20);
        },
      });
      const t0 = performance.now();
      const err = await rejectionOf(slow.listResults({}, { signal: ac.signal }));
      expect((err as Error).message).toBe('caller gave up');
      expect(performance.now() - t0).toBeLessThan(1000);
      expect(retries).toHaveLength(1);

      own.setFaults({ errorRate: 0, latencyMs: 2000 });
      const t1 = performance.now();
      const inFlight = await rejectionOf(make().listResults({}, { signal: AbortSignal.timeout(50) }));
      expect((inFlight as Error).name).toBe('TimeoutError');
      expect(inFlight).not.toBeInstanceOf(ScraperApiError);
      expect(performance.now() - t1).toBeLessThan(1000);
    });
  });
});

describe('errors that are not retried', () => {
  it('401 names SCRAPER_API_TOKEN and the API Tokens section', async () => {
    const { retries, onRetry } = retryCounter();
    const bad = new ScraperClient({ baseUrl: sim.baseUrl, token: `${TOKEN}-revoked`, logger, onRetry });
    const err = await rejectionOf(bad.listResults());
    expect(err).toBeInstanceOf(ApiUnauthorizedError);
    expect((err as ApiUnauthorizedError).status).toBe(401);
    expect((err as ApiUnauthorizedError).retryable).toBe(false);
    expect((err as Error).message).toContain('Unauthenticated.');
    expect((err as Error).message).toContain('SCRAPER_API_TOKEN');
    expect((err as Error).message).toContain('API Tokens section of the console profile page');
    expect(retries).toHaveLength(0);
    expect(sim.stats().byStatus).toEqual({ '401': 1 });
  });

  it("422 carries the server's validation message", async () => {
    const { retries, onRetry } = retryCounter();
    // Passes the client's own schema (the spec gives no bound) but the service caps limit_pages.
    const err = await rejectionOf(
      client({ onRetry }).createLeadsSearchEngineScraper({
        name: 'big',
        search_type: 'keywords',
        keywords: 'x',
        limit_pages: 100_000,
      }),
    );
    expect(err).toBeInstanceOf(ApiHttpError);
    expect((err as ApiHttpError).status).toBe(422);
    expect((err as Error).message).toMatch(
      /^POST \/api\/scrapers\/leads-generator\/search-engine\/create-and-run: 422 .*limit_pages.*must not be greater than/,
    );
    expect(retries).toHaveLength(0);
    expect(sim.stats().byStatus).toEqual({ '422': 1 });
  });

  it('404 names the path and id', async () => {
    const { retries, onRetry } = retryCounter();
    const err = await rejectionOf(client({ onRetry }).getScrapingRun(987654321));
    expect((err as ApiHttpError).status).toBe(404);
    expect((err as Error).message).toContain('/api/scraping-runs/987654321');
    expect((err as Error).message).toContain('Scraping run 987654321 not found.');
    expect(retries).toHaveLength(0);
    expect(sim.stats().byStatus).toEqual({ '404': 1 });
  });

  it('a schema-violating body is an ApiValidationError naming endpoint and path', async () => {
    const { retries, onRetry } = retryCounter();
    const c = client({ onRetry });
    const seenPaths = new Set<string>();
    for (let i = 0; i < 6; i++) {
      sim.queueFaults([{ kind: 'malformed' }]);
      const err = await rejectionOf(
        c.marketplaceSync({ url: `https://shopee.tw/api/v2/item/get?itemid=${10 + i}&shopid=99` }),
      );
      expect(err).toBeInstanceOf(ApiValidationError);
      const v = err as ApiValidationError;
      expect(v.endpoint).toBe('POST /api/marketplace/sync');
      expect(v.side).toBe('response');
      expect(v.message.startsWith(`POST /api/marketplace/sync: ${v.path}: expected `)).toBe(true);
      expect(['success', 'data.data.item.item_id', 'data.data.item.models', 'data.data.item.price']).toContain(v.path);
      seenPaths.add(v.path);
    }
    sim.queueFaults([{ kind: 'malformed' }], { path: '/api/results' });
    const list = (await rejectionOf(c.listResults())) as ApiValidationError;
    expect(list.message).toMatch(/^GET \/api\/results: data(\[0\]\.(id|created_at))?: expected /);
    expect(retries).toHaveLength(0);
  });
});

describe('against a local server (shapes the simulator cannot produce)', () => {
  let server: http.Server;
  let base = '';
  const seen: http.IncomingHttpHeaders[] = [];
  const clientPorts: number[] = [];
  let respond: (req: http.IncomingMessage, res: http.ServerResponse) => void = () => {};

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push(req.headers);
      clientPorts.push(req.socket.remotePort ?? -1);
      req.resume();
      req.on('end', () => respond(req, res));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  const local = (extra: Partial<ScraperClientOptions> = {}): ScraperClient =>
    new ScraperClient({
      baseUrl: base,
      token: TOKEN,
      logger,
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 },
      ...extra,
    });

  it('the verbatim documentation example with a trailing comma is a typed error, not silently repaired', async () => {
    const rawText = readFileSync(`${REAL_FIXTURES}/scrapers-response-1.raw.txt`, 'utf8');
    respond = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end(rawText);
    };
    const { retries, onRetry } = retryCounter();
    const err = await rejectionOf(local({ onRetry }).listScrapers());
    expect(err).toBeInstanceOf(ApiMalformedBodyError);
    const commaLine = rawText.split('\n').findIndex((l) => l.trim() === ']') + 1;
    expect((err as Error).message).toMatch(
      new RegExp(
        `^GET /api/scrapers: response body is not valid JSON \\(.*got '\\]' at position \\d+ \\(line ${commaLine}, column \\d+\\)\\); starts with: .*gave up after 3 attempts\\)$`,
      ),
    );
    expect(retries).toHaveLength(2);

    const fixed = readFileSync(`${REAL_FIXTURES}/scrapers-response-1.json`, 'utf8');
    respond = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end(fixed);
    };
    const ok = await local().listScrapers();
    expect(ok.data.data.map((s) => s.id)).toEqual([88683, 88684]);
    expect(ok.raw).toBe(fixed);
  });

  it('sends the documented headers and reuses one keep-alive connection, error bodies included', async () => {
    let n = 0;
    respond = (_req, res) => {
      n++;
      if (n % 2 === 1) {
        res.writeHead(502, { 'Content-Type': 'text/html' });
        res.end(`<html>${'x'.repeat(20_000)}</html>`);
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"data":[]}');
    };
    seen.length = 0;
    clientPorts.length = 0;
    const c = local();
    for (let i = 0; i < 10; i++) await c.listResults({ page: i + 1, per_page: 10 });
    expect(n).toBe(20);
    // 20 sequential exchanges, half of them 502s with 20 kB bodies, share a couple of kept-alive sockets (undici
    // may hand the next request to a second idle socket before the first is released); an unconsumed body would
    // pin its socket and force a new connection for every request.
    expect(new Set(clientPorts).size, JSON.stringify(clientPorts)).toBeLessThanOrEqual(2);
    expect(seen[0]).toMatchObject({ authorization: `Bearer ${TOKEN}`, accept: 'application/json' });
    expect(seen[0]?.['content-type']).toBeUndefined();

    respond = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        '{"success":false,"message":"URL not scraped","data":{"bff_meta":null,"error":4,"error_msg":"item not found","data":null}}',
      );
    };
    seen.length = 0;
    const err = await rejectionOf(
      local().marketplaceSync({ url: 'https://shopee.tw/api/v2/item/get?itemid=1&shopid=2' }),
    );
    expect(seen[0]?.['content-type']).toBe('application/json');
    expect(err).toBeInstanceOf(ApiScrapeFailedError);
    expect((err as Error).message).toContain('URL not scraped / item not found');
  });

  it('Retry-After as an HTTP date; large integers arrive as bigint', async () => {
    let n = 0;
    respond = (_req, res) => {
      n++;
      if (n === 1) {
        res.writeHead(503, { 'Retry-After': new Date(Date.now() + 1500).toUTCString() });
        res.end('{"message":"maintenance"}');
        return;
      }
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end(
        '{"data":{"id":9223372036854775807,"scraper_id":1,"status":"succeeded","results":[],"created_at":"2024-01-01T00:00:00.000000Z"}}',
      );
    };
    const { retries, onRetry } = retryCounter();
    const res = await local({ onRetry }).getScrapingRun(9223372036854775807n);
    expect(res.data.data.id).toBe(9223372036854775807n);
    expect(res.endpoint).toBe('GET /api/scraping-runs/9223372036854775807');
    // An HTTP date has 1 s resolution, so the delay is 500..1500 ms.
    expect(retries[0]?.delayMs).toBeGreaterThan(400);
    expect(retries[0]?.delayMs).toBeLessThanOrEqual(1500);
  });

  it('redacts a token the server echoes back, in errors and in raw bodies', async () => {
    let n = 0;
    respond = (_req, res) => {
      n++;
      if (n === 1) {
        res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ message: `upstream rejected Authorization: Bearer ${TOKEN}` }));
      } else if (n === 2) {
        res.writeHead(403, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ message: `token ${TOKEN} lacks scope` }));
      } else {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(
          JSON.stringify({
            data: [
              {
                id: 1,
                name: `echo ${TOKEN}`,
                urls: [],
                scheduled: false,
                schedule: null,
                schedule_explanation: null,
                created_at: '2024-01-01T00:00:00Z',
                updated_at: '2024-01-01T00:00:00Z',
              },
            ],
          }),
        );
      }
    };
    const { retries, onRetry } = retryCounter();
    const err = await rejectionOf(local({ onRetry }).listScrapers());
    expect((err as ApiHttpError).status).toBe(403);
    expect((err as Error).message).toContain('[REDACTED] lacks scope');
    expect(retries[0]?.reason).toContain('Bearer [REDACTED]');
    const ok = await local().listScrapers();
    expect(ok.raw).not.toContain(TOKEN);
    expect(ok.data.data[0]?.name).toBe('echo [REDACTED]');
    for (const r of retries) expect(JSON.stringify(r)).not.toContain(TOKEN);
  });

  it('a refused connection is a retryable ApiNetworkError', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const { retries, onRetry } = retryCounter();
    const err = await rejectionOf(local({ baseUrl: `http://127.0.0.1:${port}`, onRetry }).listResults());
    expect(err).toBeInstanceOf(ApiNetworkError);
    expect((err as Error).message).toMatch(/ECONNREFUSED/);
    expect(retries).toHaveLength(2);
  });
});

describe('secrecy', () => {
  it('the token is absent from every error, log line and retry report produced by this suite', () => {
    expect(thrown.length).toBeGreaterThan(20);
    expect(logLines.length).toBeGreaterThan(20);
    for (const err of thrown) {
      expect(String(err)).not.toContain(TOKEN);
      expect(JSON.stringify(err)).not.toContain(TOKEN);
      expect(inspect(err, { depth: 10, showHidden: true })).not.toContain(TOKEN);
    }
    for (const line of logLines) expect(line).not.toContain(TOKEN);
    expect(allRetries.length).toBeGreaterThan(5);
    for (const r of allRetries) expect(JSON.stringify(r)).not.toContain(TOKEN);
  });
});
