// Finds (or obtains once) the Temporal CLI that runs the embedded dev server. Order:
//   1. TEMPORAL_CLI_PATH
//   2. the cache, ${XDG_CACHE_HOME:-~/.cache}/scrape-etl/temporal-1.5.1/temporal (outside git)
//   3. `go install` into that cache when Go is on PATH (v1.5.1: later tags carry a `replace` directive that
//      `go install` refuses)
//   4. the SDK's own download (@temporalio/testing, `cached-download`), for machines with internet but no Go.
// scripts/ensure-temporal-cli.sh implements steps 1-3 with the same cache path for CI.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const TEMPORAL_CLI_VERSION = '1.5.1';

export function temporalCliCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const cacheRoot = env['XDG_CACHE_HOME']?.trim() || path.join(os.homedir(), '.cache');
  return path.join(cacheRoot, 'scrape-etl', `temporal-${TEMPORAL_CLI_VERSION}`);
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function hasGo(): boolean {
  return spawnSync('go', ['version'], { stdio: 'ignore' }).status === 0;
}

export interface FindTemporalCliOptions {
  env?: NodeJS.ProcessEnv;
  /** Progress messages (building takes minutes); default stderr. */
  log?: (message: string) => void;
  /** false: only look, never build or download. */
  obtain?: boolean;
}

/** Absolute path of a runnable Temporal CLI binary. */
export async function findTemporalCli(opts: FindTemporalCliOptions = {}): Promise<string> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  const explicit = env['TEMPORAL_CLI_PATH']?.trim();
  if (explicit) {
    if (!isExecutable(explicit)) {
      throw new Error(`TEMPORAL_CLI_PATH='${explicit}' is not an executable file; fix the path or unset it to use the cached build`);
    }
    return path.resolve(explicit);
  }
  const dir = temporalCliCacheDir(env);
  const cached = path.join(dir, 'temporal');
  if (isExecutable(cached)) return cached;
  if (opts.obtain === false) {
    throw new Error(`no Temporal CLI at ${cached}; set TEMPORAL_CLI_PATH or run scripts/ensure-temporal-cli.sh`);
  }
  if (hasGo()) {
    await goInstall(dir, env, log);
    if (isExecutable(cached)) return cached;
    throw new Error(`go install finished but ${cached} is missing`);
  }
  return sdkDownload(dir, log);
}

async function goInstall(dir: string, env: NodeJS.ProcessEnv, log: (m: string) => void): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  log(`building the Temporal CLI v${TEMPORAL_CLI_VERSION} with go install into ${dir} (this takes a few minutes, once)...`);
  const started = Date.now();
  const child = spawn('go', ['install', `github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`], {
    env: { ...env, GOBIN: dir, GOFLAGS: `${env['GOFLAGS'] ?? ''} -buildvcs=false`.trim() },
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) {
    throw new Error(
      `go install of the Temporal CLI failed (exit ${code}); set TEMPORAL_CLI_PATH to an existing binary instead.\n${stderr.trim()}`,
    );
  }
  log(`built the Temporal CLI in ${Math.round((Date.now() - started) / 1000)} s`);
}

/**
 * The SDK downloads the CLI when it starts an ephemeral server; starting (and stopping) one is the public way
 * to trigger that download, after which the binary stays in `downloadDir` and is found by name.
 */
async function sdkDownload(dir: string, log: (m: string) => void): Promise<string> {
  const downloadDir = path.join(dir, 'sdk-download');
  const existing = findDownloaded(downloadDir);
  if (existing) return existing;
  fs.mkdirSync(downloadDir, { recursive: true });
  log('Go is not on PATH: downloading the Temporal CLI through the Temporal SDK...');
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'cached-download', downloadDir, ttl: '3650d' } },
  });
  await env.teardown();
  const found = findDownloaded(downloadDir);
  if (!found) throw new Error(`the SDK started a dev server but no Temporal CLI binary was left in ${downloadDir}`);
  return found;
}

function findDownloaded(downloadDir: string): string | undefined {
  let names: string[];
  try {
    names = fs.readdirSync(downloadDir);
  } catch {
    return undefined;
  }
  return names
    .filter((n) => n.startsWith('temporal') && !n.endsWith('.tmp'))
    .map((n) => path.join(downloadDir, n))
    .filter(isExecutable)
    .sort()
    .at(-1);
}
