// spend_calls on a real Postgres server, where the recording differs from SQLite's and DuckDB's: writers run at once,
// so reserveCall takes an advisory lock per pipeline and project before it counts (db/store/spend.ts). Two pools (two
// workers) race 40 calls at a limit of 7 of one project: exactly 7 are recorded, read back with psql.
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../destinations/open.js';
import type { PostgresDatabase } from '../../../destinations/contract.js';
import { reserveCall, spendCallKey, spendTotals, type SpendCall } from '../../../db/store/spend.js';
import { withReadTransaction } from '../../../db/store/sql.js';
import { budgetLimitsOf } from '../../../budget/limits.js';
import { testPostgresUrl } from '../../support/postgres.js';

const opened: PostgresDatabase[] = [];
afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
});

async function open(url: string): Promise<PostgresDatabase> {
  const db = await openDatabase(url, { poolSize: 8 });
  if (db.dialect !== 'postgres') throw new Error('expected Postgres');
  opened.push(db);
  return db;
}

function psql(url: string, sql: string): string {
  return execFileSync('psql', [url, '-At', '-c', sql], { encoding: 'utf8' }).trim();
}

describe('spend_calls on Postgres', () => {
  it('concurrent calls from two pools against one project limit: exactly the limit is recorded', async () => {
    const url = await testPostgresUrl();
    const [a, b] = [await open(url), await open(url)];
    const project = '/srv/shop/scrape-etl.yaml';
    const spec = (name: string) => ({ name, project_budget: { project, calls: { day: 7 } } });
    const call = (i: number, pipeline: string): SpendCall => ({
      callKey: spendCallKey({
        workflowId: `${pipeline}--w`,
        activityId: '1',
        activityAttempt: 1,
        requestKey: `u${i}`,
        clientAttempt: 1,
      }),
      pipeline,
      project,
      workflowId: `${pipeline}--w`,
      endpoint: 'POST /api/marketplace/sync',
      requestKey: `u${i}`,
      createsScraper: false,
      calledAt: new Date(),
    });
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, i) => {
        const pipeline = i % 2 === 0 ? 'shop-a' : 'shop-b';
        return reserveCall(i % 2 === 0 ? a : b, call(i, pipeline), budgetLimitsOf(spec(pipeline)));
      }),
    );
    expect(outcomes.filter((o) => o === undefined)).toHaveLength(7);
    for (const o of outcomes.filter((x) => x !== undefined))
      expect(o).toMatchObject({ spent: 7, limit: { scope: 'project', key: 'budget.calls.day' } });
    expect(psql(url, `SELECT count(*) FROM spend_calls WHERE project = '${project}'`)).toBe('7');
    expect(await withReadTransaction(a, (tx) => spendTotals(tx, { project }))).toEqual({
      calls: 7,
      scrapers: 0,
      tokens: 0,
    });
    // The same request recorded again (a retried record of it) is one row, and is let through.
    const won = outcomes.findIndex((o) => o === undefined);
    const pipeline = won % 2 === 0 ? 'shop-a' : 'shop-b';
    const again = await reserveCall(a, call(won, pipeline), budgetLimitsOf(spec(pipeline)));
    expect(again).toBeUndefined();
    expect(psql(url, `SELECT count(*) FROM spend_calls WHERE project = '${project}'`)).toBe('7');
    expect(
      psql(
        url,
        `SELECT data_type FROM information_schema.columns WHERE table_name = 'spend_calls' AND column_name = 'called_at'`,
      ),
    ).toBe('timestamp with time zone');
  }, 120_000);
});
