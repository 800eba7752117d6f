// Issue #41: a DuckDB destination written by one long-lived `scrape-etl up` worker and `scrape-etl run` clients, the
// README's way to run pipelines. Twelve runs of three kinds (two create-and-wait kinds with exports, one URL list
// with checks and watches) go into one DuckDB file through the same `up`; then `up` stops and the file is opened by
// Python's duckdb package, an independent reader: it must open, and every run must have its `pipeline_runs` row,
// its scraper's run record and its rows. Before the fix the worker reopened the file in the same process while a
// DuckDB result of an earlier session still held the first instance open; when that result was collected the old
// instance checkpointed its stale state over the file: committed rows vanished, or the file could not be read.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stopDevServer } from '../../../temporal/dev-server.js';
import { startCliBed, type CliBed } from '../../support/cli-bed.js';
import { REPO_ROOT, runCli } from '../../support/cli.js';
import { pythonReadersEnv } from '../../support/python-readers.js';
import { killUps, startUp, type UpProcess } from '../../support/up-process.js';

const TOKEN = 'cli-up-duckdb-token';
const EXAMPLES = ['leads-search-engine', 'leads-social', 'marketplace'] as const;
const ROUNDS = 4;
let bed: CliBed;
const ups: UpProcess[] = [];
/** Data folders of the cases: the embedded server `up` started there is stopped after each case. */
const dataDirs: string[] = [];

beforeAll(async () => {
  bed = await startCliBed({ name: 'up-duckdb', token: TOKEN, seed: 41 });
});

afterEach(async () => {
  await killUps(ups);
  for (const dataDir of dataDirs.splice(0)) await stopDevServer({ dataDir });
});

afterAll(async () => {
  await bed?.close();
});

/** Rows of a query on a DuckDB file, read by Python's duckdb (read-only), as JSON. */
function duckdbPython(file: string, sql: string): { rows?: unknown[][]; error?: string } {
  const r = spawnSync(
    'python3',
    [
      '-c',
      'import duckdb,json,sys; c=duckdb.connect(sys.argv[1], read_only=True); print(json.dumps(c.execute(sys.argv[2]).fetchall(), default=str))',
      file,
      sql,
    ],
    { encoding: 'utf8', env: pythonReadersEnv() },
  );
  if (r.status !== 0) return { error: r.stderr.trim().split('\n').slice(-3).join('\n') };
  return { rows: JSON.parse(r.stdout) as unknown[][] };
}

