// The two dialect schemas describe one model; migrations apply idempotently and safely when several
// processes open the same database at once; pipeline_runs rows are idempotent on the workflow id.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getTableConfig as pgConfig, type PgTable } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteConfig, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, parseDatabaseUrl, redactDatabaseUrl, type Database } from '../db/connect.js';
import { finishPipelineRun, getPipelineRun, startPipelineRun } from '../db/pipeline-runs.js';
import * as pgSchema from '../db/schema/pg.js';
import * as sqliteSchema from '../db/schema/sqlite.js';
import { testPostgresUrl } from './support/postgres.js';
import { REPO_ROOT } from './support/cli.js';

const describeSqlite = (t: unknown) => {
  const c = sqliteConfig(t as SQLiteTable);
  return { name: c.name, columns: c.columns.map((x) => [x.name, x.notNull]), pk: c.primaryKeys.map((p) => p.columns.map((x) => x.name)) };
};
const describePg = (t: unknown) => {
  const c = pgConfig(t as PgTable);
  return { name: c.name, columns: c.columns.map((x) => [x.name, x.notNull]), pk: c.primaryKeys.map((p) => p.columns.map((x) => x.name)) };
};

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'db-schema-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('schema', () => {
  it('SQLite and Postgres have the same tables, columns, nullability and keys', () => {
    const s = Object.values(sqliteSchema).map(describeSqlite).sort((a, b) => a.name.localeCompare(b.name));
    const p = Object.values(pgSchema).map(describePg).sort((a, b) => a.name.localeCompare(b.name));
    expect(p).toEqual(s);
    expect(s.map((t) => t.name)).toEqual(expect.arrayContaining(['pipeline_runs', 'raw_responses', 'job_records', 'marketplace_products', 'pdf_results', 'leads_results', 'scraper_results']));
  });

  it('parses database URLs and never shows a password', () => {
    expect(parseDatabaseUrl('sqlite:./data/x.sqlite')).toEqual({ dialect: 'sqlite', file: './data/x.sqlite' });
    expect(parseDatabaseUrl('sqlite:///abs/x.sqlite')).toEqual({ dialect: 'sqlite', file: '/abs/x.sqlite' });
    expect(redactDatabaseUrl('postgres://etl:s3cret@db:5432/w')).toBe('postgres://etl:***@db:5432/w');
    expect(() => parseDatabaseUrl('mysql://u:s3cret@h/db')).toThrow("unsupported database URL 'mysql://u:***@h/db': expected 'sqlite:<path>'");
  });
});

/** Opens the same database from `n` separate node processes at the same moment. */
function openFromProcesses(url: string, n: number): Promise<string[]> {
  const script = `import { openDatabase } from ${JSON.stringify(path.join(REPO_ROOT, 'db', 'connect.ts'))};
const db = await openDatabase(process.argv[1]); await db.close(); process.stdout.write('ok');`;
  return Promise.all(
    Array.from({ length: n }, () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, url], { cwd: REPO_ROOT });
        let out = '';
        let err = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${err}`))));
      }),
    ),
  );
}

const journalEntries = (dialect: 'sqlite' | 'pg') =>
  (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'db', 'migrations', dialect, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] }).entries.length;

describe.each(['sqlite', 'postgres'] as const)('%s', (dialect) => {
  let url: string;
  let db: Database;
  beforeAll(async () => {
    url = dialect === 'sqlite' ? `sqlite:${path.join(tmp, 'schema.sqlite')}` : await testPostgresUrl();
  }, 30_000);
  afterAll(async () => db?.close());

  it('migrates once when several processes open a fresh database together, and again is a no-op', async () => {
    expect(await openFromProcesses(url, 3)).toEqual(['ok', 'ok', 'ok']);
    db = await openDatabase(url);
    const applied =
      db.dialect === 'sqlite'
        ? (db.sqlite.prepare('SELECT COUNT(*) AS n FROM __drizzle_migrations').get() as { n: number }).n
        : Number((await db.pool.query('SELECT COUNT(*) AS n FROM drizzle.__drizzle_migrations')).rows[0].n);
    expect(applied).toBe(journalEntries(dialect === 'sqlite' ? 'sqlite' : 'pg'));
    if (db.dialect === 'sqlite') expect(db.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
  }, 30_000);

  it('starts and finishes a pipeline run idempotently on its workflow id', async () => {
    const a = await startPipelineRun(db, { workflowId: 'shop-daily--2024-06-01', pipeline: 'shop-daily', kind: 'marketplace' });
    const b = await startPipelineRun(db, { workflowId: 'shop-daily--2024-06-01', pipeline: 'shop-daily', kind: 'marketplace' });
    expect(a.created).toBe(true);
    expect(b).toEqual({ id: a.id, created: false });
    await finishPipelineRun(db, { workflowId: 'shop-daily--2024-06-01', status: 'succeeded', rowsByTable: { marketplace_products: 3 } });
    await finishPipelineRun(db, { workflowId: 'shop-daily--2024-06-01', status: 'succeeded', rowsByTable: { marketplace_products: 3 } });
    const row = await getPipelineRun(db, 'shop-daily--2024-06-01');
    expect(row).toMatchObject({ id: a.id, pipeline: 'shop-daily', kind: 'marketplace', status: 'succeeded', rowsByTable: { marketplace_products: 3 }, error: null });
    expect(row?.finishedAt).not.toBeNull();
    await expect(finishPipelineRun(db, { workflowId: 'never-started', status: 'failed' })).rejects.toThrow(/no pipeline run with workflow id 'never-started'/);
  });

  it("records 'partial' when some URLs failed and the rest loaded, and refuses an unknown status", async () => {
    await startPipelineRun(db, { workflowId: 'jobs--r7', pipeline: 'jobs', kind: 'job-board' });
    const error = '1 of 3 URLs failed: https://jobs.example/x: 422 The urls field is invalid.';
    await finishPipelineRun(db, { workflowId: 'jobs--r7', status: 'partial', rowsByTable: { job_records: 8 }, error });
    expect(await getPipelineRun(db, 'jobs--r7')).toMatchObject({ status: 'partial', rowsByTable: { job_records: 8 }, error });
    await expect(finishPipelineRun(db, { workflowId: 'jobs--r7', status: 'running' as never })).rejects.toThrow(
      "cannot finish pipeline run 'jobs--r7' with status 'running' (expected one of succeeded, partial, failed, cancelled)",
    );
    expect((await getPipelineRun(db, 'jobs--r7'))?.status).toBe('partial');
  });
});
