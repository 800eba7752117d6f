// Postgres carries the model's descriptions (issue 40): the migrations write COMMENT ON for every table, view and
// column (db/model/schema/descriptions.ts), schema evolution for every table and column it adds, read back with psql as
// `\d+` and dbt's catalog read them (pg_description). The views answer on Postgres as on the files
// (test/fast/db/db-warehouse-docs.test.ts).
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../destinations/open.js';
import type { Database } from '../../../destinations/contract.js';
import { loadBatch } from '../../../db/store/load.js';
import { contentTableName } from '../../../db/model/evolve/names.js';
import { modelComments } from '../../../db/model/schema/comments.js';
import { testPostgresUrl } from '../../support/postgres.js';

const PG_BIN = process.env['TEST_POSTGRES_BIN'] ?? '/usr/lib/postgresql/15/bin';
let url: string;
let db: Database;

beforeAll(async () => {
  url = await testPostgresUrl();
  db = await openDatabase(url);
}, 120_000);
afterAll(async () => db?.close());

/** Every comment in the public schema as `table.column` (column '' for a table's or view's own), read by psql. */
function comments(): Map<string, string> {
  const sql = `SELECT c.relname, coalesce(a.attname, ''), d.description
    FROM pg_description d JOIN pg_class c ON c.oid = d.objoid JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
    LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = d.objsubid AND d.objsubid > 0
    WHERE d.classoid = 'pg_class'::regclass`;
  const csv = execFileSync(`${PG_BIN}/psql`, [url, '--csv', '-t', '-v', 'ON_ERROR_STOP=1', '-c', sql], {
    encoding: 'utf8',
  });
  const rows = JSON.parse(
    execFileSync(
      'python3',
      ['-c', 'import csv, json, sys\njson.dump(list(csv.reader(sys.stdin, strict=True)), sys.stdout)'],
      { input: csv, encoding: 'utf8' },
    ),
  ) as string[][];
  return new Map(rows.map(([t, c, d]) => [`${t}.${c}`, d!]));
}

describe('comments on Postgres', () => {
  it('the migrations write every description, exactly', () => {
    const got = comments();
    for (const w of modelComments())
      expect(got.get(`${w.table}.${w.column ?? ''}`), `${w.table}.${w.column ?? ''}`).toBe(w.comment);
  });

  it('schema evolution comments the tables and columns it adds, and results_landed marks the sync copies', async () => {
    const page = (ids: number[]) => ({
      data: ids.map((id) => ({
        id,
        scraper_id: 7,
        scraping_run_id: 70,
        scraper_name: 'leads',
        scraped_url: 'Default',
        status: 'succeeded',
        content: { company: `Co ${id}`, social_profiles: [{ url: `https://x.example/${id}` }] },
        created_at: '2026-01-01T00:00:00.000000Z',
        updated_at: '2026-01-01T00:00:00.000000Z',
      })),
    });
    for (const [pipeline, resultTable, ids] of [
      ['leads-pg', 'leads_results', [5, 6]],
      ['sync-pg', 'scraper_results', [5, 6, 7]],
    ] as const) {
      const data = page([...ids]);
      await loadBatch(db, {
        pipeline,
        endpoint: 'GET /api/results',
        requestKey: '1',
        raw: JSON.stringify(data),
        kind: 'results',
        data: data as never,
        resultTable,
        content: { table: contentTableName(pipeline), mode: 'evolve' },
      });
    }
    const got = comments();
    expect(got.get('leads_pg_items.')).toMatch(/^Result content of pipeline leads-pg/);
    expect(got.get('leads_pg_items.company')).toBe('Content key "company" (text). Added by schema evolution.');
    expect(got.get('leads_pg_items__social_profiles.root_key')).toMatch(/root/);
    expect(got.get('sync_pg_items__social_profiles.url')).toBe('Content key "url" (text). Added by schema evolution.');
    const landed = execFileSync(
      `${PG_BIN}/psql`,
      [url, '-tA', '-c', `SELECT result_table || ':' || id || ':' || is_copy FROM results_landed ORDER BY 1`],
      { encoding: 'utf8' },
    )
      .trim()
      .split('\n');
    expect(landed).toEqual([
      'leads_results:5:false',
      'leads_results:6:false',
      'scraper_results:5:true',
      'scraper_results:6:true',
      'scraper_results:7:false',
    ]);
  });
});
