// The embedded Temporal dev server (`temporal server start-dev`) used when TEMPORAL_ADDRESS is unset. It runs
// DETACHED from the process that started it, with its state in SQLite under the data folder. A command that needs
// it only for its own life (run, demo, schedule without `up`) stops it when it ends (releaseDevServer): the workflows
// and schedules stay in the SQLite file and go on when the next command or `up` starts it again. A small JSON state
// file beside the database records pid and ports; the next caller reuses a live server or restarts a dead one on
// the same SQLite file and, when it is free, the same port, so workers reconnect to the address they knew.
import { SEARCH_ATTRIBUTE_NAMES } from './contract.js';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describeSource, locateTemporalCli } from './cli-binary.js';
import { withFileLock } from '../lib/file-lock.js';
import { assertOwned, assertOwnedDataDir } from '../lib/owned-path.js';
import { ensurePrivateDir, narrowToOwner, withPrivateUmask } from '../lib/private-files.js';
import { isProcessAlive, stopProcess } from '../lib/process-alive.js';
import { freePortSet, portIsFree } from '../lib/free-port.js';
import { fileTail, readJsonFile, writeJsonAtomic } from '../lib/state-file.js';
import { processSettings } from '../settings/process.js';

export interface DevServerState {
  pid: number | null;
  port: number;
  uiPort: number;
  dbFile: string;
  logFile: string;
  startedAt: string;
  /**
   * true while the server was started by a command that needs it only for its own life (run, demo, schedule ...
   * without `up`): the last such command to end stops it. A server started or reused by `up` or a `worker` is kept.
   */
  transient?: boolean;
}

export interface DevServerInfo {
  address: string;
  port: number;
  uiPort: number;
  uiUrl: string;
  pid: number;
  dbFile: string;
  logFile: string;
  /** true when this call started the process; false when a live one was reused. */
  started: boolean;
}

export interface DevServerOptions {
  dataDir: string;
  /** Namespaces besides `default` to create at launch. */
  namespace?: string;
  /** Preferred gRPC port when none is recorded yet (the UI takes port + 1000). Default: any free port. */
  port?: number;
  headless?: boolean;
  /** How long to wait for the server to accept connections. Default 60 s. */
  startTimeoutMs?: number;
  log?: (message: string) => void;
  env?: NodeJS.ProcessEnv;
  /**
   * The caller needs the server only until it ends and then calls releaseDevServer: a server it starts is stopped
   * when the last such caller releases it, so no process outlives the command that started it. Without it (`up`,
   * `worker`), a server started or reused is kept running.
   */
  transient?: boolean;
}

export function devServerPaths(dataDir: string): {
  dir: string;
  dbFile: string;
  stateFile: string;
  logFile: string;
  lockFile: string;
  holdersDir: string;
} {
  const dir = path.join(path.resolve(dataDir), 'temporal');
  return {
    dir,
    dbFile: path.join(dir, 'temporal.db'),
    stateFile: path.join(dir, 'dev-server.json'),
    logFile: path.join(dir, 'dev-server.log'),
    lockFile: path.join(dir, 'dev-server.lock'),
    holdersDir: path.join(dir, 'holders'),
  };
}

export function readDevServerState(dataDir: string): DevServerState | undefined {
  assertOwnedServerFiles(dataDir);
  return readJsonFile<DevServerState>(devServerPaths(dataDir).stateFile);
}

/**
 * The data folder, the server's folder and its files belong to this user and nobody else can write them: a state
 * file another user wrote could send this user's commands and worker to a server of theirs (lib/owned-path.ts).
 */
function assertOwnedServerFiles(dataDir: string): void {
  const paths = devServerPaths(dataDir);
  assertOwnedDataDir(path.resolve(dataDir));
  assertOwned(paths.dir, { what: "the embedded Temporal server's folder" });
  for (const f of [
    paths.stateFile,
    paths.dbFile,
    `${paths.dbFile}-wal`,
    `${paths.dbFile}-shm`,
    paths.logFile,
    paths.lockFile,
  ]) {
    assertOwned(f, { what: "the embedded Temporal server's file" });
  }
}

function writeState(dataDir: string, state: DevServerState): void {
  writeJsonAtomic(devServerPaths(dataDir).stateFile, state);
}

// Part of this module's API (the commands and tests that read the server's state use it from here).
export { isProcessAlive };

