// The console answers only to its own address (DNS rebinding): a request whose Host names another site is refused
// before anything is read, with one sentence; every answer carries the usual security headers; an error page is a
// sentence and an id (the detail is on the console's stderr under that id), never a stack, a message or a path.
// The real command (`scrape-etl console`, dist/) is spawned and asked with curl; Chromium loads it through a name
// that resolves to 127.0.0.1 (--host-resolver-rules), as a rebinding page would, and through its printed URL.
// Needs `npm run build` and Chromium (.ci/run installs Debian's package).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole } from '../../../console/server.js';
import { openDatabase } from '../../../destinations/open.js';
import { launchBrowser, withScreenshotOnFailure } from '../../support/browser.js';
import { CLI, REPO_ROOT } from '../../support/cli.js';

let dir: string;
let dbFile: string;
let child: ChildProcess;
let stderr = '';
let port: number;
let browser: Browser | undefined;

interface CurlAnswer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** One request with curl (an independent HTTP client): `host` is sent as the Host header when given. */
function curl(p: string, o: { host?: string; extra?: string[]; port?: number } = {}): Promise<CurlAnswer> {
  const args = [
    '-s',
    '-i',
    '--max-time',
    '20',
    ...(o.host !== undefined ? ['-H', `Host: ${o.host}`] : []),
    ...(o.extra ?? []),
    `http://127.0.0.1:${o.port ?? port}${p}`,
  ];
  return new Promise((resolve, reject) => {
    execFile('curl', args, { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }, (err, stdout) => {
      if (err) return reject(new Error(`curl ${args.join(' ')}: ${err.message}`));
      const at = stdout.indexOf('\r\n\r\n');
      const head = stdout.slice(0, at).split('\r\n');
      const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(head[0] ?? '')?.[1]);
      const headers = new Map(
        head
          .slice(1)
          .map(
            (l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()] as [string, string],
          ),
      );
      resolve({ status, headers, body: stdout.slice(at + 4) });
    });
  });
}

