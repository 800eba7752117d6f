// `scrape-etl schema export` through the compiled command: a marketplace pipeline file loaded from a real answer
// (its added columns, described as schema evolution's), every format, --out written whole, and the errors a user
// makes (an unknown format, no pipeline outside a project, a destination not there yet) each said in one sentence
// with the exit code of the table in the README.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { REAL_FIXTURES } from '../../support/fixtures.js';

let dir: string;
let file: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schema-export-'));
  const db = path.join(dir, 'd.sqlite');
  file = path.join(dir, 'shop.yaml');
  fs.writeFileSync(
    file,
    [
      'name: shop',
      'kind: marketplace',
      'request:',
      '  urls:',
      '    - https://shopee.tw/api/v2/item/get?itemid=1&shopid=2',
      'destination:',
      `  database: sqlite:${db}`,
      'schedule:',
      '  cron: "0 */6 * * *"',
      '  timezone: UTC',
      '',
    ].join('\n'),
  );
  const r = await runCli([
    'load',
    'marketplace',
    path.join(REAL_FIXTURES, 'shopee-sync-response-1.json'),
    '--db',
    `sqlite:${db}`,
    '--pipeline',
    'shop',
  ]);
  expect(r.code, r.stderr).toBe(0);
}, 60_000);

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('schema export', () => {
  it('dbt: the marketplace tables with keys, relations, added columns described, and the schedule as freshness', async () => {
    const out = path.join(dir, 'sources.yml');
    const r = await runCli(['schema', 'export', file, '--format', 'dbt', '--out', out], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^wrote .*sources\.yml: \d+ table\(s\) of 1 pipeline\(s\)\n$/);
    expect(fs.readdirSync(dir).filter((f) => f.includes('partial'))).toEqual([]);
    const src = (
      parse(fs.readFileSync(out, 'utf8')) as { sources: Array<{ schema: string; tables: Array<Record<string, any>> }> }
    ).sources[0]!;
    expect(src.schema).toBe('main');
    const products = src.tables.find((t) => t.name === 'marketplace_products')!;
    expect(products['meta'].natural_key).toEqual(['pipeline', 'shop_id', 'item_id']);
    const added = products['columns'].filter((c: any) => /Added by schema evolution/.test(c.description));
    expect(added.length).toBeGreaterThan(0);
    const fresh = src.tables.find((t) => t.name === 'freshness_shop')!;
    expect(fresh['freshness'].warn_after).toEqual({ count: 6 * 60 + 60, period: 'minute' });
  });

  it('json, dbml and mermaid to stdout', async () => {
    const json = await runCli(['schema', 'export', file, '--format', 'json'], { cwd: dir });
    expect(json.code, json.stderr).toBe(0);
    const catalog = JSON.parse(json.stdout) as {
      pipelines: string[];
      tables: Array<{ name: string; relations: unknown[] }>;
    };
    expect(catalog.pipelines).toEqual(['shop']);
    expect(catalog.tables.find((t) => t.name === 'marketplace_model_stocks')!.relations).toHaveLength(1);
    const dbml = await runCli(['schema', 'export', file, '--format', 'dbml'], { cwd: dir });
    expect(dbml.stdout).toContain('Table "marketplace_shops"');
    const mermaid = await runCli(['schema', 'export', file, '--format', 'mermaid'], { cwd: dir });
    expect(mermaid.stdout.startsWith('erDiagram\n')).toBe(true);
  });

  it('says what is wrong: an unknown format, no pipeline outside a project (exit 2); a destination not there yet exports the model (exit 0)', async () => {
    const bad = await runCli(['schema', 'export', file, '--format', 'yaml'], { cwd: dir });
    expect([bad.code, bad.stderr.trim()]).toEqual([
      2,
      'scrape-etl: --format yaml: expected one of json, dbt, dbml, mermaid',
    ]);
    const none = await runCli(['schema', 'export', '--format', 'dbt'], {
      cwd: dir,
      env: { SCRAPE_ETL_PROJECT: 'none' },
    });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      /no scrape-etl\.yaml was found here or above: name a pipeline file, or run it inside a project/,
    );
    const fresh = path.join(dir, 'fresh.yaml');
    fs.writeFileSync(
      fresh,
      fs.readFileSync(file, 'utf8').replace(/database: .*/, `database: sqlite:${path.join(dir, 'none.sqlite')}`),
    );
    const r = await runCli(['schema', 'export', fresh, '--format', 'json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/no database at .*none\.sqlite .*: exporting the model's tables only/);
    expect(fs.existsSync(path.join(dir, 'none.sqlite'))).toBe(false);
    expect((JSON.parse(r.stdout) as { tables: Array<{ name: string }> }).tables.map((t) => t.name)).toContain(
      'marketplace_products',
    );
  });
});
