// Throughput of many runs (issue 12): BENCH_MANY_PIPELINES (50) marketplace pipelines of BENCH_MANY_URLS (100) URLs
// each, started at once on an embedded Temporal dev server with 2 worker processes of the compiled command, warmed
// up off the clock by a few 4-URL runs (a service's workers run for days; the ceiling's client is warmed up too)
// (`node bin/scrape-etl.js worker`, one task queue), loading into one SQLite file, against the simulator (default
// settings: no added latency) in a process of its own (`scrape-etl simulate`: this process starts the runs, and
// a start that waits for the SQLite write lock blocks its thread, which must not be the simulator's). URLs/s of
// the whole batch (first start to last result) is set against the simulator's own ceiling measured in the same run: a plain HTTP client (fetch, in a child process, as
// the workers are) sending the same marketplace requests at a fixed number in flight (BENCH_MANY_CEILING_INFLIGHT,
// default 16 and 64; the best counts). Goal: >= 0.5x. The loaded tables are checked (a bench that loaded nothing
// fails): every run succeeded, one raw response and one product row per URL. Then the single-writer bound of the
// same machine: every row the batch loaded (raw_responses and the data tables, read back from its file) written
// again with a bare prepared INSERT into a fresh file of the same schema, one transaction per URL
// (bench/_marketplace-files.ts bareInsert, bench/load.ts's baseline), in URLs/s and as a ratio to the ceiling:
// whether the goal is within reach of one SQLite writer at all. Last the machine floor: the CPU a URL of the
// parts the goal itself names (simulator, a client's fetch, the bare INSERT, Temporal for runs of one do-nothing
// activity), the most URLs/s the cores could give if parsing, flattening, lineage and GC cost nothing. The batch
// and the floor are then set side by side in CPU seconds a run (simulator, workers, Temporal server and the client
// that starts the runs and waits for them, each process's own CPU from /proc or process.cpuUsage), with their ratio,
// which the machine's load does not decide as it decides wall time; the wall-time ratio and the load average follow.
//   npm run build && npx tsx bench/many-runs.ts
//   BENCH_MANY_CPU_PROF=<dir>: the workers write CPU profiles there when they stop (bench/_cpu-profile.mjs).
//   BENCH_MANY_COMPARE=<checkout>: adds workers of another built checkout (its bin/scrape-etl.js), interleaved with
//   these round by round against the same simulator and dev server: a before/after pair on a shared machine.
//   npx tsx bench/many-runs.ts --ceiling <baseUrl> <token> <requests> <inflight>   (internal) the plain client
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import BetterSqlite3 from 'better-sqlite3';
import type { PipelineWorkflowInput } from '../temporal/contract.js';
import { pipelineWorkflowInput, startPipelineRun } from '../temporal/start.js';
import { bareInsert, emptyCopy, loadedUnits, type BareUnit } from './_marketplace-files.js';
import { simulatorProcess, type SimulatorProcess } from './_simulator-process.js';
import { marketplaceSpec, productUrl } from '../test/support/pipeline-specs.js';
import { spawnWorkerProcess, startTestTemporal, type WorkerProcess } from '../test/support/temporal.js';
import { pipelineDataConverter } from '../temporal/payload-codec.js';
import { countActions } from '../temporal/actions.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const self = fileURLToPath(import.meta.url);
const PIPELINES = Number(process.env['BENCH_MANY_PIPELINES'] ?? 50);
const URLS = Number(process.env['BENCH_MANY_URLS'] ?? 100);
const WORKERS = Number(process.env['BENCH_MANY_WORKERS'] ?? 2);
const INFLIGHT = (process.env['BENCH_MANY_CEILING_INFLIGHT'] ?? '16,64').split(',').map(Number);
const CEILING_REQUESTS = Number(process.env['BENCH_MANY_CEILING_REQUESTS'] ?? 3000);
const CPU_PROF = process.env['BENCH_MANY_CPU_PROF'];
const ROUNDS = Number(process.env['BENCH_MANY_ROUNDS'] ?? 1);
const TOKEN = `bench-many-${crypto.randomBytes(6).toString('hex')}`;
const FIRST_ITEM = 5_100_000_000;

