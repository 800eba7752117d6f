// The client's HTTP transport (undici's `request`, not fetch): fetch decoded Content-Encoding by itself and
// `request` does not, so the client asks for what fetch asked for and undoes it; and an undici body that is
// neither read to its end nor destroyed pins its socket, so every error path is run on a pool of ONE connection,
// each followed by a call that must still get through.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { Agent, Pool } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ApiHttpError,
  ApiMalformedBodyError,
  ApiNetworkError,
  ApiRedirectError,
  ApiResponseTooLargeError,
  ApiTimeoutError,
  ApiValidationError,
  ScraperClient,
  type RetryInfo,
  type ScraperClientOptions,
} from '../../../client/index.js';
import { startLocalServer, type LocalServer } from '../../support/local-server.js';
import { makeTestCertificates } from '../../support/tls-test-server.js';
import { oneLineReason } from '../../../cli/waiting.js';

const TOKEN = `tok_${randomBytes(12).toString('hex')}`;
const TS = '2026-01-02T03:04:05.123456Z';
const RUN = '/api/scraping-runs/5';

function runBody(resultId = '1', content = '"text"'): string {
  return (
    `{"data":{"id":5,"scraper_id":1,"status":"succeeded","created_at":"${TS}","results":[{"id":${resultId},` +
    `"scraper_id":1,"scraping_run_id":5,"scraper_name":"n","scraped_url":"https://x.test/","status":"succeeded",` +
    `"content":${content},"created_at":"${TS}","updated_at":"${TS}"}]}}`
  );
}

/** gzip as the system's gzip(1) writes it: an encoder independent of the node:zlib the client decodes with. */
function systemGzip(text: string): Buffer {
  return execFileSync('gzip', ['-c', '-n'], { input: Buffer.from(text, 'utf8') });
}

function send(res: ServerResponse, body: Buffer | string, headers: Record<string, string> = {}, status = 200): void {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(bytes.length), ...headers });
  res.end(bytes);
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
    timeoutMs: 5000,
    retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 },
    ...extra,
  });
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

describe('content decoding: what fetch asked for, undone by the client', () => {
  it('asks for gzip and deflate (as fetch did over http) and reads a body gzip(1) compressed', async () => {
    const text = runBody('7', JSON.stringify('é ü 日本 '.repeat(500)));
    const gz = systemGzip(text);
    expect(gz.length).toBeLessThan(text.length / 5);
    server.respond = (req, res) => {
      // Only an honest client gets gzip: one that asks for nothing would get identity.
      if (req.headers['accept-encoding']?.includes('gzip')) send(res, gz, { 'Content-Encoding': 'gzip' });
      else send(res, text);
    };
    const res = await client().getScrapingRun(5);
    expect(server.seen[0]!.headers['accept-encoding']).toBe('gzip, deflate');
    // fetch sent one (`node`); a gateway may refuse a request without a User-Agent.
    expect(server.seen[0]!.headers['user-agent']).toBe('scrape-etl');
    expect(res.raw).toBe(text);
    expect(res.data.data.results[0]!.content).toBe('é ü 日本 '.repeat(500));
  });

  it('deflate with and without the zlib wrapper, x-gzip, br, and a chain of two codings', async () => {
    const text = runBody('8');
    const cases: Array<[string, Buffer]> = [
      ['deflate', zlib.deflateSync(text)],
      ['deflate', zlib.deflateRawSync(text)],
      ['x-gzip', systemGzip(text)],
      ['br', zlib.brotliCompressSync(text)],
      // Codings are listed in the order they were applied: gzip first, then br on top.
      ['gzip, br', zlib.brotliCompressSync(systemGzip(text))],
      ['identity', Buffer.from(text)],
    ];
    for (const [encoding, body] of cases) {
      server.respond = (_req, res) => send(res, body, { 'Content-Encoding': encoding });
      const res = await client().getScrapingRun(5);
      expect(res.raw, encoding).toBe(text);
    }
  });

  it("an error status answered compressed keeps the server's message and its retry", async () => {
    let n = 0;
    server.respond = (_req, res) => {
      n++;
      if (n === 1)
        send(
          res,
          systemGzip('{"message":"maintenance window"}'),
          { 'Content-Encoding': 'gzip', 'Retry-After': '0' },
          503,
        );
      else
        send(
          res,
          systemGzip('{"message":"The given data was invalid.","errors":{"per_page":["too big"]}}'),
          { 'Content-Encoding': 'gzip' },
          422,
        );
    };
    const retries: RetryInfo[] = [];
    const err = await failure(client({ onRetry: (r) => retries.push(r) }).listResults({ per_page: 5 }), ApiHttpError);
    expect(retries[0]!.reason).toContain('503 server error (server said: maintenance window)');
    expect(err.status).toBe(422);
    expect(err.message).toContain('per_page: too big');
  });

  it('a small gzip body that decodes past maxResponseBytes is ApiResponseTooLargeError, not retried', async () => {
    const bomb = zlib.gzipSync(`{"data":"${' '.repeat(4 * 1024 * 1024)}"}`);
    expect(bomb.length).toBeLessThan(16 * 1024);
    server.respond = (_req, res) => send(res, bomb, { 'Content-Encoding': 'gzip' });
    const err = await failure(client({ maxResponseBytes: 64 * 1024 }).listResults(), ApiResponseTooLargeError);
    expect(err.message).toMatch(
      /^GET \/api\/results: response body decoded from gzip is more than 65537 bytes, over the limit of 65536 bytes \(status 200\)/,
    );
    expect(err.retryable).toBe(false);
    expect(server.seen).toHaveLength(1);
  });

  it('a gzip body cut short is a retryable malformed answer (problem "truncated"); an encoding not asked for is not retried', async () => {
    const gz = systemGzip(runBody('9', JSON.stringify('x'.repeat(5000))));
    server.respond = (_req, res) => send(res, gz.subarray(0, gz.length - 40), { 'Content-Encoding': 'gzip' });
    const cut = await failure(client().getScrapingRun(5), ApiMalformedBodyError);
    expect(cut.problem).toBe('truncated');
    expect(cut.retryable).toBe(true);
    expect(cut.message).toMatch(
      new RegExp(`^GET ${RUN}: response body is not usable: gzip body could not be decoded: .*truncated\\?`),
    );
    expect(server.seen).toHaveLength(2);

    server.seen.length = 0;
    server.respond = (_req, res) => send(res, 'whatever', { 'Content-Encoding': 'zstd' });
    const odd = await failure(client().getScrapingRun(5), ApiMalformedBodyError);
    expect(odd.retryable).toBe(false);
    expect(odd.message).toContain("unsupported Content-Encoding 'zstd'");
    expect(server.seen).toHaveLength(1);
  });
});

