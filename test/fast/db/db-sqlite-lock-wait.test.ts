// A SQLite transaction waiting for another connection's write lock waits on the event loop (db/store/sql.ts
// beginImmediate), not in SQLite's busy handler, which sleeps inside the call and blocks the thread: in one
// process the waiter then blocked the very connection that would release the lock, and failed with SQLITE_BUSY
// when busy_timeout ran out; in a worker it froze every fetch and heartbeat while the other worker wrote.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../destinations/open.js';
import { countRowsOfRun, sumTokenUsageOfRun } from '../../../db/store/pipeline-runs.js';
import { withTransaction } from '../../../db/store/sql.js';

const open: Database[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const db of open.splice(0)) await db.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** Two connections of this process to one new SQLite file. */
async function twoConnections() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-lock-'));
  dirs.push(dir);
  const url = `sqlite:${path.join(dir, 'db.sqlite')}`;
  const a = await openDatabase(url);
  const b = await openDatabase(url);
  open.push(a, b);
  if (a.dialect !== 'sqlite' || b.dialect !== 'sqlite') throw new Error('expected SQLite');
  return { a, b };
}

describe('SQLite write lock held by another connection', () => {
  it('is waited for without blocking the thread: the holder (same process) commits, then the waiter', async () => {
    const { a, b } = await twoConnections();
    // Short, so that a waiter blocking the thread fails within the test's time instead of after 15 s.
    b.sqlite.pragma('busy_timeout = 2000');
    const order: string[] = [];
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    try {
      const holder = withTransaction(a, async (tx) => {
        await tx.run(
          `INSERT INTO pipeline_runs (workflow_id, pipeline, kind, status, started_at) VALUES (?, 'p', 'marketplace', 'running', ?)`,
          ['wf-a', new Date().toISOString()],
        );
        await new Promise((r) => setTimeout(r, 300)); // holds the write lock across turns of the event loop
        order.push('a');
      });
      // Started while `a` holds the lock.
      await new Promise((r) => setTimeout(r, 20));
      const ticksBefore = ticks;
      const waiter = withTransaction(b, async (tx) => {
        order.push(`b after ${ticks - ticksBefore} ticks`);
        await tx.run(
          `INSERT INTO pipeline_runs (workflow_id, pipeline, kind, status, started_at) VALUES (?, 'p', 'marketplace', 'running', ?)`,
          ['wf-b', new Date().toISOString()],
        );
      });
      await Promise.all([holder, waiter]);
      expect(order[0]).toBe('a');
      // The event loop kept running while `b` waited: a waiter that blocked the thread lets at most the tick already
      // due through. How many more turn depends on the machine's load (10 in ~280 ms at a load average of 36), so
      // the bound is the blocking case's, not a rate.
      expect(Number(/after (\d+) ticks/.exec(order[1]!)![1])).toBeGreaterThan(2);
      expect(b.sqlite.prepare('select count(*) from pipeline_runs').pluck().get()).toBe(2);
      // The connection's own busy_timeout is kept for everything else.
      expect(b.sqlite.pragma('busy_timeout', { simple: true })).toBe(2000);
    } finally {
      clearInterval(ticker);
    }
  });

  it("a run's row counts and token usage are read while another connection holds the write lock", async () => {
    const { a, b } = await twoConnections();
    b.sqlite.pragma('busy_timeout = 200');
    a.sqlite.exec('BEGIN IMMEDIATE');
    try {
      // Through the write lock these would fail with SQLITE_BUSY: the lock is held for the whole test.
      expect(
        await countRowsOfRun(b, {
          pipeline: 'p',
          workflowId: 'wf',
          tables: ['marketplace_products', 'marketplace_shops'],
        }),
      ).toEqual({});
      expect(await sumTokenUsageOfRun(b, 'wf')).toBeNull();
    } finally {
      a.sqlite.exec('ROLLBACK');
    }
  });

  it('still fails with SQLITE_BUSY when the lock is not released within busy_timeout', async () => {
    const { a, b } = await twoConnections();
    b.sqlite.pragma('busy_timeout = 200');
    a.sqlite.exec('BEGIN IMMEDIATE');
    try {
      const t0 = Date.now();
      await expect(withTransaction(b, async () => 1)).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
      expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
    } finally {
      a.sqlite.exec('ROLLBACK');
    }
  });
});
