// Redirects (issue 10, defect 7): a create POST answered with a redirect to another host was followed as a GET
// and the other host's unauthenticated answer accepted. Real local servers answer every redirect status; the
// client must follow none of them, re-send nothing, and say where the redirect pointed (origin only).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiRedirectError, ScraperApiError, ScraperClient } from '../../../client/index.js';
import { startLocalServer, type LocalServer } from '../../support/local-server.js';

const TOKEN = `tok_${randomBytes(12).toString('hex')}`;
const TS = '2026-01-02T03:04:05.123456Z';
const CREATED = JSON.stringify({
  message: 'Scraper created and queued successfully.',
  scraper: {
    id: 1,
    name: 'evil',
    url: ['Default'],
    urls: ['Default'],
    scheduled: false,
    schedule: null,
    created_at: TS,
    updated_at: TS,
  },
  results: [],
});
const LISTED = JSON.stringify({ data: [] });

let service: LocalServer;
let elsewhere: LocalServer;

beforeAll(async () => {
  service = await startLocalServer();
  elsewhere = await startLocalServer();
  // The other host answers anything with a valid body: accepting it is the defect.
  elsewhere.respond = (req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(req.url.includes('scrapers?') ? LISTED : CREATED);
  };
});
afterAll(async () => {
  await service?.close();
  await elsewhere?.close();
});
beforeEach(() => {
  service.seen.length = 0;
  elsewhere.seen.length = 0;
});

function client(): ScraperClient {
  return new ScraperClient({
    baseUrl: service.base,
    token: TOKEN,
    retry: { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 2 },
  });
}

async function failure(p: Promise<unknown>): Promise<ApiRedirectError> {
  const err = await p.then(
    () => {
      throw new Error('expected the call to fail, it succeeded');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiRedirectError);
  return err as ApiRedirectError;
}

const create = (c: ScraperClient) =>
  c.createLeadsSocialScraper({ name: 'evil', keywords: 'x', sentiment_type: 'all', expected_data: 1 });

describe('redirects are never followed', () => {
  for (const status of [301, 302, 303, 307, 308]) {
    it(`a ${status} to another origin on a create POST is a non-retryable error naming endpoint and origin`, async () => {
      // The Location carries the token in its query: a message may name the origin only.
      service.respond = (_req, res) => {
        res.writeHead(status, {
          Location: `${elsewhere.base}/steal/api/scrapers?token=${TOKEN}`,
          'Content-Type': 'text/html',
        });
        res.end('<a href="elsewhere">moved</a>');
      };
      const err = await failure(create(client()));
      expect(err).toBeInstanceOf(ScraperApiError);
      expect(err.retryable).toBe(false);
      expect(err.ambiguous).toBe(false);
      expect(err.status).toBe(status);
      expect(err.endpoint).toBe('POST /api/scrapers/leads-generator/social/create-and-run');
      expect(err.locationOrigin).toBe(elsewhere.base);
      expect(err.crossOrigin).toBe(true);
      expect(err.message).toContain(
        `POST /api/scrapers/leads-generator/social/create-and-run: ${status} redirect to ${elsewhere.base}`,
      );
      expect(err.message).toMatch(/SCRAPER_BASE_URL/);
      expect(err.message).not.toContain(TOKEN);
      expect(JSON.stringify(err)).not.toContain(TOKEN);
      // Sent once, as a POST with its body, and never to the other host, neither as GET nor as POST.
      expect(service.seen.map((r) => r.method)).toEqual(['POST']);
      expect(JSON.parse(service.seen[0]!.body)).toMatchObject({ name: 'evil' });
      expect(elsewhere.seen).toEqual([]);
    });
  }

  it('a same-origin redirect is not followed either (a GET and a POST)', async () => {
    for (const status of [301, 302, 303, 307, 308]) {
      service.seen.length = 0;
      service.respond = (req, res) => {
        if (req.url.startsWith('/moved')) {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(req.method === 'GET' ? LISTED : CREATED);
          return;
        }
        res.writeHead(status, { Location: `/moved${req.url}` });
        res.end();
      };
      const get = await failure(client().listScrapers());
      expect(get.endpoint).toBe('GET /api/scrapers');
      expect(get.crossOrigin).toBe(false);
      expect(get.locationOrigin).toBe(service.base);
      expect(get.message).toContain(`GET /api/scrapers: ${status} redirect to ${service.base} (same origin)`);
      const post = await failure(create(client()));
      expect(post.status).toBe(status);
      expect(service.seen.map((r) => `${r.method} ${r.url}`)).toEqual([
        'GET /api/scrapers',
        'POST /api/scrapers/leads-generator/social/create-and-run',
      ]);
    }
  });

  it('a redirect without a usable Location is still a clear error', async () => {
    service.respond = (_req, res) => {
      res.writeHead(302);
      res.end();
    };
    const err = await failure(client().listResults());
    expect(err.locationOrigin).toBeUndefined();
    expect(err.message).toMatch(/^GET \/api\/results: 302 redirect \(no Location header\)/);
    expect(service.seen).toHaveLength(1);
  });
});
