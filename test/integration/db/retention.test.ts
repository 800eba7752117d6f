// Retention removes what it should and nothing else, on real SQLite files, a real Postgres server and folders:
// - raw_responses: superseded and no-row answers older than the cutoff go; the answers current rows were loaded
//   from, bodies another pipeline's row references (stored once), answers of a run in progress and young answers
//   stay, and every current row's body still reads back;
// - export files: the newest N per table of this pipeline's template; another pipeline's files, partial files and
//   foreign files are untouched;
// - after each run, on a real Temporal dev server: three runs with retention.exports 2 leave two files per table;
// - `scrape-etl prune <file>` (compiled: `npm run build` first) applies a pipeline file's section.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyRetention } from '../../../retention/apply-retention.js';
import type { JobBoardResponse } from '../../../client/index.js';
import { openDatabase, type Database } from '../../../destinations/open.js';
import { loadBatch } from '../../../db/store/load.js';
import { startPipelineRun as startRunRow } from '../../../db/store/pipeline-runs.js';
import { readRawBody } from '../../../db/store/raw-responses.js';
import { withTransaction } from '../../../db/store/sql.js';
import { DATA_TABLES } from '../../../db/model/tables.js';
import { pruneExportFiles } from '../../../export/retention.js';
import type { PipelineSpec } from '../../../pipelines/spec.js';
import { startPipelineRun } from '../../../temporal/start.js';
import { runCli } from '../../support/cli.js';
import { startPipelineBed, type PipelineBed } from '../../support/pipeline-bed.js';
import { testPostgresUrl } from '../../support/postgres.js';
import { jobBoardSpec } from '../../support/pipeline-specs.js';
import { startInProcessWorker, type InProcessWorker } from '../../support/temporal.js';
import { testDatabaseUrl } from '../../support/destinations.js';

const DAY = 86_400_000;
let dir: string;

function jobs(version: number, ...keys: string[]): { data: JobBoardResponse; raw: string } {
  const data = {
    result: keys.map((k) => ({
      job_title: `${k} v${version}`,
      job_url: `https://jobs.example/${k}`,
      job_location: 'Remote',
      job_salary: version,
      job_type: 'full-time',
      job_currency: 'EUR',
    })),
    tokenUsage: 10,
    totalDone: keys.length,
  };
  return { data: data as unknown as JobBoardResponse, raw: JSON.stringify(data) };
}

async function land(
  db: Database,
  pipeline: string,
  body: { data: JobBoardResponse; raw: string },
  workflowId: string | null = null,
): Promise<number> {
  const out = await loadBatch(db, {
    pipeline,
    kind: 'job-board',
    data: body.data,
    raw: body.raw,
    endpoint: 'POST /api/job-board-scrape',
    ...(workflowId ? { workflowId } : {}),
  });
  return out.loadId;
}

async function ids(db: Database, sql: string): Promise<number[]> {
  return (await withTransaction(db, (tx) => tx.all(sql, []))).map((r) => Number(r['id']));
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-retention-'));
});

afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe.each(['sqlite', 'postgres', 'duckdb'] as const)('retention of raw responses (%s)', (dialect) => {
  let db: Database;
  let dbUrl: string;
  beforeAll(async () => {
    dbUrl = await testDatabaseUrl(dialect, dir, 'dest');
    db = await openDatabase(dbUrl);
  }, 120_000);
  afterAll(async () => {
    await db?.close();
  });

  it('deletes superseded and row-less old answers; keeps current lineage, shared bodies, runs in progress and young answers', async () => {
    const r1 = await land(db, 'jobs', jobs(0, 'a', 'b')); // superseded by r2 entirely
    const r2 = await land(db, 'jobs', jobs(1, 'a', 'b')); // superseded by r3, but its body is shared with 'other' (r5)
    const r3 = await land(db, 'jobs', jobs(2, 'a', 'b')); // current
    const r4 = await land(db, 'jobs', jobs(2, 'a', 'b')); // same bytes as r3: stored as a reference, changes no row
    const r5 = await land(db, 'other', jobs(1, 'a', 'b')); // another pipeline, same bytes as r2: body_ref -> r2
    await startRunRow(db, { workflowId: 'jobs--running', pipeline: 'jobs', kind: 'job-board' });
    const r6 = await land(db, 'jobs', jobs(0, 'c'), 'jobs--running'); // superseded, but its run is in progress
    const r7 = await land(db, 'jobs', jobs(1, 'c'), 'jobs--running');
    expect(
      await ids(db, `SELECT body_ref AS id FROM raw_responses WHERE id IN (${r4}, ${r5}) ORDER BY raw_responses.id`),
    ).toEqual([r3, r2]);

    const spec = {
      ...jobBoardSpec('jobs', dbUrl, ['https://x.example/']),
      retention: { raw_responses: '30d' },
    } as PipelineSpec;
    // Today nothing is 30 days old.
    expect((await applyRetention(db, spec)).rawResponses).toEqual({ old: 0, deleted: 0, kept: 0 });

    // 31 days on, everything of 'jobs' is old.
    const later = new Date(Date.now() + 31 * DAY);
    const out = await applyRetention(db, spec, later);
    expect(out.rawResponses).toEqual({ old: 6, deleted: 2, kept: 4 });
    expect(await ids(db, `SELECT id FROM raw_responses ORDER BY id`)).toEqual([r2, r3, r5, r6, r7]);
    expect(r1 < r2 && r4 > r3).toBe(true);

    // Every current row of every pipeline still has its body, through references too.
    for (const table of DATA_TABLES) {
      for (const load of await ids(db, `SELECT DISTINCT load_id AS id FROM ${table}`)) {
        expect(await readRawBody(db, load), `${table} load ${load}`).toBeTruthy();
      }
    }
    expect(JSON.parse((await readRawBody(db, r5))!)).toEqual(jobs(1, 'a', 'b').data);

    // The run in progress ends: its superseded answer may go now, and a second pass finds nothing more.
    await withTransaction(db, (tx) =>
      tx.run(`UPDATE pipeline_runs SET status = 'succeeded' WHERE workflow_id = 'jobs--running'`, []),
    );
    expect((await applyRetention(db, spec, later)).rawResponses).toEqual({ old: 4, deleted: 1, kept: 3 });
    expect(await ids(db, `SELECT id FROM raw_responses ORDER BY id`)).toEqual([r2, r3, r5, r7]);
    expect((await applyRetention(db, spec, later)).rawResponses).toEqual({ old: 3, deleted: 0, kept: 3 });
  });
});

describe('retention of export files', () => {
  it("keeps the newest N per table of this pipeline's template and touches nothing else", async () => {
    const out = path.join(dir, 'exports');
    fs.mkdirSync(out);
    const ts = (d: number) => new Date(Date.UTC(2026, 0, d)).toISOString().replace(/[-:]/g, '');
    const mine = [1, 2, 3, 4].flatMap((d) => [
      `shop_job_records_${ts(d)}.csv`,
      `shop_marketplace_products_${ts(d)}.csv`,
    ]);
    const foreign = [
      `shop_eu_job_records_${ts(1)}.csv`,
      `shop_job_records_${ts(1)}.csv.partial`,
      'notes.txt',
      `shop_job_records_${ts(1)}.parquet`,
    ];
    for (const f of [...mine, ...foreign]) fs.writeFileSync(path.join(out, f), 'x');
    const result = await pruneExportFiles({
      pipeline: 'shop',
      exports: [
        { dir: out, file_name: '{pipeline}_{table}_{timestamp}.csv', tables: [] },
        { dir: out, file_name: 'fixed_{table}.csv', tables: [] },
      ],
      allTables: DATA_TABLES,
      keep: 2,
    });
    expect(result.deleted.map((f) => path.basename(f)).sort()).toEqual(
      [
        `shop_job_records_${ts(1)}.csv`,
        `shop_job_records_${ts(2)}.csv`,
        `shop_marketplace_products_${ts(1)}.csv`,
        `shop_marketplace_products_${ts(2)}.csv`,
      ].sort(),
    );
    expect(result.kept).toBe(4);
    expect(result.skipped).toEqual([
      { dir: out, fileName: 'fixed_{table}.csv', reason: 'no {timestamp}: one file per table, overwritten' },
    ]);
    expect(fs.readdirSync(out).sort()).toEqual([...mine.filter((f) => /0[34]T/.test(f)), ...foreign].sort());
  });
});

