// The URL-list activity loads its responses in groups (SCRAPE_ETL_URL_LOAD_GROUP): into SQLite one transaction with
// a savepoint per response, into Postgres and DuckDB about one statement per table for the group: fewer
// transactions and round trips, every response still atomic, and a load that fails keeps the responses committed
// before it done.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createActivities, createActivityDeps } from '../../../activities/index.js';
import { withTransaction } from '../../../db/store/sql.js';
import type { UrlChunkHeartbeat, UrlChunkOutput } from '../../../activities/types.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { marketplaceSpec, productUrl } from '../../support/pipeline-specs.js';
import { testPostgresUrl } from '../../support/postgres.js';

const TOKEN = 'url-chunk-groups-token';
let sim: RunningSimulator;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, token: TOKEN, seed: 31 });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'url-chunk-groups-'));
  return () => fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs one chunk of `urls` with the given group size; counts the write transactions the destination saw. */
async function chunk(urls: string[], group: string, prepare?: (sqlite: import('better-sqlite3').Database) => void) {
  const db = `sqlite:${path.join(dir, 'db.sqlite')}`;
  const deps = createActivityDeps({
    env: { SCRAPER_BASE_URL: sim.baseUrl, SCRAPER_API_TOKEN: TOKEN, SCRAPE_ETL_URL_LOAD_GROUP: group },
  });
  const dest = await deps.destination(db);
  if (dest.dialect !== 'sqlite') throw new Error('expected SQLite');
  prepare?.(dest.sqlite);
  let begins = 0;
  const exec = dest.sqlite.exec.bind(dest.sqlite);
  dest.sqlite.exec = (sql: string) => {
    if (sql.startsWith('BEGIN')) begins++;
    return exec(sql);
  };
  const env = new MockActivityEnvironment({ attempt: 1 });
  const beats: UrlChunkHeartbeat[] = [];
  const beatsAt: Array<{ done: number; at: number }> = [];
  env.on('heartbeat', (d: unknown) => {
    beats.push(d as UrlChunkHeartbeat);
    beatsAt.push({ done: (d as UrlChunkHeartbeat).done.length, at: Date.now() });
  });
  const { loadUrlChunk } = createActivities(deps);
  const spec = { ...marketplaceSpec('groups', db, urls), concurrency: 3 };
  try {
    const out = await env.run(loadUrlChunk, { workflowId: 'groups--r1', spec, offset: 0, urls }).then(
      (o) => ({ ok: true as const, o: o as UrlChunkOutput }),
      (err: unknown) => ({ ok: false as const, err }),
    );
    const raw = dest.sqlite
      .prepare(`select request_key from raw_responses order by request_key`)
      .pluck()
      .all() as string[];
    const products = dest.sqlite.prepare(`select count(*) from marketplace_products`).pluck().get() as number;
    // Each billable call is recorded in a transaction of its own before it is sent (budget/meter.ts): the loads'
    // transactions are the others.
    const spendCalls = dest.sqlite.prepare(`select count(*) from spend_calls`).pluck().get() as number;
    return { out, begins: begins - spendCalls, spendCalls, raw, products, lastBeat: beats.at(-1), beatsAt };
  } finally {
    await deps.close();
  }
}

