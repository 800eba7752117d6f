// The fast tier of checks and watches, still against real parts: the expression grammar compiled to SQL and run
// on real SQLite and DuckDB files (hostile text stays a bound value, never SQL), every check type evaluated on a
// loaded destination, the `sql:` escape hatch refused writes and stopped at its timeout, `validate`'s positions
// for unknown tables and columns, the price-history migration of an existing DuckDB file, and the simulator's
// drift and v4 URLs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateChecks } from '../../../checks/evaluate.js';
import { ExpressionError, columnsOf, parseExpression, toSql } from '../../../checks/expression.js';
import { runReadOnlyQuery } from '../../../checks/sql-readonly.js';
import { openDatabase, type Database } from '../../../destinations/open.js';
import { withTransaction } from '../../../db/store/sql.js';
import { PipelineFileError } from '../../../pipelines/errors.js';
import { parsePipelineText } from '../../../pipelines/loader.js';
import type { CheckSpec } from '../../../pipelines/spec.js';
import { startSimulator } from '../../../simulator/server.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-checks-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const check = (c: Partial<CheckSpec> & Pick<CheckSpec, 'type'>): CheckSpec =>
  ({ name: c.type, severity: 'error', ...c }) as CheckSpec;

function problems(text: string): string[] {
  try {
    parsePipelineText(text, 'p.yaml', { env: {} });
    return [];
  } catch (err) {
    if (err instanceof PipelineFileError) return err.message.split('\n');
    throw err;
  }
}

const MARKET = `name: m
kind: marketplace
request:
  urls: [https://shopee.tw/api/v4/item/get?item_id=1&shop_id=2]
`;

describe('the expression grammar', () => {
  it('parses comparisons, in, is null, and/or/not with precedence, and lists the columns read', () => {
    const e = parseExpression("price_major > 0 and (currency in ('TWD', 'SGD') or not brand is null) and stock <> -1");
    expect(columnsOf(e).sort()).toEqual(['brand', 'currency', 'price_major', 'stock']);
    const params: unknown[] = [];
    expect(
      toSql(
        e,
        (c) => `"${c}"`,
        (v) => (params.push(v), `$${params.length}`),
      ),
    ).toBe('((("price_major" > $1) AND (("currency" IN ($2, $3)) OR (NOT ("brand" IS NULL)))) AND ("stock" <> $4))');
    expect(params).toEqual([0, 'TWD', 'SGD', -1]);
  });

  it('refuses what it does not know, with the offset of the problem', () => {
    const cases: Array<[string, string, number]> = [
      ['price_major >', 'expected a value', 13],
      ['price_major > 0; drop table x', "unexpected character ';'", 15],
      ["title = 'unterminated", 'unterminated string', 8],
      ['1 = 1', 'at least one column', 2],
      ['price > 0 price < 5', "unexpected 'price'", 10],
    ];
    for (const [src, message, offset] of cases) {
      let err: unknown;
      try {
        parseExpression(src);
      } catch (e) {
        err = e;
      }
      expect(err, src).toBeInstanceOf(ExpressionError);
      expect((err as ExpressionError).message, src).toContain(message);
      expect((err as ExpressionError).offset, src).toBe(offset);
    }
  });
});

