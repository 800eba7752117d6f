// Ctrl-C at any moment, including start-up (compiled CLI, `npm run build` first). Starting the embedded Temporal
// dev server can take a minute (a first start, a loaded machine, the Temporal CLI being obtained); a signal in that
// time used to be noted and honoured only once the server and the worker were up. Here the server is the real
// Temporal CLI behind a wrapper that waits 60 s before starting it, so the command is certainly still starting when
// the signal comes; the command must then exit promptly with 130 (SIGINT) or 143 (SIGTERM). The bound below is
// generous (the exit takes well under a second); it only tells "exits now" from "exits when start-up is over".
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findTemporalCli } from '../../../temporal/cli-binary.js';
import { isProcessAlive, readDevServerState } from '../../../temporal/dev-server.js';
import { startCliBed, type CliBed } from '../../support/cli-bed.js';
import { CLI, REPO_ROOT } from '../../support/cli.js';
import { runFilesOf } from '../../support/run-state.js';

const TOKEN = 'cli-signals-test-token';
/** How long the command may take to exit after the signal. Start-up here takes over 60 s. */
const PROMPT_MS = 20_000;
let bed: CliBed;
let slowTemporal: string;

beforeAll(async () => {
  bed = await startCliBed({ name: 'cli-signals', token: TOKEN, seed: 3 });
  const real = await findTemporalCli();
  slowTemporal = path.join(bed.dir, 'slow-temporal');
  fs.writeFileSync(slowTemporal, `#!/bin/sh\nsleep 60\nexec '${real}' "$@"\n`, { mode: 0o755 });
});

afterAll(async () => {
  await bed?.close();
});

/** The data folder of one case, and the (slow) server it started: killed with its process group at the end. */
function caseDir(name: string): string {
  const dataDir = path.join(bed.dir, name);
  fs.mkdirSync(dataDir, { recursive: true });
  return dataDir;
}

function killServer(dataDir: string): void {
  const pid = readDevServerState(dataDir)?.pid;
  // Started detached: the wrapper leads its own process group (the wrapper and its sleep).
  if (pid && isProcessAlive(pid)) process.kill(-pid, 'SIGKILL');
}

/** Spawns the command, waits until it is starting the embedded server, sends `signal`, and times the exit. */
async function signalDuringStartup(
  args: string[],
  dataDir: string,
  signal: NodeJS.Signals,
): Promise<{ code: number | null; exitedWithin: boolean; ms: number; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: bed.dir,
    env: { ...process.env, NO_COLOR: '1', ...bed.env, SCRAPE_ETL_DATA_DIR: dataDir, TEMPORAL_CLI_PATH: slowTemporal },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  try {
    // The command has spawned the embedded server (its state file names the pid) and waits for it to serve.
    const deadline = Date.now() + 30_000;
    while (!readDevServerState(dataDir)?.pid) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`the command did not start the embedded server:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const sent = Date.now();
    child.kill(signal);
    const code = await Promise.race([
      exited,
      new Promise<'still running'>((r) => setTimeout(() => r('still running'), PROMPT_MS)),
    ]);
    const ms = Date.now() - sent;
    if (code === 'still running') return { code: null, exitedWithin: false, ms, stderr };
    return { code, exitedWithin: true, ms, stderr };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    killServer(dataDir);
  }
}

describe('a signal while the command starts the embedded server', () => {
  it('run: Ctrl-C exits promptly with 130 and starts nothing', async () => {
    const dataDir = caseDir('run-sigint');
    const r = await signalDuringStartup(
      ['run', path.join(REPO_ROOT, 'pipelines', 'examples', 'pdf.yaml')],
      dataDir,
      'SIGINT',
    );
    expect({ exitedWithin: r.exitedWithin, code: r.code }, r.stderr).toEqual({ exitedWithin: true, code: 130 });
    expect(r.stderr).toContain('interrupted while starting: no run was started or attached');
    expect(r.stderr).not.toMatch(/^\s+at /m);
    // No run was remembered, so the next `run` has nothing to attach to.
    expect(runFilesOf(dataDir, 'pdf-annual-reports').length > 0).toBe(false);
  }, 90_000);

  it('run: SIGTERM exits promptly with 143', async () => {
    const r = await signalDuringStartup(
      ['run', path.join(REPO_ROOT, 'pipelines', 'examples', 'pdf.yaml')],
      caseDir('run-sigterm'),
      'SIGTERM',
    );
    expect({ exitedWithin: r.exitedWithin, code: r.code }, r.stderr).toEqual({ exitedWithin: true, code: 143 });
    expect(r.stderr).toContain('terminated while starting');
  }, 90_000);

  it('worker: Ctrl-C exits promptly with 130', async () => {
    const r = await signalDuringStartup(['worker'], caseDir('worker-sigint'), 'SIGINT');
    expect({ exitedWithin: r.exitedWithin, code: r.code }, r.stderr).toEqual({ exitedWithin: true, code: 130 });
    expect(r.stderr).toContain('interrupted while starting: the worker never polled');
  }, 90_000);
});
