// An unfinished run after its key is lost (issue 37): a `run` started with one key file is killed mid-run; the same
// `run` with another key file resumes it. Its worker cannot decode the run's payloads, so the run must fail at once
// naming both key ids (the one the run was sealed with, this process's) and the fix, and `run` must say so within
// seconds instead of waiting silently with the run RUNNING. Real embedded Temporal dev server, real simulator.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretKeys } from '../../../lib/secret-key.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { readDevServerState, stopDevServer, ensureDevServer } from '../../../temporal/dev-server.js';
import { pipelineDataConverter } from '../../../temporal/payload-codec.js';
import { CLI, REPO_ROOT, runCli } from '../../support/cli.js';

const TOKEN = 'cli-key-lost-token';
const FILE = path.join(REPO_ROOT, 'pipelines', 'examples', 'pdf.yaml');
let sim: RunningSimulator;
let dir: string;
let dataDir: string;
let keyA: string;
let keyB: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  // The scraping run outlasts the test: the first `run` is certainly still waiting when it is killed.
  sim = await startSimulator({ token: TOKEN, seed: 37, runDurationMs: 600_000 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-key-lost-'));
  dataDir = path.join(dir, 'data');
  keyA = path.join(dir, 'a.key');
  keyB = path.join(dir, 'b.key');
  env = {
    SCRAPER_BASE_URL: sim.baseUrl,
    SCRAPER_API_TOKEN: TOKEN,
    SCRAPE_ETL_DATA_DIR: dataDir,
    // The default heartbeat timeouts (minutes): the killed run's activity is not retried during the test, so what
    // ends the run is the worker's first look at it (the progress query `run` asks when it attaches).
    TEMPORAL_ADDRESS: '',
    DATABASE_URL: '',
  };
});

afterAll(async () => {
  await stopDevServer({ dataDir });
  await sim?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('run resumes an unfinished run that was sealed with another key', () => {
  it('fails within seconds naming both key ids and the fix; the run is ended, not RUNNING', async () => {
    const a = secretKeys(keyA);
    const b = secretKeys(keyB);
    expect(a.id).not.toBe(b.id);

    const first = spawn(process.execPath, [CLI, 'run', FILE], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: '1', ...env, SCRAPE_ETL_KEY_FILE: keyA },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const closed = new Promise<void>((resolve) => first.on('close', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      first.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (/waiting/.test(stderr)) resolve();
      });
      first.on('close', () => reject(new Error(`run exited before waiting:\n${stderr}`)));
    });
    const workflowId = /started (\S+)/.exec(stderr)?.[1];
    expect(workflowId, stderr).toMatch(/^pdf-annual-reports--/);
    first.kill('SIGKILL');
    await closed;

    // The key is lost: the same command with another key file.
    const started = Date.now();
    const second = await runCli(['run', FILE], {
      cwd: dir,
      env: { ...env, SCRAPE_ETL_KEY_FILE: keyB },
      timeoutMs: 120_000,
    });
    const seconds = (Date.now() - started) / 1000;
    const out = second.stdout + second.stderr;
    expect(out).toContain(`resuming unfinished run ${workflowId}`);
    expect(second.code, out).toBe(1);
    expect(seconds, out).toBeLessThan(45);
    expect(out).toContain(`sealed with the key ${a.id}, but this process's key is ${b.id}`);
    expect(out).toMatch(/SCRAPE_ETL_KEY_FILE/);
    expect(out).toContain('scrape-etl run --new');

    // The run itself ended (not RUNNING for ever): terminated by the worker, which cannot fail it from its code (the
    // refusal would not match the run's history), with the same reason.
    const state = await ensureDevServer({ dataDir });
    const connection = await Connection.connect({ address: `127.0.0.1:${state.port}` });
    try {
      const client = new Client({ connection, dataConverter: pipelineDataConverter(b) });
      const handle = client.workflow.getHandle(workflowId!);
      const description = await handle.describe();
      expect(description.status.name).toBe('TERMINATED');
      const failure = await handle.result().then(
        () => undefined,
        (err: unknown) => err as Error & { cause?: Error },
      );
      expect(String(failure?.cause?.message)).toContain(`sealed with the key ${a.id}`);
    } finally {
      await connection.close();
    }
  }, 300_000);
});
