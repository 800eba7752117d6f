// CPU a request of the scraping-service client (issue 29: the workers' HTTP was ~11% of their busy time in
// bench/many-runs.ts). BENCH_CLIENT_REQUESTS (3000) marketplace sync calls at BENCH_CLIENT_INFLIGHT (16,64) in
// flight against `scrape-etl simulate` (a process of its own, default settings), each client in a child process
// of its own so that process.cpuUsage is the client's alone. Clients, interleaved round by round
// (BENCH_CLIENT_ROUNDS, 3; the median counts) so that all see the same load on a shared machine:
//   - `client`      this checkout's built client (dist/client), marketplaceSync: validation, parse, schema;
//   - `compare`     another build of the client (BENCH_CLIENT_COMPARE=<path of its dist/client/index.js>), e.g. a
//                   copy of dist/client kept from before a change: the before/after pair;
//   - `fetch`       a plain fetch client (the ceiling client of bench/many-runs.ts): POST, res.text(), nothing else;
//   - `request`     a plain undici request client on a keep-alive Pool: POST, body.text(), nothing else.
// The two plain clients bound what any client pays for the HTTP exchange alone; each line's ratios are to the
// others of the same round set. Every answer is checked (status 200, the product asked for).
//   npm run build && npx tsx bench/client-cpu.ts
//   BENCH_CLIENT_ONLY=client,compare: only the clients named.
//   npx tsx bench/client-cpu.ts --child <kind> <module> <baseUrl> <token> <requests> <inflight> <firstItem>   (internal)
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { productUrl } from '../test/support/pipeline-specs.js';
import { simulatorProcess } from './_simulator-process.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const self = fileURLToPath(import.meta.url);
const REQUESTS = Number(process.env['BENCH_CLIENT_REQUESTS'] ?? 3000);
const INFLIGHT = (process.env['BENCH_CLIENT_INFLIGHT'] ?? '16,64').split(',').map(Number);
const ROUNDS = Number(process.env['BENCH_CLIENT_ROUNDS'] ?? 3);
const COMPARE = process.env['BENCH_CLIENT_COMPARE'];
const ONLY = process.env['BENCH_CLIENT_ONLY']?.split(',');
const WARMUP = 300;
const TOKEN = `bench-client-${crypto.randomBytes(6).toString('hex')}`;
// Item ids no other bench uses; each child run gets a range of its own, so no answer repeats a product.
const FIRST_ITEM = 6_200_000_000;

type Kind = 'client' | 'compare' | 'fetch' | 'request';

interface ChildResult {
  cpuMsPerRequest: number;
  requestsPerSecond: number;
}

