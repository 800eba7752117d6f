// `scrape-etl demo` from a clean directory with no token, no service and no Temporal server configured.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stopDevServer } from '../temporal/dev-server.js';
import { runCli } from './support/cli.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-cli-demo-'));
/** The text demo runs in a folder of its own: a first run there, like a new user's. */
const textDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-cli-demo-text-'));

afterAll(async () => {
  for (const d of [dir, textDir]) {
    await stopDevServer({ dataDir: path.join(d, 'data') });
    fs.rmSync(d, { recursive: true, force: true });
  }
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

  it('on a terminal, lists the paths of the files each pipeline exported, not a count', async () => {
    const env = { SCRAPER_API_TOKEN: undefined, SCRAPER_BASE_URL: undefined, SCRAPE_ETL_DATA_DIR: undefined, TEMPORAL_ADDRESS: undefined, DATABASE_URL: undefined };
    const r = await runCli(['demo'], { cwd: textDir, env, timeoutMs: 150_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/CSV file\(s\)/);
    const exportDir = path.join(fs.realpathSync(path.join(textDir, 'data')), 'exports');
    // One block per pipeline: its heading line, its rows by table, then 'exported files:' and one path a line.
    const blocks = r.stdout.split(/\n(?=\S+: \S+ \()/).slice(1);
    expect(blocks).toHaveLength(6);
    for (const block of blocks) {
      const pipeline = /^\S+: (\S+) \(/.exec(block)![1]!;
      const files = block.split('exported files:\n')[1]?.split('\n').filter((l) => l.startsWith('  ')).map((l) => l.trim()) ?? [];
      expect({ pipeline, listed: files.length > 0 }).toEqual({ pipeline, listed: true });
      for (const f of files) {
        expect(path.dirname(f)).toBe(exportDir);
        expect(path.basename(f).startsWith(`${pipeline}_`)).toBe(true);
        expect(fs.statSync(f).size).toBeGreaterThan(0);
      }
    }
  });
});
