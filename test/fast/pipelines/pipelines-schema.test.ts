import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { PipelineFileError } from '../../../pipelines/errors.js';
import { PIPELINE_JSON_SCHEMA_PATH, pipelineJsonSchemaText } from '../../../pipelines/json-schema.js';
import { loadPipelineFile, parsePipelineText } from '../../../pipelines/loader.js';
import { parseDurationMs } from '../../../pipelines/duration.js';
import { pythonReadersEnv } from '../../support/python-readers.js';

const env = {};
function errorsOf(text: string, e: NodeJS.ProcessEnv = env): string[] {
  try {
    parsePipelineText(text, 'p.yaml', { env: e });
  } catch (err) {
    if (err instanceof PipelineFileError) return err.message.split('\n');
    throw err;
  }
  throw new Error('expected the file to be rejected');
}

describe('pipeline schema', () => {
  it('the shipped pipeline.schema.json is the one generated from the zod schema (npm run schema:generate)', () => {
    expect(readFileSync(PIPELINE_JSON_SCHEMA_PATH, 'utf8')).toBe(pipelineJsonSchemaText());
  });

  it('fills every default, and request.name from the pipeline name', () => {
    const spec = parsePipelineText(
      'name: s1\nkind: leads-social\nrequest: {keywords: k, sentiment_type: all, expected_data: 3}\nexports: [{dir: out}]\n',
      'p.yaml',
      { env },
    );
    expect(spec).toEqual({
      name: 's1',
      kind: 'leads-social',
      request: { name: 's1', keywords: 'k', sentiment_type: 'all', expected_data: 3 },
      destination: { database: 'sqlite:./data/scrape-etl.sqlite' },
      exports: [
        {
          dir: 'out',
          format: 'csv',
          tables: [],
          mode: 'full',
          write_empty: false,
          delimiter: ',',
          bom: false,
          null_text: '',
          file_name: '{pipeline}_{table}_{timestamp}.csv',
          neutralize_formulas: true,
        },
      ],
      polling: { initial_interval: '2s', backoff_coefficient: 2, max_interval: '1m', deadline: '6h' },
      concurrency: 4,
      price_divisor: 100000,
      schema: { mode: 'evolve' },
    });
  });

  it('merge_key: content paths for content kinds only; schema.mode is one of evolve, freeze, discard_columns', () => {
    expect(
      parsePipelineText(
        'name: l\nkind: leads-social\nrequest: {keywords: k, sentiment_type: all, expected_data: 3}\nmerge_key: [email, author.handle]\nschema: {mode: freeze}\n',
        'p.yaml',
        { env },
      ),
    ).toMatchObject({
      merge_key: ['email', 'author.handle'],
      schema: { mode: 'freeze' },
    });
    expect(() =>
      parsePipelineText(
        'name: m\nkind: marketplace\nrequest: {urls: ["https://shopee.tw/api/v2/item/get?itemid=1&shopid=2"]}\nmerge_key: [item_id]\n',
        'p.yaml',
        { env },
      ),
    ).toThrow(/merge_key.*applies to pdf, leads-\* and results pipelines/s);
    expect(() => parsePipelineText('name: l\nkind: results\nmerge_key: [email, email]\n', 'p.yaml', { env })).toThrow(
      /lists a path twice/,
    );
    expect(() => parsePipelineText('name: l\nkind: results\nschema: {mode: frozen}\n', 'p.yaml', { env })).toThrow(
      /schema\.mode/,
    );
  });

  it('exports[].format: the default file name follows it, CSV-only keys are refused for the other formats', () => {
    const spec = parsePipelineText(
      'name: r\nkind: results\nexports:\n  - {dir: a, format: parquet}\n  - {dir: b, format: jsonl, file_name: "{table}.json"}\n  - {dir: c, format: xlsx, neutralize_formulas: false}\n',
      'p.yaml',
      { env },
    );
    expect(spec.exports.map((e) => [e.format, e.file_name])).toEqual([
      ['parquet', '{pipeline}_{table}_{timestamp}.parquet'],
      ['jsonl', '{table}.json'],
      ['xlsx', '{pipeline}_{table}_{timestamp}.xlsx'],
    ]);
    expect(
      errorsOf(
        'name: r\nkind: results\nexports:\n  - {dir: a, format: parquet, delimiter: ";", bom: true}\n  - {dir: b, format: xml}\n',
      ),
    ).toEqual([
      'p.yaml:4:42: exports[0].delimiter: applies to format csv only (this export is parquet); remove it',
      'p.yaml:4:52: exports[0].bom: applies to format csv only (this export is parquet); remove it',
      "p.yaml:5:22: exports[1].format: expected one of 'csv', 'parquet', 'jsonl', 'xlsx', got string 'xml'",
    ]);
  });

  it('exports[].write_empty: false by default, true for incremental exports only', () => {
    const spec = parsePipelineText(
      'name: r\nkind: results\nexports:\n  - {dir: a, mode: incremental}\n  - {dir: b, mode: incremental, write_empty: true}\n',
      'p.yaml',
      { env },
    );
    expect(spec.exports.map((e) => [e.mode, e.write_empty])).toEqual([
      ['incremental', false],
      ['incremental', true],
    ]);
    expect(errorsOf('name: r\nkind: results\nexports:\n  - {dir: a, write_empty: true}\n')).toEqual([
      'p.yaml:4:27: exports[0].write_empty: applies to mode incremental only (a full export always writes its files); remove it',
    ]);
  });

  it('DATABASE_URL is the default destination; ${VAR:-default} in a plain scalar keeps its YAML type', () => {
    const spec = parsePipelineText(
      'name: r\nkind: results\nconcurrency: ${C:-7}\nrequest:\n  per_page: ${P:-9}\n',
      'p.yaml',
      {
        env: { DATABASE_URL: 'postgres://u@h/db' },
      },
    );
    expect(spec.destination.database).toBe('postgres://u@h/db');
    expect(spec.concurrency).toBe(7);
    expect(spec.request).toEqual({ per_page: 9 });
    // quoted: stays a string, so the integer check reports it
    expect(errorsOf('name: r\nkind: results\nrequest: {per_page: "${P:-9}"}\n')).toEqual([
      "p.yaml:3:21: request.per_page: expected an integer, got string '9'",
    ]);
  });

  it('schedule defaults and checks', () => {
    const spec = parsePipelineText('name: r\nkind: results\nschedule: {cron: "*/5 * * * *"}\n', 'p.yaml', { env });
    expect(spec.schedule).toEqual({
      cron: '*/5 * * * *',
      timezone: 'UTC',
      overlap: 'skip',
      catchup_window: '1h',
      paused: false,
    });
    expect(errorsOf('name: r\nkind: results\nschedule: {cron: "0 0 * * * *", overlap: never}\n')).toEqual([
      'p.yaml:3:18: schedule.cron: expected 5 fields (minute hour day-of-month month day-of-week), got 6',
      "p.yaml:3:42: schedule.overlap: expected one of 'skip', 'buffer_one', 'buffer_all', 'cancel_other', 'terminate_other', 'allow_all', got string 'never'",
    ]);
  });

  it('a reference to SCRAPER_API_TOKEN is refused without printing the token', () => {
    const lines = errorsOf('name: r\nkind: results\ndestination: {database: "sqlite:${SCRAPER_API_TOKEN}"}\n', {
      SCRAPER_API_TOKEN: 'tok-secret-1',
    });
    expect(lines).toEqual([
      'p.yaml:3:25: destination.database: do not reference SCRAPER_API_TOKEN in a pipeline file: the worker reads it from its own environment',
    ]);
  });

  it('job-board: data schema shape, min <= max, and a far-off unknown key lists the allowed keys', () => {
    const lines = errorsOf(
      [
        'name: j',
        'kind: job-board',
        'request:',
        '  urls: [https://example.com/jobs]',
        '  min: 9',
        '  max: 3',
        '  timeout: 10',
        '  schema: {type: object, items: {type: object, properties: {a: {type: string}}, required: [b]}}',
        '  zzzzzzzz: 1',
      ].join('\n'),
    );
    expect(lines).toEqual([
      'p.yaml:5:8: request.min: must not be greater than max (3)',
      "p.yaml:8:18: request.schema.type: expected 'array', got string 'object'",
      'p.yaml:9:3: zzzzzzzz: unknown key; allowed keys: urls, min, max, timeout, schema'.replace(
        'zzzzzzzz',
        'request.zzzzzzzz',
      ),
    ]);
  });

  it('job-board: required names must be defined properties', () => {
    const text =
      'name: j\nkind: job-board\nrequest:\n  urls: [https://example.com/jobs]\n  min: 1\n  max: 3\n  timeout: 10\n  schema: {type: array, items: {type: object, properties: {a: {type: string}}, required: [a, b]}}\n';
    expect(errorsOf(text)).toEqual([
      "p.yaml:8:94: request.schema.items.required[1]: 'b' is not one of items.properties (a)",
    ]);
  });

  it('an empty file and a second YAML document are errors', () => {
    expect(errorsOf('')).toEqual([
      'p.yaml:1:1: <root>: the file is empty; expected a pipeline mapping with name, kind and request',
    ]);
    expect(errorsOf('name: a\n---\nname: b\n')[0]).toMatch(
      /^p\.yaml:\d+:\d+: <yaml>: a pipeline file holds one pipeline/,
    );
  });

  it('durations', () => {
    expect(parseDurationMs('500ms')).toBe(500);
    expect(parseDurationMs('6h')).toBe(21_600_000);
    expect(() => parseDurationMs('5 s')).toThrow(/invalid duration/);
  });

  it("request.urls_file: the JSON Schema (checked by Python's jsonschema) accepts exactly the files the loader accepts", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'urls-file-schema-'));
    try {
      writeFileSync(
        path.join(dir, 'urls.txt'),
        '# products\nhttps://shopee.tw/api/v2/item/get?itemid=1&shopid=2\n\nhttps://shopee.tw/api/v2/item/get?itemid=3&shopid=2\n',
      );
      writeFileSync(path.join(dir, 'jobs.txt'), 'https://remoteok.com/remote-typescript-jobs\n');
      const url = 'https://shopee.tw/api/v2/item/get?itemid=1&shopid=2';
      const jobSchema =
        '  min: 1\n  max: 10\n  timeout: 60\n  schema: {type: array, items: {type: object, properties: {title: {type: string}}}}\n';
      const cases: Array<[string, string]> = [
        ['marketplace, urls_file', 'name: m\nkind: marketplace\nrequest:\n  urls_file: urls.txt\n'],
        ['marketplace, urls', `name: m\nkind: marketplace\nrequest:\n  urls: ["${url}"]\n`],
        ['marketplace, both', `name: m\nkind: marketplace\nrequest:\n  urls: ["${url}"]\n  urls_file: urls.txt\n`],
        ['marketplace, neither', 'name: m\nkind: marketplace\nrequest: {}\n'],
        ['marketplace, urls_file blank', 'name: m\nkind: marketplace\nrequest:\n  urls_file: " "\n'],
        ['marketplace, urls_file not a string', 'name: m\nkind: marketplace\nrequest:\n  urls_file: [urls.txt]\n'],
        ['job-board, urls_file', `name: j\nkind: job-board\nrequest:\n  urls_file: jobs.txt\n${jobSchema}`],
        [
          'job-board, both',
          `name: j\nkind: job-board\nrequest:\n  urls: [https://remoteok.com/x]\n  urls_file: jobs.txt\n${jobSchema}`,
        ],
        [
          'leads-social, urls_file',
          'name: l\nkind: leads-social\nrequest:\n  keywords: k\n  sentiment_type: all\n  expected_data: 3\n  urls_file: urls.txt\n',
        ],
      ];
      const byLoader: boolean[] = [];
      for (const [i, [, text]] of cases.entries()) {
        const file = path.join(dir, `p${i}.yaml`);
        writeFileSync(file, text);
        byLoader.push(
          await loadPipelineFile(file, { env }).then(
            () => true,
            (err: unknown) => (err instanceof PipelineFileError ? false : Promise.reject(err)),
          ),
        );
      }
      const instances = cases.map(([, text]) => parseYaml(text) as unknown);
      const py = spawnSync(
        'python3',
        [
          '-c',
          'import json,sys,jsonschema; s=json.load(open(sys.argv[1])); v=jsonschema.Draft202012Validator(s); print(json.dumps([v.is_valid(i) for i in json.load(sys.stdin)]))',
          PIPELINE_JSON_SCHEMA_PATH,
        ],
        { input: JSON.stringify(instances), encoding: 'utf8', env: pythonReadersEnv() },
      );
      expect(py.status, py.stderr).toBe(0);
      const bySchema = JSON.parse(py.stdout) as boolean[];
      const verdicts = cases.map(
        ([name], i) =>
          `${name}: loader ${byLoader[i] ? 'accepts' : 'rejects'}, schema ${bySchema[i] ? 'accepts' : 'rejects'}`,
      );
      expect(verdicts).toEqual(
        cases.map(
          ([name], i) =>
            `${name}: loader ${byLoader[i] ? 'accepts' : 'rejects'}, schema ${byLoader[i] ? 'accepts' : 'rejects'}`,
        ),
      );
      // The cases mean something: both forms accepted, the wrong ones refused.
      expect(byLoader).toEqual([true, true, false, false, false, false, true, false, false]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