/** The plain client (child process): `requests` marketplace calls, `inflight` at a time; prints requests/s. */
async function ceilingClient(baseUrl: string, token: string, requests: number, inflight: number): Promise<void> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' };
  let next = 0;
  let bytes = 0;
  const one = async (limit = requests): Promise<void> => {
    for (let i = next++; i < limit; i = next++) {
      // Other products than the pipelines' (none is cached anywhere), the same request body as the client sends.
      const res = await fetch(`${baseUrl}/api/marketplace/sync`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: productUrl(FIRST_ITEM - 1_000_000 + i) }),
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`ceiling client: HTTP ${res.status}: ${text.slice(0, 200)}`);
      bytes += text.length;
    }
  };
  await one(50); // warm-up: one connection, JIT
  next = 0;
  bytes = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(Array.from({ length: inflight }, () => one()));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  // Its own CPU a request: what fetching one product costs any client (the workers fetch the same way).
  const clientCpuMs = (cpu.user + cpu.system) / 1000 / requests;
  process.stdout.write(
    `${JSON.stringify({ requestsPerSecond: requests / seconds, meanBytes: bytes / requests, clientCpuMs })}\n`,
  );
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); 0 elsewhere. */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Runs this module as a child (asynchronously: the simulator answers from this process's event loop). */
function child(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ['--import', 'tsx', self, ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    c.stdout.on('data', (b: Buffer) => (out += b.toString()));
    c.stderr.on('data', (b: Buffer) => (err += b.toString()));
    c.once('error', reject);
    c.once('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${args[0]} child exited ${code}:\n${err}`)),
    );
  });
}

/**
 * The SQLite single-writer bound for what a batch loaded: its rows (raw_responses and every table with a load_id),
 * read back outside the clock and grouped by load (one per URL), written by bareInsert into a fresh file with the
 * loaded file's schema (tables and indexes), one transaction per URL; and again with one transaction per
 * GROUPED_URLS URLs (the workers' default load group), the cheaper of the two shapes for the machine floor.
 */
const GROUPED_URLS = 25;
function sqliteBound(
  dbFile: string,
  dir: string,
): { rows: number; urls: number; seconds: number; groupedSeconds: number; groupedCpuSeconds: number } {
  const { schema, perLoad: perUrl } = loadedUnits(dbFile);
  const insertInto = (units: BareUnit[]) => {
    const file = path.join(dir, `bound-${crypto.randomBytes(4).toString('hex')}.sqlite`);
    emptyCopy(file, schema);
    // CPU as well as wall time: the machine floor is CPU, and a loaded machine stretches only the wall time.
    const cpu0 = process.cpuUsage();
    const out = bareInsert(file, units);
    const cpu = process.cpuUsage(cpu0);
    for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
    return { ...out, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
  };
  const { rows, seconds } = insertInto(perUrl);
  const grouped: BareUnit[] = [];
  for (let i = 0; i < perUrl.length; i += GROUPED_URLS) grouped.push(perUrl.slice(i, i + GROUPED_URLS).flat());
  const g = insertInto(grouped);
  return { rows, seconds, urls: perUrl.length, groupedSeconds: g.seconds, groupedCpuSeconds: g.cpuSeconds };
}

/**
 * What Temporal spends on PIPELINES runs in their smallest durable shape (bench/_minimal-workflow.ts: a workflow, one
 * activity that does nothing, its result), started at once as the batch's runs are: the dev server's CPU, and this
 * process's (the client's starts and an in-process worker's tasks). Off the batch's clock, on its own task queue.
 */
async function temporalFloor(
  temporal: Awaited<ReturnType<typeof startTestTemporal>>,
): Promise<{ server: number; sdk: number }> {
  const taskQueue = `bench-minimal-${crypto.randomBytes(4).toString('hex')}`;
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address: temporal.address });
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowsPath: path.join(root, 'bench', '_minimal-workflow.ts'),
    activities: { minimalActivity: async (n: number) => n },
    dataConverter: pipelineDataConverter(),
  });
  try {
    return await worker.runUntil(async () => {
      const start = (i: number) =>
        temporal.client.workflow.start('minimalRun', { taskQueue, workflowId: `${taskQueue}-${i}`, args: [i] });
      await (await start(-1)).result(); // warm-up: the worker's first tasks, the bundle's first run
      const server0 = cpuSeconds(temporal.server.pid);
      const sdk0 = process.cpuUsage();
      const handles = await Promise.all(Array.from({ length: PIPELINES }, (_, i) => start(i)));
      await Promise.all(handles.map((h) => h.result()));
      const sdk = process.cpuUsage(sdk0);
      return { server: cpuSeconds(temporal.server.pid) - server0, sdk: (sdk.user + sdk.system) / 1e6 };
    });
  } finally {
    await connection.close();
  }
}

