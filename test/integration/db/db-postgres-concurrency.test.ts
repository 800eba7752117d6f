// Concurrent transactions on one Postgres database: a deadlock victim is rolled back and run again by
// withTransaction; loads whose key sets overlap in opposite orders never deadlock (rows are upserted in key
// order); concurrent first loads of one product record its prices once (advisory locks per parent row); and the
// pool is sized by option or SCRAPE_ETL_PG_POOL_SIZE and shared per URL by a worker's activities.
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createActivityDeps } from '../../../activities/index.js';
import { parseJson } from '../../../lib/json.js';
import { jobBoardResponseSchema, marketplaceResponseSchema } from '../../../client/schemas.js';
import { DEFAULT_PG_POOL_SIZE, openDatabase, pgPoolSize, type PostgresDatabase } from '../../../destinations/open.js';
import { loadBatch } from '../../../db/store/load.js';
import { withTransaction } from '../../../db/store/sql.js';
import { MAX_TRANSACTION_ATTEMPTS } from '../../../destinations/postgres/tx.js';
import { testPostgresUrl } from '../../support/postgres.js';
import { REAL_FIXTURES } from '../../support/fixtures.js';

const opened: PostgresDatabase[] = [];
const activityDeps = createActivityDeps({ env: {} });
afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
  await activityDeps.close();
});

async function freshPostgres(poolSize = 8): Promise<{ db: PostgresDatabase; url: string }> {
  const url = await testPostgresUrl();
  const db = await openDatabase(url, { poolSize });
  if (db.dialect !== 'postgres') throw new Error('expected Postgres');
  opened.push(db);
  return { db, url };
}

/**
 * Deadlocks Postgres detected in the database, read on a new connection. A backend reports its count when it
 * next flushes its statistics, at the latest when it exits, so the caller closes the pool that did the work first;
 * `atLeast` waits (up to 5 s) for a count that is expected to appear.
 */
