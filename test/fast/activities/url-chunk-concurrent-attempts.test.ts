// A URL-chunk attempt that Temporal timed out while it still ran (a worker too busy to heartbeat in time, as at a
// load average of 40) and its retry, running at once: each URL's answer must be landed once for the run, so its
// rows are seen once (the run's rows seen are summed from raw_responses). Before db/store/land-once.ts both attempts
// landed every URL: raw_responses held each twice and the run counted its products twice, as
// temporal-postgres-concurrency.test.ts saw (13-17 landings for 12 URLs) and the soak's "rows seen counted once" once
// saw on DuckDB. The Postgres case is test/integration/db/url-chunk-concurrent-attempts.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { runConcurrentAttempts } from '../../support/concurrent-attempts.js';

const TOKEN = 'url-chunk-concurrent-token';
let sim: RunningSimulator;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, token: TOKEN, seed: 43 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'url-chunk-concurrent-'));
});
afterAll(async () => {
  await sim.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('two attempts of one URL chunk at once land each URL once', () => {
  for (const dialect of ['sqlite', 'duckdb'] as const) {
    // A response per transaction, and the worker's default groups (the group writer on DuckDB, savepoints on SQLite).
    for (const loadGroup of [1, 25]) {
      it(`${dialect}, url_load_group ${loadGroup}`, async () => {
        const dbUrl = `${dialect}:${path.join(dir, `${dialect}-${loadGroup}.${dialect}`)}`;
        const out = await runConcurrentAttempts(sim, TOKEN, dbUrl, {
          pipeline: `twice-${loadGroup}`,
          loadGroup,
          firstProduct: 9_100_000 + loadGroup * 10,
        });
        // Both attempts fetched every URL (the second found none landed when it started) and both report them loaded.
        expect(out.calls).toBe(8);
        for (const o of out.outputs) expect(o).toMatchObject({ succeeded: 4, failed: [] });
        expect(out.landings).toEqual(Object.fromEntries(out.urls.map((u) => [u, 1])));
        expect(out.products).toBe(4);
        expect(out.seen['marketplace_products']).toBe(4);
      });
    }
  }
});