describe('URL chunk loads in groups', () => {
  const urls = Array.from({ length: 10 }, (_, i) => productUrl(7_700_000 + i));

  it('writes the responses that arrived while a write blocked in one transaction (at most 4), and each alone with groups of 1: the same rows', async () => {
    // A trigger that burns ~50 ms per product holds the event loop as a busy SQLite lock would; answers pile up meanwhile.
    const slow = (sqlite: import('better-sqlite3').Database) =>
      sqlite.exec(`create trigger slow before insert on marketplace_products begin
        select count(*) from (with recursive c(x) as (select 1 union all select x + 1 from c where x < 400000) select x from c); end`);
    const grouped = await chunk(urls, '4', slow);
    expect(grouped.out.ok && grouped.out.o.succeeded).toBe(10);
    expect(grouped.spendCalls).toBe(10);
    expect(grouped.begins).toBeGreaterThanOrEqual(3);
    expect(grouped.begins).toBeLessThan(10);
    expect(grouped.raw).toEqual([...urls].sort());
    expect(grouped.products).toBe(10);
    expect(grouped.lastBeat?.done.length).toBe(10);

    fs.rmSync(path.join(dir, 'db.sqlite'));
    const single = await chunk(urls, '1', slow);
    expect(single.out.ok && single.out.o.succeeded).toBe(10);
    expect(single.begins).toBe(10);
    expect(single.products).toBe(10);
  });

  it('lands each response when the writer is free, never waiting for the rest of its group (a slow answer holds back nothing)', async () => {
    // Before the failing-load test: that one's activity fails with fetches still in flight, which could take this fault.
    sim.queueFaults([{ kind: 'delay', ms: 3000 }], { path: '/api/marketplace/sync' });
    const started = Date.now();
    const res = await chunk(urls, '25');
    expect(res.out.ok && res.out.o.succeeded).toBe(10);
    // The nine quick answers were committed (their heartbeat says done) long before the delayed one came back.
    const nineDoneAt = res.beatsAt.find((b) => b.done === 9)?.at;
    expect(nineDoneAt).toBeDefined();
    expect(nineDoneAt! - started).toBeLessThan(2500);
  });

  it('a response whose load fails fails the activity; the responses committed before it stay done and loaded, nothing of it is', async () => {
    const bad = 7_700_006;
    const res = await chunk(urls, '25', (sqlite) =>
      sqlite.exec(
        `create trigger refuse before insert on marketplace_products when new.item_id = ${bad} begin select raise(abort, 'refused by test'); end`,
      ),
    );
    expect(res.out.ok).toBe(false);
    expect(String((res.out as { err: unknown }).err)).toMatch(/refused by test|Activity failed|ApplicationFailure/);
    // One group of 10: the responses before the refused one (in arrival order) are committed and marked done.
    const done = (res.lastBeat?.done ?? []).map((i) => urls[i]!);
    expect(done).not.toContain(productUrl(bad));
    expect(res.raw).toEqual([...done].sort());
    expect(res.products).toBe(done.length);
  });

  /** One chunk into `db` (Postgres or DuckDB) with the given group size: the activity's outcome and the tables. */
  async function chunkInto(db: string, urls: string[], group: string, prepare: string[] = []) {
    const deps = createActivityDeps({
      env: { SCRAPER_BASE_URL: sim.baseUrl, SCRAPER_API_TOKEN: TOKEN, SCRAPE_ETL_URL_LOAD_GROUP: group },
    });
    const dest = await deps.destination(db);
    for (const statement of prepare) await withTransaction(dest, (tx) => tx.run(statement, []));
    const env = new MockActivityEnvironment({ attempt: 1 });
    let lastBeat: UrlChunkHeartbeat | undefined;
    env.on('heartbeat', (d: unknown) => (lastBeat = d as UrlChunkHeartbeat));
    const { loadUrlChunk } = createActivities(deps);
    const spec = { ...marketplaceSpec('groups', db, urls), concurrency: 4 };
    try {
      const out = await env.run(loadUrlChunk, { workflowId: 'groups--r1', spec, offset: 0, urls }).then(
        (o) => ({ ok: true as const, o: o as UrlChunkOutput }),
        (err: unknown) => ({ ok: false as const, err }),
      );
      const tables = await withTransaction(dest, async (tx) => ({
        raw: (await tx.all(`select request_key from raw_responses order by request_key`, [])).map((r) =>
          String(r['request_key']),
        ),
        products: (await tx.all(`select item_id, title, row_hash from marketplace_products order by item_id`, [])).map(
          (r) => [String(r['item_id']), r['title'], r['row_hash']],
        ),
        models: Number((await tx.all(`select count(*) as n from marketplace_product_models`, []))[0]?.['n']),
        history: Number((await tx.all(`select count(*) as n from marketplace_price_history`, []))[0]?.['n']),
      }));
      return { out, lastBeat, ...tables };
    } finally {
      await deps.close();
    }
  }

  describe.each([
    ['Postgres', async () => testPostgresUrl()],
    ['DuckDB', async () => `duckdb:${path.join(dir, `db-${crypto.randomBytes(4).toString('hex')}.duckdb`)}`],
  ])('into %s', (_name, url) => {
    it('a chunk loaded in groups gives the same tables and counts as one transaction per URL', async () => {
      const grouped = await chunkInto(await url(), urls, '25');
      const single = await chunkInto(await url(), urls, '1');
      expect(grouped.out.ok && grouped.out.o.succeeded).toBe(10);
      expect(single.out.ok && single.out.o.succeeded).toBe(10);
      expect(grouped.out.ok && single.out.ok && grouped.out.o.rows).toEqual(single.out.ok && single.out.o.rows);
      expect(grouped.raw).toEqual([...urls].sort());
      expect(grouped.products).toHaveLength(10);
      expect({ products: grouped.products, models: grouped.models, history: grouped.history }).toEqual({
        products: single.products,
        models: single.models,
        history: single.history,
      });
    });
  });

  it('into Postgres, a response whose load fails fails the activity; the ones committed before it stay done, nothing of it lands', async () => {
    const bad = 7_700_006;
    const db = await testPostgresUrl();
    // The tables exist only after a first load: one other URL, then the trigger, then the chunk. The refused product
    // fails the group, and again alone after the fallback to one response at a time, which names it.
    await chunkInto(db, [productUrl(7_699_999)], '1');
    const refuse = [
      `create function refuse() returns trigger language plpgsql as $$ begin if new.item_id = ${bad} then raise exception 'refused by test'; end if; return new; end $$`,
      `create trigger refuse before insert on marketplace_products for each row execute function refuse()`,
    ];
    const res = await chunkInto(db, urls, '25', refuse);
    expect(res.out.ok).toBe(false);
    expect(String((res.out as { err: unknown }).err)).toMatch(/refused by test|Activity failed|ApplicationFailure/);
    const done = (res.lastBeat?.done ?? []).map((i) => urls[i]!);
    expect(done).not.toContain(productUrl(bad));
    expect(res.raw.filter((k) => k !== productUrl(7_699_999))).toEqual([...done].sort());
    expect(res.products.filter(([id]) => id !== '7699999')).toHaveLength(done.length);
  });
});
