// A real Temporal dev server for tests (the same `temporal server start-dev` the product embeds), with its SQLite
// state in a temp folder so a test can stop it and start it again on the same file. Plus workers: in-process
// (fast) or as a child process running `node bin/scrape-etl.js worker` that a test can SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import type { temporal as proto } from '@temporalio/proto';
import { NativeConnection, Runtime, DefaultLogger, type Worker } from '@temporalio/worker';
import { ensureDevServer, stopDevServer, type DevServerInfo } from '../../temporal/dev-server.js';
import { createPipelineWorker, pipelineWorkflowBundle, runPipelineWorker } from '../../temporal/worker.js';
import { EncryptionCodec, ENCRYPTED_ENCODING, pipelineDataConverter } from '../../temporal/payload-codec.js';
import { secretKeys } from '../../lib/secret-key.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

let runtimeInstalled = false;
function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  // Expected failures (a run still running, a killed worker's activity) would otherwise flood test output.
  Runtime.install({ logger: new DefaultLogger('ERROR') });
}

export interface TestTemporal {
  dataDir: string;
  address: string;
  server: DevServerInfo;
  client: Client;
  /** Stops the server (SIGTERM, or SIGKILL when asked) and starts it again on the same SQLite file and port. */
  restart(opts?: { downMs?: number; signal?: NodeJS.Signals }): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestTemporal(): Promise<TestTemporal> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-temporal-'));
  let server = await ensureDevServer({ dataDir, headless: true, startTimeoutMs: 90_000 });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: 'default', dataConverter: pipelineDataConverter() });
  const t: TestTemporal = {
    dataDir,
    address: server.address,
    server,
    client,
    async restart(opts = {}) {
      await stopDevServer({ dataDir, ...(opts.signal ? { signal: opts.signal } : {}) });
      if (opts.downMs) await new Promise((r) => setTimeout(r, opts.downMs));
      server = await ensureDevServer({ dataDir, headless: true, startTimeoutMs: 90_000 });
      if (server.address !== t.address)
        throw new Error(`restarted dev server moved from ${t.address} to ${server.address}`);
      t.server = server;
    },
    async stop() {
      await connection.close().catch(() => {});
      await stopDevServer({ dataDir });
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return t;
}

export interface InProcessWorker {
  worker: Worker;
  stop(): Promise<void>;
}

/**
 * A worker inside the test process. Its activities read SCRAPER_BASE_URL / SCRAPER_API_TOKEN and the tuning knobs
 * from `env`, exactly as a worker process reads its environment, without touching this process's environment.
 */
export async function startInProcessWorker(opts: {
  address: string;
  taskQueue: string;
  env: Record<string, string>;
  maxActivities?: number;
  /** Another workflow bundle than this checkout's (test/replay/capture.ts records older releases' workflow code). */
  workflowBundle?: { codePath: string };
}): Promise<InProcessWorker> {
  quietRuntime();
  const connection = await NativeConnection.connect({ address: opts.address });
  const pipelineWorker = await createPipelineWorker({
    role: 'worker',
    connection,
    namespace: 'default',
    taskQueue: opts.taskQueue,
    workflowBundle: opts.workflowBundle ?? (await pipelineWorkflowBundle()),
    shutdownGraceTime: '2s',
    activities: { env: opts.env },
    ...(opts.maxActivities ? { maxConcurrentActivityTaskExecutions: opts.maxActivities } : {}),
  });
  const { worker } = pipelineWorker;
  const running = runPipelineWorker(pipelineWorker, connection);
  return {
    worker,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
  };
}

export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  /** stderr so far (for failure messages). */
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

/**
 * `node bin/scrape-etl.js worker` as a child process; resolves once it polls the task queue. `cwd` (default the
 * repository) is where relative destinations such as sqlite:./data/scrape-etl.sqlite are opened.
 */
export async function spawnWorkerProcess(opts: {
  address: string;
  taskQueue: string;
  env: Record<string, string>;
  cwd?: string;
  /** The command to run (default this checkout's bin/scrape-etl.js): a benchmark compares another build's. */
  bin?: string;
}): Promise<WorkerProcess> {
  const child = spawn(
    process.execPath,
    [opts.bin ?? path.join(repoRoot, 'bin', 'scrape-etl.js'), 'worker', '--shutdown-grace', '1s'],
    {
      cwd: opts.cwd ?? repoRoot,
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: process.env['HOME'] ?? os.homedir(),
        TEMPORAL_ADDRESS: opts.address,
        TEMPORAL_TASK_QUEUE: opts.taskQueue,
        SCRAPE_ETL_WORKER_LOG_LEVEL: 'ERROR',
        // The key the test process seals its runs with (vitest.config.ts), as a deployment's workers get a copy of it.
        ...(process.env['SCRAPE_ETL_KEY_FILE'] ? { SCRAPE_ETL_KEY_FILE: process.env['SCRAPE_ETL_KEY_FILE'] } : {}),
        ...opts.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker process did not start within 60 s:\n${out}`)), 60_000);
    const check = () => {
      if (out.includes('polling task queue')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`worker process exited (${code}) before polling:\n${out}`));
    });
  });
  return {
    child,
    pid: child.pid!,
    output: () => out,
    exited,
    async kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * A history as text with every payload decoded, so a search sees what the payloads carry. Payload bytes arrive as
 * Uint8Array or, from the client's fetchHistory, as base64 text in `data` and `metadata` fields: both are decoded.
 */
export function historyText(history: proto.api.history.v1.IHistory): string {
  return JSON.stringify(history, (k, v: unknown) => {
    if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
    if (typeof v === 'string' && (k === 'data' || k === 'encoding' || k === 'type') && /^[A-Za-z0-9+/]+={0,2}$/.test(v))
      return Buffer.from(v, 'base64').toString('utf8');
    return v;
  });
}

/**
 * historyText of a history whose payloads are decrypted first (temporal/payload-codec.ts encrypts every payload),
 * so a test can say what the history holds in clear to whoever has the key, e.g. a template and not its expansion.
 */
export async function decodedHistoryText(history: proto.api.history.v1.IHistory, keys = secretKeys()): Promise<string> {
  const copy = structuredClone(history) as proto.api.history.v1.IHistory;
  await decryptHistoryInPlace(copy, keys);
  return historyText(copy);
}

/**
 * Replaces every encrypted payload of `history` by its clear form (test/replay/capture.ts: a recorded history must
 * replay with any machine's key, and the codec passes clear payloads through).
 */
export async function decryptHistoryInPlace(
  history: proto.api.history.v1.IHistory,
  keys = secretKeys(),
): Promise<void> {
  const codec = new EncryptionCodec(keys);
  const copy = history as unknown;
  const visit = async (node: unknown): Promise<void> => {
    if (!node || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
      const p = v as { metadata?: Record<string, Uint8Array>; data?: Uint8Array } | null;
      const enc = p && typeof p === 'object' && p.metadata?.['encoding'];
      if (enc && Buffer.from(enc).toString('utf8') === ENCRYPTED_ENCODING) {
        (node as Record<string, unknown>)[k] = (await codec.decode([p]))[0];
      } else await visit(v);
    }
  };
  await visit(copy);
}