describe('every body is read to its end or destroyed (a pool of one connection)', () => {
  it('error answers reuse the one socket, and after every early exit the next call still gets through', async () => {
    const pool = new Pool(server.base, { connections: 1 });
    const make = (extra: Partial<ScraperClientOptions> = {}) =>
      client({ dispatcher: pool, retry: { maxAttempts: 1 }, ...extra });
    const drips = new Set<NodeJS.Timeout>();
    const ok = runBody('1');
    try {
      // 30 error answers with bodies of 20 kB, each read to its end: one connection serves them all.
      server.respond = (_req, res) =>
        send(res, `<html>${'x'.repeat(20_000)}</html>`, { 'Content-Type': 'text/html' }, 500);
      for (let i = 0; i < 30; i++) await failure(make().getScrapingRun(5), ApiHttpError);
      const ports = new Set(server.seen.map((s) => s.remotePort));
      expect(ports.size, JSON.stringify([...ports])).toBe(1);

      // A body that never ends: a space every 30 ms.
      const keepDripping = (res: ServerResponse) => {
        const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(' ')), 30);
        drips.add(t);
      };
      const drip = (res: ServerResponse) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{"data":');
        keepDripping(res);
      };
      const earlyExits: Array<[string, (res: ServerResponse) => void, () => Promise<unknown>]> = [
        // Bodies well past undici's 64 kB buffer: one left unread would stall its response, and the connection.
        [
          'redirect',
          (res) => send(res, 'moved '.repeat(400_000), { Location: 'https://elsewhere.test/x' }, 302),
          () => failure(make().getScrapingRun(5), ApiRedirectError),
        ],
        [
          'declared too large',
          (res) => send(res, 'y'.repeat(2_000_000)),
          () => failure(make({ maxResponseBytes: 4096 }).getScrapingRun(5), ApiResponseTooLargeError),
        ],
        [
          'streamed too large',
          (res) => {
            res.writeHead(200, { 'Content-Type': 'application/json' });
            res.write('z'.repeat(64 * 1024));
            keepDripping(res);
          },
          () => failure(make({ maxResponseBytes: 4096 }).getScrapingRun(5), ApiResponseTooLargeError),
        ],
        [
          'per-attempt timeout mid-body',
          drip,
          () => failure(make({ timeoutMs: 300 }).getScrapingRun(5), ApiTimeoutError),
        ],
        [
          "the caller's cancel mid-body",
          drip,
          async () => {
            const reason = new Error('activity cancelled');
            const abort = new AbortController();
            setTimeout(() => abort.abort(reason), 200);
            await expect(make().getScrapingRun(5, { signal: abort.signal })).rejects.toBe(reason);
          },
        ],
        [
          'schema violation',
          (res) => send(res, '{"data":{"id":"five"}}'),
          () => failure(make().getScrapingRun(5), ApiValidationError),
        ],
        [
          'unusable encoding',
          (res) => send(res, 'q'.repeat(3000), { 'Content-Encoding': 'gzip' }),
          () => failure(make().getScrapingRun(5), ApiMalformedBodyError),
        ],
      ];
      for (const [what, answer, call] of earlyExits) {
        server.respond = (_req, res) => answer(res);
        await call();
        // Were the body left unread, the pool's only connection would stay busy and this call would time out.
        server.respond = (_req, res) => send(res, ok);
        const next = await make({ timeoutMs: 10_000 })
          .getScrapingRun(5)
          .catch((e: unknown) => e);
        expect(next, what).not.toBeInstanceOf(Error);
      }
    } finally {
      for (const t of drips) clearInterval(t);
      // destroy, not close: close() would wait for a request pinned by a leaked body.
      await pool.destroy();
    }
  });

  it('a request still queued for the connection ends at its timeout, or at once when the caller cancels', async () => {
    const pool = new Pool(server.base, { connections: 1 });
    const held: ServerResponse[] = [];
    // The first request takes the only connection and is not answered until the end.
    server.respond = (req, res) => (req.url.endsWith('/5') ? held.push(res) : send(res, runBody('2')));
    const make = (extra: Partial<ScraperClientOptions> = {}) =>
      client({ dispatcher: pool, retry: { maxAttempts: 1 }, ...extra });
    try {
      const first = make({ timeoutMs: 60_000 }).getScrapingRun(5);
      first.catch(() => undefined); // awaited below; a failure before that must not go unhandled
      await expect.poll(() => held.length).toBe(1);
      // undici cancels a queued request only once it reaches a socket; the client must not wait for that.
      const queued = await failure(make({ timeoutMs: 300 }).getScrapingRun(6), ApiTimeoutError);
      expect(queued.message).toBe(
        'GET /api/scraping-runs/6: no complete response within 300 ms (gave up after 1 attempt)',
      );
      const reason = new Error('activity cancelled');
      const abort = new AbortController();
      const cancelled = make({ timeoutMs: 60_000 }).getScrapingRun(6, { signal: abort.signal });
      setTimeout(() => abort.abort(reason), 100);
      await expect(cancelled).rejects.toBe(reason);
      expect(server.seen).toHaveLength(1);
      // Once the connection is free the abandoned requests are dropped, never sent, and the pool serves again.
      send(held[0]!, runBody('1'));
      expect((await first).data.data.id).toBe(5);
      expect((await make().getScrapingRun(7)).status).toBe(200);
      expect(server.seen.map((s) => s.url)).toEqual(['/api/scraping-runs/5', '/api/scraping-runs/7']);
    } finally {
      for (const res of held) if (!res.writableEnded) res.destroy();
      await pool.destroy();
    }
  });

  it("close() closes the client's own pool; a dispatcher passed in stays open", async () => {
    server.respond = (_req, res) => send(res, runBody('3'));
    const own = client();
    await own.getScrapingRun(5);
    await own.close();
    // A call after close() opens a new pool rather than failing.
    expect((await own.getScrapingRun(5)).data.data.id).toBe(5);
    await own.close();

    const pool = new Pool(server.base, { connections: 1 });
    const lent = client({ dispatcher: pool });
    await lent.getScrapingRun(5);
    await lent.close();
    expect(pool.closed).toBe(false);
    expect((await lent.getScrapingRun(5)).status).toBe(200);
    await pool.close();
  });
});

