// `status` and `history` show a `load` row left `running` by a process that is gone as interrupted, as the next
// load finalises it (db/store/orphaned-runs.ts), without writing (they only read). The real CLI on a real SQLite file;
// the stale row is written with Python's sqlite3, as a killed load leaves it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonLines, runCli } from '../../support/cli.js';
import { REAL_FIXTURES } from '../../support/fixtures.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'status-orphaned-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function sqlite(file: string, sql: string, params: unknown[] = []): unknown[][] {
  const r = spawnSync(
    'python3',
    [
      '-c',
      'import json,sqlite3,sys; c=sqlite3.connect(sys.argv[1]); rows=c.execute(sys.argv[2], json.loads(sys.argv[3])).fetchall(); c.commit(); print(json.dumps(rows))',
      file,
      sql,
      JSON.stringify(params),
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as unknown[][];
}

describe('a load row left running by a process that is gone', () => {
  it('is shown as interrupted by status and history (not RUNNING), and the row is left for the next load to finalise', async () => {
    const db = path.join(dir, 'orphan.sqlite');
    const loaded = await runCli(
      [
        'load',
        'marketplace',
        path.join(REAL_FIXTURES, 'shopee-sync-response-1.json'),
        '--db',
        `sqlite:${db}`,
        '--pipeline',
        'orphan',
      ],
      { cwd: dir },
    );
    expect(loaded.code, loaded.stderr).toBe(0);
    // A process that ran and ended: its pid names no live process.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    const live = `cli-load--2026-11-26T00:00:00.000Z--abcd--${process.pid}@${os.hostname()}`;
    const stale = `cli-load--2026-11-26T00:00:01.000Z--ef01--${gone}@${os.hostname()}`;
    for (const id of [live, stale]) {
      sqlite(
        db,
        "INSERT INTO pipeline_runs (workflow_id, pipeline, kind, status, started_at) VALUES (?, 'orphan', 'marketplace', 'running', '2026-11-26T00:00:00.000Z')",
        [id],
      );
    }

    const status = await runCli(['status', '--database', `sqlite:${db}`, '--no-temporal', '--json'], { cwd: dir });
    expect(status.code, status.stderr).toBe(0);
    const byId = new Map(jsonLines(status.stdout).map((r) => [r['workflowId'], r]));
    expect(byId.get(stale)).toMatchObject({
      state: 'INTERRUPTED',
      tableStatus: 'interrupted',
      error: `the load process (pid ${gone}) ended without finishing this run (stopped, killed, or out of disk); files it loaded before stay loaded`,
    });
    // The test process is alive: its row is a load in progress.
    expect(byId.get(live)).toMatchObject({ state: 'RUNNING', tableStatus: 'running' });

    const table = await runCli(['status', '--database', `sqlite:${db}`, '--no-temporal'], { cwd: dir });
    expect(table.stdout.split('\n').find((l) => l.includes(stale))).toMatch(/^orphan +INTERRUPTED /);
    const history = await runCli(['history', 'orphan', '--database', `sqlite:${db}`], { cwd: dir });
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout.split('\n').find((l) => l.includes(stale))).toMatch(
      / INTERRUPTED .*the load process \(pid \d+\) ended without finishing/,
    );
    // Read-only: the row is as the killed load left it.
    expect(sqlite(db, 'SELECT status FROM pipeline_runs WHERE workflow_id = ?', [stale])).toEqual([['running']]);
  }, 180_000);
});
