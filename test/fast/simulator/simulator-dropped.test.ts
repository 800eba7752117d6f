// Seeded fault injection of 2xx answers whose connection drops mid-body (issue 10: the chaos soak needs
// "truncated answers" as a rate). The request is processed, the answer is lost in transit: for a create this
// is the ambiguous case the client must not re-send.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiAmbiguousError, ApiNetworkError, ScraperClient } from '../../../client/index.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';

const TOKEN = 'dropped-token';
const SOCIAL = '/api/scrapers/leads-generator/social/create-and-run';
const body = (name: string) => ({ name, keywords: 'k', sentiment_type: 'all' as const, expected_data: 2 });

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ token: TOKEN, seed: 5, runDurationMs: 50 });
});
afterAll(async () => {
  await sim?.close();
});
beforeEach(() => {
  sim.clearFaults();
  sim.resetStats();
});

const post = (path: string, b: unknown) =>
  fetch(`${sim.baseUrl}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(b),
  });

describe('droppedRate', () => {
  it('1: every 200 announces its full length, sends half, and closes; the request was processed', async () => {
    sim.setFaults({ droppedRate: 1 });
    const res = await post(SOCIAL, body('dropped-raw'));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-sim-fault')).toBe('dropped');
    const announced = Number(res.headers.get('content-length'));
    expect(announced).toBeGreaterThan(100);
    await expect(res.text()).rejects.toThrow(/terminated/);
    expect(sim.truth.scrapers().filter((s) => s.name === 'dropped-raw')).toHaveLength(1);
    expect(sim.faults().droppedRate).toBe(1);
    expect(() => sim.setFaults({ droppedRate: 2 })).toThrow(/droppedRate: must be between 0 and 1/);
  });

  it('seeded: about the share asked for, the same requests for the same seed, and other faults not shifted', async () => {
    const outcomes = async (faults: Parameters<RunningSimulator['setFaults']>[0]) => {
      const s = await startSimulator({ token: TOKEN, seed: 99, faults });
      try {
        const got: string[] = [];
        for (let i = 0; i < 200; i++) {
          const r = await fetch(`${s.baseUrl}/api/results?per_page=1`, {
            headers: { Authorization: `Bearer ${TOKEN}` },
          });
          got.push(r.headers.get('x-sim-fault') ?? String(r.status));
          await r.arrayBuffer().catch(() => undefined);
        }
        return got;
      } finally {
        await s.close();
      }
    };
    const a = await outcomes({ errorRate: 0.2, droppedRate: 0.25 });
    expect(await outcomes({ errorRate: 0.2, droppedRate: 0.25 })).toEqual(a);
    const dropped = a.filter((x) => x === 'dropped').length;
    expect(dropped).toBeGreaterThan(25);
    expect(dropped).toBeLessThan(75);
    // The 5xx answers fall on the same requests with or without dropped answers.
    const errorsOnly = await outcomes({ errorRate: 0.2 });
    const fiveXX = (xs: string[]) => xs.map((x, i) => (x.startsWith('status 5') ? i : -1)).filter((i) => i >= 0);
    expect(fiveXX(a)).toEqual(fiveXX(errorsOnly));
  });

  it('scripted, on a create: the client reports it as ambiguous and one scraper exists', async () => {
    sim.queueFaults([{ kind: 'dropped' }], { path: SOCIAL });
    const c = new ScraperClient({
      baseUrl: sim.baseUrl,
      token: TOKEN,
      retry: { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const err = await c.createLeadsSocialScraper(body('dropped-create')).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiAmbiguousError);
    expect((err as ApiAmbiguousError).underlying).toBeInstanceOf(ApiNetworkError);
    expect(sim.stats().byEndpoint).toEqual({ [`POST ${SOCIAL}`]: 1 });
    expect((await c.findScraperByName('dropped-create'))?.name).toBe('dropped-create');
    // A read is retried by the client and succeeds.
    sim.queueFaults([{ kind: 'dropped' }], { path: '/api/results' });
    expect((await c.listResults({ per_page: 1 })).status).toBe(200);
  });
});
