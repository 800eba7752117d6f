// The background worker's settings and identity. Light on purpose (node built-ins only): the thin `run` process
// reads them before deciding to load nothing more.
//
// One background worker serves one data folder (one embedded Temporal server, one task queue), for one version of
// the code, one working directory and one environment: its activities read the API token and the tuning from the
// environment it was started with, and relative paths (exports, SQLite files) from its working directory. A `run`
// whose identity differs replaces it, and a command that runs its own worker on the embedded server with another
// identity stops it, so a worker with another token never polls the queue beside that command's.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { positiveIntFromEnv } from '../../lib/env-int.js';
import { readJsonFile } from '../../lib/state-file.js';
import { packageInfo } from '../package-info.js';

export const BACKGROUND_WORKER_VAR = 'SCRAPE_ETL_BACKGROUND_WORKER';
export const IDLE_SECONDS_VAR = 'SCRAPE_ETL_BACKGROUND_WORKER_IDLE_SECONDS';
/** Ten minutes without a `run` to serve and without work in flight, then the background worker exits. */
export const DEFAULT_IDLE_SECONDS = 600;

/**
 * Whether `run` goes through the background worker: on the embedded server, unless SCRAPE_ETL_BACKGROUND_WORKER=0
 * (with TEMPORAL_ADDRESS, workers are separate processes already and `run` starts none). The default since the
 * worker in the `run` process cost 1.1 s of start-up and shutdown in every run, 3.5-4x a one-URL `load`.
 */
export function backgroundWorkerWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env[BACKGROUND_WORKER_VAR]?.trim().toLowerCase();
  if (v === '0' || v === 'false' || v === 'off') return false;
  if (v && v !== '1' && v !== 'true' && v !== 'on') {
    throw Object.assign(new Error(`${BACKGROUND_WORKER_VAR}='${env[BACKGROUND_WORKER_VAR]}' must be 1 or 0 (true/false, on/off); nothing was started`), { exitCode: 2 });
  }
  return !env['TEMPORAL_ADDRESS']?.trim();
}

export function idleSeconds(env: NodeJS.ProcessEnv = process.env): number {
  return positiveIntFromEnv(env, IDLE_SECONDS_VAR, DEFAULT_IDLE_SECONDS);
}

/**
 * The variables that make a worker different. Terminal and shell variables (TERM, COLUMNS, PWD, SHLVL) are left
 * out: they change between shells without changing what a worker does.
 */
const IDENTITY_PREFIXES = ['SCRAPER_', 'SCRAPE_ETL_', 'TEMPORAL_', 'DATABASE_', 'PG', 'NODE_', 'XDG_', 'UV_'];
const IDENTITY_NAMES = ['HOME', 'TZ', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy'];

function identityEnv(env: NodeJS.ProcessEnv): [string, string][] {
  return Object.entries(env)
    .filter((e): e is [string, string] => e[1] !== undefined && (IDENTITY_NAMES.includes(e[0]) || IDENTITY_PREFIXES.some((p) => e[0].startsWith(p))))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The code a worker runs: the version, and the modification times of this module, of the `run` command's and of
 * the workflow bundle (a build rewrites them all). From the TypeScript sources, the sources' own times stand in.
 */
function codeStamp(): string {
  const here = fileURLToPath(import.meta.url);
  const cliDir = path.resolve(path.dirname(here), '..');
  const files = [here, path.join(cliDir, 'commands', `run${path.extname(here)}`), path.join(cliDir, '..', 'workflow-bundle.js')];
  const times = files.map((f) => {
    try {
      const st = fs.statSync(f);
      return `${f}:${st.mtimeMs}:${st.size}`;
    } catch {
      return `${f}:-`;
    }
  });
  return [packageInfo().version, ...times].join('|');
}

/** The identity of the worker a `run` from this process may use (hex, 16 characters). */
export function backgroundWorkerKey(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  const h = crypto.createHash('sha256');
  h.update(JSON.stringify({ code: codeStamp(), node: process.version, cwd, env: identityEnv(env) }));
  return h.digest('hex').slice(0, 16);
}

export interface BackgroundWorkerPaths {
  dir: string;
  stateFile: string;
  lockFile: string;
  logFile: string;
  /** The Unix socket of the worker with this key. */
  socket(key: string): string;
  /** The socket files of this data folder's workers of any key that exist now (in either place of socket()). */
  sockets(): string[];
}

const KEY = /^[0-9a-f]{16}$/;

/** Beside the embedded server's files, in the data folder's temporal/ folder. */
export function backgroundWorkerPaths(dataDir: string): BackgroundWorkerPaths {
  const dir = path.join(dataDir, 'temporal');
  return {
    dir,
    stateFile: path.join(dir, 'background-worker.json'),
    lockFile: path.join(dir, 'background-worker.lock'),
    logFile: path.join(dir, 'background-worker.log'),
    socket(key) {
      const { folder, prefix } = socketPlace(dir);
      if (folder !== dir) fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
      return path.join(folder, `${prefix}${key}.sock`);
    },
    sockets() {
      const { folder, prefix } = socketPlace(dir);
      let names: string[];
      try {
        names = fs.readdirSync(folder);
      } catch {
        return [];
      }
      return names.filter((n) => n.startsWith(prefix) && n.endsWith('.sock') && KEY.test(n.slice(prefix.length, -'.sock'.length))).map((n) => path.join(folder, n));
    },
  };
}

/**
 * Where the sockets of the data folder whose temporal/ folder is `dir` go: beside its files, or, when that path
 * would be too long for a Unix socket (about 107 bytes), in a private folder in /tmp, named by the folder's hash.
 * Keys have one length, so one data folder's sockets are all in one place.
 */
function socketPlace(dir: string): { folder: string; prefix: string } {
  const inDataDir = path.join(dir, `background-worker-${'0'.repeat(16)}.sock`);
  if (Buffer.byteLength(inDataDir) <= 100) return { folder: dir, prefix: 'background-worker-' };
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  return { folder: path.join(os.tmpdir(), `scrape-etl-${uid}`), prefix: `bw-${crypto.createHash('sha256').update(dir).digest('hex').slice(0, 12)}-` };
}

export interface BackgroundWorkerState {
  pid: number;
  key: string;
  socket: string;
  cwd: string;
  startedAt: string;
}

export function readBackgroundWorkerState(dataDir: string): BackgroundWorkerState | undefined {
  return readJsonFile<BackgroundWorkerState>(backgroundWorkerPaths(dataDir).stateFile);
}