describe('DuckDB under a long-lived `up` worker (issue #41)', () => {
  it('twelve runs of three kinds through `up` into one DuckDB file: every run, its pipeline_runs row and its rows are there, and the file opens', async () => {
    const dir = path.join(bed.dir, 'case');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'w.duckdb');
    const env: NodeJS.ProcessEnv = { ...bed.env, SCRAPE_ETL_PROJECT: 'none', DATABASE_URL: `duckdb:${file}` };
    const up = startUp([], { cwd: dir, env });
    ups.push(up);
    await up.ready();

    const workflowIds: Array<{ example: string; workflowId: string }> = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const example of EXAMPLES) {
        const r = await runCli(['run', path.join(REPO_ROOT, 'pipelines', 'examples', `${example}.yaml`), '--json'], {
          cwd: dir,
          env,
          timeoutMs: 150_000,
        }).catch((err: Error) => {
          throw new Error(`round ${round}, ${example}: ${err.message}\nup's log:\n${up.stderr().slice(-6000)}`);
        });
        const context = `round ${round}, ${example}: exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}\nup's log:\n${up.stderr().slice(-4000)}`;
        expect(r.code, context).toBe(0);
        const result = JSON.parse(r.stdout.trim().split('\n').pop()!) as { workflowId: string; status: string };
        expect(result.status, context).toBe('succeeded');
        workflowIds.push({ example, workflowId: result.workflowId });
      }
    }
    up.child.kill('SIGTERM');
    const exit = await up.exited;
    // Stopped by SIGTERM: 143, as every command (README, "Exit codes").
    expect(exit.code, up.stderr()).toBe(143);
    // No engine error was ever logged by the worker.
    expect(up.stderr()).not.toMatch(
      /INTERNAL Error|Serialization Error|Failed to deserialize|database has been invalidated/,
    );

    // An independent reader opens the file, and every run is in it.
    const runs = duckdbPython(file, 'SELECT workflow_id, status FROM pipeline_runs ORDER BY workflow_id');
    expect(runs.error, 'Python duckdb could not read the file').toBeUndefined();
    const byId = new Map((runs.rows ?? []).map((r) => [String(r[0]), String(r[1])]));
    for (const { example, workflowId } of workflowIds)
      expect(byId.get(workflowId), `${example} ${workflowId}`).toBe('succeeded');
    expect(byId.size).toBe(workflowIds.length);

    // Each create-and-wait run's scraper run record and results, and each marketplace run's products, are there.
    // A row's load id is the id of the raw response it came from, which names the run's workflow.
    const records = duckdbPython(
      file,
      'SELECT r.workflow_id, count(*) FROM run_records rr JOIN raw_responses r ON r.id = rr.load_id GROUP BY r.workflow_id',
    );
    expect(records.error).toBeUndefined();
    const recordsBy = new Map((records.rows ?? []).map((r) => [String(r[0]), Number(r[1])]));
    const leads = duckdbPython(file, 'SELECT count(*) FROM leads_results');
    expect(leads.error).toBeUndefined();
    expect(Number(leads.rows?.[0]?.[0])).toBeGreaterThan(0);
    const products = duckdbPython(
      file,
      `SELECT count(DISTINCT item_id) FROM marketplace_products WHERE pipeline = 'marketplace-products'`,
    );
    expect(products.error).toBeUndefined();
    expect(Number(products.rows?.[0]?.[0])).toBe(2);
    for (const { example, workflowId } of workflowIds) {
      if (example !== 'marketplace')
        expect(recordsBy.get(workflowId) ?? 0, `${example} ${workflowId}: run records`).toBeGreaterThan(0);
    }
    const raw = duckdbPython(file, 'SELECT workflow_id, count(*) FROM raw_responses GROUP BY workflow_id');
    expect(raw.error).toBeUndefined();
    const rawBy = new Map((raw.rows ?? []).map((r) => [String(r[0]), Number(r[1])]));
    for (const { example, workflowId } of workflowIds)
      expect(rawBy.get(workflowId) ?? 0, `${example} ${workflowId}: raw responses`).toBeGreaterThan(0);
  }, 1_500_000);

  it("a run that waits for an analyst's read-only session on the file says which program holds it and since when, then finishes", async () => {
    const dir = path.join(bed.dir, 'reader');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'r.duckdb');
    const env: NodeJS.ProcessEnv = {
      ...bed.env,
      SCRAPE_ETL_DATA_DIR: path.join(dir, 'data'),
      SCRAPE_ETL_PROJECT: 'none',
      DATABASE_URL: `duckdb:${file}`,
    };
    dataDirs.push(path.join(dir, 'data'));
    const up = startUp([], { cwd: dir, env });
    ups.push(up);
    await up.ready();
    const example = path.join(REPO_ROOT, 'pipelines', 'examples', 'marketplace.yaml');
    const first = await runCli(['run', example], { cwd: dir, env, timeoutMs: 150_000 });
    expect(first.code, first.stderr).toBe(0);
    // Python's duckdb holds DuckDB's own lock for 8 s, as an analyst's notebook or dbt does (not scrape-etl's lock).
    // It opens the file as soon as up's worker lets go of it after the first run (retrying while the worker holds it).
    const script = [
      'import duckdb, sys, time',
      'deadline = time.time() + 60',
      'while True:',
      '    try:',
      '        c = duckdb.connect(sys.argv[1], read_only=True)',
      '        break',
      '    except duckdb.IOException:',
      '        if time.time() > deadline: raise',
      '        time.sleep(0.1)',
      'print("open", flush=True)',
      'time.sleep(8)',
      'c.close()',
    ].join('\n');
    const reader = spawn('python3', ['-c', script, file], {
      env: pythonReadersEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const readerDone = new Promise<number | null>((r) => reader.on('close', r));
    await new Promise<void>((resolve, reject) => {
      reader.stdout!.once('data', () => resolve());
      reader.once('close', (code) => reject(new Error(`the Python reader exited (${code}) before opening the file`)));
    });
    const t0 = Date.now();
    const r = await runCli(['run', example], { cwd: dir, env, timeoutMs: 150_000 });
    expect(await readerDone).toBe(0);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(Date.now() - t0).toBeGreaterThan(4_000);
    // The run's own progress names the holder, its pid and start, and the file.
    expect(r.stderr).toMatch(
      new RegExp(
        `waiting: the worker \\(pid \\d+\\) waits since \\d\\d:\\d\\d:\\d\\dZ for ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: \\S*python3[\\d.]* -c import duckdb.* \\(pid ${reader.pid}, running since \\d{4}-\\d\\d-\\d\\dT[\\d:]+Z\\), another program \\(not scrape-etl\\), is using it`,
      ),
    );
    // And so does up's log.
    expect(up.stderr()).toMatch(
      new RegExp(`waiting for .*r\\.duckdb: \\S*python3[\\d.]* -c import duckdb.* \\(pid ${reader.pid}, running since`),
    );
    console.log(
      `run's progress:\n${r.stderr}\nup's wait lines:\n${up
        .stderr()
        .split('\n')
        .filter((l) => l.includes('waiting for'))
        .join('\n')}`,
    );
  }, 600_000);
});
