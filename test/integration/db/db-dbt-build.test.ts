// The analyst's hand-off (issue 40), as an analyst would use it: the six example pipelines run three rounds (three
// simulator seeds, so prices and leads change) into Postgres and into DuckDB with `scrape-etl demo`, `scrape-etl
// schema export --format dbt` writes sources.yml, and dbt-core 1.11 (dbt-postgres, dbt-duckdb, installed from PyPI
// into the test cache) runs `dbt build` over it: every generated test (natural keys unique and not null, child to
// parent relationships including the inferred child tables, accepted values) and the three models of
// examples/dbt must pass on both, `dbt source freshness` too, and the models' rows, read back by psql and by Python's
// duckdb, must be equal on both warehouses.
// Needs `npm run build` (the commands run dist/).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../../support/cli.js';
import { ensureDbt, runDbt } from '../../support/dbt.js';
import { testDatabaseUrl } from '../../support/destinations.js';
import { pythonReadersEnv } from '../../support/python-readers.js';
import { stopDevServer } from '../../../temporal/dev-server.js';

const TARGETS = ['postgres', 'duckdb'] as const;
type Target = (typeof TARGETS)[number];
const MODELS = {
  current_model_prices: 'pipeline, shop_id, item_id, model_id',
  daily_price_changes: 'pipeline, shop_id, item_id, day',
  leads_deduplicated: 'lead_key',
} as const;
const PG_BIN = process.env['TEST_POSTGRES_BIN'] ?? '/usr/lib/postgresql/15/bin';

let dir: string;
const built = new Map<
  Target,
  {
    url: string;
    dbtDir: string;
    build: string;
    results: Array<{ unique_id: string; status: string }>;
    rows: Record<string, string[][]>;
  }
>();

/** A project holding copies of the example pipelines, each writing to `url`. */
function writeProject(root: string, url: string): string[] {
  fs.mkdirSync(path.join(root, 'pipelines'), { recursive: true });
  fs.writeFileSync(
    path.join(root, 'scrape-etl.yaml'),
    `pipelines: [pipelines/*.yaml]\ndestination: ${url}\ndata_dir: data\n`,
  );
  const names: string[] = [];
  for (const f of fs
    .readdirSync(path.join(REPO_ROOT, 'pipelines', 'examples'))
    .filter((x) => x.endsWith('.yaml'))
    .sort()) {
    const text = fs.readFileSync(path.join(REPO_ROOT, 'pipelines', 'examples', f), 'utf8');
    // The examples' own destination (results-sync names one) gives way to the warehouse's.
    const own = text.replace(/^destination:\n(?: {2}.*\n)+/m, '').replace(/^# yaml-language-server.*\n/m, '');
    fs.writeFileSync(path.join(root, 'pipelines', f), `${own}\ndestination:\n  database: ${url}\n`);
    names.push(/^name: (.+)$/m.exec(text)![1]!.trim());
  }
  return names;
}

function profile(target: Target, url: string): string {
  if (target === 'duckdb') {
    return `scrape_etl_examples:\n  target: duckdb\n  outputs:\n    duckdb:\n      type: duckdb\n      path: ${JSON.stringify(url.slice('duckdb:'.length))}\n      schema: analytics\n      threads: 1\n`;
  }
  const u = new URL(url);
  return [
    'scrape_etl_examples:',
    '  target: postgres',
    '  outputs:',
    '    postgres:',
    '      type: postgres',
    `      host: ${JSON.stringify(u.hostname)}`,
    `      port: ${u.port || 5432}`,
    `      user: ${JSON.stringify(decodeURIComponent(u.username))}`,
    `      password: ${JSON.stringify(decodeURIComponent(u.password))}`,
    `      dbname: ${JSON.stringify(u.pathname.slice(1))}`,
    '      schema: analytics',
    '      threads: 1',
    '',
  ].join('\n');
}

/** A model's rows as CSV text cells, read by the warehouse's own client: psql, or Python's duckdb module. */
function readModel(target: Target, url: string, model: string, orderBy: string): string[][] {
  const sql = `SELECT * FROM analytics.${model} ORDER BY ${orderBy}`;
  const csv =
    target === 'postgres'
      ? execFileSync(path.join(PG_BIN, 'psql'), [url, '--csv', '-v', 'ON_ERROR_STOP=1', '-c', sql], {
          encoding: 'utf8',
        })
      : execFileSync(
          'python3',
          [
            '-c',
            'import csv, sys, duckdb\nc = duckdb.connect(sys.argv[1], read_only=True)\nr = c.execute(sys.argv[2])\nw = csv.writer(sys.stdout, lineterminator="\\n")\nw.writerow([d[0] for d in r.description])\nw.writerows(r.fetchall())',
            url.slice('duckdb:'.length),
            sql,
          ],
          { encoding: 'utf8', env: pythonReadersEnv() },
        );
  const rows = execFileSync(
    'python3',
    ['-c', 'import csv, json, sys\njson.dump(list(csv.reader(sys.stdin, strict=True)), sys.stdout)'],
    { input: csv, encoding: 'utf8' },
  );
  return JSON.parse(rows) as string[][];
}

/**
 * Numbers as numbers (Postgres prints 1101, DuckDB's Python 1101.0 for the same double), other text as it is; the
 * header first, then the rows in one order (the warehouses' text collations differ).
 */
function canonical(rows: string[][]): string[][] {
  const cells = rows.map((r) => r.map((v) => (/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(v) ? String(Number(v)) : v)));
  return [cells[0]!, ...cells.slice(1).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1))];
}

