// `scrape-etl demo` from a clean directory with no token, no service and no Temporal server configured.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stopDevServer } from '../temporal/dev-server.js';
import { runCli } from './support/cli.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-cli-demo-'));

afterAll(async () => {
  await stopDevServer({ dataDir: path.join(dir, 'data') });
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('scrape-etl demo', () => {
  it('runs every example against the in-process simulator and says where everything is', async () => {
    const env = { SCRAPER_API_TOKEN: undefined, SCRAPER_BASE_URL: undefined, SCRAPE_ETL_DATA_DIR: undefined, TEMPORAL_ADDRESS: undefined, DATABASE_URL: undefined };
    const r = await runCli(['demo', '--json'], { cwd: dir, env, timeoutMs: 150_000 });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const results = lines.filter((l) => l['type'] === 'result');
    expect(results.map((l) => l['pipeline']).sort()).toEqual([
      'jobs-remote-typescript',
      'leads-ai-sentiment',
      'leads-coffee-roasters',
      'marketplace-products',
      'pdf-annual-reports',
      'results-sync',
    ]);
    for (const res of results) {
      expect(res['status']).toBe('succeeded');
      expect((res['exportedFiles'] as string[]).length).toBeGreaterThan(0);
    }
    const summary = lines.at(-1)!;
    const dataDir = fs.realpathSync(path.join(dir, 'data'));
    expect(summary).toMatchObject({ type: 'summary', failures: 0, exportDir: path.join(dataDir, 'exports') });
    expect(summary['database']).toBe(`sqlite:${path.join(dataDir, 'scrape-etl.sqlite')}`);
    expect(String(summary['temporalUi'])).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(fs.existsSync(path.join(dataDir, 'scrape-etl.sqlite'))).toBe(true);
    expect(fs.readdirSync(path.join(dataDir, 'exports')).filter((f) => f.endsWith('.csv')).length).toBeGreaterThanOrEqual(6);
    // The Web UI answers.
    const ui = await fetch(String(summary['temporalUi']));
    expect(ui.status).toBe(200);
  });
});
