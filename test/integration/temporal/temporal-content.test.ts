// Inferred content tables through real Temporal runs against the simulator over HTTP, into a SQLite file and a
// Postgres database: leads content becomes columns and a child table; nine runs of one leads pipeline with a
// merge key hold exactly the distinct leads of the simulator's ground truth, without one a row per result id;
// a later run whose leads gain a field and change one's type adds a column and a variant column, both recorded;
// two worker processes running four runs of one pipeline at once create its tables and columns exactly once and
// lose no row; a frozen schema meeting new columns fails the run and leaves the tables as they were.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../../lib/json.js';
import { resultsListResponseSchema, type ResultRecord } from '../../../client/index.js';
import type { Database } from '../../../destinations/contract.js';
import { loadBatch } from '../../../db/store/load.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { startPipelineRun } from '../../../temporal/start.js';
import { runCli } from '../../support/cli.js';
import { dumpTable } from '../../support/db-dump.js';
import { expectContentEqual } from '../../support/pipeline-truth.js';
import { startDestinationBed, type DestinationBed } from '../../support/pipeline-bed.js';
import { leadsSearchSpec } from '../../support/pipeline-specs.js';
import { spawnWorkerProcess, startTestTemporal, type TestTemporal } from '../../support/temporal.js';
import { duckSelect, pgPool } from '../../support/duckdb.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
let temporal: TestTemporal;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-content-'));
  temporal = await startTestTemporal();
});

