// The analyst's hand-off on files (issue 40): every table and column of the model described once
// (db/model/schema/descriptions.ts), and those descriptions in the database (SQLite's scrape_etl_comments, DuckDB's
// COMMENT ON) exactly, also for what schema evolution adds; the views (pipeline_freshness moving with every run that
// loaded, results_landed marking the results sync's copies); and `schema export`'s catalog and formats built from
// them (dbt's sources.yml read back by the yaml parser). Postgres's comments: test/integration/db/db-comments.test.ts;
// dbt itself on Postgres and DuckDB: test/integration/db/db-dbt-build.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../destinations/open.js';
import type { Database } from '../../../destinations/contract.js';
import { finishPipelineRun, startPipelineRun } from '../../../db/store/pipeline-runs.js';
import { loadBatch } from '../../../db/store/load.js';
import { withTransaction } from '../../../db/store/sql.js';
import { TABLES } from '../../../db/model/schema/definition.js';
import { TABLE_DOCS, VIEW_DOCS, type TableDoc } from '../../../db/model/schema/descriptions.js';
import { modelComments, SQLITE_COMMENTS_TABLE } from '../../../db/model/schema/comments.js';
import { buildCatalog, scheduleIntervalMinutes, type CatalogPipeline } from '../../../db/model/schema/catalog.js';
import { renderDbml, renderDbt, renderMermaid } from '../../../db/model/schema/export-formats.js';
import { selectSchemaHistory } from '../../../db/store/evolve/history.js';
import { contentTableName } from '../../../db/model/evolve/names.js';
import { RECORDED_RUN_STATES } from '../../../lib/run-states.js';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warehouse-docs-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const docs = TABLE_DOCS as unknown as Record<string, TableDoc>;

/** A results page whose content has a nested list, landed as the results sync lands it (content tables included). */
async function loadLeads(
  db: Database,
  pipeline: string,
  resultTable: 'leads_results' | 'scraper_results',
  ids: number[],
) {
  const data = {
    data: ids.map((id) => ({
      id,
      scraper_id: 7,
      scraping_run_id: 70,
      scraper_name: 'leads',
      scraped_url: 'Default',
      status: 'succeeded',
      content: {
        name: `Lead ${id}`,
        email: `lead${id}@example.com`,
        social_profiles: [{ network: 'x', url: `https://x.example/${id}` }],
      },
      created_at: '2026-01-01T00:00:00.000000Z',
      updated_at: '2026-01-01T00:00:00.000000Z',
    })),
  };
  return loadBatch(db, {
    pipeline,
    endpoint: 'GET /api/results',
    requestKey: `page-${ids.join('-')}`,
    raw: JSON.stringify(data),
    kind: 'results',
    data: data as never,
    resultTable,
    content: { table: contentTableName(pipeline), mode: 'evolve' },
  });
}

describe('descriptions (db/model/schema/descriptions.ts)', () => {
  it('describe every table and column of the definition, and nothing else, each in words', () => {
    expect(Object.keys(docs).sort()).toEqual(Object.keys(TABLES).sort());
    for (const [table, def] of Object.entries(TABLES)) {
      expect(Object.keys(docs[table]!.columns), table).toEqual(Object.keys(def.columns));
      expect(docs[table]!.description.length, table).toBeGreaterThan(20);
      for (const [c, text] of Object.entries(docs[table]!.columns))
        expect(text.length, `${table}.${c}`).toBeGreaterThan(5);
    }
  });

  it("name relations by columns that exist, to the parent's natural key, and closed values of real columns", () => {
    for (const [table, doc] of Object.entries(docs)) {
      const cols = Object.keys((TABLES as unknown as Record<string, { columns: object }>)[table]!.columns);
      for (const r of doc.relations ?? []) {
        const parent = (TABLES as unknown as Record<string, { columns: object; primaryKey?: readonly string[] }>)[
          r.parent
        ];
        expect(parent, `${table} -> ${r.parent}`).toBeDefined();
        expect(
          r.columns.every((c) => cols.includes(c)),
          `${table}: ${r.columns.join(', ')}`,
        ).toBe(true);
        expect(
          r.parentColumns.every((c) => c in parent!.columns),
          `${r.parent}: ${r.parentColumns.join(', ')}`,
        ).toBe(true);
        expect(r.columns.length).toBe(r.parentColumns.length);
      }
      for (const c of Object.keys(doc.acceptedValues ?? {})) expect(cols, `${table}.${c}`).toContain(c);
    }
    // pipeline_runs.status from the code's one definition (lib/run-states.ts), all of it.
    expect(docs['pipeline_runs']!.acceptedValues!['status']!.values).toEqual(RECORDED_RUN_STATES);
    expect(docs['pipeline_runs']!.columns['status']).toContain(RECORDED_RUN_STATES.join(', '));
  });
});