async function deadlocksIn(url: string, atLeast = 0): Promise<number> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const res = await client.query<{ n: string }>(
        'SELECT deadlocks AS n FROM pg_stat_database WHERE datname = current_database()',
      );
      const n = Number(res.rows[0]?.n);
      if (n >= atLeast || Date.now() > deadline) return n;
    } finally {
      await client.end();
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('Postgres under concurrent transactions', () => {
  it('withTransaction re-runs the deadlock victim; both transactions commit', async () => {
    const { db, url } = await freshPostgres();
    await db.pool.query('CREATE TABLE counters (k text PRIMARY KEY, n integer NOT NULL)');
    await db.pool.query(`INSERT INTO counters VALUES ('a', 0), ('b', 0)`);
    // Both transactions hold their first row before either asks for its second: a certain deadlock, once.
    let holding = 0;
    let release!: () => void;
    const bothHolding = new Promise<void>((r) => (release = r));
    let calls = 0;
    const bump = (first: string, second: string) =>
      withTransaction(db, async (tx) => {
        calls += 1;
        await tx.run(`UPDATE counters SET n = n + 1 WHERE k = $1`, [first]);
        if (++holding === 2) release();
        await bothHolding;
        await tx.run(`UPDATE counters SET n = n + 1 WHERE k = $1`, [second]);
        return first;
      });
    expect((await Promise.all([bump('a', 'b'), bump('b', 'a')])).sort()).toEqual(['a', 'b']);
    expect(calls).toBe(3);
    expect((await db.pool.query('SELECT k, n FROM counters ORDER BY k')).rows).toEqual([
      { k: 'a', n: 2 },
      { k: 'b', n: 2 },
    ]);
    await db.close();
    // The measurement the next test relies on does see a deadlock.
    expect(await deadlocksIn(url, 1)).toBe(1);
  });

  it(`a transaction that keeps failing is rolled back after ${MAX_TRANSACTION_ATTEMPTS} attempts; other errors are not retried`, async () => {
    const { db } = await freshPostgres();
    let calls = 0;
    const serialization = Object.assign(new Error('could not serialize access'), { code: '40001' });
    await expect(
      withTransaction(db, async () => {
        calls += 1;
        throw serialization;
      }),
    ).rejects.toBe(serialization);
    expect(calls).toBe(MAX_TRANSACTION_ATTEMPTS);
    calls = 0;
    await expect(
      withTransaction(db, async (tx) => {
        calls += 1;
        await tx.run('SELECT * FROM no_such_table', []);
      }),
    ).rejects.toThrow(/no_such_table/);
    expect(calls).toBe(1);
  });

  it('job-board loads with the same 300 jobs in opposite orders, eight at a time: no deadlock, rows exact', async () => {
    const { db, url } = await freshPostgres(8);
    const response = (round: number, reversed: boolean) => {
      const result = Array.from({ length: 300 }, (_, i) => ({
        job_title: `Engineer ${i}`,
        job_url: `https://jobs.example/${i}`,
        job_location: 'Remote',
        job_salary: 1000 * i + round,
        job_type: 'full-time',
        job_currency: 'EUR',
      }));
      if (reversed) result.reverse();
      const raw = JSON.stringify({ result, tokenUsage: 10, totalDone: 1 });
      return { raw, data: jobBoardResponseSchema.parse(parseJson(raw)) };
    };
    for (let round = 0; round < 4; round++) {
      await Promise.all(
        Array.from({ length: 8 }, (_, i) => {
          const r = response(round, i % 2 === 1);
          return loadBatch(db, {
            pipeline: 'jobs',
            kind: 'job-board',
            endpoint: 'POST /api/jobs',
            requestKey: `q${i}`,
            raw: r.raw,
            data: r.data,
          });
        }),
      );
    }
    const rows = await db.pool.query<{ n: string; salaries: string }>(
      `SELECT count(*) AS n, sum(job_salary_number)::bigint AS salaries FROM job_records WHERE pipeline = 'jobs'`,
    );
    expect(rows.rows[0]).toEqual({ n: '300', salaries: String(1000 * ((299 * 300) / 2) + 3 * 300) });
    await db.close();
    expect(await deadlocksIn(url)).toBe(0);
  });

  it('eight concurrent first loads of one product record its prices once', async () => {
    const { db } = await freshPostgres(8);
    const raw = fs.readFileSync(`${REAL_FIXTURES}/shopee-sync-response-1.json`, 'utf8');
    const data = marketplaceResponseSchema.parse(parseJson(raw));
    const outs = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        loadBatch(db, {
          pipeline: 'shop',
          kind: 'marketplace',
          endpoint: 'POST /api/marketplace/sync',
          requestKey: `run-${i}`,
          raw,
          data,
        }),
      ),
    );
    const models = outs[0]!.rowsByTable.marketplace_product_models ?? 0;
    expect(models).toBeGreaterThan(0);
    // Whichever load came first appended the first prices; the others found them unchanged.
    expect(outs.map((o) => o.rowsByTable.marketplace_price_history ?? 0).sort((a, b) => b - a)).toEqual([
      1 + models,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
    ]);
    const history = await db.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM marketplace_price_history WHERE pipeline = 'shop'`,
    );
    expect(history.rows[0]?.n).toBe(String(1 + models));
    const raws = await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM raw_responses WHERE pipeline = 'shop'`);
    expect(raws.rows[0]?.n).toBe('8');
  });

  it('pools are sized by option or SCRAPE_ETL_PG_POOL_SIZE and shared per URL by the activities', async () => {
    const { db, url } = await freshPostgres(3);
    expect(db.pool.options.max).toBe(3);
    expect(pgPoolSize({})).toBe(DEFAULT_PG_POOL_SIZE);
    expect(pgPoolSize({ SCRAPE_ETL_PG_POOL_SIZE: '16' })).toBe(16);
    expect(() => pgPoolSize({ SCRAPE_ETL_PG_POOL_SIZE: 'lots' })).toThrow(
      /SCRAPE_ETL_PG_POOL_SIZE='lots' must be an integer from 1 to 1000/,
    );
    const [a, b] = await Promise.all([activityDeps.destination(url), activityDeps.destination(url)]);
    expect(a).toBe(b);
    expect(a.dialect === 'postgres' && a.pool.options.max).toBe(DEFAULT_PG_POOL_SIZE);
  });
});
