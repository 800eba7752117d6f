// Scrapers created twice (issue 10, defect 2, client part): a create-and-run whose answer is lost must not be
// re-sent by the client; it throws ApiAmbiguousError so the caller can look the scraper up by name first
// (findScraperByName). Requests that cannot have been processed (429, connection refused) are still retried.
// Against the simulator, whose ground truth counts the scrapers really created.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ApiAmbiguousError,
  ApiHttpError,
  ApiMalformedBodyError,
  ApiNetworkError,
  ApiPagingError,
  ApiTimeoutError,
  ScraperClient,
  type ScraperClientOptions,
} from '../../../client/index.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { startLocalServer } from '../../support/local-server.js';

const TOKEN = `tok_${randomBytes(12).toString('hex')}`;
const SOCIAL = '/api/scrapers/leads-generator/social/create-and-run';
const ENDPOINT = `POST ${SOCIAL}`;

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, token: TOKEN, seed: 11, runDurationMs: 100 });
});
afterAll(async () => {
  await sim?.close();
});
beforeEach(() => {
  sim.clearFaults();
  sim.resetStats();
});

function client(extra: Partial<ScraperClientOptions> = {}): ScraperClient {
  return new ScraperClient({
    baseUrl: sim.baseUrl,
    token: TOKEN,
    timeoutMs: 2000,
    retry: { maxAttempts: 5, baseDelayMs: 1, maxDelayMs: 2 },
    ...extra,
  });
}

let n = 0;
const uniqueName = (what: string) => `i10-${what}-${++n}`;
const create = (c: ScraperClient, name: string) =>
  c.createLeadsSocialScraper({ name, keywords: 'k', sentiment_type: 'all', expected_data: 2 });
const created = (name: string) => sim.truth.scrapers().filter((s) => s.name === name);
const outcome = (p: Promise<unknown>) =>
  p.then(
    (v) => v,
    (e: unknown) => e,
  );

describe('a create-and-run is never re-sent after an ambiguous attempt', () => {
  it('a truncated 2xx: ApiAmbiguousError, one scraper, found by name', async () => {
    const name = uniqueName('truncated');
    sim.queueFaults([{ kind: 'truncated' }], { path: SOCIAL });
    const err = await outcome(create(client(), name));
    // The service created the scraper once; the old client re-sent the POST and created a second one.
    expect(created(name)).toHaveLength(1);
    expect(sim.stats().byEndpoint).toEqual({ [ENDPOINT]: 1 });
    expect(err).toBeInstanceOf(ApiAmbiguousError);
    const a = err as ApiAmbiguousError;
    expect(a.retryable).toBe(true);
    expect(a.ambiguous).toBe(true);
    expect(a.endpoint).toBe(ENDPOINT);
    expect(a.status).toBe(200);
    expect(a.attempts).toBe(1);
    expect(a.underlying).toBeInstanceOf(ApiMalformedBodyError);
    expect((a.underlying as ApiMalformedBodyError).problem).toBe('truncated');
    expect(a.cause).toBe(a.underlying);
    expect(a.message).toMatch(
      new RegExp(
        `^${ENDPOINT}: outcome unknown, the service may have created the scraper \\(attempt 1: ${ENDPOINT}: response body is not valid JSON`,
      ),
    );
    expect(a.message).toContain('findScraperByName');
    expect(JSON.stringify(a)).not.toContain(TOKEN);

    const found = await client().findScraperByName(name);
    expect(found?.id).toBe(created(name)[0]!['id']);
    expect(found?.name).toBe(name);
  });

  it('a 5xx, a reset connection and a per-attempt timeout are ambiguous too: one request each', async () => {
    const cases: Array<{
      fault: Parameters<RunningSimulator['queueFaults']>[0][number];
      cls: new (...a: never[]) => unknown;
      createdAfter: number;
    }> = [
      // The spec names no failure statuses; a 5xx may follow the creation (see mayHaveBeenProcessed).
      { fault: { status: 503 }, cls: ApiHttpError, createdAfter: 0 },
      { fault: { kind: 'reset' }, cls: ApiNetworkError, createdAfter: 0 },
      // The simulator processes the request after the delay, when the client has given up: the classic lost answer.
      { fault: { kind: 'delay', ms: 600 }, cls: ApiTimeoutError, createdAfter: 1 },
    ];
    for (const c of cases) {
      sim.resetStats();
      const name = uniqueName('amb');
      sim.queueFaults([c.fault], { path: SOCIAL });
      const err = await outcome(create(client({ timeoutMs: 300 }), name));
      expect(sim.stats().byEndpoint, JSON.stringify(c.fault)).toEqual({ [ENDPOINT]: 1 });
      expect(err, JSON.stringify(c.fault)).toBeInstanceOf(ApiAmbiguousError);
      expect((err as ApiAmbiguousError).underlying).toBeInstanceOf(c.cls);
      await expect.poll(() => created(name).length, { timeout: 2000 }).toBe(c.createdAfter);
      // Whatever happened, the lookup tells the caller whether to adopt or to create.
      expect((await client().findScraperByName(name))?.id).toBe(created(name)[0]?.['id']);
    }
  });

  it('a 429 was not processed: the client retries it itself and one scraper results', async () => {
    const name = uniqueName('429');
    sim.queueFaults([{ status: 429, retryAfterSeconds: 0 }], { path: SOCIAL });
    const res = await create(client(), name);
    expect(sim.stats().byEndpoint).toEqual({ [ENDPOINT]: 2 });
    expect(created(name)).toHaveLength(1);
    expect(res.data.scraper.id).toBe(created(name)[0]!['id']);
  });

  it('a refused connection cannot have been processed: retried, and the final error is not ambiguous', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const retries: number[] = [];
    const c = new ScraperClient({
      baseUrl: `http://127.0.0.1:${port}`,
      token: TOKEN,
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1 },
      onRetry: (i) => retries.push(i.attempt),
    });
    const err = await outcome(create(c, uniqueName('refused')));
    expect(err).toBeInstanceOf(ApiNetworkError);
    expect(err).not.toBeInstanceOf(ApiAmbiguousError);
    expect((err as ApiNetworkError).beforeRequestSent).toBe(true);
    expect((err as ApiNetworkError).code).toBe('ECONNREFUSED');
    expect((err as ApiNetworkError).ambiguous).toBe(false);
    expect(retries).toEqual([1, 2]);
  });

  it('reads still retry a truncated body by themselves; maxAttempts can be capped per call', async () => {
    sim.queueFaults([{ kind: 'truncated' }], { path: '/api/scrapers' });
    expect((await client().listScrapers({ per_page: 1 })).status).toBe(200);
    expect(sim.stats().byEndpoint).toEqual({ 'GET /api/scrapers': 2 });

    sim.resetStats();
    sim.setFaults({ errorRate: 1 });
    const c = client();
    expect(c.retry.maxAttempts).toBe(5);
    const err = await outcome(c.listResults({}, { maxAttempts: 2 }));
    expect((err as Error).message).toMatch(/gave up after 2 attempts/);
    expect(sim.stats().byEndpoint).toEqual({ 'GET /api/results': 2 });
    expect(new ScraperClient({ baseUrl: sim.baseUrl, token: TOKEN }).retry.maxAttempts).toBe(5);
  });
});

