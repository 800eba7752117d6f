// Lock order of the Postgres group writer (db/store/load-group.ts, destinations/postgres/load-group.ts, reached through loadBatches as
// the URL-list activity and `scrape-etl load` call it): several connections load overlapping marketplace and
// job-board responses at once, each in its own order and group sizes, on a fresh database (so the first groups add
// columns and are split around the response that adds them). Within a round, every worker's list ends each product
// (and each job) with the round's final version, and writes intermediate versions before it: vanished and
// reappearing models, a key written again, reverted, or rewritten by several products in one group (their shared
// shop), price changes, and new unknown fields that add columns mid-list. Whatever the interleaving, the tables must
// then hold exactly the final versions, every price change be recorded once in order, and Postgres must have
// detected no deadlock (pg_stat_database.deadlocks): a deadlock is retried and leaves the tables right, so only the
// counter shows it. On failure the message carries the server log's "deadlock detected" reports (the statements of
// the cycle). PG_LOCK_STRESS_ITERATIONS sets the number of fresh databases loaded (default 5).
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { stringifyJson } from '../../../lib/json.js';
import { jobBoardResponseSchema, marketplaceResponseSchema } from '../../../client/schemas.js';
import { openDatabase, type PostgresDatabase } from '../../../destinations/open.js';
import { flattenJobBoard, flattenMarketplace } from '../../../db/model/flatten/index.js';
import { loadBatches, type LoadBatchOptions } from '../../../db/store/load.js';
import { generateProduct } from '../../../simulator/generate/marketplace.js';
import { parseProductUrl } from '../../../simulator/validate.js';
import { expectTablesEqual, mergeRows } from '../../support/pipeline-truth.js';
import { marketplaceSpec, jobBoardSpec, productUrl } from '../../support/pipeline-specs.js';
import { startPostgresCluster, type PostgresCluster } from '../../support/postgres.js';

const ITERATIONS = Number(process.env['PG_LOCK_STRESS_ITERATIONS'] ?? 5);
const WORKERS = 4;
const ROUNDS = 3;
const SHOPS = [42, 9001, 10115139];
/** 12 products over 3 shops (the shop row is shared by 4 products), some with many models. */
const PRODUCTS = Array.from({ length: 12 }, (_, i) => ({
  item: 660_000 + i,
  shop: SHOPS[i % SHOPS.length]!,
  models: i % 4 === 0 ? 18 : undefined,
}));
const JOBS = 40;

let cluster: PostgresCluster;
let admin: pg.Client;

beforeAll(async () => {
  cluster = await startPostgresCluster();
  admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  // Lock waits and deadlock reports (with the statements of every process in the cycle) go to the server log; a
  // short deadlock_timeout only makes Postgres look for a cycle sooner, it makes none.
  await admin.query(`ALTER SYSTEM SET log_lock_waits = on`);
  await admin.query(`ALTER SYSTEM SET deadlock_timeout = '100ms'`);
  await admin.query(`SELECT pg_reload_conf()`);
}, 120_000);

afterAll(async () => {
  await admin?.end();
  cluster?.stop();
});

/** A small seeded generator (mulberry32): every iteration's orders and group sizes follow from its number. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const shuffle = <T>(list: T[]) => {
    for (let i = list.length - 1; i > 0; i--) {
      const j = int(0, i);
      [list[i], list[j]] = [list[j]!, list[i]!];
    }
    return list;
  };
  return { next, int, shuffle };
}

type Product = (typeof PRODUCTS)[number];
const urlOf = (p: Product) => `${productUrl(p.item, p.shop)}${p.models ? `&sim_models=${p.models}` : ''}`;

/**
 * Product `p` as the simulator with `seed` shows it (prices, models, images and its shop all follow the seed), with
 * the unknown item fields `extra` (each a column the first time it is seen).
 */
function productBody(p: Product, seed: number, extra: readonly string[] = []): string {
  const input = parseProductUrl(urlOf(p));
  if (!input.ok) throw new Error('bad product URL');
  const body = generateProduct(seed, input.value) as { data: { data: { item: Record<string, unknown> } } };
  for (const f of extra) body.data.data.item[f] = `${f}-${seed}`;
  return stringifyJson(body);
}

function jobBody(keys: readonly number[], version: number, extra: readonly string[] = []): string {
  const result = keys.map((k) => ({
    job_title: `Engineer ${k} v${version}`,
    job_url: `https://jobs.example/${k}`,
    job_location: 'Remote',
    job_salary: 1000 * k + version,
    job_type: 'full-time',
    job_currency: 'EUR',
    ...Object.fromEntries(extra.map((f) => [f, `${f}-${version}`])),
  }));
  return stringifyJson({ result, tokenUsage: 1, totalDone: 1 });
}

