// test/fast/activities/url-chunk-concurrent-attempts.test.ts on Postgres: two attempts of one URL chunk at once (a
// timed-out attempt still running beside its retry) land each URL once. Postgres loads run concurrently, so the
// landing is serialised by an advisory lock per run and request (db/store/land-once.ts), taken with the products'.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { runConcurrentAttempts } from '../../support/concurrent-attempts.js';
import { testPostgresUrl } from '../../support/postgres.js';

const TOKEN = 'url-chunk-concurrent-pg-token';
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, token: TOKEN, seed: 47 });
});
afterAll(async () => {
  await sim.close();
});

describe('two attempts of one URL chunk at once land each URL once (Postgres)', () => {
  for (const loadGroup of [1, 25]) {
    it(`url_load_group ${loadGroup}`, async () => {
      const out = await runConcurrentAttempts(sim, TOKEN, await testPostgresUrl(), {
        pipeline: `twice-${loadGroup}`,
        loadGroup,
        firstProduct: 9_200_000 + loadGroup * 10,
      });
      expect(out.calls).toBe(8);
      for (const o of out.outputs) expect(o).toMatchObject({ succeeded: 4, failed: [] });
      expect(out.landings).toEqual(Object.fromEntries(out.urls.map((u) => [u, 1])));
      expect(out.products).toBe(4);
      expect(out.seen['marketplace_products']).toBe(4);
    });
  }
});