interface BatchResult {
  /**
   * CPU seconds used during the batch by the simulator, the workers together, the Temporal dev server, and the client
   * that started the runs and waited for their results (this process: the SDK's client side, as the floor's `sdk`).
   */
  cpu: { simulator: number; workers: number; temporal: number; client: number };
  seconds: number;
  startSeconds: number;
  served: number;
  products: number;
  stocks: number;
  bound: { rows: number; urls: number; seconds: number; groupedSeconds: number; groupedCpuSeconds: number };
  /** Mean history events and billable actions a run (temporal/actions.ts), off the clock. */
  perRun: { events: number; actions: number; by: Record<string, number> };
  /** Each worker's peak resident memory (VmHWM, MB), read before it stops: what the CPU was bought with. */
  workerPeakMb: number[];
}

/** A process's own peak resident set (VmHWM) in MB, or NaN once it is gone. */
function peakRssMb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/**
 * One batch: fresh workers (with `workerEnv`), a fresh SQLite file, PIPELINES pipelines of their own products
 * (`round` picks them), all started at once; checks what was loaded.
 */
async function batch(
  temporal: Awaited<ReturnType<typeof startTestTemporal>>,
  sim: SimulatorProcess,
  dir: string,
  round: number,
  workerEnv: Record<string, string>,
  bin?: string,
): Promise<BatchResult> {
  const dbFile = path.join(dir, `many-${round}.sqlite`);
  const taskQueue = `bench-many-${crypto.randomBytes(4).toString('hex')}`;
  // The bench's own SCRAPE_ETL_* settings reach the workers too (a config's own settings win).
  const tuning = Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] => e[0].startsWith('SCRAPE_ETL_') && e[1] !== undefined,
    ),
  );
  const env: Record<string, string> = {
    ...tuning,
    SCRAPER_BASE_URL: sim.baseUrl,
    SCRAPER_API_TOKEN: TOKEN,
    ...workerEnv,
  };
  if (CPU_PROF)
    Object.assign(env, {
      NODE_OPTIONS: `--import=${path.join(root, 'bench', '_cpu-profile.mjs')}`,
      BENCH_CPU_PROF_DIR: CPU_PROF,
    });
  const workers: WorkerProcess[] = [];
  try {
    workers.push(
      ...(await Promise.all(
        Array.from({ length: WORKERS }, () =>
          spawnWorkerProcess({ address: temporal.address, taskQueue, env, cwd: dir, ...(bin ? { bin } : {}) }),
        ),
      )),
    );
    const first = FIRST_ITEM + round * PIPELINES * URLS;
    // Warm-up, off the clock, as the ceiling's client has one: a few short runs (4 URLs: a regular activity, as the
    // batch's are) through every worker, so the batch measures workers as a service runs them (`up` lives for
    // days), not the first minute of a process: its lazy imports, its first JIT tiers, the destination's
    // migrations and first statements, the workflow bundle's first load.
    const warmFirst = FIRST_ITEM - 2_000_000 + round * 1000;
    const warm = Array.from({ length: WORKERS * 3 }, (_, w) =>
      marketplaceSpec(
        `warm-${w}`,
        `sqlite:${dbFile}`,
        Array.from({ length: 4 }, (_, u) => productUrl(warmFirst + w * 4 + u)),
      ),
    );
    const warmInputs: PipelineWorkflowInput[] = [];
    for (const s of warm) warmInputs.push(await pipelineWorkflowInput(s, `warm-${round}`));
    const warmResults = await Promise.all(
      (
        await Promise.all(
          warm.map((s, i) =>
            startPipelineRun({ client: temporal.client, taskQueue }, s, `warm-${round}`, warmInputs[i]),
          ),
        )
      ).map((h) => h.result()),
    );
    if (warmResults.some((r) => r.status !== 'succeeded'))
      throw new Error(`a warm-up run did not succeed: ${JSON.stringify(warmResults).slice(0, 500)}`);
    const specs = Array.from({ length: PIPELINES }, (_, p) =>
      marketplaceSpec(
        `many-${p}`,
        `sqlite:${dbFile}`,
        Array.from({ length: URLS }, (_, u) => productUrl(first + p * URLS + u)),
      ),
    );
    const conn = { client: temporal.client, taskQueue };
    // The URL lists are stored in the destination first, one start after another (pipelineWorkflowInput, what
    // startPipelineRun does before it starts the workflow), off the clock: while workers load, each start's write
    // waits for the workers' lock (~0.5 s a start, most of a minute for 50, measured). (50 such starts at once
    // failed with SQLITE_BUSY until a connection waiting for the lock stopped blocking the thread, db/store/sql.ts
    // beginImmediate.) Then the workflows are started at once, on the clock.
    const inputs: PipelineWorkflowInput[] = [];
    for (const s of specs) inputs.push(await pipelineWorkflowInput(s, `bench-${round}`));
    await sim.resetStats();
    const pids = { simulator: [sim.pid], workers: workers.map((w) => w.pid), temporal: [temporal.server.pid] };
    const cpuOf = (list: number[]) => list.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
    const cpu0 = { simulator: cpuOf(pids.simulator), workers: cpuOf(pids.workers), temporal: cpuOf(pids.temporal) };
    const client0 = process.cpuUsage();
    const t0 = performance.now();
    const handles = await Promise.all(specs.map((s, i) => startPipelineRun(conn, s, `bench-${round}`, inputs[i])));
    const startSeconds = (performance.now() - t0) / 1000;
    const results = await Promise.all(handles.map((h) => h.result()));
    const seconds = (performance.now() - t0) / 1000;
    const client = process.cpuUsage(client0);
    const served = await sim.served();
    const cpu = {
      simulator: cpuOf(pids.simulator) - cpu0.simulator,
      workers: cpuOf(pids.workers) - cpu0.workers,
      temporal: cpuOf(pids.temporal) - cpu0.temporal,
      client: (client.user + client.system) / 1e6,
    };

    // What was loaded: a bench that loaded nothing must not print a rate.
    const failed = results.filter((r) => r.status !== 'succeeded');
    if (failed.length > 0)
      throw new Error(
        `${failed.length} of ${PIPELINES} runs did not succeed: ${JSON.stringify(failed[0]).slice(0, 500)}`,
      );
    const db = new BetterSqlite3(dbFile, { readonly: true });
    const count = (sql: string) => db.prepare(sql).pluck().get() as number;
    const raw = count(`select count(*) from raw_responses where pipeline like 'many-%'`);
    const products = count(`select count(*) from marketplace_products where pipeline like 'many-%'`);
    const complete = count(
      `select count(*) from (select pipeline from marketplace_products group by pipeline having count(*) = ${URLS})`,
    );
    const stocks = count(`select count(*) from marketplace_model_stocks`);
    db.close();
    const total = PIPELINES * URLS;
    if (raw !== total || products !== total || complete !== PIPELINES || stocks === 0) {
      throw new Error(
        `loaded ${raw} raw responses and ${products} products (${complete} pipelines complete, ${stocks} stock rows), expected ${total} of each`,
      );
    }
    // What each run cost in Temporal: its history's events and billable actions (heartbeats estimated).
    const counts = await Promise.all(handles.map(async (h) => countActions((await h.fetchHistory()).events ?? [])));
    const by: Record<string, number> = {};
    for (const c of counts) for (const [k, v] of Object.entries(c.by)) by[k] = (by[k] ?? 0) + v / counts.length;
    const perRun = {
      events: counts.reduce((s, c) => s + c.events, 0) / counts.length,
      actions: counts.reduce((s, c) => s + c.actions, 0) / counts.length,
      by,
    };
    return {
      cpu,
      seconds,
      startSeconds,
      served,
      products,
      stocks,
      bound: sqliteBound(dbFile, dir),
      perRun,
      workerPeakMb: workers.map((w) => peakRssMb(w.pid)),
    };
  } finally {
    await Promise.all(workers.map((w) => w.kill('SIGTERM')));
  }
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(root, 'dist', 'workflow-bundle.js')))
    throw new Error('run `npm run build` first (the workers are the compiled command)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-many-'));
  // The workers run in `dir` (their ./data is not this process's): without one key file shared by this process's
  // client and the workers, every run was refused as encrypted with another key.
  process.env['SCRAPE_ETL_KEY_FILE'] ??= path.join(dir, 'secret.key');
  const sim = await simulatorProcess(TOKEN);
  const temporal = await startTestTemporal();
  try {
    console.log(
      `# many runs: ${PIPELINES} marketplace pipelines x ${URLS} URLs, started at once; ${WORKERS} worker processes (compiled), embedded dev server, one SQLite file`,
    );
    // The ceiling: what the simulator serves to a plain client, whatever the pipelines do.
    const ceilings: number[] = [];
    const perRequest = { simulator: Infinity, client: Infinity };
    for (const inflight of INFLIGHT) {
      const simCpu0 = cpuSeconds(sim.pid);
      const r = JSON.parse(
        (await child(['--ceiling', sim.baseUrl, TOKEN, String(CEILING_REQUESTS), String(inflight)]))
          .trim()
          .split('\n')
          .pop()!,
      ) as {
        requestsPerSecond: number;
        meanBytes: number;
        clientCpuMs: number;
      };
      ceilings.push(r.requestsPerSecond);
      const simCpu = ((cpuSeconds(sim.pid) - simCpu0) * 1000) / (CEILING_REQUESTS + 50);
      perRequest.simulator = Math.min(perRequest.simulator, simCpu);
      perRequest.client = Math.min(perRequest.client, r.clientCpuMs);
      console.log(
        `simulator ceiling, plain fetch client, ${inflight} in flight: ${r.requestsPerSecond.toFixed(0)} requests/s (${(r.meanBytes / 1024).toFixed(1)} KiB a product; ` +
          `CPU a request: simulator ${simCpu.toFixed(2)} ms, client ${r.clientCpuMs.toFixed(2)} ms)`,
      );
    }
    const ceiling = Math.max(...ceilings);

    // The default workers, and (BENCH_MANY_BASELINE, default on) workers that load each URL in a transaction of its
    // own as before SCRAPE_ETL_URL_LOAD_GROUP, interleaved over BENCH_MANY_ROUNDS rounds.
    // BENCH_MANY_WORKER_ENV='K=V,K=V' adds a third configuration: the default workers with those variables.
    const configs: Array<{ label: string; env: Record<string, string>; bin?: string }> = [
      { label: 'default workers', env: {} },
    ];
    const compare = process.env['BENCH_MANY_COMPARE']?.trim();
    if (compare)
      configs.unshift({
        label: `workers of ${compare}`,
        env: {},
        bin: path.join(path.resolve(compare), 'bin', 'scrape-etl.js'),
      });
    const extra = process.env['BENCH_MANY_WORKER_ENV']?.trim();
    if (extra)
      configs.push({
        label: `workers with ${extra}`,
        env: Object.fromEntries(
          extra
            .split(',')
            .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] as [string, string]),
        ),
      });
    if (process.env['BENCH_MANY_BASELINE'] !== '0')
      configs.unshift({
        label: 'a transaction per URL (SCRAPE_ETL_URL_LOAD_GROUP=1)',
        env: { SCRAPE_ETL_URL_LOAD_GROUP: '1' },
      });
    const rates = new Map<string, number[]>(configs.map((c) => [c.label, []]));
    // The CPU of everything a batch ran (simulator, workers, Temporal server, the client that started the runs), a
    // URL: the rate in CPU terms, which a loaded machine does not decide as it decides the wall-clock rate.
    const cpuMsPerUrl = new Map<string, number[]>(configs.map((c) => [c.label, []]));
    const cpuParts = new Map<string, BatchResult['cpu'][]>(configs.map((c) => [c.label, []]));
    const bounds: number[] = [];
    const insertMs: number[] = [];
    let round = 0;
    for (let r = 0; r < ROUNDS; r++) {
      for (const c of configs) {
        const b = await batch(temporal, sim, dir, round++, c.env, c.bin);
        const rate = (PIPELINES * URLS) / b.seconds;
        rates.get(c.label)!.push(rate);
        cpuMsPerUrl
          .get(c.label)!
          .push(((b.cpu.simulator + b.cpu.workers + b.cpu.temporal + b.cpu.client) * 1000) / (PIPELINES * URLS));
        cpuParts.get(c.label)!.push(b.cpu);
        console.log(
          `${c.label}: ${PIPELINES * URLS} URLs in ${b.seconds.toFixed(1)} s (starts ${b.startSeconds.toFixed(1)} s) = ${rate.toFixed(0)} URLs/s, ` +
            `ratio to the ceiling ${(rate / ceiling).toFixed(2)} (${b.served} requests served; ${b.products} products, ${b.stocks} stock rows loaded)`,
        );
        const perUrl = (sec: number) => `${((sec * 1000) / (PIPELINES * URLS)).toFixed(2)} ms`;
        console.log(
          `  CPU per URL: simulator ${perUrl(b.cpu.simulator)}, workers ${perUrl(b.cpu.workers)}, Temporal server ${perUrl(b.cpu.temporal)}, client ${perUrl(b.cpu.client)}; ` +
            `workers' peak RSS ${b.workerPeakMb.map((mb) => mb.toFixed(0)).join(' and ')} MB; ` +
            `machine load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`,
        );
        console.log(
          `  per run (${URLS} URLs): ${b.perRun.events.toFixed(1)} history events, ${b.perRun.actions.toFixed(1)} billable actions (` +
            Object.entries(b.perRun.by)
              .sort((x, y) => y[1] - x[1])
              .map(([k, v]) => `${k} ${Number(v.toFixed(1))}`)
              .join(', ') +
            '; heartbeats estimated, temporal/actions.ts)',
        );
        const bound = b.bound.urls / b.bound.seconds;
        bounds.push(bound);
        insertMs.push((b.bound.groupedCpuSeconds * 1000) / b.bound.urls);
        console.log(
          `  SQLite bound: bare INSERT of the loaded rows ${(b.bound.rows / b.bound.seconds).toFixed(0)} rows/s = ${bound.toFixed(0)} URLs/s ` +
            `= ${(bound / ceiling).toFixed(2)}x the ceiling (${b.bound.rows} rows, ${(b.bound.rows / b.bound.urls).toFixed(1)} a URL, raw_responses included; one transaction per URL; ` +
            `${GROUPED_URLS} URLs a transaction: ${(b.bound.urls / b.bound.groupedSeconds).toFixed(0)} URLs/s)`,
        );
      }
    }
    const bound = median(bounds);
    console.log(
      `SQLite bound: median ${bound.toFixed(0)} URLs/s = ${(bound / ceiling).toFixed(2)}x the ceiling (a single writer's bare INSERT of the loaded rows)`,
    );
    // The machine's floor: the CPU a URL of the parts the goal itself names (the simulator answering, a client
    // fetching, one SQLite writer inserting the rows, Temporal running the runs in their smallest shape), each the
    // lowest measured in this run, as if the cores never idled and parsing, validation, flattening, lineage and
    // garbage collection cost nothing. No pipeline on this machine can be faster; the goal needs 0.5x the ceiling.
    const minimal = await temporalFloor(temporal);
    const floor = {
      simulator: perRequest.simulator,
      client: perRequest.client,
      // The CPU of the grouped bare INSERT (its wall time, which the load stretches, is the SQLite bound above).
      insert: Math.min(...insertMs),
      server: (minimal.server * 1000) / (PIPELINES * URLS),
      sdk: (minimal.sdk * 1000) / (PIPELINES * URLS),
    };
    const floorMs = floor.simulator + floor.client + floor.insert + floor.server + floor.sdk;
    const floorRate = (os.cpus().length * 1000) / floorMs;
    // A run's CPU in seconds (URLS URLs), the unit of the goal; URLs/s on the cores follow from it.
    const perRun = (msPerUrl: number) => `${((msPerUrl * URLS) / 1000).toFixed(3)} s`;
    const loads = () =>
      os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ');
    console.log(
      `machine floor: ${floorMs.toFixed(2)} ms of CPU a URL = ${perRun(floorMs)} of CPU a run of ${URLS} URLs (a URL: simulator ${floor.simulator.toFixed(2)}, client fetch ${floor.client.toFixed(2)}, bare INSERT ${floor.insert.toFixed(2)}, ` +
        `Temporal for ${PIPELINES} one-activity runs: server ${floor.server.toFixed(2)}, SDK ${floor.sdk.toFixed(2)}) on ${os.cpus().length} cores = at most ${floorRate.toFixed(0)} URLs/s ` +
        `= ${(floorRate / ceiling).toFixed(2)}x the ceiling, with nothing else costing anything`,
    );
    for (const c of configs) {
      const rate = median(rates.get(c.label)!);
      const cpuMs = median(cpuMsPerUrl.get(c.label)!);
      // The parts of the batch whose total is the median (the lower middle of an even count).
      const parts = [...cpuParts.get(c.label)!].sort(
        (x, y) => x.simulator + x.workers + x.temporal + x.client - (y.simulator + y.workers + y.temporal + y.client),
      )[Math.floor((cpuParts.get(c.label)!.length - 1) / 2)]!;
      const partRun = (sec: number) => `${(sec / PIPELINES).toFixed(3)} s`;
      console.log(
        `${c.label}, in CPU terms (the load does not decide it): ${perRun(cpuMs)} of CPU a run (simulator ${partRun(parts.simulator)}, workers ${partRun(parts.workers)}, ` +
          `Temporal server ${partRun(parts.temporal)}, client ${partRun(parts.client)}) against the floor's ${perRun(floorMs)}: ` +
          `${(floorMs / cpuMs).toFixed(2)}x the machine floor (goal >= 0.5; medians of ${ROUNDS})`,
      );
      console.log(
        `  in wall time: ${rate.toFixed(0)} URLs/s = ${(rate / floorRate).toFixed(2)}x the floor's ${floorRate.toFixed(0)} URLs/s, ${(rate / ceiling).toFixed(2)}x the ceiling; ` +
          `load average ${loads()} (1, 5, 15 min) on ${os.cpus().length} cores`,
      );
    }
  } catch (err) {
    // Said before the cleanup below, whose closed connection may end this process from a pending retry.
    console.error(err);
    process.exitCode = 1;
  } finally {
    await temporal.stop();
    await sim.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const at = process.argv.indexOf('--ceiling');
if (at >= 0) {
  const [baseUrl, token, requests, inflight] = process.argv.slice(at + 1);
  await ceilingClient(baseUrl!, token!, Number(requests), Number(inflight));
} else {
  await main();
}