const marketLoad = (p: Product, raw: string, w: number): LoadBatchOptions => ({
  pipeline: 'shop',
  kind: 'marketplace',
  endpoint: 'POST /api/marketplace/sync',
  requestKey: `${urlOf(p)}#w${w}`,
  raw,
  data: marketplaceResponseSchema.parse(JSON.parse(raw)),
});
const jobLoad = (raw: string, w: number): LoadBatchOptions => ({
  pipeline: 'jobs',
  kind: 'job-board',
  endpoint: 'POST /api/jobs',
  requestKey: `jobs#w${w}`,
  raw,
  data: jobBoardResponseSchema.parse(JSON.parse(raw)),
});

/** The final seed of a round: every worker ends every product with it. */
const finalSeed = (round: number) => 100 + round;

/**
 * One worker's responses for a round, in its order: per product an intermediate version (another seed: other
 * prices, models, shop), sometimes the final one before it (a revert) or another after it, then the final one
 * last; job pages likewise.
 */
function workerLists(
  r: ReturnType<typeof rng>,
  round: number,
  w: number,
): { market: LoadBatchOptions[]; jobs: LoadBatchOptions[] } {
  const extraOf = (seed: number) => (seed % 3 === 0 ? [`sim_extra_r${round}_${seed % 2}`] : []);
  const queues: Array<Array<() => LoadBatchOptions>> = [];
  for (const p of PRODUCTS) {
    const seeds = [200 + 10 * round + r.int(0, 5)];
    if (r.next() < 0.4) seeds.unshift(finalSeed(round));
    if (r.next() < 0.3) seeds.push(300 + r.int(0, 3));
    seeds.push(finalSeed(round));
    queues.push(
      seeds.map((seed) => () => marketLoad(p, productBody(p, seed, seed === finalSeed(round) ? [] : extraOf(seed)), w)),
    );
  }
  // A random merge of the products' queues: the order differs per worker, each product keeps its own order.
  const market: LoadBatchOptions[] = [];
  for (let left = queues; left.length > 0; left = left.filter((q) => q.length > 0))
    market.push(left[r.int(0, left.length - 1)]!.shift()!());
  // Job pages of 10 overlapping keys in other versions, then the final pages (which share keys with any of them).
  const jobs: LoadBatchOptions[] = [];
  for (let page = 0; page < 8; page++) {
    const start = r.int(0, JOBS - 10);
    const keys = r.shuffle(Array.from({ length: 10 }, (_, i) => start + i));
    const version = 50 + r.int(0, 4);
    jobs.push(jobLoad(jobBody(keys, version, version % 2 ? [`job_extra_r${round}`] : []), w));
  }
  for (const start of r.shuffle(Array.from({ length: JOBS / 10 }, (_, i) => i * 10))) {
    jobs.push(jobLoad(jobBody(r.shuffle(Array.from({ length: 10 }, (_, i) => start + i)), finalSeed(round)), w));
  }
  return { market, jobs };
}

/** Deadlock reports the server logged since `from` (byte offset), each with its DETAIL and statements. */
function deadlockReports(from: number): string {
  const log = fs.readFileSync(cluster.logFile, 'utf8').slice(from);
  const lines = log.split('\n');
  const out: string[] = [];
  lines.forEach((l, i) => {
    if (!l.includes('ERROR:  deadlock detected')) return;
    const end = lines.findIndex((x, j) => j > i && x.includes('HINT:'));
    out.push(
      lines
        .slice(i, end < 0 ? i + 8 : end)
        .map((x) => (x.length > 300 ? `${x.slice(0, 300)}…` : x))
        .join('\n'),
    );
  });
  return `${out.length} deadlock report(s) in the server log; the first ones:\n${out.slice(0, 8).join('\n----\n')}`;
}

/** The rounds of one iteration into `db`; resolves to the number of responses loaded. */
async function loadRounds(db: PostgresDatabase, iteration: number): Promise<number> {
  const r = rng(1000 + iteration);
  let loads = 0;
  for (let round = 0; round < ROUNDS; round++) {
    // Each worker loads its marketplace list and its job list at the same time, as two URL-list chunks of two
    // pipelines would; the last worker's two lists go as one (groups of two pipelines are written one by one).
    const lists = Array.from({ length: WORKERS }, (_, w) => workerLists(r, round, w)).flatMap(({ market, jobs }, w) =>
      w === WORKERS - 1 ? [[...market, ...jobs]] : [market, jobs],
    );
    const maxGroup = [25, 5, 12][round % 3]!;
    await Promise.all(
      lists.map(async (list, l) => {
        const sizes = rng(iteration * 100 + round * 10 + l);
        for (let i = 0; i < list.length;) {
          const n = sizes.int(1, maxGroup);
          const out = await loadBatches(db, list.slice(i, i + n));
          if (out.failed) throw out.failed.error;
          expect(out.results).toHaveLength(Math.min(n, list.length - i));
          loads += out.results.length;
          i += n;
        }
      }),
    );
  }
  return loads;
}

