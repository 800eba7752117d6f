// The thin side of `run` on the embedded server (unless SCRAPE_ETL_BACKGROUND_WORKER=0): it finds (or starts) the
// background worker of this data folder, asks it to carry out the run, and relays what the worker writes to this
// process's stdout and stderr, and this process's Ctrl-C to the worker. It loads no Temporal or database module, and
// checks the file itself only when it has to start a worker: a run of one URL on a warm worker costs Node's
// start-up, the command line, and the run itself.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withFileLock } from '../../lib/file-lock.js';
import { siblingModule } from '../../lib/module-worker.js';
import { isProcessAlive, stopProcess } from '../../lib/process-alive.js';
import { fileTail } from '../../lib/state-file.js';
import { heapGrowthPercent } from '../../temporal/heap-growth.js';
import { temporalSettings } from '../../temporal/settings.js';
import type { RunFlags } from '../commands/run.js';
import type { SignalTrap } from '../signals.js';
import { onMessages, send, type WorkerMessage } from './protocol.js';
import {
  backgroundWorkerKey,
  backgroundWorkerPaths,
  readBackgroundWorkerState,
  type BackgroundWorkerPaths,
  type BackgroundWorkerState,
} from './settings.js';

/** How long a new worker may take to be ready: it may have to start the embedded server, or fetch the Temporal CLI. */
const START_TIMEOUT_MS = 180_000;
/** How long a replaced worker may take to stop polling (its in-flight activities get a 3 s grace). */
const RETIRE_TIMEOUT_MS = 30_000;

export interface BackgroundRun {
  file: string;
  flags: RunFlags;
  trap: SignalTrap;
  /** What the run must pass before a worker is started for it (a bad file starts nothing); throws the error. */
  checks(): Promise<void>;
}

/** Runs `scrape-etl run` through the background worker; resolves to the command's exit code. */
export async function runInBackgroundWorker(run: BackgroundRun): Promise<number> {
  const { dataDir } = temporalSettings();
  const key = backgroundWorkerKey();
  // A worker that answers `stale` has found its Temporal server gone and is retiring: the second look starts another.
  for (let attempt = 1; ; attempt++) {
    const socket = await connectOrStart(dataDir, key, run.checks);
    const outcome = await carryOut(socket, key, run);
    if (outcome.type === 'exit') return outcome.code;
    if (outcome.type === 'stale' && attempt < 2) continue;
    const log = backgroundWorkerPaths(dataDir).logFile;
    const why = outcome.type === 'stale' ? outcome.reason : 'it stopped while serving this command';
    process.stderr.write(
      `scrape-etl: the background worker could not carry out the run: ${why} (its log: ${log}); ` +
        `a run it started keeps going in Temporal: \`scrape-etl run ${run.file}\` resumes it\n`,
    );
    return 1;
  }
}

type Outcome = { type: 'exit'; code: number } | { type: 'stale'; reason: string } | { type: 'lost' };

function carryOut(socket: net.Socket, key: string, { file, flags, trap }: BackgroundRun): Promise<Outcome> {
  return new Promise((resolve) => {
    let outcome: Outcome = { type: 'lost' };
    const streamInfo = (s: NodeJS.WriteStream) => ({ isTTY: s.isTTY === true, ...(s.columns ? { columns: s.columns } : {}) });
    onMessages<WorkerMessage>(socket, (m) => {
      if (m.type === 'out') (m.fd === 1 ? process.stdout : process.stderr).write(m.data);
      else if (m.type === 'started') trap.started();
      else if (m.type === 'exit' || m.type === 'stale') {
        outcome = m;
        socket.end();
      }
    });
    // The first Ctrl-C after the start is the worker's to honour (stop waiting, leave the run going); before the
    // start, and a second time, the trap exits this process at once, which the worker sees as a closed socket.
    const onAbort = () => send(socket, { type: 'signal', signal: trap.exitCode() === 143 ? 'SIGTERM' : 'SIGINT' });
    trap.signal.addEventListener('abort', onAbort, { once: true });
    socket.once('close', () => {
      trap.signal.removeEventListener('abort', onAbort);
      resolve(outcome);
    });
    socket.on('error', () => undefined); // 'close' follows and says it
    send(socket, { type: 'run', file, flags, key, stdout: streamInfo(process.stdout), stderr: streamInfo(process.stderr) });
  });
}

function tryConnect(socketPath: string): Promise<net.Socket | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', () => resolve(undefined));
  });
}

