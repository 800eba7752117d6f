// A URL-chunk activity retried after its worker died: the responses the dead attempt landed after its last recorded
// heartbeat (heartbeats are throttled, so a kill can come between a commit and the heartbeat that records it) are
// loaded already. The retry must not fetch them again: that would pay for them twice, and a failure the second
// time reported a URL whose rows were in the tables as failed (the soak found it: 41 rows "unexpected" for a
// partial run).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createActivities, createActivityDeps } from '../../../activities/index.js';
import type { UrlChunkOutput } from '../../../activities/types.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { marketplaceSpec, productUrl } from '../../support/pipeline-specs.js';

const TOKEN = 'url-chunk-retry-token';
let sim: RunningSimulator;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, token: TOKEN, seed: 41 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'url-chunk-retry-'));
});
afterAll(async () => {
  await sim.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('a retried attempt that lost the heartbeat of landed responses does not fetch them again, and reports them loaded', async () => {
  const db = `sqlite:${path.join(dir, 'db.sqlite')}`;
  const urls = Array.from({ length: 6 }, (_, i) => productUrl(8_800_000 + i));
  const spec = marketplaceSpec('retry', db, urls);
  const deps = createActivityDeps({ env: { SCRAPER_BASE_URL: sim.baseUrl, SCRAPER_API_TOKEN: TOKEN } });
  try {
    const { loadUrlChunk } = createActivities(deps);
    const input = { workflowId: 'retry--r1', spec, offset: 0, urls };
    // Attempt 1 lands four of the six URLs (its answers for the other two are lost), then "dies".
    const first = (await new MockActivityEnvironment({ attempt: 1 }).run(loadUrlChunk, {
      ...input,
      urls: urls.slice(0, 4),
    })) as UrlChunkOutput;
    expect(first.succeeded).toBe(4);

    // Attempt 2 starts with no heartbeat details: the dead attempt's last one was never recorded.
    sim.resetStats();
    const second = (await new MockActivityEnvironment({ attempt: 2 }).run(loadUrlChunk, {
      ...input,
      urls,
    })) as UrlChunkOutput;
    expect(second.failed).toEqual([]);
    expect(second.succeeded).toBe(6);
    // Only the two URLs the first attempt never landed were fetched.
    expect(sim.stats().byEndpoint).toEqual({ 'POST /api/marketplace/sync': 2 });
    const dest = await deps.destination(db);
    if (dest.dialect !== 'sqlite') throw new Error('expected SQLite');
    expect(dest.sqlite.prepare('select request_key from raw_responses order by request_key').pluck().all()).toEqual(
      [...urls].sort(),
    );
  } finally {
    await deps.close();
  }
});