describe('validate: checks and watches name tables and columns that exist', () => {
  it('reports unknown tables, columns and bad expressions at file:line:col, with the nearest name', () => {
    const out = problems(`${MARKET}checks:
  - type: range
    table: marketplace_products
    expression: price_majr > 0
  - type: not_null
    table: marketplace_prodcts
    columns: [title]
  - type: unique
    table: marketplace_products
    columns: [shop_id, itme_id]
watch:
  - type: new_rows
    table: job_records
  - type: price_drop
    by: 10%
    filter: currensy = 'TWD'
`);
    expect(out).toEqual([
      expect.stringMatching(
        /^p\.yaml:8:17: checks\[0\]\.expression: table 'marketplace_products' has no column 'price_majr'; did you mean 'price_major'\?/,
      ),
      expect.stringMatching(
        /^p\.yaml:10:12: checks\[1\]\.table: 'marketplace_prodcts' is not a table of kind 'marketplace'; did you mean 'marketplace_products'\?/,
      ),
      expect.stringMatching(
        /^p\.yaml:14:24: checks\[2\]\.columns\[1\]: table 'marketplace_products' has no column 'itme_id'; did you mean 'item_id'\?/,
      ),
      expect.stringMatching(/^p\.yaml:17:12: watch\[0\]\.table: 'job_records' is not a table of kind 'marketplace'/),
      expect.stringMatching(
        /^p\.yaml:20:13: watch\[1\]\.filter: table 'marketplace_price_history' has no column 'currensy'; did you mean 'currency'\?/,
      ),
    ]);
  });

  it('a watch no webhook subscribes to, a price watch on another kind, two checks of one name', () => {
    const out = problems(`name: j
kind: leads-social
request: {keywords: k, sentiment_type: all, expected_data: 3}
checks:
  - {type: not_null, table: leads_results, columns: [id]}
  - {type: not_null, table: leads_results, columns: [id]}
watch:
  - {type: price_drop, by: 10%}
  - {type: new_rows, table: leads_results}
notify:
  webhooks: [{url: 'https://hooks.example.com/x', on: [failed]}]
`);
    expect(out.join('\n')).toContain("p.yaml:6:5: checks[1]: a second check named 'not_null:leads_results.id'");
    expect(out.join('\n')).toContain(
      "watch[0].type: price_drop watches marketplace prices and stock; this pipeline is kind 'leads-social'",
    );
    expect(out.join('\n')).toContain('p.yaml:9:5: watch[1]: no webhook of notify.webhooks subscribes to new_rows');
  });

  it('a valid file gets default names and severities; v4 product URLs are accepted', () => {
    const spec = parsePipelineText(
      `${MARKET}checks:
  - {type: range, table: marketplace_products, expression: price_major > 0}
  - {type: null_rate, table: marketplace_products, column: title, max: 5%, severity: warn}
watch:
  - {type: price_drop, by: 10%}
`,
      'p.yaml',
      { env: {} },
    );
    expect(spec.checks?.map((c) => [c.name, c.severity])).toEqual([
      ['range:marketplace_products', 'error'],
      ['null_rate:marketplace_products.title', 'warn'],
    ]);
    expect(spec.watch).toEqual([{ type: 'price_drop', name: 'price_drop', by: '10%', level: 'product', top: 10 }]);
  });
});

describe('validate: checks on inferred tables, against the destination', () => {
  it('cannot be verified before the first run (a warning); after it, an unknown column is an error at file:line:col', async () => {
    const { validateFiles } = await import('../../../cli/commands/validate.js');
    const dbFile = path.join(dir, 'inferred.sqlite');
    const file = path.join(dir, 'leads.yaml');
    const yaml = (column: string) => `name: leads
kind: leads-social
destination:
  database: sqlite:${dbFile}
request: {keywords: k, sentiment_type: all, expected_data: 3}
checks:
  - type: not_null
    table: leads_items
    columns: [${column}]
`;
    fs.writeFileSync(file, yaml('email'));
    const before = await validateFiles([file]);
    expect(before[0]).toMatchObject({
      ok: true,
      warnings: [
        `${file}:8:12: checks[0].table: table 'leads_items' is inferred from the data and the destination does not hold it yet: its columns cannot be verified before the first run (warning)`,
      ],
    });

    const db = await openDatabase(`sqlite:${dbFile}`);
    await withTransaction(db, async (tx) => {
      for (const c of ['email', 'name']) {
        await tx.run(
          `INSERT INTO schema_history (table_name, column_name, data_type, change, pipeline, load_id, changed_at) VALUES ('leads_items', ?, 'text', 'create_table', 'leads', 1, '2026-01-01T00:00:00Z')`,
          [c],
        );
      }
    });
    await db.close();
    expect((await validateFiles([file]))[0]).toMatchObject({ ok: true, issues: [] });
    fs.writeFileSync(file, yaml('emial'));
    const after = await validateFiles([file]);
    expect(after[0]?.ok).toBe(false);
    expect(after[0]?.issues).toEqual([
      `${file}:8:12: checks[0].table: table 'leads_items' has no column 'emial' in the destination; its columns: email, name`,
    ]);
  });
});

