import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../../support/cli.js';

const EXAMPLES = path.join('pipelines', 'examples');
const BAD = path.join('test', 'fixtures', 'pipelines-bad');
const TOKEN = 'sk-test-0123456789';

// Every message, exactly as a user sees it: file:line:col: path: message.
const EXPECTED: Record<string, string[]> = {
  'unknown-key.yaml': [
    `${BAD}/unknown-key.yaml:1:1: request: required (a mapping)`,
    `${BAD}/unknown-key.yaml:3:1: reqest: unknown key; did you mean 'request'?`,
  ],
  'wrong-type.yaml': [`${BAD}/wrong-type.yaml:6:18: request.expected_data: expected an integer, got string 'many'`],
  'bad-enum.yaml': [
    `${BAD}/bad-enum.yaml:5:19: request.sentiment_type: expected one of 'all', 'positive', 'neutral', 'negative', got string 'happy'`,
  ],
  'bad-kind.yaml': [
    `${BAD}/bad-kind.yaml:2:7: kind: expected one of 'pdf', 'leads-search-engine', 'leads-social', 'job-board', 'marketplace', 'results', got string 'pdfs'; did you mean 'pdf'?`,
    `${BAD}/bad-kind.yaml:5:13: polling.deadline: expected a duration: a whole number followed by ms, s, m, h or d (e.g. '500ms', '5s', '10m', '6h')`,
  ],
  'bad-export-table.yaml': [
    `${BAD}/bad-export-table.yaml:7:36: exports[0].tables[1]: 'marketplace_price_histroy' is not a table of kind 'marketplace'; did you mean 'marketplace_price_history'? its tables: marketplace_shops, marketplace_products, marketplace_product_models, marketplace_model_stocks, marketplace_product_attributes, marketplace_product_categories, marketplace_product_tier_variations, marketplace_product_tier_variation_options, marketplace_product_images, marketplace_price_history`,
    `${BAD}/bad-export-table.yaml:7:63: exports[0].tables[2]: 'job_records' is not a table of kind 'marketplace'; its tables: marketplace_shops, marketplace_products, marketplace_product_models, marketplace_model_stocks, marketplace_product_attributes, marketplace_product_categories, marketplace_product_tier_variations, marketplace_product_tier_variation_options, marketplace_product_images, marketplace_price_history`,
  ],
  'conditional.yaml': [`${BAD}/conditional.yaml:3:1: request.url: required when search_type is 'url'`],
  'bad-cron.yaml': [
    `${BAD}/bad-cron.yaml:4:9: schedule.cron: invalid cron expression: Constraint error, got value 61 expected range 0-59`,
  ],
  'bad-timezone.yaml': [
    `${BAD}/bad-timezone.yaml:5:13: schedule.timezone: expected an IANA time zone name such as 'UTC', 'Europe/Paris' or 'America/New_York'`,
  ],
  'unset-env.yaml': [
    `${BAD}/unset-env.yaml:4:13: destination.database: environment variable SCRAPE_ETL_TEST_UNSET_DB is not set (set it, or give a default: \${SCRAPE_ETL_TEST_UNSET_DB:-value})`,
  ],
  'token-in-file.yaml': [
    `${BAD}/token-in-file.yaml:5:3: request.api_token: secrets do not belong in a pipeline file; set SCRAPER_API_TOKEN in the worker's environment instead`,
  ],
  'token-value.yaml': [
    `${BAD}/token-value.yaml:5:7: request.urls[0]: this value contains the API token; set SCRAPER_API_TOKEN in the worker's environment instead`,
  ],
  'yaml-syntax.yaml': [
    `${BAD}/yaml-syntax.yaml:5:1: <yaml>: YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ]`,
  ],
  'many-errors.json': [
    `${BAD}/many-errors.json:2:11: name: expected lowercase letters, digits, _ and -, starting with a letter or digit`,
    `${BAD}/many-errors.json:5:14: request.urls[0]: expected an absolute http(s) URL`,
    `${BAD}/many-errors.json:8:16: request.timeout: must be greater than 0, got integer 0`,
    `${BAD}/many-errors.json:9:102: request.schema.items.properties.job_title.type: expected one of 'string', 'number', 'integer', 'boolean', got string 'text'`,
    `${BAD}/many-errors.json:11:36: polling.initial_interval: expected a duration: a whole number followed by ms, s, m, h or d (e.g. '500ms', '5s', '10m', '6h')`,
    `${BAD}/many-errors.json:12:3: concurrenzy: unknown key; did you mean 'concurrency'?`,
  ],
};

describe('scrape-etl validate', () => {
  it('accepts every example pipeline', async () => {
    const files = readdirSync(path.join(REPO_ROOT, EXAMPLES)).map((f) => path.join(EXAMPLES, f));
    expect(files).toHaveLength(6);
    const r = await runCli(['validate', ...files], { env: { DATABASE_URL: '' } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n').sort()).toEqual(files.map((f) => `OK ${f}`).sort());
  });

  it('reports every error of every broken file, exactly, and exits 2', async () => {
    const files = readdirSync(path.join(REPO_ROOT, BAD)).sort();
    expect(files.sort()).toEqual(Object.keys(EXPECTED).sort());
    const r = await runCli(['validate', ...files.map((f) => path.join(BAD, f))], {
      env: { SCRAPER_API_TOKEN: TOKEN, SCRAPE_ETL_TEST_UNSET_DB: undefined },
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines.pop()).toBe(`${files.length} of ${files.length} files invalid`);
    expect(lines).toEqual(files.flatMap((f) => EXPECTED[f]));
    expect(r.stderr).not.toContain(TOKEN);
  });

  it('a good file among bad ones is still reported OK; --json gives one object per file, each issue an object with its suggestion', async () => {
    const good = path.join(EXAMPLES, 'results.yaml');
    const bad = path.join(BAD, 'bad-enum.yaml');
    const kind = path.join(BAD, 'bad-kind.yaml');
    const r = await runCli(['validate', '--json', good, bad, kind]);
    expect(r.code).toBe(2);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    const message = (line: string) => line.split(': ').slice(2).join(': ');
    expect(out).toEqual([
      { file: good, ok: true, issues: [] },
      {
        file: bad,
        ok: false,
        issues: [
          {
            file: bad,
            line: 5,
            column: 19,
            path: 'request.sentiment_type',
            message: message(EXPECTED['bad-enum.yaml']![0]!),
            suggestion: null,
          },
        ],
      },
      {
        file: kind,
        ok: false,
        issues: [
          {
            file: kind,
            line: 2,
            column: 7,
            path: 'kind',
            message: message(EXPECTED['bad-kind.yaml']![0]!),
            suggestion: 'pdf',
          },
          {
            file: kind,
            line: 5,
            column: 13,
            path: 'polling.deadline',
            message: message(EXPECTED['bad-kind.yaml']![1]!),
            suggestion: null,
          },
        ],
      },
    ]);
  });

  it('a missing file is an error naming it', async () => {
    const r = await runCli(['validate', 'nope.yaml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nope.yaml:1:1: <file>: file not found');
  });
});