describe.each(['sqlite', 'duckdb'] as const)('on a %s file', (engine) => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase(`${engine}:${path.join(dir, `w.${engine}`)}`);
  });
  afterAll(async () => db?.close());

  const comments = (): Promise<Array<{ t: string; c: string; comment: string }>> =>
    withTransaction(db, async (tx) => {
      const rows =
        engine === 'sqlite'
          ? await tx.all(`SELECT table_name AS t, column_name AS c, comment FROM ${SQLITE_COMMENTS_TABLE}`, [])
          : [
              ...(await tx.all(
                `SELECT table_name AS t, '' AS c, comment FROM duckdb_tables() WHERE comment IS NOT NULL`,
                [],
              )),
              ...(await tx.all(
                `SELECT view_name AS t, '' AS c, comment FROM duckdb_views() WHERE comment IS NOT NULL AND NOT internal`,
                [],
              )),
              ...(await tx.all(
                `SELECT table_name AS t, column_name AS c, comment FROM duckdb_columns() WHERE comment IS NOT NULL AND NOT internal`,
                [],
              )),
            ];
      return rows.map((r) => ({ t: String(r['t']), c: String(r['c']), comment: String(r['comment']) }));
    });

  it('the database carries every description, exactly', async () => {
    const got = new Map((await comments()).map((r) => [`${r.t}.${r.c}`, r.comment]));
    const want = modelComments();
    expect(want.length).toBeGreaterThan(400);
    for (const w of want)
      expect(got.get(`${w.table}.${w.column ?? ''}`), `${w.table}.${w.column ?? ''}`).toBe(w.comment);
  });

  it('schema evolution writes the comments of the tables and columns it adds', async () => {
    await loadLeads(db, 'leads-docs', 'leads_results', [1, 2]);
    const got = new Map((await comments()).map((r) => [`${r.t}.${r.c}`, r.comment]));
    expect(got.get('leads_docs_items.')).toMatch(/^Result content of pipeline leads-docs/);
    expect(got.get('leads_docs_items.email')).toBe('Content key "email" (text). Added by schema evolution.');
    expect(got.get('leads_docs_items.row_key')).toMatch(/merge key/);
    expect(got.get('leads_docs_items__social_profiles.')).toMatch(/one row per element of social_profiles/);
    expect(got.get('leads_docs_items__social_profiles.parent_key')).toMatch(/parent row/);
    expect(got.get('leads_docs_items__social_profiles.url')).toBe(
      'Content key "url" (text). Added by schema evolution.',
    );
  });

  it('results_landed marks the results sync copies; pipeline_freshness moves with a run that changed nothing', async () => {
    await loadLeads(db, 'sync-docs', 'scraper_results', [1, 2, 3]);
    const landed = await withTransaction(db, (tx) =>
      tx.all(
        `SELECT result_table, id, is_copy FROM results_landed WHERE pipeline IN ('leads-docs', 'sync-docs') ORDER BY result_table, id`,
        [],
      ),
    );
    expect(landed.map((r) => [r['result_table'], Number(r['id']), Boolean(Number(r['is_copy']))])).toEqual([
      ['leads_results', 1, false],
      ['leads_results', 2, false],
      ['scraper_results', 1, true],
      ['scraper_results', 2, true],
      ['scraper_results', 3, false],
    ]);
    const seen = async () =>
      withTransaction(db, (tx) =>
        tx.all(`SELECT last_seen_at, loaded_runs FROM pipeline_freshness WHERE pipeline = 'leads-docs'`, []),
      ).then((r) => r[0]);
    for (const [i, at] of ['2026-03-01T10:00:00.000Z', '2026-03-02T10:00:00.000Z'].entries()) {
      await startPipelineRun(db, {
        workflowId: `docs-${i}`,
        pipeline: 'leads-docs',
        kind: 'leads-social',
        startedAt: new Date(at),
      });
      // The same page again: no row changes, loaded_at stays where it was.
      const out = await loadLeads(db, 'leads-docs', 'leads_results', [1, 2]);
      expect(Object.values(out.changedByTable).every((n) => n === 0)).toBe(true);
      await finishPipelineRun(db, { workflowId: `docs-${i}`, status: 'succeeded', finishedAt: new Date(at) });
    }
    await startPipelineRun(db, { workflowId: 'docs-failed', pipeline: 'leads-docs', kind: 'leads-social' });
    await finishPipelineRun(db, {
      workflowId: 'docs-failed',
      status: 'failed',
      finishedAt: new Date('2026-03-03T10:00:00.000Z'),
    });
    const row = await seen();
    expect(
      new Date(
        String(
          row!['last_seen_at'] instanceof Date ? (row!['last_seen_at'] as Date).toISOString() : row!['last_seen_at'],
        ),
      ).toISOString(),
    ).toBe('2026-03-02T10:00:00.000Z');
    expect(Number(row!['loaded_runs'])).toBe(2);
  });

  it('the catalog and its formats describe the pipeline: keys, lineage, relations of inferred children, freshness', async () => {
    const pipelines: CatalogPipeline[] = [
      {
        name: 'leads-docs',
        modelTables: ['scrapers', 'run_records', 'scraping_runs', 'leads_results'],
        contentTable: contentTableName('leads-docs'),
        schedule: { cron: '0 6 * * 1-5', timezone: 'Europe/Berlin', paused: false },
      },
      { name: 'shop', modelTables: ['marketplace_products', 'marketplace_product_models', 'marketplace_shops'] },
    ];
    const history = new Map(
      await withTransaction(db, async (tx) =>
        Promise.all(
          pipelines.map(
            async (p) => [p.name, await selectSchemaHistory(tx, p.name, contentTableName(p.name))] as const,
          ),
        ),
      ),
    );
    const catalog = buildCatalog(pipelines, history, db.adapter.sql.columnTypes);
    const byName = new Map(catalog.tables.map((t) => [t.name, t]));
    expect([...byName.keys()]).toEqual(
      expect.arrayContaining([
        'pipeline_runs',
        'leads_results',
        'marketplace_product_models',
        'pipeline_freshness',
        'results_landed',
        'leads_docs_items',
        'leads_docs_items__social_profiles',
      ]),
    );
    expect(byName.get('marketplace_product_models')!.naturalKey).toEqual([
      'pipeline',
      'shop_id',
      'item_id',
      'model_id',
    ]);
    expect(byName.get('marketplace_product_models')!.lineageColumns).toEqual([
      'pipeline',
      'load_id',
      'loaded_at',
      'row_hash',
    ]);
    expect(byName.get('leads_docs_items')!.columns.find((c) => c.name === 'email')!.sqlType).toBe('text');
    expect(
      byName.get('leads_docs_items__social_profiles')!.relations.map((r) => [r.parent, r.columns.join(',')]),
    ).toEqual([
      ['leads_docs_items', 'pipeline,root_key'],
      ['leads_docs_items', 'pipeline,parent_key'],
    ]);
    // A weekday schedule's longest gap is the weekend: 3 days.
    expect(catalog.freshness).toEqual([
      expect.objectContaining({ pipeline: 'leads-docs', intervalMinutes: 3 * 24 * 60 }),
    ]);

    const dbt = parse(renderDbt(catalog, { sourceName: 'wh', schema: 'main' })) as {
      version: number;
      sources: Array<{ name: string; schema: string; tables: Array<Record<string, any>> }>;
    };
    expect(dbt.version).toBe(2);
    const src = dbt.sources[0]!;
    expect([src.name, src.schema]).toEqual(['wh', 'main']);
    const t = (name: string) => src.tables.find((x) => x.name === name)!;
    const models = t('marketplace_product_models');
    // Fresh when a run saw the rows, changed or not (issue 40): last_seen_at, where it was loaded_at.
    expect(models['loaded_at_field']).toBe('last_seen_at');
    expect(models['data_tests']).toEqual(
      expect.arrayContaining([
        {
          unique: {
            arguments: { column_name: "concat_ws('|', pipeline, shop_id, item_id, model_id)" },
            config: { where: "pipeline in ('shop')" },
          },
        },
        {
          relationships: {
            arguments: {
              column_name: "concat_ws('|', pipeline, shop_id, item_id)",
              to: "source('wh', 'marketplace_products')",
              field: "concat_ws('|', pipeline, shop_id, item_id)",
            },
            config: { where: "pipeline in ('shop')" },
          },
        },
      ]),
    );
    expect(models['columns'].find((c: any) => c.name === 'model_id').data_tests).toEqual([
      { not_null: { config: { where: "pipeline in ('shop')" } } },
    ]);
    const runs = t('pipeline_runs');
    const status = runs['columns'].find((c: any) => c.name === 'status');
    expect(status.data_tests[0].accepted_values.arguments.values).toEqual([...RECORDED_RUN_STATES]);
    const runRecords = t('run_records')['columns'].find((c: any) => c.name === 'status');
    // The service's statuses beyond its contract would be news, not broken data: a warning.
    expect(runRecords.data_tests[0].accepted_values.config.severity).toBe('warn');
    expect(runRecords.description).toMatch(/not the outcome/);
    const children = t('leads_docs_items__social_profiles')['data_tests'] as Array<Record<string, any>>;
    expect(children.filter((x) => x['relationships']).map((x) => x['relationships'].arguments.to)).toEqual([
      "source('wh', 'leads_docs_items')",
      "source('wh', 'leads_docs_items')",
    ]);
    const fresh = t('freshness_leads_docs');
    expect(fresh).toMatchObject({
      identifier: 'pipeline_freshness',
      loaded_at_field: 'last_seen_at',
      freshness: { filter: "pipeline = 'leads-docs'" },
    });
    expect(fresh['freshness'].warn_after.count).toBeGreaterThan(3 * 24 * 60);

    const dbml = renderDbml(catalog);
    expect(dbml).toContain(
      'Ref: "leads_docs_items__social_profiles".("pipeline", "parent_key") > "leads_docs_items".("pipeline", "row_key")',
    );
    expect(dbml).toContain('("pipeline", "shop_id", "item_id", "model_id") [pk]');
    const mermaid = renderMermaid(catalog);
    expect(mermaid.split('\n')[0]).toBe('erDiagram');
    expect(mermaid).toContain('marketplace_products ||--o{ marketplace_product_models : "shop_id, item_id"');
    // Every attribute line is `type name [keys] "comment"`: no double quote inside a comment.
    for (const line of mermaid.split('\n').filter((l) => l.startsWith('    ')))
      expect(line, line).toMatch(/^ {4}\w+ \w+( (PK|FK)(, FK)?)? "[^"]*"$/);
  });
});

describe('freshness from a schedule', () => {
  it('is the longest gap between fires', () => {
    expect(scheduleIntervalMinutes('30 2 * * *', 'UTC')).toBe(24 * 60);
    expect(scheduleIntervalMinutes('*/15 * * * *', 'UTC')).toBe(15);
    expect(scheduleIntervalMinutes('0 6 * * 1-5', 'Europe/Berlin')).toBe(3 * 24 * 60);
  });

  it('views are described too', () => {
    expect(Object.keys(VIEW_DOCS).sort()).toEqual(['pipeline_freshness', 'results_landed']);
  });
});
