// `scrape-etl run` after a hard crash: the command and the embedded Temporal dev server it started are both
// SIGKILLed while the pipeline waits on a slow scraping run. Running the same command again must restart the dev
// server on its SQLite file, attach to the same workflow and finish it with exactly the simulator's rows, without
// paying for new scraper runs.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetRun, forgetRunByWorkflowId, recallRun, rememberRun, runStateFile } from '../../../cli/run-state.js';
import type { ResultRecord } from '../../../client/index.js';
import { openDatabase } from '../../../destinations/open.js';
import { flattenResultRecords } from '../../../db/model/flatten/index.js';
import { loadPipelineFile } from '../../../pipelines/loader.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { isProcessAlive, readDevServerState, stopDevServer } from '../../../temporal/dev-server.js';
import { CLI, REPO_ROOT, jsonLines, runCli } from '../../support/cli.js';
import { expectContentEqual, expectTablesEqual } from '../../support/pipeline-truth.js';
import { runFilesOf } from '../../support/run-state.js';

const TOKEN = 'cli-resume-test-token';
const FILE = path.join(REPO_ROOT, 'pipelines', 'examples', 'pdf.yaml');
let sim: RunningSimulator;
let dir: string;
let dataDir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  // Long enough that the first command is certainly still waiting when it is killed.
  sim = await startSimulator({ token: TOKEN, seed: 21, runDurationMs: 8_000 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-cli-resume-'));
  dataDir = path.join(dir, 'data');
  env = {
    SCRAPER_BASE_URL: sim.baseUrl,
    SCRAPER_API_TOKEN: TOKEN,
    SCRAPE_ETL_DATA_DIR: dataDir,
    // An activity cut off by the SIGKILL is retried after this, not after the default minutes.
    SCRAPE_ETL_HEARTBEAT_TIMEOUT: '3s',
    SCRAPE_ETL_WAIT_HEARTBEAT_TIMEOUT: '3s',
    TEMPORAL_ADDRESS: '',
    DATABASE_URL: '',
  };
});