describe('evaluation on a real destination', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase(`sqlite:${path.join(dir, 'eval.sqlite')}`);
    await withTransaction(db, async (tx) => {
      const rows: Array<[number, string | null, number | null, string]> = [
        [1, 'Mug', 169, 'TWD'],
        [2, 'Cup', 0, 'TWD'],
        [3, null, 50, 'XXX'],
        [4, "Robert'); DROP TABLE marketplace_products;--", -5, 'TWD'],
      ];
      for (const [item, title, price, currency] of rows) {
        await tx.run(
          `INSERT INTO marketplace_products (shop_id, item_id, title, price_major, currency, price_divisor, pipeline, load_id, loaded_at, row_hash) VALUES (7, ?, ?, ?, ?, 100000, 'p', 1, '2026-01-01T00:00:00.000Z', 'h')`,
          [item, title, price, currency],
        );
      }
      // Another pipeline's rows are never counted.
      await tx.run(
        `INSERT INTO marketplace_products (shop_id, item_id, title, price_major, price_divisor, pipeline, load_id, loaded_at, row_hash) VALUES (7, 9, NULL, -1, 1, 'other', 1, '2026-01-01T00:00:00.000Z', 'h')`,
        [],
      );
    });
  });
  afterAll(async () => db?.close());

  it('each check type: observed value, threshold and a sample of failing keys', async () => {
    const results = await evaluateChecks(db, {
      pipeline: 'p',
      workflowId: 'w1',
      rowsLoaded: { marketplace_products: 4 },
      checks: [
        check({ type: 'range', table: 'marketplace_products', expression: 'price_major > 0' }),
        check({ type: 'null_rate', table: 'marketplace_products', column: 'title', max: '20%' }),
        check({ type: 'not_null', table: 'marketplace_products', columns: ['currency'] }),
        check({ type: 'unique', table: 'marketplace_products', columns: ['shop_id'] }),
        check({ type: 'accepted_values', table: 'marketplace_products', column: 'currency', values: ['TWD', 'SGD'] }),
        check({ type: 'row_count', table: 'marketplace_products', scope: 'table', min: 5 }),
        check({
          type: 'schema',
          table: 'marketplace_products',
          columns: { price_major: 'double', title: 'text', item_id: 'int', gone: 'text', currency: 'int' },
        }),
        check({
          type: 'sql',
          sql: "SELECT item_id FROM marketplace_products WHERE pipeline = 'p' AND title LIKE 'Robert%'",
        }),
        check({
          type: 'range',
          table: 'marketplace_products',
          expression: "title = 'x''); DELETE FROM marketplace_products; --' or price_major > 100",
        }),
      ],
    });
    const by = (i: number) => results[i]!;
    expect(by(0)).toMatchObject({
      status: 'fail',
      observed: '2 of 4 rows outside',
      failingKeys: [
        { shop_id: 7, item_id: 2 },
        { shop_id: 7, item_id: 4 },
      ],
    });
    expect(by(1)).toMatchObject({
      status: 'fail',
      observed: '25% (1 of 4 rows)',
      observedValue: 25,
      threshold: '<= 20%',
      failingKeys: [{ shop_id: 7, item_id: 3 }],
    });
    expect(by(2)).toMatchObject({ status: 'pass', observed: '0 rows with NULL' });
    expect(by(3)).toMatchObject({
      status: 'fail',
      observed: '1 duplicated value',
      failingKeys: [{ shop_id: 7, copies: 4 }],
    });
    expect(by(4)).toMatchObject({ status: 'fail', failingKeys: [{ shop_id: 7, item_id: 3 }] });
    expect(by(5)).toMatchObject({
      status: 'fail',
      observed: '4 rows',
      message: 'marketplace_products: 4 rows, fewer than 5',
    });
    expect(by(6)).toMatchObject({ status: 'fail', observed: 'gone is missing; currency is text, expected int' });
    expect(by(7)).toMatchObject({ status: 'fail', observed: '1 row', failingKeys: [{ item_id: 4 }] });
    // The hostile text was a value compared with title: nothing deleted, one row (169) satisfies the expression.
    expect(by(8)).toMatchObject({ status: 'fail', observed: '3 of 4 rows outside' });
    const [n] = await withTransaction(db, (tx) => tx.all('SELECT count(*) AS n FROM marketplace_products', []));
    expect(Number(n?.['n'])).toBe(5);
  });

  it('failures are counted in scrape_etl_check_failures_total and recorded in check_results', async () => {
    const { evaluateAndRecord } = await import('../../../checks/run-checks.js');
    const { createMetrics } = await import('../../../temporal/metrics.js');
    const metrics = createMetrics();
    const out = await evaluateAndRecord(db, {
      pipeline: 'p',
      workflowId: 'w-metrics',
      metrics,
      checks: [
        check({ type: 'range', table: 'marketplace_products', expression: 'price_major > 0' }),
        {
          ...check({ type: 'not_null', table: 'marketplace_products', columns: ['title'] }),
          severity: 'warn',
        } as CheckSpec,
      ],
    });
    expect([out.errorsFailed, out.warnsFailed]).toEqual([1, 1]);
    const text = await metrics.registry.metrics();
    expect(text).toContain('scrape_etl_check_failures_total{pipeline="p",check="range",severity="error"} 1');
    expect(text).toContain('scrape_etl_check_failures_total{pipeline="p",check="not_null",severity="warn"} 1');
    const { listCheckResults } = await import('../../../checks/evaluate.js');
    expect((await listCheckResults(db, { workflowId: 'w-metrics' })).map((r) => [r.name, r.status]).sort()).toEqual([
      ['not_null', 'fail'],
      ['range', 'fail'],
    ]);
  });

  it('a check on a column that does not exist is an error of that check, not a pass', async () => {
    const [r] = await evaluateChecks(db, {
      pipeline: 'p',
      workflowId: 'w2',
      checks: [check({ type: 'not_null', table: 'marketplace_products', columns: ['nope'] })],
    });
    expect(r).toMatchObject({
      status: 'error',
      message: "could not be evaluated: table 'marketplace_products' has no column 'nope'",
    });
  });

  it('sql: a write is refused by the read-only connection, a runaway query is stopped at the timeout', async () => {
    await expect(
      runReadOnlyQuery(db, 'DELETE FROM marketplace_products RETURNING item_id', { limit: 5, timeoutMs: 5000 }),
    ).rejects.toThrow();
    await expect(
      runReadOnlyQuery(
        db,
        'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c WHERE x < 0',
        { limit: 5, timeoutMs: 300 },
      ),
    ).rejects.toThrow('ran longer than 300 ms');
    const { rows } = await runReadOnlyQuery(db, 'SELECT item_id FROM marketplace_products ORDER BY item_id;', {
      limit: 2,
      timeoutMs: 5000,
    });
    expect(rows).toEqual([{ item_id: 1 }, { item_id: 2 }]);
    const [n] = await withTransaction(db, (tx) => tx.all('SELECT count(*) AS n FROM marketplace_products', []));
    expect(Number(n?.['n'])).toBe(5);
  });

  it('DuckDB: the same checks, and a write in sql: is rolled back', async () => {
    const duck = await openDatabase(`duckdb:${path.join(dir, 'eval.duckdb')}`);
    try {
      await withTransaction(duck, (tx) =>
        tx.run(
          `INSERT INTO marketplace_products (shop_id, item_id, title, price_major, price_divisor, pipeline, load_id, loaded_at, row_hash) VALUES (7, 1, NULL, 0, 1, 'p', 1, now(), 'h')`,
          [],
        ),
      );
      const results = await evaluateChecks(duck, {
        pipeline: 'p',
        workflowId: 'w',
        checks: [
          check({ type: 'range', table: 'marketplace_products', expression: 'price_major > 0' }),
          check({ type: 'null_rate', table: 'marketplace_products', column: 'title', max: '5%' }),
        ],
      });
      expect(results.map((r) => r.observed)).toEqual(['1 of 1 rows outside', '100% (1 of 1 rows)']);
      await runReadOnlyQuery(duck, 'SELECT * FROM (SELECT 1 AS one) t, (SELECT 1) u WHERE one = 1', {
        limit: 5,
        timeoutMs: 5000,
      });
      const cols = await withTransaction(duck, (tx) =>
        tx.all(
          `SELECT column_name FROM information_schema.columns WHERE table_name = 'marketplace_price_history' ORDER BY ordinal_position`,
          [],
        ),
      );
      expect(cols.map((c) => c['column_name']).slice(-2)).toEqual(['workflow_id', 'previous_price_major']);
    } finally {
      await duck.close();
    }
  });
});