/** The child: `requests` calls, `inflight` at a time, after a warm-up; prints its CPU a request. */
async function childMain(
  kind: Kind,
  modulePath: string,
  baseUrl: string,
  token: string,
  requests: number,
  inflight: number,
  firstItem: number,
): Promise<void> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' };
  let one: (item: number) => Promise<void>;
  if (kind === 'client' || kind === 'compare') {
    const mod = (await import(pathToFileURL(modulePath).href)) as typeof import('../client/index.js');
    const client = new mod.ScraperClient({ baseUrl, token });
    one = async (item) => {
      const res = await client.marketplaceSync({ url: productUrl(item) });
      if (String(res.data.data?.data?.item?.item_id) !== String(item))
        throw new Error(`${kind}: asked for item ${item}, got ${res.raw.slice(0, 200)}`);
    };
  } else if (kind === 'fetch') {
    one = async (item) => {
      const res = await fetch(`${baseUrl}/api/marketplace/sync`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: productUrl(item) }),
      });
      const text = await res.text();
      if (res.status !== 200 || !text.includes(`${item}`))
        throw new Error(`fetch: HTTP ${res.status}: ${text.slice(0, 200)}`);
    };
  } else {
    const { Pool } = await import('undici');
    const pool = new Pool(new URL(baseUrl).origin);
    one = async (item) => {
      const res = await pool.request({
        path: '/api/marketplace/sync',
        method: 'POST',
        headers,
        body: JSON.stringify({ url: productUrl(item) }),
      });
      const text = await res.body.text();
      if (res.statusCode !== 200 || !text.includes(`${item}`))
        throw new Error(`request: HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
    };
  }
  let next = 0;
  const worker = async (limit: number, base: number): Promise<void> => {
    for (let i = next++; i < limit; i = next++) await one(base + i);
  };
  // Warm-up (JIT, connections) on items of its own, at the same concurrency.
  await Promise.all(Array.from({ length: inflight }, () => worker(WARMUP, firstItem + requests)));
  next = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(Array.from({ length: inflight }, () => worker(requests, firstItem)));
  const cpu = process.cpuUsage(cpu0);
  const seconds = (performance.now() - t0) / 1000;
  const result: ChildResult = {
    cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / requests,
    requestsPerSecond: requests / seconds,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  // Idle keep-alive sockets must not hold the child.
  process.exit(0);
}

function runChild(args: string[]): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ['--import', 'tsx', self, '--child', ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    c.stdout.on('data', (b: Buffer) => (out += b.toString()));
    c.stderr.on('data', (b: Buffer) => (err += b.toString()));
    c.once('error', reject);
    c.once('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split('\n').pop()!) as ChildResult)
        : reject(new Error(`${args[0]} child exited ${code}:\n${err}`)),
    );
  });
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function main(): Promise<void> {
  const built = path.join(root, 'dist', 'client', 'index.js');
  if (!fs.existsSync(built)) throw new Error(`${built} is missing: run \`npm run build\` first`);
  const modules: Partial<Record<Kind, string>> = { client: built, fetch: '-', request: '-' };
  if (COMPARE !== undefined) {
    const compare = path.resolve(COMPARE);
    if (!fs.existsSync(compare))
      throw new Error(
        `BENCH_CLIENT_COMPARE: ${compare} does not exist (the path of another build's dist/client/index.js)`,
      );
    modules.compare = compare;
  }
  if (ONLY !== undefined) for (const k of Object.keys(modules) as Kind[]) if (!ONLY.includes(k)) delete modules[k];
  const kinds = Object.keys(modules) as Kind[];
  const sim = await simulatorProcess(TOKEN);
  process.stdout.write(
    `client CPU a request: ${REQUESTS} marketplace sync calls per client run against \`scrape-etl simulate\`, ${ROUNDS} rounds, ` +
      `clients ${kinds.join(', ')}${COMPARE ? ` (compare = ${COMPARE})` : ''}\n`,
  );
  let item = FIRST_ITEM;
  try {
    for (const inflight of INFLIGHT) {
      const cpu: Record<string, number[]> = {};
      const rate: Record<string, number[]> = {};
      for (let round = 0; round < ROUNDS; round++) {
        // Rotated order: none of the clients always runs first or last.
        const order = kinds.map((_, i) => kinds[(i + round) % kinds.length]!);
        for (const kind of order) {
          const r = await runChild([
            kind,
            modules[kind]!,
            sim.baseUrl,
            TOKEN,
            String(REQUESTS),
            String(inflight),
            String(item),
          ]);
          item += REQUESTS + WARMUP;
          (cpu[kind] ??= []).push(r.cpuMsPerRequest);
          (rate[kind] ??= []).push(r.requestsPerSecond);
        }
      }
      process.stdout.write(
        `\n${inflight} in flight (median of ${ROUNDS}; CPU ms a request, user+system, of the client process):\n`,
      );
      for (const kind of kinds) {
        process.stdout.write(
          `  ${kind.padEnd(8)} ${median(cpu[kind]!).toFixed(3)} ms CPU/request  (rounds ${cpu[kind]!.map((x) => x.toFixed(3)).join(', ')}; ` +
            `${median(rate[kind]!).toFixed(0)} requests/s)\n`,
        );
      }
      const m = (k: Kind) => median(cpu[k]!);
      const ratios: string[] = [];
      if (modules.client && modules.fetch) ratios.push(`client / fetch ${(m('client') / m('fetch')).toFixed(2)}x`);
      if (modules.client && modules.request)
        ratios.push(`client / request ${(m('client') / m('request')).toFixed(2)}x`);
      if (modules.request && modules.fetch) ratios.push(`request / fetch ${(m('request') / m('fetch')).toFixed(2)}x`);
      if (modules.client && modules.compare)
        ratios.unshift(
          `client / compare ${(m('client') / m('compare')).toFixed(2)}x (compare - client: ${(m('compare') - m('client')).toFixed(3)} ms saved a request)`,
        );
      process.stdout.write(`  ratios: ${ratios.join('; ')}\n`);
    }
  } finally {
    await sim.close();
  }
}

if (process.argv[2] === '--child') {
  const [kind, modulePath, baseUrl, token, requests, inflight, firstItem] = process.argv.slice(3);
  await childMain(kind as Kind, modulePath!, baseUrl!, token!, Number(requests), Number(inflight), Number(firstItem));
} else {
  await main();
}
