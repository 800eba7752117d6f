// Console benchmark: a 1,000,000-row job_records table of one pipeline (plus 200 runs in pipeline_runs), in SQLite,
// Postgres and DuckDB. For each: the console's first page (the pipelines list) and data pages of the big table
// (first page, a page deep in the table by its keyset cursor, and a page sorted by an unindexed column), each
// fetched over HTTP as a browser would, against the bare time of the same SQL statements the data page runs,
// executed directly on a connection of the same driver, in the same run. Medians of ROUNDS requests after a
// warm-up. Run: `npm run build && npx tsx bench/console.ts [sqlite|postgres|duckdb ...]`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Database } from '../destinations/open.js';
import { withTransaction } from '../db/store/sql.js';
import { destinationNamed, type DestinationName } from '../destinations/index.js';
import { startConsole } from '../console/server.js';
import { openReadOnly, type ReadOnlySource } from '../console/source.js';
import { viewSql } from '../console/data.js';
import { testPostgresUrl } from '../test/support/postgres.js';

const ROWS = Number(process.env['BENCH_CONSOLE_ROWS'] ?? 1_000_000);
const RUNS = 200;
const ROUNDS = 15;
const PIPELINE = 'big';
type Dialect = DestinationName;

/** Each destination's statistics refresh after the fill. */
const FILL_STATS: { readonly [D in Dialect]: (db: Database) => Promise<void> } = {
  sqlite: async (db) => void db.sqlite?.exec('ANALYZE'),
  postgres: async (db) => void (await db.pool?.query('VACUUM ANALYZE job_records')),
  duckdb: async () => {},
};

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function timeIt(fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

function jobKey(i: number): string {
  return `job-${String(i).padStart(8, '0')}`;
}

/** The rows, made by the database itself (a generator query): 1M rows in seconds, no client round trips. */
/** Each destination's generator query, zero-padding and timestamp literal (a record: a new destination is named by the compiler). */
const FILL_SQL: { readonly [D in Dialect]: { gen: string; pad: string; now: string } } = {
  sqlite: {
    gen: `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${ROWS}) SELECT i FROM s`,
    pad: `printf('%08d', i)`,
    now: `'2026-01-01T00:00:00.000Z'`,
  },
  postgres: {
    gen: `SELECT i FROM generate_series(1, ${ROWS}) AS g(i)`,
    pad: `lpad(CAST(i AS VARCHAR), 8, '0')`,
    now: `TIMESTAMPTZ '2026-01-01 00:00:00+00'`,
  },
  duckdb: {
    gen: `SELECT range + 1 AS i FROM range(${ROWS})`,
    pad: `lpad(CAST(i AS VARCHAR), 8, '0')`,
    now: `TIMESTAMPTZ '2026-01-01 00:00:00+00'`,
  },
};

function fillSql(d: Dialect): string {
  const { gen, pad, now } = FILL_SQL[d];
  return `INSERT INTO job_records (job_key, job_title, job_url, job_location, job_salary_number, job_type, job_currency, pipeline, load_id, loaded_at, row_hash)
    SELECT 'job-' || ${pad}, 'Engineer ' || (i % 977), 'https://jobs.example/' || i, 'City ' || (i % 131), ((i % 200000) * 13) % 200000, 'full-time', 'USD',
           '${PIPELINE}', 1 + (i % ${RUNS}), ${now}, 'h' || i FROM (${gen}) AS nums`;
}

async function fill(db: Database, d: Dialect): Promise<void> {
  const runs = Array.from({ length: RUNS }, (_, i) => {
    const started = new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString();
    return `('${PIPELINE}--run-${i}', '${PIPELINE}', 'job-board', 'succeeded', '${started}', '${started}', '{"job_records": ${5000 + i}}', ${1000 + i})`;
  });
  const insertRuns = `INSERT INTO pipeline_runs (workflow_id, pipeline, kind, status, started_at, finished_at, rows_by_table, token_usage) VALUES ${runs.join(', ')}`;
  await withTransaction(db, async (tx) => {
    await tx.run(fillSql(d), []);
    await tx.run(insertRuns, []);
  });
  // Planner statistics where the destination keeps them (outside a transaction: Postgres's VACUUM refuses one).
  await FILL_STATS[d](db);
}

async function bench(d: Dialect, dir: string): Promise<void> {
  const url = destinationNamed(d).capabilities.server
    ? await testPostgresUrl()
    : `${d}:${path.join(dir, `console-bench.${d}`)}`;
  const t0 = performance.now();
  const db = await openDatabase(url);
  try {
    await fill(db, d);
  } finally {
    await db.close();
  }
  process.stdout.write(
    `\n[${d}] ${ROWS.toLocaleString('en-US')} job_records rows and ${RUNS} runs made in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
  );

  const deepCursor = Buffer.from(JSON.stringify({ k: [jobKey(Math.floor(ROWS * 0.9))] })).toString('base64url');
  const pages = {
    'pipelines list (first page)': '/',
    'data page 1 (key order)': `/db/0/p/${PIPELINE}/data/job_records`,
    'data page at row 900,000 (cursor)': `/db/0/p/${PIPELINE}/data/job_records?after=${deepCursor}`,
    'data page 1 sorted by unindexed column': `/db/0/p/${PIPELINE}/data/job_records?sort=job_location&desc=1`,
  };
  // The bare statements of a data page: its LIMIT 51 select and its capped count, on a read-only connection.
  const bare = await openReadOnly(url);
  const con = await startConsole({ databases: [{ url }], temporal: false });
  try {
    const bareOf = (q: { sort?: string; desc?: boolean; after?: string }) => (s: ReadOnlySource) =>
      s.read(async (r) => {
        const { sql, params } = viewSql(r, {
          table: 'job_records',
          pipeline: PIPELINE,
          key: ['job_key'],
          sort: q.sort,
          desc: q.desc ?? false,
          after: q.after,
        });
        await r.all(`${sql} LIMIT 51`, params);
        await r.all(
          `SELECT count(*) AS n FROM (SELECT 1 AS one FROM job_records WHERE pipeline = ${r.ph(1)} LIMIT 100001) capped`,
          [PIPELINE],
        );
      });
    // The pipelines list's own statements: the pipelines, then per pipeline its last 30 runs and last success.
    const bareRuns = (s: ReadOnlySource) =>
      s.read(async (r) => {
        await r.all('SELECT DISTINCT pipeline FROM pipeline_runs ORDER BY pipeline');
        await r.all(`SELECT * FROM pipeline_runs WHERE pipeline = ${r.ph(1)} ORDER BY id DESC LIMIT 30`, [PIPELINE]);
        await r.all(
          `SELECT max(finished_at) AS t FROM pipeline_runs WHERE pipeline = ${r.ph(1)} AND status = 'succeeded'`,
          [PIPELINE],
        );
      });
    const bareTimes: Record<string, number> = {
      'pipelines list (first page)': await timeIt(() => bareRuns(bare)),
      'data page 1 (key order)': await timeIt(() => bareOf({})(bare)),
      'data page at row 900,000 (cursor)': await timeIt(() => bareOf({ after: deepCursor })(bare)),
      'data page 1 sorted by unindexed column': await timeIt(() => bareOf({ sort: 'job_location', desc: true })(bare)),
    };
    for (const [name, p] of Object.entries(pages)) {
      const target = new URL(p, con.url);
      const ms = await timeIt(async () => {
        const res = await fetch(target);
        const text = await res.text();
        if (res.status !== 200) throw new Error(`${p}: ${res.status} ${text.slice(0, 500)}`);
      });
      const base = bareTimes[name]!;
      process.stdout.write(
        `[${d}] ${name.padEnd(40)} console ${ms.toFixed(1).padStart(7)} ms   bare SQL ${base.toFixed(1).padStart(7)} ms   ratio ${(ms / base).toFixed(1)}x${ms > 300 ? '   OVER 300 ms' : ''}\n`,
      );
    }
  } finally {
    await con.close();
    await bare.close();
  }
}

const chosen = (
  process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['sqlite', 'postgres', 'duckdb']
) as Dialect[];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'console-bench-'));
try {
  for (const d of chosen) await bench(d, dir);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
