// `scrape-etl demo` from a clean directory with no token, no service and no Temporal server configured.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Client, Connection } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_TASK_QUEUE } from '../../../cli/commands/demo.js';
import { readDevServerState, stopDevServer, ensureDevServer } from '../../../temporal/dev-server.js';
import { CLI, runCli } from '../../support/cli.js';
import { pipelineDataConverter } from '../../../temporal/payload-codec.js';
import { spawnSync } from 'node:child_process';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-cli-demo-'));
/** The text demo runs in a folder of its own: a first run there, like a new user's. */
const textDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-cli-demo-text-'));
/** The interrupted demo's folder. */
const stopDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-cli-demo-stop-'));

afterAll(async () => {
  for (const d of [dir, textDir, stopDir]) {
    await stopDevServer({ dataDir: path.join(d, 'data') });
    fs.rmSync(d, { recursive: true, force: true });
  }
});

describe('scrape-etl demo', () => {
  it('runs every example against the in-process simulator and says where everything is', async () => {
    const env = {
      SCRAPER_API_TOKEN: undefined,
      SCRAPER_BASE_URL: undefined,
      SCRAPE_ETL_DATA_DIR: undefined,
      TEMPORAL_ADDRESS: undefined,
      DATABASE_URL: undefined,
    };
    const r = await runCli(['demo', '--json'], { cwd: dir, env, timeoutMs: 150_000 });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const results = lines.filter((l) => l['type'] === 'result');
    expect(results.map((l) => l['pipeline']).sort()).toEqual([
      'jobs-remote-typescript',
      'leads-ai-sentiment',
      'leads-coffee-roasters',
      'marketplace-products',
      'pdf-annual-reports',
      'results-sync',
    ]);
    for (const res of results) {
      expect(res['status']).toBe('succeeded');
      expect((res['exportedFiles'] as string[]).length).toBeGreaterThan(0);
    }
    const summary = lines.at(-1)!;
    const dataDir = fs.realpathSync(path.join(dir, 'data'));
    expect(summary).toMatchObject({ type: 'summary', failures: 0, exportDir: path.join(dataDir, 'exports') });
    expect(summary['database']).toBe(`sqlite:${path.join(dataDir, 'scrape-etl.sqlite')}`);
    expect(String(summary['temporalUi'])).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(fs.existsSync(path.join(dataDir, 'scrape-etl.sqlite'))).toBe(true);
    expect(
      fs.readdirSync(path.join(dataDir, 'exports')).filter((f) => f.endsWith('.csv')).length,
    ).toBeGreaterThanOrEqual(6);
    // No process outlives the demo (issue 36): the embedded server it started is stopped, its state kept; the Web UI
    // is served again on the same port whenever the server runs (`up`).
    const state = readDevServerState(dataDir);
    expect(state?.pid ?? null).toBeNull();
    expect(String(summary['temporalUi'])).toBe(`http://127.0.0.1:${state!.uiPort}`);
    const ui = await fetch(String((await ensureDevServer({ dataDir })).uiUrl));
    expect(ui.status).toBe(200);
  });

  it('on a terminal, lists the paths of the files each pipeline exported, not a count', async () => {
    const env = {
      SCRAPER_API_TOKEN: undefined,
      SCRAPER_BASE_URL: undefined,
      SCRAPE_ETL_DATA_DIR: undefined,
      TEMPORAL_ADDRESS: undefined,
      DATABASE_URL: undefined,
    };
    const r = await runCli(['demo'], { cwd: textDir, env, timeoutMs: 150_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/CSV file\(s\)/);
    const exportDir = path.join(fs.realpathSync(path.join(textDir, 'data')), 'exports');
    // One block per pipeline: its heading line, its rows by table, then 'exported files:' and one path a line.
    const blocks = r.stdout.split(/\n(?=\S+: \S+ \()/).slice(1);
    expect(blocks).toHaveLength(6);
    for (const block of blocks) {
      const pipeline = /^\S+: (\S+) \(/.exec(block)![1]!;
      // The indented lines right under 'exported files:' (the summary's 'next:' commands are indented too).
      const after = block.split('exported files:\n')[1]?.split('\n') ?? [];
      const end = after.findIndex((l) => !l.startsWith('  '));
      const files = (end < 0 ? after : after.slice(0, end)).map((l) => l.trim());
      expect({ pipeline, listed: files.length > 0 }).toEqual({ pipeline, listed: true });
      for (const f of files) {
        expect(path.dirname(f)).toBe(exportDir);
        expect(path.basename(f).startsWith(`${pipeline}_`)).toBe(true);
        expect(fs.statSync(f).size).toBeGreaterThan(0);
      }
    }
  });

  it('Ctrl-C stops the demo and its current run: exit 130, nothing left running in Temporal, on a queue of its own', async () => {
    const env = {
      ...process.env,
      NO_COLOR: '1',
      SCRAPER_API_TOKEN: '',
      SCRAPER_BASE_URL: '',
      SCRAPE_ETL_DATA_DIR: '',
      TEMPORAL_ADDRESS: '',
      DATABASE_URL: '',
    };
    const child = spawn(process.execPath, [CLI, 'demo', '--json'], {
      cwd: stopDir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // Interrupted while a run is under way: after its first progress line.
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (stdout.includes('"type":"progress"')) resolve();
      });
      void exited.then(() => reject(new Error(`demo exited before a run started:\n${stderr}`)));
    });
    child.kill('SIGINT');
    expect(await exited, stderr).toBe(130);
    // --json: every line of stdout is a JSON object, the interrupted run's included.
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => {
        try {
          return JSON.parse(l) as Record<string, unknown>;
        } catch {
          throw new Error(
            `a line of \`demo --json\` is not JSON: ${JSON.stringify(l)}\nstdout:\n${stdout}\nstderr:\n${stderr}`,
          );
        }
      });
    const stopped = lines.find((l) => l['type'] === 'interrupted');
    expect(stopped, stdout).toBeDefined();
    expect(stderr).toContain(`interrupted: the demo's run ${String(stopped!['workflowId'])} was stopped`);

    const state = await ensureDevServer({ dataDir: path.join(fs.realpathSync(stopDir), 'data') });
    const connection = await Connection.connect({ address: `127.0.0.1:${state!.port}` });
    try {
      const client = new Client({ connection, dataConverter: pipelineDataConverter() });
      const d = await client.workflow.getHandle(String(stopped!['workflowId'])).describe();
      expect(d.status.name).toBe('TERMINATED');
      expect(d.taskQueue).toBe(DEMO_TASK_QUEUE);
      const running: string[] = [];
      for await (const w of client.workflow.list({ query: 'ExecutionStatus = "Running"' })) running.push(w.workflowId);
      expect(running).toEqual([]);
    } finally {
      await connection.close();
    }
    // Its pipeline_runs row (when the run had written one) is finished, not left 'running' for ever.
    const dbFile = path.join(fs.realpathSync(stopDir), 'data', 'scrape-etl.sqlite');
    const py = spawnSync(
      'python3',
      [
        '-c',
        `import sqlite3,json;c=sqlite3.connect(${JSON.stringify(dbFile)});print(json.dumps(c.execute("select workflow_id,status from pipeline_runs where status='running'").fetchall()))`,
      ],
      { encoding: 'utf8' },
    );
    expect(py.status, py.stderr).toBe(0);
    expect(JSON.parse(py.stdout)).toEqual([]);
  }, 150_000);
});
