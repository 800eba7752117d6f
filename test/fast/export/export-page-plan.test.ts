// An export reads a SQLite table in pages of rowids (destinations/sqlite/pages.ts). Each page must be a seek on the rowid
// and a forward scan, whatever the export's filters: with `pipeline = ?` SQLite used to pick the natural-key index
// (which starts with pipeline), read every row of the pipeline for every page and sort them, so exporting one
// pipeline's 400,000 job records took 28 s instead of about 1. The plans are checked, in a real project database,
// for the filters an export uses: its pipeline, an incremental watermark, both, and a thread's rowid range. A
// connection reading many pages prepares their few statements once: a threaded export prepared two per page, and
// their memory outside V8's heap made its peak RSS grow with the table's rows (issue #39). The rowid span a threaded
// export reads (on the calling thread's connection, under the write lock for its snapshot, and in every thread) is
// two seeks: `min(rowid), max(rowid)` in one select is no min/max optimisation for SQLite but a scan of the table
// (or of its smallest index), which filled the connection's 16 MB page cache, so the export's peak RSS grew with the
// table's rows, and each thread scanned the table once more before its first page (issue #39).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../../destinations/open.js';
import BetterSqlite3 from 'better-sqlite3';
import { rowidPageSql, sqliteRowidPages } from '../../../destinations/sqlite/pages.js';
import { rowidSpanSql } from '../../../destinations/sqlite/rowids.js';
import type { TableQuery } from '../../../export/rows.js';

let dir: string;
let db: SqliteDatabase;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-page-plan-'));
  db = (await openDatabase(`sqlite:${join(dir, 'db.sqlite')}`)) as SqliteDatabase;
  // Rows and statistics, so that the planner weighs its indexes as it would on a loaded database.
  db.sqlite.exec(`
    WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < 20000)
    INSERT INTO job_records (job_key, job_title, pipeline, load_id, loaded_at, row_hash)
    SELECT 'k' || i, 'title ' || i, 'p' || (i % 3), i % 50, '2026-01-01T00:00:00Z', 'h' || i FROM seq;
    ANALYZE;`);
});
afterAll(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

function plan(sql: string, params: unknown[]): string {
  return (db.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>)
    .map((r) => r.detail)
    .join(' | ');
}

describe('export pages of a SQLite table', () => {
  const filters: Array<[string, Pick<TableQuery, 'where' | 'params'>]> = [
    ['the whole table', { where: [], params: [] }],
    ['one pipeline', { where: ['pipeline = ?'], params: ['p1'] }],
    ['an incremental watermark', { where: ['load_id > ?'], params: [10] }],
    ['a pipeline and its watermark', { where: ['pipeline = ?', 'load_id > ?'], params: ['p1', 10] }],
  ];
  for (const [name, filter] of filters) {
    it(`seeks the rowid and scans forward, with no index and no sort: ${name}`, () => {
      const q: TableQuery = { table: 'job_records', columns: ['"job_key"', '"job_title"'], ...filter };
      for (const [lower, bounded, bounds] of [
        [null, false, []],
        ['>', false, [100n]],
        ['>=', true, [100n, 5000n]],
      ] as const) {
        const detail = plan(rowidPageSql(q, 256, lower, bounded), [...q.params, ...bounds]);
        expect(detail).not.toMatch(/INDEX|TEMP B-TREE/);
        expect(detail).toMatch(
          lower === null ? /^SCAN job_records$/ : /^SEARCH job_records USING INTEGER PRIMARY KEY \(rowid>/,
        );
      }
    });
  }

  it('a connection reading many pages prepares each page statement once, and reads every row once in rowid order', () => {
    const reader = new BetterSqlite3(db.sqlite.name, { readonly: true });
    try {
      const prepare = reader.prepare.bind(reader);
      const prepared: string[] = [];
      reader.prepare = ((sql: string) => (prepared.push(sql), prepare(sql))) as typeof reader.prepare;
      const q: TableQuery = { table: 'job_records', columns: ['"job_key"'], where: ['pipeline = ?'], params: ['p1'] };
      const keys: string[] = [];
      // 40 pages of 500 rowids, the last one open above, as a thread reads its share (export/csv-pages.ts).
      for (let page = 0; page < 40; page++) {
        const from = 1n + BigInt(page) * 500n;
        for (const rows of sqliteRowidPages(reader, q, 64, from, page === 39 ? null : from + 500n))
          keys.push(...rows.map((r) => String(r[0])));
      }
      const expected = db.sqlite
        .prepare(`select job_key from job_records where pipeline = 'p1' order by rowid`)
        .pluck()
        .all() as string[];
      expect(keys).toEqual(expected);
      expect(prepared.length).toBeLessThanOrEqual(4);
      expect(new Set(prepared).size).toBe(prepared.length);
    } finally {
      reader.close();
    }
  });
});

describe("a threaded export's rowid span", () => {
  it('is two seeks, never a scan, and reads the lowest and highest rowid', () => {
    const sql = rowidSpanSql('job_records');
    const p = plan(sql, []);
    expect(p).not.toMatch(/\bSCAN job_records\b/);
    expect(p.match(/SEARCH job_records/g)).toHaveLength(2);
    const bounds = db.sqlite.prepare('select min(rowid) as lo from job_records').safeIntegers(true).get() as {
      lo: bigint;
    };
    const top = db.sqlite.prepare('select max(rowid) as hi from job_records').safeIntegers(true).get() as {
      hi: bigint;
    };
    expect(db.sqlite.prepare(sql).safeIntegers(true).get()).toEqual({ lo: bounds.lo, hi: top.hi });
    const empty = new BetterSqlite3(':memory:');
    try {
      empty.exec('create table t (x)');
      expect(empty.prepare(rowidSpanSql('t')).get()).toEqual({ lo: null, hi: null });
    } finally {
      empty.close();
    }
  });
});
