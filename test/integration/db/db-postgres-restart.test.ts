// A Postgres restart under a worker: connections the pool has handed out (a load between two statements, a
// transaction waiting on the service) are cut by the server. That must fail those queries only, not crash the
// worker process with an unhandled 'error' event on the pg client; the pool then serves new connections. Found by
// the production-topology test (test/integration/temporal/topology-postgres.test.ts), where a worker died when the warehouse restarted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../destinations/open.js';
import { startPostgresCluster, type PostgresCluster } from '../../support/postgres.js';

let cluster: PostgresCluster;
let db: Database;

beforeAll(async () => {
  cluster = await startPostgresCluster({ crashSafe: true });
  db = await openDatabase(cluster.url);
});

afterAll(async () => {
  await db?.close();
  cluster?.stop();
});

describe('Postgres destination across a server restart', () => {
  it('a checked-out client losing its connection does not crash the process; the pool recovers', async () => {
    if (db.dialect !== 'postgres') throw new Error('expected Postgres');
    const unhandled: unknown[] = [];
    const onUncaught = (err: unknown) => unhandled.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      const idleInTransaction = await db.pool.connect();
      await idleInTransaction.query('BEGIN');
      const busy = await db.pool.connect();
      const running = busy.query('SELECT pg_sleep(30)').then(
        () => 'finished',
        (e: Error) => e.message,
      );
      await new Promise((r) => setTimeout(r, 200));
      await cluster.restart({ downMs: 500 });
      // The running statement fails with the cut connection; the idle one learns of it on its next use.
      expect(await running).toMatch(/terminat|connection|shut ?down/i);
      await expect(idleInTransaction.query('SELECT 1')).rejects.toThrow();
      idleInTransaction.release(true);
      busy.release(true);
      await new Promise((r) => setTimeout(r, 200));
      expect(unhandled).toEqual([]);
      expect((await db.pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});
