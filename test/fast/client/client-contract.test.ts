// Hostile answers a real local server gives (issue 10, defects 3, 4 and 6, client part): ids beyond 64 bits,
// empty, deeply nested, slow-drip and oversized bodies. Each must end in a clear error naming the endpoint,
// classified so that a caller can tell a malformed answer from a transient one and from a run still running.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ApiAmbiguousError,
  ApiConfigError,
  ApiMalformedBodyError,
  ApiResponseTooLargeError,
  ApiTimeoutError,
  ApiValidationError,
  MAX_JSON_DEPTH,
  ScraperClient,
  type ScraperClientOptions,
} from '../../../client/index.js';
import { startLocalServer, type LocalServer } from '../../support/local-server.js';

const TOKEN = `tok_${randomBytes(12).toString('hex')}`;
const TS = '2026-01-02T03:04:05.123456Z';
const RUN = '/api/scraping-runs/5';

function runBody(resultId: string, content = '"text"', scraperId = '1'): string {
  return (
    `{"data":{"id":5,"scraper_id":${scraperId},"status":"succeeded","created_at":"${TS}","results":[{"id":${resultId},` +
    `"scraper_id":1,"scraping_run_id":5,"scraper_name":"n","scraped_url":"https://x.test/","status":"succeeded",` +
    `"content":${content},"created_at":"${TS}","updated_at":"${TS}"}]}}`
  );
}

let server: LocalServer;
beforeAll(async () => {
  server = await startLocalServer();
});
afterAll(async () => {
  await server?.close();
});
beforeEach(() => {
  server.seen.length = 0;
});

function client(extra: Partial<ScraperClientOptions> = {}): ScraperClient {
  return new ScraperClient({
    baseUrl: server.base,
    token: TOKEN,
    timeoutMs: 3000,
    retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 },
    ...extra,
  });
}

function json(res: ServerResponse, body: string, status = 200): void {
  res.writeHead(status, { 'Content-Type': 'text/plain', 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(body);
}

async function failure<T>(p: Promise<unknown>, cls: abstract new (...args: never[]) => T): Promise<T> {
  const err = await p.then(
    () => {
      throw new Error('expected the call to fail, it succeeded');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(cls);
  expect(String(err)).not.toContain(TOKEN);
  return err as T;
}

const create = (c: ScraperClient) =>
  c.createLeadsSocialScraper({ name: 'n', keywords: 'k', sentiment_type: 'all', expected_data: 1 });

describe('integers beyond the signed 64-bit range (defect 3)', () => {
  it('are a non-retryable contract error naming endpoint and JSON path, at once', async () => {
    server.respond = (_req, res) => json(res, runBody('99999999999999999999999'));
    const err = await failure(client().getScrapingRun(5), ApiValidationError);
    expect(err.endpoint).toBe(`GET ${RUN}`);
    expect(err.path).toBe('data.results[0].id');
    expect(err.retryable).toBe(false);
    expect(err.message).toBe(
      `GET ${RUN}: data.results[0].id: integer 99999999999999999999999 is outside the signed 64-bit range (-2^63 .. 2^63-1)`,
    );
    expect(server.seen).toHaveLength(1);

    server.respond = (_req, res) => json(res, runBody('1', '"t"', '-9223372036854775809'));
    expect((await failure(client().getScrapingRun(5), ApiValidationError)).path).toBe('data.scraper_id');

    // The extremes themselves are fine.
    server.respond = (_req, res) => json(res, runBody('9223372036854775807', '"t"', '-9223372036854775808'));
    const ok = await client().getScrapingRun(5);
    expect(ok.data.data.results[0]!.id).toBe(9223372036854775807n);
  });

  it('on a create answer too: one request, not retried', async () => {
    server.respond = (_req, res) =>
      json(
        res,
        `{"message":"ok","scraper":{"id":18446744073709551616,"name":"n","url":["Default"],"urls":["Default"],"scheduled":false,` +
          `"schedule":null,"created_at":"${TS}","updated_at":"${TS}"},"results":[]}`,
      );
    const err = await failure(create(client()), ApiValidationError);
    expect(err.path).toBe('scraper.id');
    expect(err.endpoint).toBe('POST /api/scrapers/leads-generator/social/create-and-run');
    expect(server.seen).toHaveLength(1);
  });
});

describe('garbage 2xx bodies (defect 4)', () => {
  it('an empty 200 is a malformed answer (problem "empty") naming the endpoint', async () => {
    server.respond = (_req, res) => json(res, '');
    const err = await failure(
      client({ retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 } }).getScrapingRun(5),
      ApiMalformedBodyError,
    );
    expect(err.problem).toBe('empty');
    expect(err.status).toBe(200);
    expect(err.message).toMatch(
      new RegExp(`^GET ${RUN}: response body is not valid JSON \\(empty body with status 200\\)`),
    );
    // A read may be asked again: an empty body is usually a transfer accident.
    expect(err.retryable).toBe(true);
    expect(server.seen).toHaveLength(2);
  });

  it('a truncated body says so (problem "truncated"); a broken one is "syntax"', async () => {
    const whole = runBody('1');
    server.respond = (_req, res) => json(res, whole.slice(0, 60));
    expect(
      (await failure(client({ retry: { maxAttempts: 1 } }).getScrapingRun(5), ApiMalformedBodyError)).problem,
    ).toBe('truncated');
    server.respond = (_req, res) => json(res, '<html>proxy error</html>');
    expect(
      (await failure(client({ retry: { maxAttempts: 1 } }).getScrapingRun(5), ApiMalformedBodyError)).problem,
    ).toBe('syntax');
  });

  it('5,000-level nested JSON is rejected by the parse (problem "too-deep"), not retried, with the place', async () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    server.respond = (_req, res) => json(res, runBody('1', deep));
    const err = await failure(client().getScrapingRun(5), ApiMalformedBodyError);
    expect(err.problem).toBe('too-deep');
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(
      new RegExp(
        `^GET ${RUN}: response body is not usable JSON: JSON nested deeper than ${MAX_JSON_DEPTH} levels at position \\d+ \\(line 1, column \\d+\\)$`,
      ),
    );
    expect(server.seen).toHaveLength(1);
    // Brackets inside strings are text, not nesting.
    server.respond = (_req, res) => json(res, runBody('1', JSON.stringify('['.repeat(5000))));
    expect((await client().getScrapingRun(5)).data.data.results[0]!.content).toBe('['.repeat(5000));
  });

  it('a slow-drip body times out within the per-attempt timeout, saying the body was too slow', async () => {
    const timers = new Set<NodeJS.Timeout>();
    server.respond = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('{"data":');
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(' ')), 50);
      timers.add(t);
    };
    const t0 = performance.now();
    const err = await failure(
      client({ timeoutMs: 400, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 } }).getScrapingRun(5),
      ApiTimeoutError,
    );
    const elapsed = performance.now() - t0;
    for (const t of timers) clearInterval(t);
    expect(err.message).toMatch(
      new RegExp(
        `^GET ${RUN}: no complete response within 400 ms \\(headers received, \\d+ body bytes so far: the body arrived too slowly\\)`,
      ),
    );
    expect(err.retryable).toBe(true);
    expect(server.seen).toHaveLength(2);
    expect(elapsed).toBeLessThan(2500);
  });
});