describe('existing databases gain the price history columns and the new tables', () => {
  it('DuckDB: a version-1 file (price history without workflow_id and previous_price_major, no check tables) is brought to the current version by every step, rows kept', async () => {
    const file = path.join(dir, 'old.duckdb');
    // Make a version-1 file: the current baseline, then the price history as version 1 had it and no check tables.
    await (await openDatabase(`duckdb:${file}`)).close();
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const { tableDdl, SCHEMA_VERSION_TABLE, DUCKDB_SCHEMA_VERSION } =
      await import('../../../destinations/duckdb/ddl.js');
    const { TABLES } = await import('../../../db/model/schema/definition.js');
    const { workflow_id: _w, previous_price_major: _p, ...oldColumns } = TABLES.marketplace_price_history.columns;
    const instance = await DuckDBInstance.create(file);
    const conn = await instance.connect();
    for (const t of ['check_results', 'watch_events', 'watch_state', 'marketplace_price_history'])
      await conn.run(`DROP TABLE ${t}`);
    await conn.run('DROP SEQUENCE IF EXISTS check_results_id_seq');
    for (const sql of tableDdl('marketplace_price_history', {
      ...TABLES.marketplace_price_history,
      columns: oldColumns,
    } as never))
      await conn.run(sql);
    await conn.run(
      `INSERT INTO marketplace_price_history (shop_id, item_id, price, pipeline, load_id, loaded_at, row_hash) VALUES (1, 2, 300, 'p', 1, now(), 'h')`,
    );
    // Hostile content's step-3 parts too. (Alerts' step-2 columns stay: DuckDB refuses to drop a column of
    // pipeline_runs, which other entries depend on; that step is IF NOT EXISTS, and its version row is checked below.)
    for (const sql of [
      'DROP TABLE rejected_results',
      'DROP SEQUENCE rejected_results_id_seq',
      'DROP INDEX schema_history_root_table_idx',
      'ALTER TABLE schema_history DROP COLUMN root_table',
      'ALTER TABLE schema_history DROP COLUMN source_key',
    ])
      await conn.run(sql);
    // A new file records only the version its baseline is (the current one), so the version table is rewritten.
    await conn.run(`DELETE FROM ${SCHEMA_VERSION_TABLE}`);
    await conn.run(`INSERT INTO ${SCHEMA_VERSION_TABLE} VALUES (1, now())`);
    conn.closeSync();
    instance.closeSync();

    const db = await openDatabase(`duckdb:${file}`);
    try {
      const cols = await withTransaction(db, (tx) =>
        tx.all(
          `SELECT column_name FROM information_schema.columns WHERE table_name = 'marketplace_price_history' ORDER BY ordinal_position`,
          [],
        ),
      );
      expect(cols.map((c) => c['column_name']).slice(-2)).toEqual(['workflow_id', 'previous_price_major']);
      // Every step ran, in order, up to the current version: 2 (alerts), 3 (hostile content), 4 (checks), 5 (indexes
      // DuckDB never reads dropped), 6 (rows seen), 7 (spend control: spend_calls, pipeline_runs.status_reason),
      // 8 (views and comments), 9 (columns typed for what they hold), 10 (the indexes step 9 dropped, made again) and
      // 11 (values kept out: raw_responses.kept_out, pipeline_runs.kept_out and kept_out_sample).
      const versions = await withTransaction(db, (tx) =>
        tx.all(`SELECT version FROM ${SCHEMA_VERSION_TABLE} ORDER BY version`, []),
      );
      expect(versions.map((r) => Number(r['version']))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
      expect(DUCKDB_SCHEMA_VERSION).toBe(11);
      const spend = await withTransaction(db, (tx) =>
        tx.all(`SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'spend_calls'`, []),
      );
      expect(Number(spend[0]?.['n'])).toBe(1);
      const stepColumns = await withTransaction(db, (tx) =>
        tx.all(
          `SELECT table_name || '.' || column_name AS c FROM information_schema.columns WHERE column_name IN ('alert_status', 'alert_error', 'source_key', 'root_table') ORDER BY 1`,
          [],
        ),
      );
      expect(stepColumns.map((r) => r['c'])).toEqual([
        'pipeline_runs.alert_error',
        'pipeline_runs.alert_status',
        'schema_history.root_table',
        'schema_history.source_key',
      ]);
      const newTables = await withTransaction(db, (tx) =>
        tx.all(
          `SELECT table_name FROM information_schema.tables WHERE table_name IN ('rejected_results', 'check_results', 'watch_events', 'watch_state') ORDER BY 1`,
          [],
        ),
      );
      expect(newTables.map((r) => r['table_name'])).toEqual([
        'check_results',
        'rejected_results',
        'watch_events',
        'watch_state',
      ]);
      const kept = await withTransaction(db, (tx) =>
        tx.all('SELECT item_id, price, workflow_id FROM marketplace_price_history', []),
      );
      expect(kept).toEqual([{ item_id: 2n, price: 300n, workflow_id: null }]);
      const results = await evaluateChecks(db, {
        pipeline: 'p',
        workflowId: 'w',
        checks: [check({ type: 'not_null', table: 'marketplace_price_history', columns: ['price'] })],
      });
      expect(results[0]?.status).toBe('pass');
      const { recordCheckResults } = await import('../../../checks/evaluate.js');
      await recordCheckResults(db, 'p', 'w', results);
      const stored = await withTransaction(db, (tx) => tx.all('SELECT check_name, status FROM check_results', []));
      expect(stored).toEqual([{ check_name: 'not_null', status: 'pass' }]);
    } finally {
      await db.close();
    }
  });
});

describe('simulator drift and v4 URLs', () => {
  it('prices and stock change per epoch, the same for the same seed; v4 and v2 URLs name the same product', async () => {
    const sim = await startSimulator({ port: 0, token: 't', seed: 3, priceDrift: true });
    const other = await startSimulator({ port: 0, token: 't', seed: 3, priceDrift: true });
    try {
      const v2 = 'https://shopee.tw/api/v2/item/get?itemid=4420309814&shopid=10115139';
      const v4 = 'https://shopee.tw/api/v4/pdp/get_pc?item_id=4420309814&shop_id=10115139';
      const price = (s: typeof sim, url: string, epoch: number) =>
        (s.truth.productAt(url, epoch) as { data: { data: { item: { price: number } } } }).data.data.item.price;
      expect(price(sim, v4, 0)).toBe(price(sim, v2, 0));
      const byEpoch = [0, 1, 2, 3, 4, 5].map((e) => price(sim, v2, e));
      expect(new Set(byEpoch).size).toBeGreaterThan(1);
      expect([0, 1, 2, 3, 4, 5].map((e) => price(other, v2, e))).toEqual(byEpoch);
      // Over HTTP: the admin call advances the epoch, and the endpoint answers the truth of that epoch.
      const post = (p: string, body: unknown) =>
        fetch(`${sim.baseUrl}${p}`, {
          method: 'POST',
          headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const drift = (await (await post('/_sim/drift', { advance: true })).json()) as { epoch: number };
      expect(drift.epoch).toBe(1);
      const got = (await (await post('/api/marketplace/sync', { url: v4 })).json()) as {
        data: { data: { item: { price: number } } };
      };
      expect(got.data.data.item.price).toBe(byEpoch[1]);
      expect((await post('/_sim/drift', { vanish_rate: 2 })).status).toBe(422);
      expect((await post('/_sim/drift', { bogus: 1 })).status).toBe(422);
    } finally {
      await sim.close();
      await other.close();
    }
  });
});