describe('retention after each run and with scrape-etl prune', () => {
  const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
  const taskQueue = `retention-${crypto.randomBytes(4).toString('hex')}`;
  let bed: PipelineBed;
  let worker: InProcessWorker;

  beforeAll(async () => {
    bed = await startPipelineBed({ name: 'retention', token: TOKEN, seed: 4, runDurationMs: 300 });
    worker = await startInProcessWorker({
      address: bed.temporal.address,
      taskQueue,
      env: { SCRAPER_BASE_URL: bed.sim.baseUrl, SCRAPER_API_TOKEN: TOKEN },
    });
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await bed?.close();
  });

  it("three runs with exports kept to 2: two files per table after the third; prune applies a file's retention", async () => {
    const out = path.join(bed.dir, 'exports');
    const spec: PipelineSpec = {
      ...jobBoardSpec('kept', bed.dbUrl, ['https://weworkremotely.com/remote-jobs/search?term=retention']),
      exports: [
        {
          dir: out,
          format: 'csv',
          tables: ['job_records'],
          mode: 'full',
          write_empty: false,
          delimiter: ',',
          bom: false,
          null_text: '',
          file_name: '{pipeline}_{table}_{timestamp}.csv',
          neutralize_formulas: true,
        },
      ],
      retention: { exports: 2 },
    };
    const files: string[][] = [];
    for (const key of ['r1', 'r2', 'r3']) {
      expect(
        (await (await startPipelineRun({ client: bed.temporal.client, taskQueue }, spec, key)).result()).status,
      ).toBe('succeeded');
      files.push(fs.readdirSync(out).sort());
    }
    expect(files.map((f) => f.length)).toEqual([1, 2, 2]);
    // The two newest stay: the second run's file and the third's.
    expect(files[2]![0]).toBe(files[1]![1]);

    // `scrape-etl prune` with a pipeline file whose raw responses expire at once: the three runs' job-board
    // answers are identical, so the first carries the rows and the body, the later two are references and go.
    const file = path.join(bed.dir, 'kept.yaml');
    fs.writeFileSync(
      file,
      [
        'name: kept',
        'kind: job-board',
        'request:',
        '  urls: [https://weworkremotely.com/remote-jobs/search?term=retention]',
        '  min: 2',
        '  max: 6',
        '  timeout: 60',
        `  schema: ${JSON.stringify(spec.request.schema)}`,
        'destination:',
        `  database: ${bed.dbUrl}`,
        'exports:',
        `  - dir: ${out}`,
        '    tables: [job_records]',
        '    file_name: "{pipeline}_{table}_{timestamp}.csv"',
        'retention:',
        '  raw_responses: 1ms',
        '  exports: 1',
      ].join('\n'),
    );
    const before =
      bed.db.dialect === 'sqlite'
        ? Number(
            (
              bed.db.sqlite.prepare(`SELECT count(*) AS n FROM raw_responses WHERE pipeline = 'kept'`).get() as {
                n: number;
              }
            ).n,
          )
        : -1;
    expect(before).toBe(3);
    const r = await runCli(['prune', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(
      "kept: raw responses older than 1ms: 2 deleted, 1 kept (current rows' lineage, shared bodies, runs in progress); export files: 1 deleted, 1 kept (newest 1 per table)",
    );
    expect(fs.readdirSync(out)).toEqual([files[2]![1]]);
  });
});