beforeAll(async () => {
  ensureDbt();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'db-dbt-build-'));
  for (const target of TARGETS) {
    const root = path.join(dir, target);
    const url = await testDatabaseUrl(target, root, 'warehouse');
    fs.mkdirSync(root, { recursive: true });
    const names = writeProject(root, url);
    const env = { SCRAPE_ETL_DATA_DIR: path.join(root, 'data'), TEMPORAL_ADDRESS: '', DATABASE_URL: '' };
    try {
      for (const seed of ['1', '2', '3']) {
        const demo = await runCli(['demo', ...names, '--seed', seed], { cwd: root, env, timeoutMs: 300_000 });
        expect(demo.code, `${target} demo --seed ${seed}: ${demo.stdout}\n${demo.stderr}`).toBe(0);
      }
    } finally {
      await stopDevServer({ dataDir: path.join(root, 'data') });
    }
    const dbtDir = path.join(root, 'dbt');
    fs.cpSync(path.join(REPO_ROOT, 'examples', 'dbt'), dbtDir, { recursive: true });
    fs.writeFileSync(path.join(dbtDir, 'profiles.yml'), profile(target, url));
    const exp = await runCli(
      ['schema', 'export', '--format', 'dbt', '--out', path.join(dbtDir, 'models', 'sources.yml')],
      { cwd: root, env },
    );
    expect(exp.code, exp.stderr).toBe(0);
    const build = await runDbt(['build'], { cwd: dbtDir, timeoutMs: 600_000 });
    expect(build.code, `${target} dbt build:\n${build.output}`).toBe(0);
    const fresh = await runDbt(['source', 'freshness'], { cwd: dbtDir });
    expect(fresh.code, `${target} dbt source freshness:\n${fresh.output}`).toBe(0);
    const results = (
      JSON.parse(fs.readFileSync(path.join(dbtDir, 'target', 'run_results.json'), 'utf8')) as {
        results: Array<{ unique_id: string; status: string }>;
      }
    ).results;
    const rows: Record<string, string[][]> = {};
    for (const [model, order] of Object.entries(MODELS)) rows[model] = readModel(target, url, model, order);
    built.set(target, { url, dbtDir, build: build.output, results, rows });
  }
}, 1_800_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe.each(TARGETS)('dbt build on %s', (target) => {
  it('passes every generated test and the three models, with the source freshness of the scheduled pipelines', () => {
    const b = built.get(target)!;
    const tests = b.results.filter((r) => r.unique_id.startsWith('test.'));
    expect(
      b.results.filter((r) => !['pass', 'success'].includes(r.status)),
      b.build,
    ).toEqual([]);
    // The generated kinds of test are all there, on model and inferred tables alike.
    const named = (part: string) => tests.filter((t) => t.unique_id.includes(part));
    expect(named('source_unique_scrape_etl_marketplace_product_models').length).toBe(1);
    expect(named('source_not_null_scrape_etl_marketplace_products_item_id').length).toBe(1);
    expect(named('source_relationships_scrape_etl_marketplace_model_stocks').length).toBe(1);
    expect(named('source_relationships_scrape_etl_leads_coffee_roasters_items__social_profiles').length).toBe(2);
    expect(named('source_accepted_values_scrape_etl_pipeline_runs_status').length).toBe(1);
    expect(named('source_unique_scrape_etl_results_sync_items_concat_ws_pipeline_row_key').length).toBe(1);
    expect(tests.length).toBeGreaterThan(100);
    for (const model of Object.keys(MODELS))
      expect(b.results.find((r) => r.unique_id === `model.scrape_etl_examples.${model}`)?.status).toBe('success');
    for (const model of Object.keys(MODELS)) expect(b.rows[model]!.length, model).toBeGreaterThan(1);
  });
});

describe('the models on both warehouses', () => {
  it('have equal rows and values', () => {
    const pg = built.get('postgres')!;
    const duck = built.get('duckdb')!;
    for (const model of Object.keys(MODELS)) {
      expect(canonical(duck.rows[model]!), model).toEqual(canonical(pg.rows[model]!));
    }
  });

  it('count each lead result once although the results sync landed it a second time', () => {
    const pg = built.get('postgres')!;
    const q = (sql: string) =>
      execFileSync(path.join(PG_BIN, 'psql'), [pg.url, '-tA', '-c', sql], { encoding: 'utf8' }).trim();
    const results = Number(q(`SELECT count(*) FROM leads_results WHERE pipeline = 'leads-coffee-roasters'`));
    const copies = Number(
      q(
        `SELECT count(*) FROM results_landed l JOIN leads_results r ON r.id = l.id AND r.pipeline = 'leads-coffee-roasters' WHERE l.is_copy`,
      ),
    );
    // The copies are there (the test would pass vacuously otherwise), and the sightings add up to the results, each
    // once: a union of the two tables without the rule would count the copies too.
    expect(copies).toBeGreaterThan(0);
    expect(
      Number(
        q(
          `SELECT count(*) FROM results_sync_items s JOIN leads_results r ON r.id = s.result_id AND r.pipeline = 'leads-coffee-roasters'`,
        ),
      ),
    ).toBeGreaterThan(0);
    const header = pg.rows['leads_deduplicated']![0]!;
    const sightings = pg.rows['leads_deduplicated']!.slice(1).reduce(
      (n, r) => n + Number(r[header.indexOf('sightings')]),
      0,
    );
    expect(sightings).toBe(results);
    expect(Number(q(`SELECT count(*) FROM results_landed WHERE NOT is_copy`))).toBe(
      Number(q(`SELECT count(DISTINCT id) FROM results_landed`)),
    );
  });
});
