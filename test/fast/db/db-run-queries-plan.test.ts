// What a run asks of raw_responses about itself (its rows per table and token usage when it ends, the requests a
// retried URL chunk already landed) must be a search on the run's workflow id, not a scan: raw_responses keeps
// every run's responses, so a scan grew with the whole history and was paid at the end of every run (on a copy of
// a 2,000-URL marketplace database grown to 42,000 responses, 630 MB, each such query read every row). The real
// functions run against a real project database with rows and statistics; every statement they prepare that reads
// raw_responses is then explained.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../../destinations/open.js';
import { countRowsOfRun, sumTokenUsageOfRun } from '../../../db/store/pipeline-runs.js';
import { landedRequestKeys } from '../../../db/store/raw-responses.js';

let dir: string;
let db: SqliteDatabase;
const prepared: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'db-run-queries-plan-'));
  db = (await openDatabase(`sqlite:${join(dir, 'db.sqlite')}`)) as SqliteDatabase;
  // 200 runs of 100 responses each, and a job record per response.
  db.sqlite.exec(`
    WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < 20000)
    INSERT INTO raw_responses (pipeline, kind, endpoint, request_key, workflow_id, received_at, loaded_at, body_sha256, body_bytes, body, token_usage)
    SELECT 'p', 'marketplace', '/api/marketplace/sync', 'url:' || i, 'wf-' || (i / 100), '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'sha' || i, 2, '{}', i
    FROM seq;
    INSERT INTO job_records (job_key, job_title, pipeline, load_id, loaded_at, row_hash)
    SELECT 'k' || id, 'title', 'p', id, '2026-01-01T00:00:00Z', 'h' || id FROM raw_responses;
    ANALYZE;`);
  // Every statement the functions prepare on this connection (the statement cache is per connection: a fresh one).
  const prepare = db.sqlite.prepare.bind(db.sqlite);
  db.sqlite.prepare = ((sql: string) => {
    prepared.push(sql);
    return prepare(sql);
  }) as typeof db.sqlite.prepare;
});
afterAll(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

function plan(sql: string): string {
  const params = Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => 'x');
  return (db.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>)
    .map((r) => r.detail)
    .join(' | ');
}

describe("a run's questions about its own responses", () => {
  it('answer right, searching raw_responses by workflow id', async () => {
    expect(await countRowsOfRun(db, { pipeline: 'p', workflowId: 'wf-7', tables: ['job_records'] })).toEqual({
      job_records: 100,
    });
    expect(await sumTokenUsageOfRun(db, 'wf-7')).toBe(
      Array.from({ length: 100 }, (_, k) => 700 + k).reduce((a, b) => a + b, 0),
    );
    expect([...(await landedRequestKeys(db, 'wf-7', ['url:700', 'url:799', 'url:800']))].sort()).toEqual([
      'url:700',
      'url:799',
    ]);
    const reads = prepared.filter((sql) => sql.includes('raw_responses'));
    expect(reads).toHaveLength(3);
    for (const sql of reads) {
      const p = plan(sql);
      expect(p, sql).toMatch(
        /SEARCH raw_responses USING (COVERING )?INDEX raw_responses_workflow_idx \(workflow_id=\?/,
      );
      expect(p, sql).not.toMatch(/SCAN raw_responses/);
    }
  });
});
