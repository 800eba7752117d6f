// `run` checks the scraping service once before it starts anything (issue 36): a SCRAPER_BASE_URL that refuses the
// connection or names no host fails in seconds with exit 1, naming the URL, the variable and the fix, instead of
// waiting out polling.deadline (6 hours by default). An outage after the start is still waited out: cli-waiting.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../../simulator/server.js';
import { readDevServerState, stopDevServer } from '../../../temporal/dev-server.js';
import { REPO_ROOT, runCli } from '../../support/cli.js';

const TOKEN = 'cli-service-check-token';
let dir: string;
let closedPort: number;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-service-check-'));
  // A port nothing listens on: the simulator's, taken and given back.
  const sim = await startSimulator({ token: TOKEN, seed: 1 });
  closedPort = sim.port;
  await sim.close();
});

afterAll(async () => {
  await stopDevServer({ dataDir: path.join(dir, 'data') });
  fs.rmSync(dir, { recursive: true, force: true });
});

function envWith(baseUrl: string): NodeJS.ProcessEnv {
  return {
    SCRAPER_BASE_URL: baseUrl,
    SCRAPER_API_TOKEN: TOKEN,
    SCRAPE_ETL_DATA_DIR: path.join(dir, 'data'),
    TEMPORAL_ADDRESS: '',
    DATABASE_URL: '',
  };
}

describe('run with a SCRAPER_BASE_URL that cannot be reached', () => {
  for (const [what, url, cause] of [
    ['a refused connection', () => `http://127.0.0.1:${closedPort}`, /connection refused \(ECONNREFUSED\)/],
    [
      'a host name that does not resolve',
      () => 'https://scrape-etl-no-such-host.invalid',
      /no such host \((ENOTFOUND|EAI_AGAIN)\)/,
    ],
  ] as const) {
    it(`${what} fails within 10 s with exit 1, naming the URL, SCRAPER_BASE_URL and the fix; nothing is started`, async () => {
      const began = Date.now();
      const r = await runCli(['run', path.join(REPO_ROOT, 'pipelines', 'examples', 'marketplace.yaml')], {
        cwd: dir,
        env: envWith(url()),
        timeoutMs: 60_000,
      });
      const took = Date.now() - began;
      expect(r.code, r.stderr).toBe(1);
      expect(took).toBeLessThan(10_000);
      expect(r.stderr).toContain(`cannot reach the scraping service at ${url()} (SCRAPER_BASE_URL)`);
      expect(r.stderr).toMatch(cause);
      expect(r.stderr).toContain('set SCRAPER_BASE_URL to the service');
      expect(r.stderr).toContain('nothing was started');
      expect(r.stderr).not.toContain(TOKEN);
      // Nothing started: no embedded Temporal server, no remembered run.
      expect(readDevServerState(path.join(dir, 'data'))).toBeUndefined();
      expect(
        fs.existsSync(path.join(dir, 'data', 'runs')) ? fs.readdirSync(path.join(dir, 'data', 'runs')) : [],
      ).toEqual([]);
    }, 90_000);
  }
});
