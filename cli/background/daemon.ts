// The background worker (the default for `run` on the embedded server): a detached process that keeps a Temporal
// connection and a pipeline worker warm between `run` commands, and carries out each `run` a thin client asks for
// with the same code as the command itself (runCommand), writing to the client's streams. Started by the first
// `run` that finds none (cli/background/client.ts); replaced by a `run` of another identity (settings.ts); it exits
// after SCRAPE_ETL_BACKGROUND_WORKER_IDLE_SECONDS with no command to serve and nothing in flight, on SIGTERM
// (`scrape-etl server stop`), and when its worker or its Temporal server goes away (looked at every few seconds).
// Its log: <data>/temporal/background-worker.log.
import fs from 'node:fs';
import net from 'node:net';
import { Writable } from 'node:stream';
import { isProcessAlive } from '../../lib/process-alive.js';
import { writeJsonAtomic } from '../../lib/state-file.js';
import { readDevServerState } from '../../temporal/dev-server.js';
import { temporalSettings } from '../../temporal/settings.js';
import { commandFailure } from '../command-error.js';
import { runCommand, type RunHost } from '../commands/run.js';
import type { CommandIO, OutputStream } from '../io.js';
import { createLogger } from '../logger.js';
import { followSdkLogs, openSession, type Session, type SessionOptions } from '../session.js';
import { SIGNAL_EXIT_CODES, type SignalTrap, type TrappedSignal } from '../signals.js';
import { onMessages, send, type ClientMessage, type StreamInfo } from './protocol.js';
import { backgroundWorkerPaths, idleSeconds, readBackgroundWorkerState, type BackgroundWorkerState } from './settings.js';

const key = process.argv[2];
if (!key || !/^[0-9a-f]{16}$/.test(key)) {
  process.stderr.write('usage: daemon.js <key> (started by `scrape-etl run` on the embedded server)\n');
  process.exit(2);
}

const note = (message: string) => process.stderr.write(`${new Date().toISOString()} background worker ${key} (pid ${process.pid}): ${message}\n`);
const settings = temporalSettings();
const paths = backgroundWorkerPaths(settings.dataDir);
const idleMs = idleSeconds() * 1000;
const SERVER_WATCH_MS = 3000;
const log = createLogger({});

/** One command being served: its client's socket and what aborts its wait. */
interface Served {
  abort: AbortController;
  signal?: TrappedSignal;
}
const served = new Map<net.Socket, Served>();
let retiring: Promise<void> | undefined;
let idleTimer: NodeJS.Timeout | undefined;

const session = await openSession({ log, worker: true });
// The embedded server this worker is connected to: a later server (restarted after `server stop`, or after it died)
// may listen elsewhere, and this worker's connections would not follow it.
const serverPid = readDevServerState(settings.dataDir)?.pid ?? undefined;
// The run's session is this process's, kept across commands: closing it is this process's business.
const shared: Session = { ...session, close: async () => undefined };

const socketPath = paths.socket(key);
fs.rmSync(socketPath, { force: true });
const server = net.createServer(serve);
await new Promise<void>((resolve, reject) => {
  server.once('error', reject);
  server.listen(socketPath, resolve);
});
// Only this user may ask it to run anything (the socket's folder is the data folder, or a private one in /tmp).
fs.chmodSync(socketPath, 0o600);
writeState({ pid: process.pid, key, socket: socketPath, cwd: process.cwd(), startedAt: new Date().toISOString() });
note(`serving ${socketPath}; exits after ${idleMs / 1000} s idle`);
armIdle();
// A worker whose embedded server is gone (killed, or stopped with its data folder removed) can serve nothing: looked
// at every few seconds so that it does not outlive its server by the idle time, polling an address nobody answers.
const serverWatch = setInterval(() => {
  const gone = served.size === 0 ? serverGone() : undefined;
  if (gone === undefined) return;
  clearInterval(serverWatch);
  void retire(gone);
}, SERVER_WATCH_MS);
serverWatch.unref();

session.workerStopped.then(() => {
  if (!retiring) void retire('its worker stopped');
});
for (const sig of ['SIGTERM', 'SIGINT'] as const) {
  process.on(sig, () => {
    // Commands being served stop waiting (their runs go on in Temporal) and say so to their clients.
    for (const s of served.values()) {
      s.signal ??= sig;
      s.abort.abort();
    }
    void retire(`got ${sig}`);
  });
}

