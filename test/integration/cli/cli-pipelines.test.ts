// `scrape-etl pipelines`: the project's pipelines with kind, file, destination, schedule and last run, read from the
// destinations' pipeline_runs without creating a database. A project of two pipelines, one of which has run (on the
// simulator, through `demo <name>`: the real workflow on the embedded Temporal server); the JSON is read by Python.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopDevServer } from '../../../temporal/dev-server.js';
import { REPO_ROOT, runCli } from '../../support/cli.js';

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-pipelines-')));
const env: NodeJS.ProcessEnv = {};
for (const name of [
  'SCRAPER_API_TOKEN',
  'SCRAPER_BASE_URL',
  'SCRAPE_ETL_DATA_DIR',
  'TEMPORAL_ADDRESS',
  'DATABASE_URL',
  'SCRAPE_ETL_PROJECT',
  'SCRAPE_ETL_KEY_FILE',
])
  env[name] = undefined;

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** JSON lines parsed by Python's json module (strict: no NaN, no trailing text). */
function pythonJsonLines(text: string): Array<Record<string, unknown>> {
  const out = execFileSync(
    'python3',
    [
      '-c',
      'import json,sys\nprint(json.dumps([json.loads(l, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c))) for l in sys.stdin.read().splitlines() if l.strip()]))',
    ],
    { input: text, encoding: 'utf8' },
  );
  return JSON.parse(out) as Array<Record<string, unknown>>;
}

const proj = path.join(dir, 'proj');