export function canConnect(port: number, host = '127.0.0.1', timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** A free port p such that p + 1000 (the UI) is free too, both below the ephemeral range (lib/free-port.ts). */
export function freePortPair(): Promise<number> {
  return freePortSet([0, 1000]);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function info(state: DevServerState, pid: number, started: boolean): DevServerInfo {
  return {
    address: `127.0.0.1:${state.port}`,
    port: state.port,
    uiPort: state.uiPort,
    uiUrl: `http://127.0.0.1:${state.uiPort}`,
    pid,
    dbFile: state.dbFile,
    logFile: state.logFile,
    started,
  };
}

/** Reuses the live embedded server, or starts one (again) on the same SQLite file, and waits until it serves. */
export async function ensureDevServer(opts: DevServerOptions): Promise<DevServerInfo> {
  const paths = devServerPaths(opts.dataDir);
  // The server's state holds every run's history: its folder and files are the user's alone (docs/security.md),
  // also those an older version created readable by all.
  assertOwnedServerFiles(opts.dataDir);
  ensurePrivateDir(opts.dataDir);
  ensurePrivateDir(paths.dir);
  for (const f of [paths.dbFile, `${paths.dbFile}-wal`, `${paths.dbFile}-shm`, paths.logFile]) narrowToOwner(f);
  return withFileLock(paths.lockFile, 'the dev server lock', async () => {
    const previous = readDevServerState(opts.dataDir);
    if (previous?.pid && isProcessAlive(previous.pid)) {
      await waitUntilServing(previous.port, previous.pid, opts.startTimeoutMs ?? 60_000, paths.logFile);
      if (opts.transient) addHolder(paths.holdersDir);
      return info(previous, previous.pid, false);
    }
    const log = opts.log ?? (() => {});
    const cli = await locateTemporalCli(opts.env ? { env: opts.env } : {});
    const binary = cli.path;
    const cliSource = `${binary}, from ${describeSource(cli.source, opts.env)}`;
    let port = previous?.port ?? opts.port;
    // A free port can still be taken before the server binds it: by another process, or by the dev server itself,
    // which picks its internal services' ports on its own and once gave one of them ours (it then panics "address
    // already in use"). Such a start is tried again on a new pair, also when the pair was the last server's (kept
    // for the address workers knew, not promised: CI once saw its UI port taken between one command's stop and the
    // next one's start) or the caller's (a preference, as DevServerOptions.port says).
    if (port === undefined || !(await portIsFree(port)) || !(await portIsFree(port + 1000))) {
      port = await freePortPair();
    }
    for (let attempt = 1; ; attempt++) {
      const logStart = fs.existsSync(paths.logFile) ? fs.statSync(paths.logFile).size : 0;
      const state = startDevServerProcess({ binary, cliSource, port, paths, opts });
      if (opts.transient) addHolder(paths.holdersDir);
      log(
        `started the embedded Temporal dev server (pid ${state.pid}) on 127.0.0.1:${port}, UI http://127.0.0.1:${state.uiPort}, state ${paths.dbFile}; Temporal CLI ${cliSource}`,
      );
      try {
        await waitUntilServing(port, state.pid!, opts.startTimeoutMs ?? 60_000, paths.logFile);
        return info(state, state.pid!, true);
      } catch (err) {
        const portTaken = /address already in use/.test(fs.readFileSync(paths.logFile, 'utf8').slice(logStart));
        if (!portTaken || attempt >= 3 || isProcessAlive(state.pid!)) throw err;
        port = await freePortPair();
        log(`the dev server found its port taken at start; trying again on ${port}`);
      }
    }
  });
}

/** Spawns `temporal server start-dev` on `port` (UI on port + 1000), detached, and records its state. */
function startDevServerProcess(a: {
  binary: string;
  cliSource: string;
  port: number;
  paths: ReturnType<typeof devServerPaths>;
  opts: DevServerOptions;
}): DevServerState {
  const { binary, cliSource, port, paths, opts } = a;
  const uiPort = port + 1000;
  const args = [
    'server',
    'start-dev',
    '--db-filename',
    paths.dbFile,
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--ui-port',
    String(uiPort),
    '--log-level',
    'warn',
    // The run's search attributes (temporal/visibility.ts), so runs can be filtered by pipeline, kind, destination.
    ...Object.values(SEARCH_ATTRIBUTE_NAMES).flatMap((name) => ['--search-attribute', `${name}=Keyword`]),
  ];
  if (opts.namespace && opts.namespace !== 'default') args.push('--namespace', opts.namespace);
  if (opts.headless) args.push('--headless');
  const logFd = fs.openSync(paths.logFile, 'a', 0o600);
  fs.writeSync(
    logFd,
    `--- ${new Date().toISOString()} starting: temporal ${args.join(' ')} (Temporal CLI ${cliSource})\n`,
  );
  // The server creates temporal.db (and its -wal, -shm) under this umask: 0600.
  const child = withPrivateUmask(() =>
    spawn(binary, args, {
      detached: true,
      stdio: ['ignore', logFd, logFd],
      env: { ...(opts.env ?? processSettings().env) },
    }),
  );
  fs.closeSync(logFd);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start the Temporal dev server (${binary})`);
  child.unref();
  const state: DevServerState = {
    pid,
    port,
    uiPort,
    dbFile: paths.dbFile,
    logFile: paths.logFile,
    startedAt: new Date().toISOString(),
    ...(opts.transient ? { transient: true } : {}),
  };
  writeState(opts.dataDir, state);
  return state;
}

async function waitUntilServing(port: number, pid: number, timeoutMs: number, logFile: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isProcessAlive(pid)) {
      throw new Error(
        `the Temporal dev server (pid ${pid}) exited during startup; see ${logFile}:\n${fileTail(logFile)}`,
      );
    }
    if (await canConnect(port)) return;
    await sleep(150);
  }
  throw new Error(
    `the Temporal dev server did not accept connections on port ${port} within ${timeoutMs} ms; see ${logFile}`,
  );
}

/** Stops the embedded server (SIGTERM, then SIGKILL after `graceMs`). Its SQLite file, and so all state, stays. */
export async function stopDevServer(opts: {
  dataDir: string;
  graceMs?: number;
  signal?: NodeJS.Signals;
}): Promise<boolean> {
  const paths = devServerPaths(opts.dataDir);
  if (!fs.existsSync(paths.dir)) return false;
  return withFileLock(paths.lockFile, 'the dev server lock', async () => {
    const state = readDevServerState(opts.dataDir);
    if (!state?.pid) return false;
    const pid = state.pid;
    let stopped = false;
    if (isProcessAlive(pid)) {
      await stopProcess(pid, { ...(opts.signal ? { signal: opts.signal } : {}), graceMs: opts.graceMs ?? 10_000 });
      stopped = true;
    }
    writeState(opts.dataDir, { ...state, pid: null });
    return stopped;
  });
}

/**
 * Notes that this process uses the server for its whole life, so that a command that started it does not stop it
 * under this one when it ends (`scrape-etl worker` on a server a `run` started).
 */
export function holdDevServer(dataDir: string): void {
  addHolder(devServerPaths(dataDir).holdersDir);
}

/** Notes that this process uses the server (a file named by its pid: one left by a killed command is ignored). */
function addHolder(holdersDir: string): void {
  ensurePrivateDir(holdersDir);
  fs.writeFileSync(path.join(holdersDir, String(process.pid)), '', { mode: 0o600 });
}

/**
 * Called when a command that asked for the server with `transient` ends: it no longer uses it, and when the server
 * was started by such a command and no other live one uses it (nor `inUse` says so), it is stopped (its SQLite file, and so every run and
 * schedule, stays: the next command or `up` starts it again on it). Returns true when it stopped the server.
 */
export async function releaseDevServer(opts: {
  dataDir: string;
  graceMs?: number;
  inUse?: () => boolean;
}): Promise<boolean> {
  const paths = devServerPaths(opts.dataDir);
  if (!fs.existsSync(paths.dir)) return false;
  return withFileLock(paths.lockFile, 'the dev server lock', async () => {
    fs.rmSync(path.join(paths.holdersDir, String(process.pid)), { force: true });
    const others = fs.existsSync(paths.holdersDir)
      ? fs.readdirSync(paths.holdersDir).filter((name) => {
          const pid = Number(name);
          if (Number.isInteger(pid) && pid > 0 && isProcessAlive(pid)) return true;
          fs.rmSync(path.join(paths.holdersDir, name), { force: true });
          return false;
        })
      : [];
    const state = readDevServerState(opts.dataDir);
    if (!state?.pid || !state.transient || others.length > 0 || !isProcessAlive(state.pid) || opts.inUse?.())
      return false;
    await stopProcess(state.pid, { graceMs: opts.graceMs ?? 10_000 });
    writeState(opts.dataDir, { ...state, pid: null });
    return true;
  });
}