afterAll(async () => {
  await temporal?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function count(db: Database, sql: string): Promise<number> {
  const rows =
    db.dialect === 'sqlite'
      ? (db.sqlite.prepare(sql).all() as Array<Record<string, unknown>>)
      : db.dialect === 'duckdb'
        ? await duckSelect(db, sql)
        : (await pgPool(db).query(sql)).rows;
  return Number((rows[0] as Record<string, unknown>)['n']);
}

describe.each(['sqlite', 'postgres', 'duckdb'] as const)(
  'inferred content tables through Temporal, into %s',
  (destination) => {
    const taskQueue = `content-${destination}-${crypto.randomBytes(4).toString('hex')}`;
    let bed: DestinationBed;
    let sim: RunningSimulator;
    let dbUrl: string;
    let db: Database;

    beforeAll(async () => {
      bed = await startDestinationBed({
        destination,
        dir,
        temporal,
        taskQueue,
        token: TOKEN,
        seed: 23,
        runDurationMs: 300,
      });
      ({ sim, dbUrl, db } = bed);
    }, 60_000);

    afterAll(async () => bed?.close());

    const conn = () => ({ client: temporal.client, taskQueue });
    const results = (ids: string[]) =>
      ids.flatMap((id) => sim.truth.runResults(Number(id)) as unknown as ResultRecord[]);

    it('nine runs with merge_key [email] hold exactly the distinct leads; without one, a row per result id', async () => {
      const merged = { ...leadsSearchSpec('crm-leads', dbUrl), merge_key: ['email'] };
      const plain = leadsSearchSpec('raw-leads', dbUrl);
      const mergedRecords: ResultRecord[] = [];
      const plainRecords: ResultRecord[] = [];
      for (let i = 0; i < 9; i++) {
        const a = await (await startPipelineRun(conn(), merged, `${destination}-m${i}`)).result();
        expect(a.status).toBe('succeeded');
        mergedRecords.push(...results(a.scrapingRunIds));
        if (i < 3) {
          const b = await (await startPipelineRun(conn(), plain, `${destination}-p${i}`)).result();
          expect(b.status).toBe('succeeded');
          plainRecords.push(...results(b.scrapingRunIds));
        }
      }
      // Ground truth: every run returned the same leads; a lead without an email keeps its result id as key.
      const content = (r: ResultRecord) => r.content as { email: string | null };
      const distinct = new Set(mergedRecords.filter((r) => content(r).email !== null).map((r) => content(r).email))
        .size;
      const withoutEmail = mergedRecords.filter((r) => content(r).email === null).length;
      expect(distinct).toBeGreaterThan(0);
      expect(await count(db, `SELECT COUNT(*) AS n FROM crm_leads_items WHERE pipeline = 'crm-leads'`)).toBe(
        distinct + withoutEmail,
      );
      // leads_results keeps every result (the landing), the inferred table one row per lead.
      expect(await count(db, `SELECT COUNT(*) AS n FROM leads_results WHERE pipeline = 'crm-leads'`)).toBe(
        mergedRecords.length,
      );
      await expectContentEqual(db, merged, mergedRecords);
      expect(await count(db, `SELECT COUNT(*) AS n FROM raw_leads_items`)).toBe(plainRecords.length);
      await expectContentEqual(db, plain, plainRecords);
      // Columns as the simulator generates them, the nested array as a child table with parent keys.
      const cols =
        db.dialect === 'sqlite'
          ? (
              db.sqlite.prepare(`SELECT name FROM pragma_table_info('crm_leads_items')`).all() as Array<{
                name: string;
              }>
            ).map((r) => r.name)
          : db.dialect === 'duckdb'
            ? (
                await duckSelect(
                  db,
                  `SELECT column_name AS name FROM information_schema.columns WHERE table_name = 'crm_leads_items'`,
                )
              ).map((r) => String(r['name']))
            : (
                await pgPool(db).query(
                  `SELECT column_name AS name FROM information_schema.columns WHERE table_name = 'crm_leads_items'`,
                )
              ).rows.map((r: { name: string }) => r.name);
      expect(cols).toEqual(
        expect.arrayContaining([
          'name',
          'job_title',
          'company',
          'email',
          'phone',
          'website',
          'address',
          'source_url',
          'search_query',
          'search_page',
        ]),
      );
      expect(
        await count(
          db,
          `SELECT COUNT(*) AS n FROM crm_leads_items__social_profiles c JOIN crm_leads_items p ON p.pipeline = c.pipeline AND p.row_key = c.parent_key`,
        ),
      ).toBe(await count(db, `SELECT COUNT(*) AS n FROM crm_leads_items__social_profiles`));

      // `schema show` lists the tables, columns and types from the history.
      const show = await runCli(['schema', 'show', 'crm-leads', '--db', dbUrl, '--json']);
      expect(show.code, show.stderr).toBe(0);
      const all = JSON.parse(show.stdout) as {
        tables: Array<{
          table: string;
          fixed: boolean;
          columns: Array<{ column: string; type: string; change: string }>;
        }>;
      };
      // The model's tables the run wrote (bookkeeping, results) come first, marked fixed; then the inferred ones.
      const shown = { tables: all.tables.filter((t) => !t.fixed) };
      expect(all.tables.filter((t) => t.fixed).length).toBeGreaterThan(0);
      expect(shown.tables.map((t) => t.table)).toEqual(['crm_leads_items', 'crm_leads_items__social_profiles']);
      expect(shown.tables[0]!.columns).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ column: 'email', type: 'text', change: 'add_column' }),
          expect.objectContaining({ column: 'search_page', type: 'bigint', change: 'add_column' }),
          expect.objectContaining({ column: 'row_key', type: 'text', change: 'create_table' }),
        ]),
      );
      // The merge key changes: `rebuild` re-derives raw-leads from its raw responses, without the service, and
      // gives exactly what a fresh load with that key gives.
      const file = path.join(dir, `raw-leads-${destination}.yaml`);
      fs.writeFileSync(
        file,
        `name: raw-leads\nkind: leads-search-engine\nrequest: { search_type: keywords, keywords: solar installers, limit_pages: 3 }\nmerge_key: [email]\ndestination: { database: "${dbUrl}" }\n`,
      );
      const served = sim.stats().total;
      const rebuilt = await runCli(['rebuild', file, '--json']);
      expect(rebuilt.code, rebuilt.stderr).toBe(0);
      expect(JSON.parse(rebuilt.stdout)).toMatchObject({ pipeline: 'raw-leads', results: plainRecords.length });
      expect(sim.stats().total).toBe(served);
      await expectContentEqual(db, { ...plain, merge_key: ['email'] }, plainRecords);
      expect(await count(db, `SELECT COUNT(*) AS n FROM raw_leads_items`)).toBe(
        distinct + plainRecords.filter((r) => content(r).email === null).length,
      );
    }, 240_000);

    it('a later run whose leads carry a new field and a field of another type: a new column (NULL in older rows), a variant column, both in the history', async () => {
      const spec = leadsSearchSpec('drift-leads', dbUrl, 1);
      const first = await (await startPipelineRun(conn(), spec, `${destination}-d1`)).result();
      expect(first.status).toBe('succeeded');
      const firstIds = results(first.scrapingRunIds).map((r) => String(r.id));
      // The scraper's output changes shape: a new integer field, and search_page (an integer so far) as text.
      sim.setContentDrift({ lead_score: 87, search_page: 'page-one' });
      let second;
      let secondWorkflowId: string;
      try {
        const handle = await startPipelineRun(conn(), spec, `${destination}-d2`);
        secondWorkflowId = handle.workflowId;
        second = await handle.result();
      } finally {
        sim.setContentDrift(null);
      }
      expect(second.status).toBe('succeeded');
      const secondIds = results(second.scrapingRunIds).map((r) => String(r.id));
      expect(secondIds.length).toBeGreaterThan(0);
      const rows = await (async () => {
        const sql = `SELECT CAST(result_id AS TEXT) AS id, lead_score, search_page, search_page__v_text FROM drift_leads_items`;
        if (db.dialect === 'duckdb') return duckSelect(db, sql);
        return db.dialect === 'sqlite'
          ? (db.sqlite.prepare(sql).all() as Array<Record<string, unknown>>)
          : ((await pgPool(db).query(sql)).rows as Array<Record<string, unknown>>);
      })();
      const byId = new Map(rows.map((r) => [String(r['id']), r]));
      expect(byId.size).toBe(firstIds.length + secondIds.length);
      for (const id of firstIds) {
        const r = byId.get(id)!;
        expect(r['lead_score']).toBeNull();
        expect(Number(r['search_page'])).toBe(1);
        expect(r['search_page__v_text']).toBeNull();
      }
      for (const id of secondIds) {
        const r = byId.get(id)!;
        expect(Number(r['lead_score'])).toBe(87);
        expect(r['search_page']).toBeNull();
        expect(r['search_page__v_text']).toBe('page-one');
      }
      const history = await (async () => {
        const sql = `SELECT column_name, data_type, change, variant_of, CAST(load_id AS TEXT) AS load_id FROM schema_history WHERE table_name = 'drift_leads_items' AND change <> 'create_table'`;
        if (db.dialect === 'duckdb') return duckSelect(db, sql);
        return db.dialect === 'sqlite'
          ? (db.sqlite.prepare(sql).all() as Array<Record<string, unknown>>)
          : ((await pgPool(db).query(sql)).rows as Array<Record<string, unknown>>);
      })();
      const later = history.filter((h) => ['lead_score', 'search_page__v_text'].includes(String(h['column_name'])));
      expect(
        later
          .map(({ load_id: _l, ...h }) => h)
          .sort((a, b) => String(a['column_name']).localeCompare(String(b['column_name']))),
      ).toEqual([
        { column_name: 'lead_score', data_type: 'bigint', change: 'add_column', variant_of: null },
        { column_name: 'search_page__v_text', data_type: 'text', change: 'add_variant', variant_of: 'search_page' },
      ]);
      // Both changes were made by a load of the second run, none by the first.
      const loadsOfSecond = await (async () => {
        const sql = `SELECT CAST(id AS TEXT) AS id FROM raw_responses WHERE workflow_id = ${db.dialect === 'sqlite' ? '?' : '$1'}`;
        if (db.dialect === 'duckdb') return (await duckSelect(db, sql, [secondWorkflowId])).map((r) => String(r['id']));
        return (
          db.dialect === 'sqlite'
            ? (db.sqlite.prepare(sql).all(secondWorkflowId) as Array<{ id: string }>)
            : ((await pgPool(db).query(sql, [secondWorkflowId])).rows as Array<{ id: string }>)
        ).map((r) => r.id);
      })();
      for (const h of later) expect(loadsOfSecond).toContain(String(h['load_id']));
    }, 120_000);

    it('two worker processes loading four runs of one pipeline at once into a table none of them has yet: no lost rows, each column once', async () => {
      // A task queue of its own with two compiled worker processes and small load batches, so the runs' first loads
      // (each creating the same table and columns) and their later ones interleave across processes.
      const queue = `${taskQueue}-two`;
      const env = { SCRAPER_BASE_URL: sim.baseUrl, SCRAPER_API_TOKEN: TOKEN, SCRAPE_ETL_LOAD_BATCH_SIZE: '3' };
      const workers = [
        await spawnWorkerProcess({ address: temporal.address, taskQueue: queue, env }),
        await spawnWorkerProcess({ address: temporal.address, taskQueue: queue, env }),
      ];
      try {
        const spec = leadsSearchSpec('twin-leads', dbUrl, 2);
        const handles = await Promise.all(
          [0, 1, 2, 3].map((i) =>
            startPipelineRun({ client: temporal.client, taskQueue: queue }, spec, `${destination}-t${i}`),
          ),
        );
        const outcomes = await Promise.all(handles.map((h) => h.result()));
        const records = outcomes.flatMap((o) => {
          expect(o.status).toBe('succeeded');
          return results(o.scrapingRunIds);
        });
        expect(records.length).toBeGreaterThan(0);
        expect(await count(db, `SELECT COUNT(*) AS n FROM twin_leads_items`)).toBe(records.length);
        await expectContentEqual(db, spec, records);
        const columnsOf = async (table: string) =>
          db.dialect === 'sqlite'
            ? (
                db.sqlite.prepare(`SELECT name FROM pragma_table_info('${table}')`).all() as Array<{ name: string }>
              ).map((r) => r.name)
            : db.dialect === 'duckdb'
              ? (
                  await duckSelect(
                    db,
                    `SELECT column_name AS name FROM information_schema.columns WHERE table_name = $1`,
                    [table],
                  )
                ).map((r) => String(r['name']))
              : (
                  await pgPool(db).query(
                    `SELECT column_name AS name FROM information_schema.columns WHERE table_name = $1`,
                    [table],
                  )
                ).rows.map((r: { name: string }) => r.name);
        for (const table of ['twin_leads_items', 'twin_leads_items__social_profiles']) {
          const cols = await columnsOf(table);
          expect(cols.length).toBeGreaterThan(5);
          expect(cols.length).toBe(new Set(cols).size);
          const history =
            db.dialect === 'sqlite'
              ? (db.sqlite.prepare(`SELECT column_name FROM schema_history WHERE table_name = ?`).all(table) as Array<{
                  column_name: string;
                }>)
              : db.dialect === 'duckdb'
                ? ((await duckSelect(db, `SELECT column_name FROM schema_history WHERE table_name = $1`, [
                    table,
                  ])) as Array<{ column_name: string }>)
                : ((await pgPool(db).query(`SELECT column_name FROM schema_history WHERE table_name = $1`, [table]))
                    .rows as Array<{ column_name: string }>);
          // One history row per column, and the registry knows exactly the table's columns.
          expect(history.map((h) => h.column_name).sort()).toEqual([...cols].sort());
        }
        if (destination === 'duckdb') {
          // DuckDB admits one process per file: the workers took turns, and a waiting one said so in its log.
          const logs = workers.map((w) => w.output()).join('\n');
          expect(logs).toMatch(
            /waiting for \S+duckdb\.duckdb: another scrape-etl process \(pid \d+ on .+\) is using it; DuckDB allows one process per file, so loads into it run one at a time/,
          );
        }
      } finally {
        for (const w of workers) await w.kill('SIGTERM');
      }
    }, 180_000);

    it('a frozen schema meeting new columns fails the run and leaves the content tables as they were', async () => {
      // The table exists with two columns; the simulator's leads carry more.
      const raw = stringifyJson({
        data: [
          {
            id: 1,
            scraper_id: 1,
            scraping_run_id: 1,
            scraper_name: 'seed',
            scraped_url: 'u',
            status: 'succeeded',
            content: { name: 'Seed', email: 'seed@example.com' },
            created_at: '2026-01-01T00:00:00.000000Z',
            updated_at: '2026-01-01T00:00:00.000000Z',
          },
        ],
      });
      await loadBatch(db, {
        pipeline: 'frozen-leads',
        kind: 'results',
        endpoint: 'GET /api/results',
        raw,
        data: resultsListResponseSchema.parse(parseJson(raw)),
        resultTable: 'leads_results',
        content: { table: 'frozen_leads_items', mode: 'evolve' },
      });
      const before = {
        items: await dumpTable(db, 'frozen_leads_items', { keepLoadedAt: true }),
        results: await dumpTable(db, 'leads_results', { keepLoadedAt: true }),
      };
      const spec = { ...leadsSearchSpec('frozen-leads', dbUrl), schema: { mode: 'freeze' as const } };
      const err = await (await startPipelineRun(conn(), spec, `${destination}-f1`)).result().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WorkflowFailedError);
      const chain: string[] = [];
      for (let e: unknown = err; e instanceof Error; e = (e as { cause?: unknown }).cause) chain.push(e.message);
      const cause = { message: chain.join(' / ') };
      expect(cause?.message).toMatch(
        /pipeline 'frozen-leads' has schema mode freeze, and load \d+ \(GET \/api\/scraping-runs\/\d+.*\) brings new column '\w+' \(\w+\) in table 'frozen_leads_items'; nothing of this batch was written/,
      );
      expect({
        items: await dumpTable(db, 'frozen_leads_items', { keepLoadedAt: true }),
        results: await dumpTable(db, 'leads_results', { keepLoadedAt: true }),
      }).toEqual(before);
    }, 120_000);
  },
);