beforeAll(() => {
  write(
    path.join(proj, 'scrape-etl.yaml'),
    'pipelines: [pipelines/*.yaml]\ndestination: sqlite:data/main.sqlite\ndata_dir: data\n',
  );
  write(
    path.join(proj, 'pipelines', 'shop.yaml'),
    [
      'name: shop',
      'kind: marketplace',
      'request:',
      '  urls:',
      '    - https://shopee.tw/api/v2/item/get?itemid=4420309814&shopid=10115139',
      'schedule:',
      '  cron: "30 2 * * *"',
      '  timezone: Europe/Berlin',
      '  paused: true',
      '',
    ].join('\n'),
  );
  write(
    path.join(proj, 'pipelines', 'sentiment.yaml'),
    [
      'name: sentiment',
      'kind: leads-social',
      'request:',
      '  keywords: heat pumps',
      '  sentiment_type: all',
      '  expected_data: 5',
      'destination:',
      '  database: duckdb:data/leads.duckdb',
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await stopDevServer({ dataDir: path.join(proj, 'data') });
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('scrape-etl pipelines', () => {
  it('lists both pipelines with kind, file, destination, schedule; the one that ran with its last run, the other never run', async () => {
    const ran = await runCli(['demo', 'shop'], { cwd: proj, env, timeoutMs: 240_000 });
    expect(ran.code, ran.stderr).toBe(0);

    // Traced: a read-only command loads no Temporal SDK module (test/support/module-trace.mjs).
    const trace = path.join(dir, 'trace.txt');
    const r = await runCli(['pipelines', '--json'], {
      cwd: path.join(proj, 'pipelines'),
      env: {
        ...env,
        SCRAPE_ETL_MODULE_TRACE: trace,
        NODE_OPTIONS: `--import ${path.join(REPO_ROOT, 'test', 'support', 'module-trace.mjs')}`,
      },
    });
    expect(r.code, r.stderr).toBe(0);
    const modules = fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean);
    expect(modules.some((m) => m.includes('/dist/cli/commands/pipelines.js'))).toBe(true);
    expect(modules.filter((m) => m.includes('@temporalio'))).toEqual([]);
    const rows = pythonJsonLines(r.stdout);
    expect(rows).toHaveLength(2);
    const shop = rows.find((x) => x['name'] === 'shop')!;
    const sentiment = rows.find((x) => x['name'] === 'sentiment')!;
    expect(shop).toMatchObject({
      kind: 'marketplace',
      file: path.join('pipelines', 'shop.yaml'),
      destination: `sqlite:${path.join(proj, 'data', 'main.sqlite')}`,
      schedule: { cron: '30 2 * * *', timezone: 'Europe/Berlin', paused: true },
      lastRun: { status: 'succeeded', workflowId: expect.stringMatching(/^shop--/) },
    });
    expect(Date.parse(String((shop['lastRun'] as Record<string, unknown>)['startedAt']))).toBeGreaterThan(
      Date.now() - 600_000,
    );
    expect(sentiment).toMatchObject({
      kind: 'leads-social',
      file: path.join('pipelines', 'sentiment.yaml'),
      destination: `duckdb:${path.join(proj, 'data', 'leads.duckdb')}`,
      schedule: null,
      lastRun: null,
      lastRunNote: expect.stringContaining('does not exist'),
    });
    // Read-only: the never-run pipeline's database was not created by looking.
    expect(fs.existsSync(path.join(proj, 'data', 'leads.duckdb'))).toBe(false);

    const text = await runCli(['pipelines'], { cwd: proj, env });
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+KIND\s+FILE\s+DESTINATION\s+SCHEDULE\s+LAST RUN\s+LAST RUN STARTED$/);
    expect(lines.find((l) => l.startsWith('shop '))).toMatch(
      /marketplace\s+pipelines\/shop\.yaml\s+sqlite:.*main\.sqlite\s+30 2 \* \* \* Europe\/Berlin \(paused\)\s+SUCCEEDED\s+20\d\d-/,
    );
    expect(lines.find((l) => l.startsWith('sentiment '))).toMatch(
      /leads-social\s+pipelines\/sentiment\.yaml\s+duckdb:.*leads\.duckdb\s+-\s+never run\s+-$/,
    );
  }, 300_000);

  it('says the last run as `status` does: its reason and the values it kept out beside its state', async () => {
    // The run above, recorded as a budget-stopped run that kept 3 values out (written by Python's sqlite3, as a
    // run ending so would have written them).
    execFileSync('python3', [
      '-c',
      "import sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\nc.execute(\"update pipeline_runs set status='partial', status_reason='budget', kept_out=3 where pipeline='shop'\")\nc.commit()",
      path.join(proj, 'data', 'main.sqlite'),
    ]);
    const text = await runCli(['pipelines'], { cwd: proj, env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout.split('\n').find((l) => l.startsWith('shop '))).toMatch(
      /\(paused\)\s+PARTIAL \(budget\), 3 values kept out\s+20\d\d-/,
    );
    const status = await runCli(['status', 'shop', '--no-temporal'], { cwd: proj, env });
    expect(status.stdout).toContain('PARTIAL (budget), 3 values kept out');
    const json = await runCli(['pipelines', '--json'], { cwd: proj, env });
    const shop = pythonJsonLines(json.stdout).find((x) => x['name'] === 'shop')!;
    expect(shop['lastRun']).toMatchObject({ status: 'partial', statusReason: 'budget', keptOut: 3 });
  }, 120_000);

  it('redacts a password, says a destination it cannot read (exit 1), lists an invalid file with its error (exit 2)', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const s = http.createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as AddressInfo;
        s.close(() => resolve(port));
      });
    });
    const other = path.join(dir, 'other');
    write(path.join(other, 'scrape-etl.yaml'), 'pipelines: [p/*.yaml]\n');
    write(
      path.join(other, 'p', 'wh.yaml'),
      [
        'name: wh',
        'kind: marketplace',
        'request:',
        '  urls: [https://shopee.tw/api/v2/item/get?itemid=1&shopid=2]',
        'destination:',
        `  database: postgres://etl:hunter2secret@127.0.0.1:${closedPort}/wh`,
        '',
      ].join('\n'),
    );
    const r = await runCli(['pipelines', '--json'], { cwd: other, env });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout + r.stderr).not.toContain('hunter2secret');
    const [wh] = pythonJsonLines(r.stdout);
    expect(wh).toMatchObject({
      name: 'wh',
      destination: `postgres://etl:***@127.0.0.1:${closedPort}/wh`,
      lastRun: null,
      lastRunNote: expect.stringContaining('destination not readable'),
    });

    write(path.join(other, 'p', 'broken.yaml'), 'name: broken\nkind: nosuchkind\n');
    const b = await runCli(['pipelines'], { cwd: other, env });
    expect(b.code, b.stderr).toBe(2);
    expect(b.stdout).toMatch(/^broken\s+-\s+p\/broken\.yaml\s+-\s+-\s+invalid file/m);
    // Its error with file:line:col, as `validate` gives it.
    expect(b.stdout).toMatch(/^p\/broken\.yaml: \S*p\/broken\.yaml:\d+:\d+: /m);

    const none = await runCli(['pipelines'], { cwd: dir, env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no project file');
  }, 120_000);
});