function serve(socket: net.Socket): void {
  socket.on('error', () => undefined);
  onMessages<ClientMessage>(socket, (m) => {
    if (m.type === 'run') void serveRun(socket, m);
    else if (m.type === 'signal') {
      const s = served.get(socket);
      if (s) {
        s.signal ??= m.signal;
        s.abort.abort();
      }
    } else if (m.type === 'retire') {
      void retire('replaced by a worker of another identity').then(() => send(socket, { type: 'retired' }));
    }
  });
}

async function serveRun(socket: net.Socket, m: Extract<ClientMessage, { type: 'run' }>): Promise<void> {
  const stale = retiring ? 'it is stopping' : m.key !== key ? 'it is a worker of another identity' : serverGone();
  if (stale) {
    send(socket, { type: 'stale', reason: stale });
    socket.end();
    if (!retiring) void retire(stale);
    return;
  }
  const abort = new AbortController();
  const entry: Served = { abort };
  served.set(socket, entry);
  clearTimeout(idleTimer);
  // A client that goes away (its second Ctrl-C, a kill) stops its wait; the run itself goes on.
  socket.once('close', () => abort.abort());
  const trap: SignalTrap = {
    signal: abort.signal,
    exitCode: () => SIGNAL_EXIT_CODES[entry.signal ?? 'SIGINT'],
    started: () => send(socket, { type: 'started' }),
    dispose: () => undefined,
  };
  const io: CommandIO = { stdout: relay(socket, 1, m.stdout), stderr: relay(socket, 2, m.stderr) };
  // The command's own logger sees the shared worker's SDK lines while it runs (shown with --verbose, as in-process).
  let unfollow = (): void => undefined;
  const openShared = async (opts: SessionOptions) => {
    unfollow = followSdkLogs(opts.log, opts.pipeline);
    return shared;
  };
  const host: RunHost = { io, openSession: openShared, ownsProcess: false, embeddedNote: ', and so does the background worker' };
  let code: number;
  try {
    code = await runCommand(m.file, m.flags, trap, host);
  } catch (err) {
    const failure = commandFailure(err);
    io.stderr.write(failure.message);
    code = failure.exitCode;
  } finally {
    unfollow();
  }
  send(socket, { type: 'exit', code });
  socket.end();
  served.delete(socket);
  if (retiring && served.size === 0) await finish();
  else armIdle();
}

/** Why this worker cannot serve any more: its embedded server was stopped or replaced. Undefined when it can. */
function serverGone(): string | undefined {
  const now = readDevServerState(settings.dataDir);
  if (serverPid !== undefined && now?.pid === serverPid && isProcessAlive(serverPid)) return undefined;
  return `its embedded Temporal server (pid ${serverPid}) is gone`;
}

/** Output for one client: what the command writes is sent to the client's stdout (1) or stderr (2) as it comes. */
function relay(socket: net.Socket, fd: 1 | 2, info: StreamInfo): OutputStream {
  const stream: OutputStream = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      send(socket, { type: 'out', fd, data: typeof chunk === 'string' ? chunk : chunk.toString('utf8') });
      done();
    },
  });
  stream.isTTY = info.isTTY;
  if (info.columns !== undefined) stream.columns = info.columns;
  return stream;
}

function armIdle(): void {
  clearTimeout(idleTimer);
  if (retiring || served.size > 0) return;
  idleTimer = setTimeout(() => {
    // Runs whose clients left (Ctrl-C) go on here until they end: idle means nothing in flight and nothing open.
    if (served.size === 0 && !session.workerBusy()) void retire(`idle for ${idleMs / 1000} s`);
    else armIdle();
  }, idleMs);
  idleTimer.unref();
}

/** Stops taking commands and stops the worker (in-flight activities get a 3 s grace); exits once none is served. */
function retire(reason: string): Promise<void> {
  retiring ??= (async () => {
    note(`retiring: ${reason}`);
    clearTimeout(idleTimer);
    server.close();
    fs.rmSync(socketPath, { force: true });
    const state = readBackgroundWorkerState(settings.dataDir);
    if (state?.pid === process.pid) fs.rmSync(paths.stateFile, { force: true });
    await session.stopWorker();
    note('its worker has stopped');
    // After the answers to `retire` (sent once this settles) are on their way.
    if (served.size === 0) setImmediate(() => void finish());
  })();
  return retiring;
}

async function finish(): Promise<void> {
  await session.close();
  note('exiting');
  process.exit(0);
}

function writeState(state: BackgroundWorkerState): void {
  writeJsonAtomic(paths.stateFile, state);
}