describe('findScraperByName', () => {
  it('pages through the whole list and returns the newest exact match, or undefined', async () => {
    const name = uniqueName('dup');
    const c = client();
    const ids: Array<number | bigint> = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await create(c, name)).data.scraper.id);
      await create(c, `${name}-other`);
      await create(c, name.toUpperCase());
    }
    sim.resetStats();
    const found = await c.findScraperByName(name, { perPage: 2 });
    expect(found?.id).toBe(ids[2]);
    expect(found?.name).toBe(name);
    // Every page was read (the list is oldest first here, so the newest is on the last page).
    const pages = Math.ceil(sim.truth.scrapers().length / 2) + (sim.truth.scrapers().length % 2 === 0 ? 1 : 0);
    expect(sim.stats().byEndpoint).toEqual({ 'GET /api/scrapers': pages });
    expect(await c.findScraperByName(`${name}-missing`)).toBeUndefined();
    expect(await c.findScraperByName(`${name} `)).toBeUndefined();
    await expect(c.findScraperByName('')).rejects.toThrow(/must be a non-empty string/);
  });

  it('newest means latest created_at, then highest id; a list that does not advance is an ApiPagingError', async () => {
    const server = await startLocalServer();
    try {
      const item = (id: number, name: string, at: string) => ({
        id,
        name,
        urls: [],
        scheduled: false,
        schedule: null,
        schedule_explanation: null,
        created_at: at,
        updated_at: at,
      });
      server.respond = (req, res) => {
        const page = Number(new URL(req.url, 'http://x').searchParams.get('page'));
        const items =
          page === 1
            ? [item(10, 'x', '2026-01-02T00:00:00.000000Z'), item(11, 'x', '2026-01-01T00:00:00.000000Z')]
            : page === 2
              ? [item(12, 'x', '2026-01-02T00:00:00.000000Z')]
              : [];
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end(JSON.stringify({ data: items }));
      };
      const c = new ScraperClient({ baseUrl: server.base, token: TOKEN });
      expect((await c.findScraperByName('x', { perPage: 2 }))?.id).toBe(12);

      // A server that answers every page with the same full page would keep a scan going forever.
      server.respond = (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end(JSON.stringify({ data: [item(1, 'a', '2026-01-01T00:00:00Z'), item(2, 'b', '2026-01-01T00:00:00Z')] }));
      };
      server.seen.length = 0;
      const err = await outcome(c.findScraperByName('zzz', { perPage: 2 }));
      expect(err).toBeInstanceOf(ApiPagingError);
      expect((err as ApiPagingError).page).toBe(2);
      expect((err as ApiPagingError).retryable).toBe(false);
      expect((err as Error).message).toMatch(
        /^GET \/api\/scrapers: page 2 \(per_page 2\) holds only scrapers already listed on earlier pages/,
      );
      expect(server.seen).toHaveLength(2);
    } finally {
      await server.close();
    }
  });
});
