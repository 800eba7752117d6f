// A check_failed alert carries up to 20 failing keys per check (issue 36): a check stored 10, so the alert's
// promise of 20 was never met. On a real SQLite file: 25 products out of range keep the first 20 keys (in key
// order), the failed checks read for the alert carry the same 20, and a check with fewer keeps them all.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateChecks, recordCheckResults } from '../../../checks/evaluate.js';
import { MAX_ALERT_FAILING_KEYS, selectFailedChecks } from '../../../checks/read.js';
import { openDatabase, type Database } from '../../../destinations/open.js';
import { withReadTransaction, withTransaction } from '../../../db/store/sql.js';
import type { CheckSpec } from '../../../pipelines/spec.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-failing-keys-'));
let db: Database;

beforeAll(async () => {
  db = await openDatabase(`sqlite:${path.join(dir, 'keys.sqlite')}`);
  await withTransaction(db, async (tx) => {
    for (let item = 1; item <= 30; item++) {
      // Items 1-25 have a negative price; 26-30 a positive one. Item 27 has no title.
      await tx.run(
        `INSERT INTO marketplace_products (shop_id, item_id, title, price_major, price_divisor, pipeline, load_id, loaded_at, row_hash) VALUES (7, ?, ?, ?, 1, 'p', 1, '2026-01-01T00:00:00.000Z', 'h')`,
        [item, item === 27 ? null : `t${item}`, item <= 25 ? -1 : 10],
      );
    }
  });
});

afterAll(async () => {
  await db?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('failing keys of a check', () => {
  it('25 failing rows: 20 keys stored and carried by the alert; 1 failing row: its key', async () => {
    expect(MAX_ALERT_FAILING_KEYS).toBe(20);
    const checks = [
      {
        name: 'positive',
        type: 'range',
        severity: 'error',
        table: 'marketplace_products',
        expression: 'price_major > 0',
      },
      { name: 'titled', type: 'not_null', severity: 'error', table: 'marketplace_products', columns: ['title'] },
    ] as CheckSpec[];
    const results = await evaluateChecks(db, { pipeline: 'p', workflowId: 'w1', checks });
    expect(results[0]).toMatchObject({ status: 'fail', observed: '25 of 30 rows outside' });
    expect(results[0]!.failingKeys).toEqual(Array.from({ length: 20 }, (_, i) => ({ shop_id: 7, item_id: i + 1 })));
    expect(results[1]!.failingKeys).toEqual([{ shop_id: 7, item_id: 27 }]);
    await recordCheckResults(db, 'p', 'w1', results);
    const failed = await withReadTransaction(db, (tx) => selectFailedChecks(tx, 'w1'));
    expect(failed.map((f) => [f.name, f.failing_keys?.length])).toEqual([
      ['positive', 20],
      ['titled', 1],
    ]);
  });
});