function expectSecurityHeaders(a: CurlAnswer, what: string): void {
  expect(a.headers.get('x-content-type-options'), what).toBe('nosniff');
  expect(a.headers.get('x-frame-options'), what).toBe('DENY');
  expect(a.headers.get('referrer-policy'), what).toBe('no-referrer');
  const csp = a.headers.get('content-security-policy') ?? '';
  expect(csp, what).toContain("default-src 'none'");
  expect(csp, what).toContain("frame-ancestors 'none'");
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'console-host-'));
  const file = path.join(dir, 'etl.sqlite');
  dbFile = file;
  const db = await openDatabase(`sqlite:${file}`);
  await db.close();
  // A database the console cannot read whole (raw_responses gone): a raw page then fails inside the console, which
  // is how its error page is reached.
  const raw = new BetterSqlite3(file);
  raw.exec('DROP TABLE raw_responses');
  raw.close();
  child = spawn(process.execPath, [CLI, 'console', '--database', `sqlite:${file}`, '--no-temporal'], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`console did not print its URL\nstdout: ${out}\nstderr: ${stderr}`)),
      60_000,
    );
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /console: http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => reject(new Error(`console exited (${code})\nstdout: ${out}\nstderr: ${stderr}`)));
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('console Host check, with curl against `scrape-etl console`', () => {
  it('a Host naming another site is refused (421, one sentence) on every kind of page; nothing of the data is in the answer', async () => {
    for (const p of [
      '/',
      '/cost',
      '/db/0/p/x/data',
      '/db/0/p/x/data/pipeline_runs',
      '/db/0/p/x/data/pipeline_runs/download.csv',
      '/db/0/raw/1/body',
      '/assets/console.js',
      '/nowhere',
    ]) {
      for (const host of [
        `attacker.example:${port}`,
        'attacker.example',
        `127.0.0.1.attacker.example:${port}`,
        `localhost.attacker.example:${port}`,
        `127.0.0.1:${port + 1}`,
        `[::1]:${port + 1}`,
      ]) {
        const a = await curl(p, { host });
        expect(a.status, `${p} with Host ${host}: ${a.body}`).toBe(421);
        expect(a.headers.get('content-type'), p).toMatch(/^text\/plain/);
        // One sentence, one line; it names the address to open instead.
        expect(a.body.trim().split('\n')).toHaveLength(1);
        expect(a.body).toContain(`http://127.0.0.1:${port}/`);
        expect(a.body).not.toContain('etl.sqlite');
        expect(a.body).not.toContain('pipeline_runs');
        expectSecurityHeaders(a, `${p} with Host ${host}`);
      }
    }
  });

  it('its own address answers: 127.0.0.1, localhost and [::1] with its port', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`, undefined]) {
      const a = await curl('/', host === undefined ? {} : { host });
      expect(a.status, `Host ${host}: ${a.body}`).toBe(200);
      expect(a.body).toContain('<h1>Pipelines</h1>');
      expectSecurityHeaders(a, `/ with Host ${host}`);
    }
  });

  it('an HTTP/1.0 request without a Host header is refused too', async () => {
    const a = await curl('/', { extra: ['--http1.0', '-H', 'Host:'] });
    expect(a.status, a.body).toBe(421);
  });

  it('every answer carries the security headers: pages, assets, 404, 405, downloads refused', async () => {
    for (const [p, status] of [
      ['/', 200],
      ['/assets/console.js', 200],
      ['/assets/console.css', 200],
      ['/nowhere', 404],
      ['/db/0/p/x/data/nope', 400],
    ] as const) {
      const a = await curl(p);
      expect(a.status, p).toBe(status);
      expectSecurityHeaders(a, p);
    }
    const post = await curl('/', { extra: ['-X', 'POST'] });
    expect(post.status).toBe(405);
    expectSecurityHeaders(post, 'POST /');
  });

  it('an error page is one sentence and an id; the detail is on stderr under that id, never in the page', async () => {
    const a = await curl('/db/0/raw/1');
    expect(a.status, a.body).toBe(500);
    expectSecurityHeaders(a, 'error page');
    const id = /error id ([A-Za-z0-9_-]{6,})/.exec(a.body)?.[1];
    expect(id, a.body).toBeDefined();
    // What failed (SQLite's message), a stack frame, the install folder: none of it is shown.
    expect(a.body).not.toMatch(/no such table|raw_responses/);
    expect(a.body).not.toMatch(/\n\s+at /);
    expect(a.body).not.toContain(REPO_ROOT);
    expect(a.body).not.toContain('node_modules');
    expect(a.body).not.toContain('<pre');
    await expect.poll(() => stderr, { timeout: 10_000 }).toContain(id!);
    const logged = stderr.split('\n').find((l) => l.includes(id!))!;
    expect(logged).toMatch(/no such table: raw_responses/);
  });
});

describe('console Host check beyond loopback', () => {
  it("--host 0.0.0.0: this machine's addresses and host name and --allow-host names pass to the token check; other names are refused", async () => {
    const con = await startConsole({
      databases: [{ url: `sqlite:${dbFile}` }],
      host: '0.0.0.0',
      allowHosts: ['Proxy.Example'],
      temporal: false,
    });
    try {
      const p = con.port;
      for (const host of [`127.0.0.1:${p}`, `${os.hostname()}:${p}`, 'proxy.example', 'proxy.example:8443']) {
        // Past the Host check: the access token is asked for.
        expect((await curl('/', { host, port: p })).status, host).toBe(401);
      }
      for (const host of [
        `attacker.example:${p}`,
        `proxy.example.attacker.example:${p}`,
        `0.0.0.0.attacker.example:${p}`,
      ]) {
        expect((await curl('/', { host, port: p })).status, host).toBe(421);
      }
    } finally {
      await con.close();
    }
  });
});

describe('console Host check in Chromium', () => {
  it('a page loaded through a name the console does not know (DNS rebinding) is refused; the printed URL works', async () => {
    // attacker.example resolves to 127.0.0.1, as a rebinding site's name does after its first answer. Chromium's own
    // Private Network Access checks are turned off: other browsers have none, so the console must refuse by itself.
    browser = await launchBrowser([
      '--host-resolver-rules=MAP attacker.example 127.0.0.1',
      '--disable-features=BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults,LocalNetworkAccessChecks',
    ]);
    const page = await browser.newPage();
    await withScreenshotOnFailure(page, 'console-host-rebinding', async () => {
      const refused = await page.goto(`http://attacker.example:${port}/`);
      expect(refused?.status()).toBe(421);
      expect(await page.textContent('body')).toContain(`http://127.0.0.1:${port}/`);
      expect(await page.$('#pipelines')).toBeNull();
      // The rebinding itself: the attacker's page came from the attacker's server (played here by Playwright),
      // then its name points at 127.0.0.1 and its script reads "its own origin". Every read is refused.
      await page.route(`http://attacker.example:${port}/attack.html`, (r) =>
        r.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>a page</title><p>hello</p>' }),
      );
      await page.goto(`http://attacker.example:${port}/attack.html`);
      const fetched = await page.evaluate(async () => {
        const out: Array<[string, number, string]> = [];
        for (const p of ['/', '/db/0/p/x/data/pipeline_runs', '/db/0/raw/1/body']) {
          const r = await fetch(p);
          out.push([p, r.status, await r.text()]);
        }
        return out;
      });
      for (const [p, status, text] of fetched) {
        expect(status, p).toBe(421);
        expect(text).not.toContain('pipeline_runs');
      }
      const ok = await page.goto(`http://127.0.0.1:${port}/`);
      expect(ok?.status()).toBe(200);
      expect(await page.textContent('h1')).toBe('Pipelines');
      await page.waitForSelector('#pipelines');
      const viaLocalhost = await page.goto(`http://localhost:${port}/`);
      expect(viaLocalhost?.status()).toBe(200);
    });
  });
});