describe('response size cap (defect 6)', () => {
  it('a declared Content-Length over the cap fails before reading, naming endpoint and size', async () => {
    server.respond = (_req, res) => json(res, `{"data":[${'1,'.repeat(2500)}1]}`);
    const err = await failure(client({ maxResponseBytes: 1000 }).listResults(), ApiResponseTooLargeError);
    expect(err.endpoint).toBe('GET /api/results');
    expect(err.retryable).toBe(false);
    expect(err.limitBytes).toBe(1000);
    expect(err.declaredBytes).toBe(5012);
    expect(err.message).toBe(
      'GET /api/results: response body declared as 5012 bytes, over the limit of 1000 bytes (status 200); not read further. ' +
        'Raise maxResponseBytes (SCRAPER_MAX_RESPONSE_BYTES) if such bodies are expected, or ask for smaller pages.',
    );
    expect(server.seen).toHaveLength(1);
  });

  it('a chunked body without a length is streamed and abandoned just past the cap', async () => {
    let sent = 0;
    let closedEarly = false;
    server.respond = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"data":"');
      const chunk = 'x'.repeat(16 * 1024);
      const pump = () => {
        while (sent < 50 * 1024 * 1024) {
          if (res.destroyed) return;
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end('"}');
      };
      res.on('close', () => (closedEarly = sent < 50 * 1024 * 1024));
      pump();
    };
    const err = await failure(create(client({ maxResponseBytes: 64 * 1024 })), ApiResponseTooLargeError);
    expect(err.endpoint).toBe('POST /api/scrapers/leads-generator/social/create-and-run');
    expect(err.declaredBytes).toBeUndefined();
    expect(err.receivedBytes).toBeGreaterThan(64 * 1024);
    expect(err.receivedBytes).toBeLessThan(2 * 1024 * 1024);
    expect(err.message).toMatch(
      /^POST \/api\/scrapers\/leads-generator\/social\/create-and-run: response body is more than \d+ bytes, over the limit of 65536 bytes/,
    );
    // Not an ambiguous create and not retried: the client made one request and the server saw the reader go away.
    expect(err).not.toBeInstanceOf(ApiAmbiguousError);
    expect(server.seen).toHaveLength(1);
    await expect.poll(() => closedEarly).toBe(true);
  });

  it('comes from SCRAPER_MAX_RESPONSE_BYTES, defaults to 64 MiB, and rejects nonsense', () => {
    const base = { baseUrl: server.base, token: TOKEN };
    expect(new ScraperClient({ ...base, env: {} }).maxResponseBytes).toBe(64 * 1024 * 1024);
    expect(new ScraperClient({ ...base, env: { SCRAPER_MAX_RESPONSE_BYTES: '2048' } }).maxResponseBytes).toBe(2048);
    expect(
      new ScraperClient({ ...base, maxResponseBytes: 10, env: { SCRAPER_MAX_RESPONSE_BYTES: '2048' } })
        .maxResponseBytes,
    ).toBe(10);
    expect(() => new ScraperClient({ ...base, env: { SCRAPER_MAX_RESPONSE_BYTES: '10MB' } })).toThrow(ApiConfigError);
    expect(() => new ScraperClient({ ...base, env: { SCRAPER_MAX_RESPONSE_BYTES: '10MB' } })).toThrow(
      /SCRAPER_MAX_RESPONSE_BYTES must be a positive whole number of bytes, got '10MB'/,
    );
    expect(() => new ScraperClient({ ...base, maxResponseBytes: 0 })).toThrow(/maxResponseBytes/);
  });

  it('bodies under the cap still arrive whole, BOM dropped as before', async () => {
    server.respond = (_req, res) => json(res, `\uFEFF${runBody('7')}`);
    const res = await client({ maxResponseBytes: 4096 }).getScrapingRun(5);
    expect(res.data.data.results[0]!.id).toBe(7);
  });
});
