// A URL chunk's progress heartbeats are throttled (activities/url-lists.ts HeartbeatThrottle): one per loaded URL
// cost every URL the details' conversion, encryption and hand-over to the SDK's core, though the core sends the
// server only the newest once per 0.8 heartbeat timeout. What a retry starts from must not suffer: the newest state
// is handed over before the activity ends, whether it succeeds or fails.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createActivities, createActivityDeps } from '../../../activities/index.js';
import type { UrlChunkHeartbeat, UrlChunkOutput } from '../../../activities/types.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { marketplaceSpec, productUrl } from '../../support/pipeline-specs.js';

const TOKEN = 'url-chunk-heartbeats-token';
let sim: RunningSimulator;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, token: TOKEN, seed: 43 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'url-chunk-heartbeats-'));
});
afterAll(async () => {
  await sim.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function chunk(name: string, urls: string[], prepare?: (sqlite: import('better-sqlite3').Database) => void) {
  const db = `sqlite:${path.join(dir, `${name}.sqlite`)}`;
  const deps = createActivityDeps({ env: { SCRAPER_BASE_URL: sim.baseUrl, SCRAPER_API_TOKEN: TOKEN } });
  const dest = await deps.destination(db);
  if (dest.dialect !== 'sqlite') throw new Error('expected SQLite');
  prepare?.(dest.sqlite);
  // A 60 s heartbeat timeout: heartbeats at most every 6 s, longer than this chunk takes even on a busy machine.
  const env = new MockActivityEnvironment({ attempt: 1, heartbeatTimeoutMs: 60_000 });
  const beats: UrlChunkHeartbeat[] = [];
  env.on('heartbeat', (d: unknown) => beats.push(d as UrlChunkHeartbeat));
  const { loadUrlChunk } = createActivities(deps);
  try {
    const out = await env
      .run(loadUrlChunk, {
        workflowId: `${name}--r1`,
        spec: { ...marketplaceSpec(name, db, urls), concurrency: 4 },
        offset: 0,
        urls,
      })
      .then(
        (o) => ({ ok: true as const, o: o as UrlChunkOutput }),
        (err: unknown) => ({ ok: false as const, err }),
      );
    const raw = dest.sqlite
      .prepare(`select request_key from raw_responses order by request_key`)
      .pluck()
      .all() as string[];
    return { out, beats, raw };
  } finally {
    await deps.close();
  }
}

it('a chunk of 12 URLs sends its first heartbeat at once and the newest state before it returns, not one per URL', async () => {
  const urls = Array.from({ length: 12 }, (_, i) => productUrl(6_600_000 + i));
  const res = await chunk('ok', urls);
  expect(res.out.ok && res.out.o.succeeded).toBe(12);
  expect(res.beats.length).toBeGreaterThanOrEqual(1);
  expect(res.beats.length).toBeLessThanOrEqual(2);
  expect(res.beats[0]!.done.length).toBe(1);
  expect([...res.beats.at(-1)!.done].sort((a, b) => a - b)).toEqual(urls.map((_, i) => i));
  expect(res.raw).toEqual([...urls].sort());
});

it('a chunk that fails hands over the newest state first: its last heartbeat names only loaded URLs, not the refused one', async () => {
  const urls = Array.from({ length: 12 }, (_, i) => productUrl(6_700_000 + i));
  const bad = 6_700_009;
  const res = await chunk('fails', urls, (sqlite) =>
    sqlite.exec(
      `create trigger refuse before insert on marketplace_products when new.item_id = ${bad} begin select raise(abort, 'refused by test'); end`,
    ),
  );
  expect(res.out.ok).toBe(false);
  expect(res.beats.length).toBeLessThanOrEqual(2);
  const done = (res.beats.at(-1)?.done ?? []).map((i) => urls[i]!);
  expect(done.length).toBeGreaterThan(0);
  expect(done).not.toContain(productUrl(bad));
  expect(res.raw).not.toContain(productUrl(bad));
  // Every URL it names is loaded (fetches still in flight when the activity failed may land after it).
  expect(res.raw).toEqual(expect.arrayContaining(done));
});