/** The live worker of this identity, or a new one (replacing a worker of another identity) when there is none. */
async function connectOrStart(dataDir: string, key: string, checks: () => Promise<void>): Promise<net.Socket> {
  const paths = backgroundWorkerPaths(dataDir);
  const ours = async (state: BackgroundWorkerState | undefined) => (state?.key === key && isProcessAlive(state.pid) ? tryConnect(state.socket) : undefined);
  // Without the lock first: the common case, a worker already serving.
  const serving = await ours(readBackgroundWorkerState(dataDir));
  if (serving) return serving;
  // A live worker checks the file itself (its answer is the command's); with none, the checks come before a worker
  // and perhaps the embedded server are started for a run that would be refused.
  await checks();
  fs.mkdirSync(paths.dir, { recursive: true });
  return withFileLock(paths.lockFile, 'the background worker lock', async () => {
    const current = readBackgroundWorkerState(dataDir);
    const socket = await ours(current);
    if (socket) return socket;
    if (current && isProcessAlive(current.pid)) await retire(current);
    removeLeftSockets(paths);
    const pid = startWorker(paths, key);
    // Its start (the embedded server, perhaps the Temporal CLI first) is logged in its own log, not here.
    process.stderr.write(`starting the background worker (pid ${pid}; log ${paths.logFile})\n`);
    await waitUntilReady(paths, dataDir, key, pid);
    const started = await tryConnect(paths.socket(key));
    if (!started) throw new Error(`the background worker (pid ${pid}) does not answer on ${paths.socket(key)}; see ${paths.logFile}`);
    return started;
  });
}

/**
 * For a command that runs a worker of its own on the embedded server or starts runs now (an in-process `run`,
 * detached or not, `schedule trigger` and `backfill`, `demo`, `worker`): a background worker of another identity
 * (another token, or SCRAPE_ETL_BACKGROUND_WORKER since turned off) would take tasks of this command's runs beside
 * it, so it is made to stop polling first. One of the same identity stays: it works as this command's worker would.
 */
export async function retireOtherBackgroundWorker(dataDir: string): Promise<number | undefined> {
  const state = readBackgroundWorkerState(dataDir);
  if (!state || !isProcessAlive(state.pid) || state.key === backgroundWorkerKey()) return undefined;
  await retire(state);
  return state.pid;
}

/**
 * Asks a worker of another identity to stop polling, and waits until it has: two workers with different tokens
 * must not take each other's tasks. It exits once the commands it serves have ended; one that does not answer is
 * stopped with SIGTERM.
 */
export async function retire(state: BackgroundWorkerState, timeoutMs = RETIRE_TIMEOUT_MS): Promise<void> {
  const socket = await tryConnect(state.socket);
  if (socket) {
    const answered = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      onMessages<WorkerMessage>(socket, (m) => {
        if (m.type === 'retired') {
          clearTimeout(timer);
          resolve(true);
        }
      });
      socket.once('close', () => {
        clearTimeout(timer);
        resolve(!isProcessAlive(state.pid));
      });
      socket.on('error', () => undefined);
      send(socket, { type: 'retire' });
    });
    socket.destroy();
    if (answered) return;
  }
  await stopProcess(state.pid, { graceMs: 15_000 });
}

/**
 * The sockets of earlier workers that were killed (SIGKILL, a reboot) and could not remove their own: with the lock
 * held and the recorded worker retired, no worker of this data folder is serving any of them.
 */
function removeLeftSockets(paths: BackgroundWorkerPaths): void {
  for (const file of paths.sockets()) fs.rmSync(file, { force: true });
}

/** Starts the worker detached (it outlives this command), with this process's environment and working directory. */
function startWorker(paths: BackgroundWorkerPaths, key: string): number {
  const entry = fileURLToPath(siblingModule(import.meta.url, 'daemon.js'));
  const logFd = fs.openSync(paths.logFile, 'a');
  fs.writeSync(logFd, `--- ${new Date().toISOString()} starting the background worker ${key} in ${process.cwd()}\n`);
  // From the TypeScript sources (tests, tsx) the worker needs tsx's loader; the compiled command needs none.
  const loader = entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
  // It outlives its runs, so its peak is what it holds. Its heap growth from the first collection on, as the `run`
  // command sets it before its heavy imports (temporal/heap-growth.ts): set later, by the worker itself, its peak
  // after a 2,000-URL run came out 30 MB higher (315 MB). And a young generation of 8 MB a semi-space instead of
  // V8's 16: about 12 MB lower again (275 and 289 MB after runs of 2,000 and 20,000 URLs), for the same CPU.
  const growth = heapGrowthPercent();
  const v8Flags = ['--max-semi-space-size=8', ...(growth > 0 ? [`--heap-growing-percent=${growth}`] : [])];
  const child = spawn(process.execPath, [...v8Flags, ...loader, entry, key], { detached: true, stdio: ['ignore', logFd, logFd], env: process.env });
  fs.closeSync(logFd);
  if (child.pid === undefined) throw new Error(`could not start the background worker (${entry})`);
  child.unref();
  return child.pid;
}

async function waitUntilReady(paths: BackgroundWorkerPaths, dataDir: string, key: string, pid: number): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const state = readBackgroundWorkerState(dataDir);
    if (state?.pid === pid && state.key === key) return;
    if (!isProcessAlive(pid)) {
      throw new Error(`the background worker (pid ${pid}) exited while starting; see ${paths.logFile}:\n${fileTail(paths.logFile)}`);
    }
    await sleep(25);
  }
  throw new Error(`the background worker (pid ${pid}) was not ready within ${START_TIMEOUT_MS / 1000} s; see ${paths.logFile}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