describe('network errors', () => {
  it("a connection dropped mid-body names undici's code, as fetch's message did, for run's waiting line", async () => {
    server.respond = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '5000' });
      res.write('{"data":');
      setTimeout(() => res.socket?.destroy(), 20);
    };
    const err = await failure(client({ retry: { maxAttempts: 1 } }).getScrapingRun(5), ApiNetworkError);
    expect(err.code).toBe('UND_ERR_SOCKET');
    expect(err.message).toMatch(new RegExp(`^GET ${RUN}: network error: UND_ERR_SOCKET: `));
    // The address it used and the variable that sets it (issue 36: a wrong SCRAPER_BASE_URL waited unnamed).
    expect(err.message).toContain(`(service at ${server.base}, SCRAPER_BASE_URL)`);
    expect(oneLineReason(err.message)).toBe(
      `service unreachable (UND_ERR_SOCKET) at ${server.base} (SCRAPER_BASE_URL)`,
    );
  });
});

describe('https', () => {
  it('verifies the certificate by default; a dispatcher with a private CA gets through, asked for br as fetch asked over https', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-tls-'));
    const certs = makeTestCertificates(dir);
    const seen: Array<string | undefined> = [];
    const text = runBody('4');
    const tls = https.createServer(
      { key: fs.readFileSync(certs.key), cert: fs.readFileSync(certs.cert) },
      (req, res) => {
        seen.push(req.headers['accept-encoding']);
        req.resume();
        req.on('end', () => send(res, zlib.brotliCompressSync(text), { 'Content-Encoding': 'br' }));
      },
    );
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
    const base = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
    const agent = new Agent({ connect: { ca: fs.readFileSync(certs.ca), servername: certs.serverName } });
    try {
      const untrusted = await failure(
        client({ baseUrl: base, retry: { maxAttempts: 1 } }).getScrapingRun(5),
        ApiNetworkError,
      );
      expect(untrusted.message).toMatch(/certificate/i);
      expect(seen).toHaveLength(0);

      const res = await client({ baseUrl: base, dispatcher: agent }).getScrapingRun(5);
      expect(res.raw).toBe(text);
      expect(seen).toEqual(['br, gzip, deflate']);
    } finally {
      await agent.close();
      tls.closeAllConnections();
      await new Promise<void>((r) => tls.close(() => r()));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