async function loadIteration(
  iteration: number,
): Promise<{ deadlocks: number; commits: number; loads: number; report: string; db: PostgresDatabase }> {
  const name = `stress_${iteration}_${process.pid}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(cluster.url);
  url.pathname = `/${name}`;
  const logFrom = fs.statSync(cluster.logFile).size;
  const db = (await openDatabase(url.toString(), { poolSize: 2 * WORKERS })) as PostgresDatabase;
  let loads: number;
  try {
    loads = await loadRounds(db, iteration);
  } catch (err) {
    // A deadlock that outlasted withTransaction's retries fails a load: the message then names the cycle too.
    throw new Error(`iteration ${iteration}: ${String(err)}\n${deadlockReports(logFrom)}`, { cause: err });
  } finally {
    // A backend adds its deadlocks to pg_stat_database by the time it exits, before its socket closes: once the
    // pool has ended, the count below is complete.
    await db.close();
  }
  const res = await admin.query<{ n: string; commits: string }>(
    `SELECT deadlocks AS n, xact_commit AS commits FROM pg_stat_database WHERE datname = $1`,
    [name],
  );
  const check = (await openDatabase(url.toString(), { poolSize: 1 })) as PostgresDatabase;
  return {
    deadlocks: Number(res.rows[0]?.n),
    commits: Number(res.rows[0]?.commits),
    loads,
    report: deadlockReports(logFrom),
    db: check,
  };
}

describe('Postgres group loads from several connections at once', () => {
  it(`${ITERATIONS} fresh databases, ${WORKERS} connections, ${ROUNDS} rounds of overlapping marketplace and job-board groups: no deadlock, exact tables`, async () => {
    for (let iteration = 0; iteration < ITERATIONS; iteration++) {
      const { deadlocks, commits, loads, report, db } = await loadIteration(iteration);
      try {
        expect(deadlocks, `iteration ${iteration}: deadlocks detected\n${report}`).toBe(0);
        // The group writer is what ran: far fewer transactions than responses (a few more open the database).
        expect(commits).toBeLessThan(loads / 2);
        const last = finalSeed(ROUNDS - 1);
        const products = PRODUCTS.map((p) =>
          flattenMarketplace(marketplaceResponseSchema.parse(JSON.parse(productBody(p, last)))),
        );
        await expectTablesEqual(db, marketplaceSpec('shop', '', []), mergeRows(products), [
          'marketplace_products',
          'marketplace_shops',
          'marketplace_product_models',
          'marketplace_model_stocks',
          'marketplace_product_attributes',
          'marketplace_product_categories',
          'marketplace_product_images',
          'marketplace_product_tier_variations',
          'marketplace_product_tier_variation_options',
        ]);
        const jobs = flattenJobBoard(
          jobBoardResponseSchema.parse(
            JSON.parse(
              jobBody(
                Array.from({ length: JOBS }, (_, i) => i),
                last,
              ),
            ),
          ),
        );
        await expectTablesEqual(db, jobBoardSpec('jobs', '', []), jobs, ['job_records']);
        const raw = await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM raw_responses`);
        expect(Number(raw.rows[0]?.n)).toBe(loads);
        // Price history, product by product and model by model in load order: each row's previous price is the
        // price of the row before it (or null: a first sighting, or a model that had vanished; a product is first
        // seen once), and the newest row holds the price the tables hold. Two loads of a product that interleaved
        // would both have recorded against the same stored price.
        const history = await db.pool.query<{ k: string; price: string | null; previous_price: string | null }>(
          `SELECT shop_id || '/' || item_id || '/' || coalesce(model_id::text, '-') AS k, price::text, previous_price::text
             FROM marketplace_price_history WHERE pipeline = 'shop' ORDER BY id`,
        );
        const lastPrice = new Map<string, string | null>();
        for (const h of history.rows) {
          if (lastPrice.has(h.k)) {
            if (h.previous_price !== null) expect(h.previous_price, h.k).toBe(lastPrice.get(h.k));
            else expect(h.k.endsWith('/-'), `${h.k}: a product's price recorded twice as first`).toBe(false);
          } else {
            expect(h.previous_price, `${h.k}: first row`).toBeNull();
          }
          lastPrice.set(h.k, h.price);
        }
        const current = await db.pool.query<{ k: string; price: string | null }>(
          `SELECT shop_id || '/' || item_id || '/-' AS k, price::text FROM marketplace_products WHERE pipeline = 'shop'
           UNION ALL SELECT shop_id || '/' || item_id || '/' || model_id, price::text FROM marketplace_product_models WHERE pipeline = 'shop'`,
        );
        expect(current.rows.length).toBeGreaterThan(PRODUCTS.length);
        for (const c of current.rows) expect(lastPrice.get(c.k), c.k).toBe(c.price);
      } finally {
        await db.close();
      }
    }
  }, 600_000);
});