afterAll(async () => {
  await stopDevServer({ dataDir });
  await sim?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function waitForExit(pid: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (isProcessAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`pid ${pid} still alive 10 s after SIGKILL`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('scrape-etl run after the command and its embedded dev server were SIGKILLed', () => {
  it('restarts the server on its SQLite file and finishes the same workflow with exact rows', async () => {
    const child = spawn(process.execPath, [CLI, 'run', FILE], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const closed = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('close', (_code, signal) => resolve(signal)),
    );
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (/waiting/.test(stderr)) resolve();
      });
      child.on('close', () => reject(new Error(`run exited before waiting:\n${stderr}`)));
    });
    const workflowId = /started (\S+)/.exec(stderr)?.[1];
    expect(workflowId, stderr).toMatch(/^pdf-annual-reports--/);

    const server = readDevServerState(dataDir);
    expect(server?.pid).toBeGreaterThan(0);
    const serverPid = server!.pid!;
    process.kill(serverPid, 'SIGKILL');
    child.kill('SIGKILL');
    expect(await closed).toBe('SIGKILL');
    await waitForExit(serverPid);
    expect(runFilesOf(dataDir, 'pdf-annual-reports').length > 0).toBe(true);

    const resumed = await runCli(['run', '--json', FILE], { cwd: dir, env, timeoutMs: 120_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`resuming unfinished run ${workflowId}`);
    const restarted = readDevServerState(dataDir);
    expect(restarted?.pid).not.toBe(serverPid);
    expect(restarted?.dbFile).toBe(server!.dbFile);
    // The server the resuming command started again, on the same SQLite file, stopped with it (issue 36: no
    // process outlives the command that started it).
    expect(restarted?.pid ?? null).toBeNull();
    expect(isProcessAlive(serverPid)).toBe(false);
    const result = jsonLines(resumed.stdout).at(-1)!;
    expect(result).toMatchObject({ type: 'result', status: 'succeeded', workflowId });
    expect(resumed.stderr + resumed.stdout).not.toContain(TOKEN);

    // One scraper run per keyword, created once: the resumed workflow reused them instead of starting over.
    const runs = sim.truth.runs().filter((r) => r.scraper_name === `pdf-annual-reports--${workflowId?.split('--')[1]}`);
    expect(runs).toHaveLength(2);
    const records = runs.flatMap((r) => sim.truth.runResults(Number(r.id)) as unknown as ResultRecord[]);
    expect(records).toHaveLength(6);
    const spec = await loadPipelineFile(FILE, { env: { ...process.env, ...env } });
    const db = await openDatabase(`sqlite:${path.join(dataDir, 'scrape-etl.sqlite')}`);
    try {
      await expectTablesEqual(db, spec, flattenResultRecords(records, 'pdf_results'), ['pdf_results']);
      await expectContentEqual(db, spec, records);
    } finally {
      await db.close();
    }
  }, 150_000);
});

describe('the remembered unfinished run (data/runs/<pipeline>--<hash of name, destination, file>.json)', () => {
  it('round-trips, is absent after forgetRun, and a damaged file is an error naming it and --new', () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-run-state-'));
    try {
      const id = { pipeline: 'p', destination: 'sqlite:/tmp/a.sqlite', file: 'p.yaml' };
      expect(recallRun(data, id)).toBeUndefined();
      const run = {
        pipeline: 'p',
        runKey: '20250101T000000Z-abcdef',
        workflowId: 'p--20250101T000000Z-abcdef',
        file: path.resolve('p.yaml'),
        startedAt: '2025-01-01T00:00:00.000Z',
      };
      rememberRun(data, id, run);
      expect(recallRun(data, id)).toEqual(run);
      forgetRun(data, id);
      expect(recallRun(data, id)).toBeUndefined();
      // A damaged file must not silently start (and pay for) a second run.
      const file = runStateFile(data, id);
      fs.writeFileSync(file, '{"runKey": "20250101T0');
      expect(() => recallRun(data, id)).toThrow(
        `${file}: not a remembered run (expected JSON with runKey and workflowId); delete it, or run with --new to start a fresh run`,
      );
    } finally {
      fs.rmSync(data, { recursive: true, force: true });
    }
  });

  it('keeps two pipelines that share a name apart when their destination or file differs, and writes no password', () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-run-state-'));
    try {
      const a = { pipeline: 'p', destination: 'postgres://u:s3cret-pw@h/a', file: '/x/a.yaml' };
      const b = { ...a, destination: 'postgres://u:s3cret-pw@h/b' };
      const c = { ...a, file: '/x/c.yaml' };
      const run = (k: string) => ({
        pipeline: 'p',
        runKey: k,
        workflowId: `p--${k}`,
        file: a.file,
        startedAt: '2025-01-01T00:00:00.000Z',
      });
      rememberRun(data, a, run('a'));
      expect(recallRun(data, b)).toBeUndefined();
      expect(recallRun(data, c)).toBeUndefined();
      rememberRun(data, b, run('b'));
      expect(recallRun(data, a)?.runKey).toBe('a');
      expect(recallRun(data, b)?.runKey).toBe('b');
      forgetRunByWorkflowId(data, 'p', 'p--a');
      expect(recallRun(data, a)).toBeUndefined();
      expect(recallRun(data, b)?.runKey).toBe('b');
      for (const f of fs.readdirSync(path.join(data, 'runs')))
        expect(fs.readFileSync(path.join(data, 'runs', f), 'utf8')).not.toContain('s3cret-pw');
      // A run remembered by name alone (older versions) is taken up only by the file it names.
      fs.writeFileSync(path.join(data, 'runs', 'q.json'), JSON.stringify({ ...run('old'), pipeline: 'q' }));
      expect(recallRun(data, { pipeline: 'q', destination: 'sqlite:x', file: '/x/other.yaml' })).toBeUndefined();
      expect(recallRun(data, { pipeline: 'q', destination: 'sqlite:x', file: a.file })?.runKey).toBe('old');
    } finally {
      fs.rmSync(data, { recursive: true, force: true });
    }
  });
});
