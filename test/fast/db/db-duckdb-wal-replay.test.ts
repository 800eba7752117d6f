// A DuckDB defect (duckdb/duckdb#23788, 1.4 to at least 1.5.6) and the destination's way around it
// (destinations/duckdb/database.ts openFile). A process killed with committed rows still in the WAL; the next process
// replays the WAL when it opens the file, and if it closes without a CHECKPOINT statement the checkpoint DuckDB makes
// on close writes the indexes it did not use without the replayed rows: lookups by those keys then find nothing,
// while the rows are there. Under the chaos soak this hid a run's own pipeline_runs row from its workflow ("no
// pipeline run with workflow id … (start it first)"). The first case is the defect with DuckDB alone, kept for
// when DuckDB fixes it (it then fails, and the CHECKPOINT on open can be reconsidered); the second shows that the
// destination's sessions leave the index whole, read back by Python's duckdb.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../destinations/open.js';
import { pythonReadersEnv } from '../../support/python-readers.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'duckdb-wal-replay-'));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs `code` in a new Node process with `i` (the instance) and `c` (a connection) on `file`; `kill` ends it with SIGKILL. */
function inProcess(file: string, code: string, opts: { kill?: boolean } = {}): string {
  const script = `import { DuckDBInstance } from '@duckdb/node-api'; const i = await DuckDBInstance.create(${JSON.stringify(file)}); const c = await i.connect(); ${code}${opts.kill ? "; process.kill(process.pid, 'SIGKILL');" : '; c.closeSync(); i.closeSync();'}`;
  try {
    return execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: REPO,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    if (opts.kill && (err as { signal?: string }).signal === 'SIGKILL') return '';
    throw err;
  }
}

/** Rows found through the unique index and rows in all, read by Python's duckdb. */
function lookups(file: string, table: string, column: string, key: string): { byIndex: number; rows: number } {
  const out = execFileSync(
    'python3',
    [
      '-c',
      `import duckdb,json,sys; c=duckdb.connect(sys.argv[1], read_only=True); print(json.dumps([c.execute('select count(*) from ${table} where ${column} = ?', [sys.argv[2]]).fetchone()[0], c.execute('select count(*) from ${table}').fetchone()[0]]))`,
      file,
      key,
    ],
    { env: pythonReadersEnv(), encoding: 'utf8' },
  );
  const [byIndex, rows] = JSON.parse(out) as [number, number];
  return { byIndex, rows };
}

describe('a WAL replayed, then a close without a CHECKPOINT statement', () => {
  it('DuckDB alone: the replayed rows are missing from the unique index', () => {
    const file = path.join(dir, 'alone.duckdb');
    inProcess(
      file,
      `await c.run("CREATE TABLE t (id BIGINT PRIMARY KEY, wid VARCHAR NOT NULL); CREATE UNIQUE INDEX t_wid ON t (wid); CHECKPOINT;"); await c.run("INSERT INTO t VALUES (1, 'a'), (2, 'b')")`,
      { kill: true },
    );
    expect(fs.existsSync(`${file}.wal`)).toBe(true);
    // Opens (replaying the WAL), does not use the index, closes.
    inProcess(file, "await c.run('SELECT 1')");
    expect(fs.existsSync(`${file}.wal`)).toBe(false);
    expect(lookups(file, 't', 'wid', 'a')).toEqual({ byIndex: 0, rows: 2 });
  });

  it("the destination's session leaves the index whole: a killed worker's pipeline_runs row is found by its workflow id", async () => {
    const file = path.join(dir, 'dest.duckdb');
    const first = await openDatabase(`duckdb:${file}`);
    await first.close();
    // A worker that committed its run's row and was killed before it closed the file.
    inProcess(
      file,
      `await c.run("INSERT INTO pipeline_runs (workflow_id, pipeline, kind, status, started_at) VALUES ('wf-killed', 'p', 'pdf', 'running', now())")`,
      { kill: true },
    );
    expect(fs.existsSync(`${file}.wal`)).toBe(true);
    // The next process's session, as a load into another table would be: it never touches pipeline_runs.
    const db = await openDatabase(`duckdb:${file}`);
    if (db.dialect !== 'duckdb') throw new Error('expected DuckDB');
    await db.session((conn) => conn.run('SELECT 1'));
    await db.close();
    expect(fs.existsSync(`${file}.wal`)).toBe(false);
    expect(lookups(file, 'pipeline_runs', 'workflow_id', 'wf-killed')).toEqual({ byIndex: 1, rows: 1 });
  });
});
