// Marking the rows a load saw unchanged (db/store/last-seen.ts) must find them by the table's primary key, not scan
// the table: it runs for every table of every load, so a scan grows with everything the pipeline ever loaded and an
// unchanged daily reload becomes quadratic. On SQLite a CAST around each bound key (which Postgres needs to type a
// VALUES list) made the planner scan the table once per statement; the statement is explained on a real file of
// 20,000 products, and run to show it moves exactly the keys given.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../../destinations/open.js';
import { markSeen, markSql } from '../../../db/store/last-seen.js';
import { withTransaction } from '../../../db/store/sql.js';

let dir: string;
let db: SqliteDatabase;
const ROWS = 20_000;
const OLD = '2026-01-01T00:00:00.000Z';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'db-last-seen-plan-'));
  db = (await openDatabase(`sqlite:${join(dir, 'db.sqlite')}`)) as SqliteDatabase;
  db.sqlite.exec(`
    WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ${ROWS})
    INSERT INTO marketplace_products (pipeline, shop_id, item_id, title, price_divisor, load_id, loaded_at, row_hash, last_seen_at)
    SELECT 'p', i % 97, i, 'product ' || i, 100000, 1, '${OLD}', 'h' || i, '${OLD}' FROM seq;`);
});
afterAll(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

function plan(sql: string): string {
  const params = Array.from({ length: (sql.match(/\?/g) ?? []).length }, (_, i) => (i % 4 === 0 ? 'p' : i));
  return (db.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>)
    .map((r) => r.detail)
    .join(' | ');
}

describe('marking rows seen', () => {
  it.each([1, 16, 256])('searches the table by its primary key, %i keys a statement', async (keys) => {
    const sql = await withTransaction(db, async (tx) => markSql(tx, 'marketplace_products', keys));
    const explained = plan(sql);
    expect(explained).toMatch(/SEARCH marketplace_products USING (INDEX|PRIMARY KEY)/);
    expect(explained).not.toMatch(/SCAN marketplace_products/);
  });

  it('moves last_seen_at of exactly the keys given, never backwards', async () => {
    const at = '2026-02-01T00:00:00.000Z';
    const seen = Array.from({ length: 300 }, (_, k) => ({ key: ['p', BigInt((k + 1) % 97), BigInt(k + 1)], at }));
    await withTransaction(db, (tx) => markSeen(tx, 'marketplace_products', seen));
    // An earlier time moves nothing.
    await withTransaction(db, (tx) => markSeen(tx, 'marketplace_products', [{ key: ['p', 1n, 1n], at: OLD }]));
    const counts = db.sqlite
      .prepare(
        `SELECT last_seen_at, count(*) AS n, min(item_id) AS lo, max(item_id) AS hi FROM marketplace_products GROUP BY 1 ORDER BY 1`,
      )
      .all();
    expect(counts).toEqual([
      { last_seen_at: OLD, n: ROWS - 300, lo: 301, hi: ROWS },
      { last_seen_at: at, n: 300, lo: 1, hi: 300 },
    ]);
  });
});
