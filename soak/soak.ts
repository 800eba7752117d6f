// The chaos soak (issue 10): for a given time it starts a mix of all six pipeline kinds on a real Temporal dev
// server, against the simulator over HTTP with 5xx, 429, truncated and dropped answers, while worker processes
// are SIGKILLed at random and the dev server is SIGKILLed and restarted once. Then it checks, against the
// simulator's ground truth, that nothing was lost, nothing duplicated, nothing paid twice and nothing leaked.
// `soak/run.ts` is the command (`npm run soak`); `test/integration/soak/soak-short.test.ts` runs the same code for about a minute.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkflowFailedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { scraperNameFor } from '../activities/scraping-runs.js';
import { marketplaceResponseSchema, type JobBoardResponse, type ResultRecord } from '../client/index.js';
import { databaseFileOf, openDatabase, parseDatabaseUrl, type Database } from '../destinations/open.js';
import {
  flattenJobBoard,
  flattenMarketplace,
  flattenResultRecords,
  type RowsByTable,
} from '../db/model/flatten/index.js';
import { TABLE_META, type DataTableName } from '../db/model/tables.js';
import { hasContentTables } from '../kinds/content.js';
import { kindOf } from '../kinds/index.js';
import type { PipelineKind, PipelineSpec } from '../pipelines/spec.js';
import { startSimulator, type RunningSimulator } from '../simulator/server.js';
import type { PipelineWorkflowResult } from '../temporal/contract.js';
import { stopDevServer } from '../temporal/dev-server.js';
import { startOrGetPipelineRun } from '../temporal/start.js';
import { contentTableName } from '../db/model/evolve/names.js';
import {
  expectedContentRows,
  expectedRows,
  loadedContentRows,
  loadedRows,
  mergeRows,
} from '../test/support/pipeline-truth.js';
import {
  JOB_SCHEMA,
  jobBoardSpec,
  leadsSearchSpec,
  leadsSocialSpec,
  marketplaceSpec,
  pdfSpec,
  productUrl,
  resultsSpec,
} from '../test/support/pipeline-specs.js';
import { testPostgresUrl } from '../test/support/postgres.js';
import { pythonReadersEnv } from '../test/support/python-readers.js';
import {
  spawnWorkerProcess,
  startTestTemporal,
  type TestTemporal,
  type WorkerProcess,
} from '../test/support/temporal.js';
import { destinationNamed } from '../destinations/index.js';
import { startS3Server } from '../test/support/s3-server.js';
import { checkLake, SOAK_LAKE } from './lake-check.js';
import { describeOpenRun, exitedWorkerLogs, openRunsReport, resultBy, SoakRunsOpen } from './open-runs.js';

export type SoakDestination = 'sqlite' | 'postgres' | 'duckdb';
export const SOAK_DESTINATIONS: readonly SoakDestination[] = ['sqlite', 'postgres', 'duckdb'];

export interface SoakOptions {
  destination: SoakDestination;
  /** How long new pipelines are started; the soak then waits for every started one to finish. */
  durationMs: number;
  seed?: number;
  /** Pipelines in flight at once while starting. */
  inFlight?: number;
  workers?: number;
  /** Each worker process is SIGKILLed after a random time in this range (ms), then restarted. */
  killEveryMs?: [number, number];
  /**
   * How long after the start phase a run may take to finish (the last results sync: half of it after its own start);
   * one still open then fails the soak with a report of the open runs (SoakRunsOpen). Default 10 minutes.
   */
  finishTimeoutMs?: number;
  /** Progress lines (stderr in the command). */
  log?: (line: string) => void;
  /** Keep the work directory (logs, database, exports, history dumps) for inspection. */
  keepDir?: boolean;
  /**
   * A file destination only: every this many ms a read-only reader of another program (Python's duckdb or sqlite3,
   * not scrape-etl) opens the file, reads every table's row count and holds it for a moment, as an analyst's
   * session or dbt does. Default: on for DuckDB (whose lock it takes, so the workers wait for it), off otherwise.
   */
  readerEveryMs?: number;
  /** Every pipeline also exports to the lake on a SeaweedFS the soak starts (soak/lake-check.ts checks it). */
  s3?: boolean;
}

export interface Invariant {
  name: string;
  pass: boolean;
  figures: string;
  /** Evidence for a failing invariant (workflow ids, reasons, files). */
  details: string[];
}

export interface SoakReport {
  destination: SoakDestination;
  seed: number;
  dir: string;
  elapsedMs: number;
  chaos: {
    workerKills: number;
    unexpectedWorkerExits: number;
    serverKills: number;
    faultsInjected: number;
    apiRequests: number;
    readerSessions: number;
    readerFailures: string[];
  };
  invariants: Invariant[];
  pass: boolean;
}

const KINDS: readonly PipelineKind[] = [
  'pdf',
  'leads-search-engine',
  'leads-social',
  'job-board',
  'marketplace',
  'results',
];
/** The results kind syncs incrementally under one pipeline name, one run at a time (as a schedule with overlap 'skip' would). */
const RESULTS_PIPELINE = 'soak-results';
const FAULTS = { errorRate: 0.1, rateLimitRate: 0.1, retryAfterSeconds: 1, truncatedRate: 0.05, droppedRate: 0.02 };
const JOB_MIN = 2;
const JOB_MAX = 6;
const PRICE_DIVISOR = 100000;
const MARKET_TABLES: readonly DataTableName[] = [
  'marketplace_products',
  'marketplace_shops',
  'marketplace_product_models',
  'marketplace_model_stocks',
  'marketplace_product_attributes',
  'marketplace_product_categories',
  'marketplace_product_images',
  'marketplace_product_tier_variations',
  'marketplace_product_tier_variation_options',
];

/** mulberry32: the soak's choices (kinds, sizes, kill times) come from its seed, printed so a run can be repeated closely. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** How often the finish phase logs the runs still open. */
const OPEN_RUNS_EVERY_MS = 30_000;

interface Started {
  seq: number;
  spec: PipelineSpec;
  runKey: string;
  workflowId: string;
  startedAt: number;
  result?: PipelineWorkflowResult;
  failure?: string;
  finished: boolean;
  /** Still running at its finish deadline. */
  open?: boolean;
}

function errorText(err: unknown): string {
  if (err instanceof WorkflowFailedError) {
    const cause = err.cause as { type?: string; message?: string } | undefined;
    return `${cause?.type ?? 'failure'}: ${cause?.message ?? err.message}`;
  }
  return err instanceof Error ? err.message : String(err);
}

/**
 * The workflow's own outcome. Anything else while waiting is the connection to Temporal (the dev server is down or
 * restarting): wait and ask again.
 */
function isFinal(err: unknown): boolean {
  return err instanceof WorkflowFailedError || err instanceof WorkflowNotFoundError;
}

export async function runSoak(opts: SoakOptions): Promise<SoakReport> {
  const log = opts.log ?? (() => {});
  const seed = opts.seed ?? crypto.randomInt(1, 2 ** 31);
  const rand = rng(seed);
  const between = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const t0 = Date.now();
  const token = `soak-tok-${crypto.randomBytes(16).toString('hex')}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `scrape-etl-soak-${opts.destination}-`));
  const logsDir = path.join(dir, 'worker-logs');
  const exportsDir = path.join(dir, 'exports');
  fs.mkdirSync(logsDir, { recursive: true });
  fs.mkdirSync(exportsDir, { recursive: true });
  const taskQueue = `soak-${crypto.randomBytes(4).toString('hex')}`;
  log(`soak ${opts.destination}: seed ${seed}, ${Math.round(opts.durationMs / 1000)} s of starts, work dir ${dir}`);

  const sim = await startSimulator({ port: 0, token, seed, runDurationMs: 1500, faults: FAULTS });
  const s3 = opts.s3 ? await startS3Server({ buckets: [SOAK_LAKE.bucket] }) : undefined;
  let temporal: TestTemporal | undefined;
  let db: Database | undefined;
  const chaos: SoakReport['chaos'] = {
    workerKills: 0,
    unexpectedWorkerExits: 0,
    serverKills: 0,
    faultsInjected: 0,
    apiRequests: 0,
    readerSessions: 0,
    readerFailures: [],
  };
  let stopChaos = false;
  const chaosTasks: Array<Promise<void>> = [];
  const live = new Set<WorkerProcess>();
  try {
    temporal = await startTestTemporal();
    const client = temporal.client;
    // A file destination lives in the run's folder; the server one is the test Postgres.
    const dbUrl = destinationNamed(opts.destination).capabilities.server
      ? await testPostgresUrl()
      : `${opts.destination}:${path.join(dir, `dest.${opts.destination}`)}`;
    // Migrated once here, before the workers race to do it.
    db = await openDatabase(dbUrl);

    const workerEnv = {
      SCRAPER_BASE_URL: sim.baseUrl,
      SCRAPER_API_TOKEN: token,
      // Short, so a killed worker's activity is retried elsewhere within seconds rather than 30 s.
      SCRAPE_ETL_HEARTBEAT_TIMEOUT: '3s',
      SCRAPE_ETL_WAIT_HEARTBEAT_TIMEOUT: '3s',
      SCRAPE_ETL_STICKY_QUEUE_TIMEOUT: '1s',
      // The simulator creates at once, so an ambiguous create (a 5xx or a cut answer) is settled by a short look-up;
      // the default 120 s window, meant for a service that may still be creating, would outlast the soak's budget.
      // test/integration/temporal/temporal-slow-create.test.ts covers the long window.
      SCRAPE_ETL_CREATE_LOOKUP_SECONDS: '5',
      // Small batches and chunks: kills land mid-load and mid-fan-out, exercising the heartbeat resumption.
      SCRAPE_ETL_LOAD_BATCH_SIZE: '100',
      SCRAPE_ETL_URL_CHUNK_SIZE: '4',
      SCRAPE_ETL_PAGES_PER_ACTIVITY: '3',
      SCRAPE_ETL_ACTIVITIES_PER_RUN: '3',
      // INFO rather than the tests' ERROR: more of what a worker writes is searched for the token.
      SCRAPE_ETL_WORKER_LOG_LEVEL: 'INFO',
      ...(s3 ? { ...s3.env, SCRAPE_ETL_S3_PART_MB: '5' } : {}),
    };
    let incarnation = 0;
    const temporalNow = temporal;
    const spawnLogged = async (slot: number): Promise<WorkerProcess> => {
      for (;;) {
        try {
          const w = await spawnWorkerProcess({ address: temporalNow.address, taskQueue, env: workerEnv });
          const n = ++incarnation;
          live.add(w);
          void w.exited.then(() => {
            live.delete(w);
            fs.writeFileSync(path.join(logsDir, `worker-${slot}-${n}-pid${w.pid}.log`), w.output());
          });
          return w;
        } catch (err) {
          // The dev server may be down (its restart): try again shortly.
          log(`worker ${slot} did not start (${errorText(err).split('\n')[0]}); retrying`);
          await sleep(1000);
        }
      }
    };
    const [killLo, killHi] = opts.killEveryMs ?? [10_000, 40_000];
    const superviseWorker = async (slot: number) => {
      while (!stopChaos) {
        const w = await spawnLogged(slot);
        const killAt = Date.now() + between(killLo, killHi);
        const alive = () => w.child.exitCode === null && w.child.signalCode === null;
        while (!stopChaos && Date.now() < killAt && alive()) await sleep(200);
        if (!alive()) {
          // Nothing but this loop kills workers: an exit of its own is a crash worth reporting.
          chaos.unexpectedWorkerExits += 1;
          log(`worker ${slot} (pid ${w.pid}) exited on its own: ${w.output().slice(-300)}`);
          continue;
        }
        await w.kill('SIGKILL');
        if (!stopChaos) chaos.workerKills += 1;
      }
    };
    const workerCount = opts.workers ?? 2;
    for (let slot = 0; slot < workerCount; slot++) chaosTasks.push(superviseWorker(slot));

    // An analyst's read-only session on a DuckDB file, from another program: it holds DuckDB's own lock, which the
    // workers must wait out (destinations/duckdb/database.ts openInstance), and must always find a readable file.
    const foreign = FOREIGN_READERS[opts.destination];
    const readerEvery = opts.readerEveryMs ?? (foreign?.during ? 4_000 : 0);
    const readerFile = databaseFileOf(parseDatabaseUrl(dbUrl));
    if (readerEvery > 0 && readerFile !== undefined && foreign?.during) {
      chaosTasks.push(
        (async () => {
          while (!stopChaos) {
            await sleep(between(Math.round(readerEvery / 2), readerEvery));
            if (stopChaos) break;
            const r = await foreignDuckdbRead(readerFile, 500 + Math.floor(rand() * 1000));
            if (r.ok) chaos.readerSessions += 1;
            else if (!/Could not set lock/.test(r.error)) chaos.readerFailures.push(r.error);
          }
        })(),
      );
    }

    // The 429s' Retry-After moves between 0 and 1 s.
    chaosTasks.push(
      (async () => {
        while (!stopChaos) {
          sim.setFaults({ retryAfterSeconds: rand() < 0.5 ? 0 : 1 });
          await sleep(3000);
        }
      })(),
    );

    // The dev server is SIGKILLed once, between 30% and 60% of the start phase, and restarted on its SQLite file.
    const serverKillAt = t0 + Math.round(opts.durationMs * (0.3 + 0.3 * rand()));
    chaosTasks.push(
      (async () => {
        while (!stopChaos && Date.now() < serverKillAt) await sleep(200);
        if (stopChaos) return;
        const at = Date.now();
        await temporalNow.restart({ signal: 'SIGKILL', downMs: 2000 });
        chaos.serverKills += 1;
        log(`dev server SIGKILLed and restarted on its SQLite file in ${Date.now() - at} ms`);
      })(),
    );

    // Pipelines, started continuously.
    const started: Started[] = [];
    let seq = 0;
    const jobUrls = Array.from({ length: 30 }, (_, i) => `https://weworkremotely.com/remote-jobs/search?term=soak${i}`);
    const productUrls = Array.from({ length: 40 }, (_, i) => productUrl(700_000 + i, 5000 + (i % 7)));
    const pick = <T>(pool: readonly T[], n: number): T[] => {
      const copy = [...pool];
      const out: T[] = [];
      while (out.length < n && copy.length) out.push(copy.splice(Math.floor(rand() * copy.length), 1)[0]!);
      return out;
    };
    const withExports = (spec: PipelineSpec): PipelineSpec => ({
      ...spec,
      // Deadline well beyond any run here: a chaos run must never end for want of time.
      polling: { initial_interval: '200ms', backoff_coefficient: 1.5, max_interval: '1s', deadline: '15m' },
      exports: [
        {
          dir: exportsDir,
          tables: [],
          format: 'csv',
          mode: rand() < 0.5 ? 'full' : 'incremental',
          write_empty: false,
          delimiter: ',',
          bom: rand() < 0.3,
          null_text: '',
          file_name: '{pipeline}_{table}_{timestamp}.csv',
          neutralize_formulas: true,
        },
        ...(s3
          ? [
              {
                to: `s3://${SOAK_LAKE.bucket}/${SOAK_LAKE.prefix}`,
                tables: [],
                format: 'parquet' as const,
                mode: 'full' as const,
                write_empty: false,
                delimiter: ',',
                bom: false,
                null_text: '',
                file_name: '{pipeline}_{table}_{timestamp}.parquet',
                neutralize_formulas: true,
              },
            ]
          : []),
      ],
    });
    const specFor = (kind: PipelineKind, n: number): PipelineSpec => {
      const name = `soak-${kind}-${String(n).padStart(4, '0')}`;
      switch (kind) {
        case 'pdf':
          return withExports(pdfSpec(name, dbUrl, between(1, 3), between(3, 30)));
        case 'leads-search-engine':
          return withExports(leadsSearchSpec(name, dbUrl, between(1, 5)));
        // One in six is big enough that a kill lands mid-load.
        case 'leads-social':
          return withExports(leadsSocialSpec(name, dbUrl, rand() < 1 / 6 ? 600 : between(5, 80)));
        case 'job-board':
          return withExports(jobBoardSpec(name, dbUrl, pick(jobUrls, between(3, 12))));
        case 'marketplace':
          return withExports({
            ...marketplaceSpec(name, dbUrl, pick(productUrls, between(3, 12))),
            price_divisor: PRICE_DIVISOR,
          });
        case 'results':
          return withExports(resultsSpec(RESULTS_PIPELINE, dbUrl, 100));
      }
    };

    // The finish phase is bounded (resultBy): a run that has not finished by its deadline fails the soak with a report
    // of the open runs (openRunsReport), instead of a wait without end.
    const finishTimeoutMs = opts.finishTimeoutMs ?? 10 * 60_000;
    const finishBy = t0 + opts.durationMs + finishTimeoutMs;
    const follow = async (s: Started, by: number): Promise<void> => {
      const out = await resultBy<PipelineWorkflowResult>(client, s.workflowId, by, isFinal);
      if ('result' in out) s.result = out.result;
      else if ('error' in out) s.failure = errorText(out.error);
      else {
        s.open = true;
        s.failure = `not finished ${Math.round((Date.now() - s.startedAt) / 1000)} s after its start (last error: ${errorText(out.lastError)})`;
      }
      s.finished = true;
    };
    const followers: Array<Promise<void>> = [];
    // While waiting, what Temporal says of each run still open, every OPEN_RUNS_EVERY_MS: the log then tells a run
    // that moves slowly (on a loaded machine, with workers killed) from one that stopped, long before the deadline.
    const awaitFollowers = async () => {
      let all = false;
      const waiting = Promise.all(followers).then(() => {
        all = true;
      });
      let next = Date.now() + OPEN_RUNS_EVERY_MS;
      while (!all) {
        await Promise.race([waiting, sleep(1000)]);
        if (all || Date.now() < next) continue;
        next = Date.now() + OPEN_RUNS_EVERY_MS;
        const open = started.filter((s) => !s.finished);
        log(`${Math.round((Date.now() - t0) / 1000)} s: ${open.length} run(s) still open`);
        for (const lines of await Promise.all(open.map((s) => describeOpenRun(client, s)))) lines.forEach(log);
      }
    };
    const start = async (
      kind: PipelineKind,
      giveUpAt: number,
      within = finishTimeoutMs,
    ): Promise<Started | undefined> => {
      const n = ++seq;
      const spec = specFor(kind, n);
      const runKey = kind === 'results' ? `r${n}` : 'soak';
      for (;;) {
        try {
          // Attaches when an earlier attempt's start went through but its answer was lost to the server kill.
          const { handle } = await startOrGetPipelineRun({ client, taskQueue }, spec, runKey);
          const s: Started = {
            seq: n,
            spec,
            runKey,
            workflowId: handle.workflowId,
            startedAt: Date.now(),
            finished: false,
          };
          started.push(s);
          followers.push(follow(s, Math.max(finishBy, s.startedAt + within)));
          return s;
        } catch (err) {
          if (Date.now() > giveUpAt) {
            log(`could not start ${spec.name}: ${errorText(err)}`);
            return undefined;
          }
          await sleep(1000);
        }
      }
    };

    const inFlight = opts.inFlight ?? 3;
    let order: PipelineKind[] = [];
    let lastReport = Date.now();
    while (Date.now() < t0 + opts.durationMs) {
      const running = started.filter((s) => !s.finished);
      if (running.length < inFlight) {
        // Every kind in each round of six, in a random order.
        if (order.length === 0) order = pick(KINDS, KINDS.length);
        const kind = order.shift()!;
        if (kind === 'results' && running.some((s) => s.spec.kind === 'results')) {
          // One results sync at a time: put it back and yield, or this loop would spin without ever letting the
          // simulator (in this process) answer, freezing every run and the chaos timers with it.
          order.push(kind);
          if (order.length === 1) await sleep(250);
        } else await start(kind, t0 + opts.durationMs + 60_000);
      } else {
        await sleep(250);
      }
      if (Date.now() - lastReport > 30_000) {
        lastReport = Date.now();
        const done = started.filter((s) => s.finished).length;
        log(
          `${Math.round((Date.now() - t0) / 1000)} s: ${started.length} started, ${done} finished, ${chaos.workerKills} worker kills, ${chaos.serverKills} server kills`,
        );
      }
    }
    log(`start phase over: ${started.length} pipelines started; waiting for them to finish`);
    await awaitFollowers();
    // A last incremental sync after everything else finished: the results pipeline must then hold every result.
    // It finds the results loaded already and pages past them: half the bound of a run of the chaos.
    const last = await start('results', Date.now() + 60_000, Math.round(finishTimeoutMs / 2));
    await awaitFollowers();
    const open = started.filter((s) => s.open);
    if (open.length > 0) {
      const logs = [
        ...exitedWorkerLogs(logsDir),
        ...[...live].map((w) => ({ name: `live worker pid ${w.pid}`, text: w.output() })),
      ];
      const report = await openRunsReport(
        client,
        open,
        logs,
        `${Math.round(finishTimeoutMs / 1000)} s after the start phase`,
      );
      log(report);
      throw new SoakRunsOpen(
        report,
        open.map((s) => s.workflowId),
      );
    }
    log(`all finished after ${Math.round((Date.now() - t0) / 1000)} s; checking`);

    stopChaos = true;
    await Promise.all(chaosTasks);
    await Promise.all([...live].map((w) => w.kill('SIGKILL')));
    // The exit handlers write each worker's log; give them a tick.
    await sleep(200);
    const stats = sim.stats();
    chaos.apiRequests = stats.total;
    chaos.faultsInjected = Object.entries(stats.byStatus)
      .filter(([code]) => code !== '200')
      .reduce((n, [, c]) => n + c, 0);

    // Before check(), which closes a file destination to let another program open it.
    const lake = s3 ? await checkLake(s3, db, [...new Set(started.map((s) => s.spec.name))]) : undefined;
    const invariants = await check({
      destination: opts.destination,
      workerKills: chaos.workerKills,
      readerSessions: chaos.readerSessions,
      readerFailures: chaos.readerFailures,
      sim,
      db,
      dbUrl,
      client,
      temporal,
      started,
      lastResults: last,
      exportsDir,
      lakeManifests: lake?.manifests ?? 0,
      logsDir,
      token,
      dir,
    });
    const report: SoakReport = {
      destination: opts.destination,
      seed,
      dir,
      elapsedMs: Date.now() - t0,
      chaos,
      invariants: [
        ...invariants,
        ...(lake ? [{ name: lake.name, pass: lake.pass, figures: lake.figures, details: lake.details }] : []),
      ],
      pass: invariants.every((i) => i.pass) && (lake?.pass ?? true),
    };
    return report;
  } finally {
    stopChaos = true;
    await Promise.allSettled(chaosTasks);
    await Promise.allSettled([...live].map((w) => w.kill('SIGKILL')));
    await db?.close().catch(() => {});
    await sim.close();
    await s3?.stop();
    if (temporal) {
      // Keep the dev server's files when the work dir is kept (history evidence); stop() would delete them.
      if (opts.keepDir) {
        await stopDevServer({ dataDir: temporal.dataDir }).catch(() => false);
      } else {
        await temporal.stop().catch(() => {});
      }
    }
    if (!opts.keepDir) fs.rmSync(dir, { recursive: true, force: true });
  }
}

interface CheckInput {
  destination: SoakDestination;
  /** Worker processes the chaos SIGKILLed. */
  workerKills: number;
  readerSessions: number;
  readerFailures: string[];
  sim: RunningSimulator;
  db: Database;
  dbUrl: string;
  client: Client;
  temporal: TestTemporal;
  started: Started[];
  lastResults: Started | undefined;
  exportsDir: string;
  /** Files the runs reported that are lake manifests (soak/lake-check.ts), not CSV files in exportsDir. */
  lakeManifests: number;
  logsDir: string;
  token: string;
  dir: string;
}

async function check(c: CheckInput): Promise<Invariant[]> {
  const out: Invariant[] = [];
  const { sim, db, started } = c;

  // 1. Every started run completed: succeeded, or partial only with every failed URL listed with its reason.
  {
    const details: string[] = [];
    let ok = 0;
    let partial = 0;
    for (const s of started) {
      const r = s.result;
      if (!r) {
        details.push(`${s.workflowId}: ${s.failure ?? 'no result'}`);
        continue;
      }
      if (r.exportStatus === 'failed') {
        details.push(`${s.workflowId}: data ${r.status}, exports failed: ${r.exportError}`);
        continue;
      }
      if (r.status === 'partial') {
        const listed = r.failedUrls.length === r.failedUrlCount && r.failedUrls.every((f) => f.error.length > 0);
        details.push(
          `${s.workflowId}: partial, ${r.failedUrlCount} URL(s) failed for good: ${r.failedUrls.map((f) => `${f.url}: ${f.error}`).join('; ')}`,
        );
        if (!listed) continue;
        partial += 1;
      }
      ok += 1;
    }
    const byKind = KINDS.map((k) => `${k} ${started.filter((s) => s.spec.kind === k).length}`).join(', ');
    out.push({
      name: 'runs completed / started',
      pass: ok === started.length && started.length > 0,
      figures: `${ok}/${started.length} (${partial} partial with failed URLs listed; ${byKind})`,
      details,
    });
  }

  // Rows seen counted once: each marketplace URL's response is one product, landed once per run however often its
  // activity was retried or its worker killed; and no run saw fewer rows of a table than it changed.
  {
    const details: string[] = [];
    let checked = 0;
    for (const s of started) {
      const r = s.result;
      if (!r) continue;
      if (!r.seenByTable) {
        details.push(`${s.workflowId}: its result has no rows seen`);
        continue;
      }
      for (const [table, n] of Object.entries(r.rowsByTable)) {
        if ((r.seenByTable[table] ?? 0) < n)
          details.push(`${s.workflowId} ${table}: seen ${r.seenByTable[table] ?? 0} < changed ${n}`);
      }
      if (s.spec.kind === 'marketplace') {
        const want = s.spec.request.urls.length - r.failedUrlCount;
        const seen = r.seenByTable['marketplace_products'] ?? 0;
        if (seen !== want) details.push(`${s.workflowId}: ${seen} marketplace_products seen for ${want} URL(s) loaded`);
      }
      checked += 1;
    }
    out.push({
      name: 'rows seen counted once',
      pass: details.length === 0 && checked > 0,
      figures: `${checked} runs, ${details.length} off`,
      details,
    });
  }

  // 2 and 3. Table contents against the simulator's ground truth, per table over all pipelines.
  const perTable = new Map<string, { expected: number; missing: number; extra: number }>();
  const tableDetails: string[] = [];
  const compare = async (pipeline: string, table: DataTableName, want: string[], workflowId: string) => {
    await compareLists(table, await loadedRows(db, table, pipeline), want, workflowId, 'rows');
  };
  // Inferred content tables, one set per pipeline, counted together under `<pipeline>_items…`.
  const compareContent = async (spec: PipelineSpec, records: readonly ResultRecord[], workflowId: string) => {
    const got = await loadedContentRows(db, spec);
    const want = expectedContentRows(records, spec);
    const root = contentTableName(spec.name);
    for (const table of new Set([...got.keys(), ...want.keys()])) {
      await compareLists(
        `<pipeline>_items${table.slice(root.length)}`,
        got.get(table) ?? [],
        want.get(table) ?? [],
        workflowId,
        'rows',
      );
    }
  };
  // Key-level comparison for the control tables, whose status and timestamp columns depend on when they were read.
  const compareKeys = async (
    pipeline: string,
    table: DataTableName,
    column: string,
    want: string[],
    workflowId: string,
  ) => {
    const rows = await selectAll(
      db,
      `SELECT "${column}" AS k FROM "${table}" WHERE pipeline = ${db.adapter.sql.ph(1)}`,
      [pipeline],
    );
    await compareLists(table, rows.map((r) => String(r['k'])).sort(), [...want].sort(), workflowId, 'keys');
  };
  // Multiset difference of what a table holds and what the simulator's truth says it should.
  const compareLists = async (
    table: string,
    got: string[],
    want: string[],
    workflowId: string,
    unit: 'rows' | 'keys',
  ) => {
    const counts = new Map<string, number>();
    for (const g of got) counts.set(g, (counts.get(g) ?? 0) + 1);
    let missing = 0;
    for (const w of want) {
      const n = counts.get(w) ?? 0;
      if (n > 0) counts.set(w, n - 1);
      else missing += 1;
    }
    const extra = [...counts.values()].reduce((a, b) => a + b, 0);
    const t = perTable.get(table) ?? { expected: 0, missing: 0, extra: 0 };
    t.expected += want.length;
    t.missing += missing;
    t.extra += extra;
    perTable.set(table, t);
    if (missing || extra)
      tableDetails.push(
        `${workflowId} ${table}: ${missing} missing ${unit}, ${extra} unexpected ${unit} of ${want.length}`,
      );
  };
  const runs = sim.truth.runs();
  let adoptedWorkflows = 0;
  for (const s of started) {
    const r = s.result;
    if (!r) continue;
    const { spec } = s;
    const kind = kindOf(spec.kind);
    if (kind.mode === 'create-and-wait') {
      const ids = r.scrapingRunIds.map(Number);
      const records = ids.flatMap((id) => sim.truth.runResults(id) as unknown as ResultRecord[]);
      const expected = flattenResultRecords(records, kind.resultTable);
      await compare(spec.name, kind.resultTable, expectedRows(expected, kind.resultTable), s.workflowId);
      await compareContent(spec, records, s.workflowId);
      const mine = runs.filter((x) => ids.includes(x.id));
      await compareKeys(
        spec.name,
        'scraping_runs',
        'id',
        mine.map((x) => String(x.id)),
        s.workflowId,
      );
      // A scraper adopted after its create answer was lost has no run records to load: they were only in that
      // answer, and the API lists them nowhere (its runs are in scraping_runs). Counted apart, not as missing.
      const adopted = await selectAll(
        db,
        `SELECT 1 AS x FROM raw_responses WHERE workflow_id = ${db.adapter.sql.ph(1)} AND request_key = 'create-and-run:adopted'`,
        [s.workflowId],
      );
      if (adopted.length > 0) adoptedWorkflows += 1;
      else
        await compareKeys(
          spec.name,
          'run_records',
          'id',
          mine.map((x) => String(x.record_id)),
          s.workflowId,
        );
      await compareKeys(spec.name, 'scrapers', 'id', [...new Set(mine.map((x) => String(x.scraper_id)))], s.workflowId);
    } else if (spec.kind === 'job-board') {
      const failed = new Set(r.failedUrls.map((f) => f.url));
      const req = spec.request;
      const expected = mergeRows(
        req.urls
          .filter((u) => !failed.has(u))
          .map((u) =>
            flattenJobBoard({
              result: sim.truth.jobs(u, JOB_SCHEMA, req.min, req.max),
              tokenUsage: 0,
              totalDone: 0,
            } as unknown as JobBoardResponse),
          ),
      );
      await compare(spec.name, 'job_records', expectedRows(expected, 'job_records'), s.workflowId);
    } else if (spec.kind === 'marketplace') {
      const failed = new Set(r.failedUrls.map((f) => f.url));
      const expected = mergeRows(
        spec.request.urls
          .filter((u) => !failed.has(u))
          .map((u) =>
            flattenMarketplace(marketplaceResponseSchema.parse(sim.truth.product(u)), {
              priceDivisor: spec.price_divisor,
            }),
          ),
      );
      for (const t of MARKET_TABLES) await compare(spec.name, t, expectedRows(expected, t), s.workflowId);
    }
  }
  // The results pipeline is checked once, after its last sync: it must hold every result the service lists.
  if (c.lastResults?.result) {
    const all = sim.truth.allResults() as unknown as ResultRecord[];
    const expected: RowsByTable = flattenResultRecords(all, 'scraper_results');
    await compare(
      RESULTS_PIPELINE,
      'scraper_results',
      expectedRows(expected, 'scraper_results'),
      c.lastResults.workflowId,
    );
    await compareContent(c.lastResults.spec, all, c.lastResults.workflowId);
  } else {
    tableDetails.push(
      `the final results sync did not complete, scraper_results: ${c.lastResults?.failure ?? 'not started'}`,
    );
  }
  // Data tables are compared row for row; the control tables (scrapers, run_records, scraping_runs) by key only.
  // Two lines, so a gap in lineage rows is not mistaken for lost data, nor hidden by it.
  const CONTROL: readonly string[] = ['scrapers', 'run_records', 'scraping_runs'];
  for (const control of [false, true]) {
    const entries = [...perTable.entries()].filter(([t]) => CONTROL.includes(t) === control);
    const expected = entries.reduce((n, [, t]) => n + t.expected, 0);
    const missing = entries.reduce((n, [, t]) => n + t.missing, 0);
    const extra = entries.reduce((n, [, t]) => n + t.extra, 0);
    const details = tableDetails.filter((d) => CONTROL.some((t) => d.includes(` ${t}: `)) === control);
    out.push({
      name: control
        ? 'missing rows vs simulator truth, control tables (by key)'
        : 'missing rows vs simulator truth, data tables',
      pass: missing === 0 && extra === 0 && expected > 0 && (control || c.lastResults?.result !== undefined),
      figures:
        `${missing} missing, ${extra} unexpected of ${expected} expected rows [${entries.map(([t, v]) => `${t} ${v.missing}/${v.expected}${v.extra ? ` +${v.extra}` : ''}`).join(', ')}]` +
        (control
          ? `; ${adoptedWorkflows} workflow(s) adopted their scraper after a lost create answer (their run records exist only in that answer)`
          : ''),
      details,
    });
  }
  {
    const details: string[] = [];
    const figures: string[] = [];
    let dups = 0;
    for (const table of Object.keys(TABLE_META) as DataTableName[]) {
      const meta = TABLE_META[table];
      // Append-only tables have no natural key: two identical rows there are the duplicate a retried load would leave.
      const key = meta.key.length ? meta.key : ['pipeline', ...meta.dataColumns];
      const cols = key.map((k) => `"${k}"`).join(', ');
      const rows = await selectAll(
        db,
        `SELECT ${cols}, COUNT(*) AS n FROM "${table}" GROUP BY ${cols} HAVING COUNT(*) > 1`,
        [],
      );
      const [total] = await selectAll(db, `SELECT COUNT(*) AS n FROM "${table}"`, []);
      const n = rows.reduce((a, r) => a + Number(r['n']) - 1, 0);
      dups += n;
      figures.push(`${table} ${n}/${Number(total?.['n'] ?? 0)}`);
      for (const r of rows.slice(0, 5))
        details.push(`${table}: ${JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`);
    }
    out.push({
      name: 'duplicate natural keys',
      pass: dups === 0,
      figures: `${dups} duplicates [${figures.join(', ')}]`,
      details,
    });
  }

  // Every run's own row in pipeline_runs, once, with the status its workflow returned: the row a run writes at its
  // start is the one issue #41 saw vanish from a DuckDB file.
  {
    // Looked up by key, as the product does (through the unique index where the engine uses one), and by a full
    // read: a row only the second finds is one an index lost (the DuckDB defect of db-duckdb-wal-replay.test.ts).
    const details: string[] = [];
    const rows = await selectAll(db, 'SELECT workflow_id, status FROM pipeline_runs', []);
    const byId = new Map<string, string[]>();
    for (const r of rows)
      byId.set(String(r['workflow_id']), [...(byId.get(String(r['workflow_id'])) ?? []), String(r['status'])]);
    let present = 0;
    const finished = started.filter((s) => s.result !== undefined);
    for (const s of finished) {
      const got = byId.get(s.workflowId) ?? [];
      const byKey = (
        await selectAll(db, `SELECT status FROM pipeline_runs WHERE workflow_id = ${db.adapter.sql.ph(1)}`, [
          s.workflowId,
        ])
      ).map((r) => String(r['status']));
      if (got.length === 1 && got[0] === s.result!.status && byKey.length === 1) present += 1;
      else
        details.push(
          `${s.workflowId}: ${got.length === 0 ? 'no pipeline_runs row' : `rows ${JSON.stringify(got)}`}, ${byKey.length} found by its workflow id, workflow returned ${s.result!.status}`,
        );
    }
    out.push({
      name: 'pipeline_runs rows',
      pass: present === finished.length && finished.length > 0,
      figures: `${present}/${finished.length} runs with exactly one row of their status, found by full read and by workflow id`,
      details,
    });
  }

  // 4. Exactly one scraper per asynchronous workflow, counted at the service by its unique name.
  {
    const scrapers = sim.truth.scrapers();
    const details: string[] = [];
    const asyncRuns = started.filter((s) => kindOf(s.spec.kind).mode === 'create-and-wait');
    let exact = 0;
    const histogram = new Map<number, number>();
    for (const s of asyncRuns) {
      const name = scraperNameFor(s.spec, s.workflowId);
      const n = scrapers.filter((x) => x['name'] === name).length;
      histogram.set(n, (histogram.get(n) ?? 0) + 1);
      if (n === 1) exact += 1;
      else
        details.push(
          `${s.workflowId}: ${n} scrapers named '${name}' (${scrapers
            .filter((x) => x['name'] === name)
            .map((x) => `id ${String(x['id'])}`)
            .join(', ')})`,
        );
    }
    out.push({
      name: 'scrapers created per async workflow',
      pass: exact === asyncRuns.length && asyncRuns.length > 0 && scrapers.length === asyncRuns.length,
      figures: `${exact}/${asyncRuns.length} workflows with exactly 1 (${[...histogram.entries()]
        .sort()
        .map(([k, v]) => `${v}x${k}`)
        .join(', ')}); ${scrapers.length} scrapers at the service`,
      details,
    });
  }

  // 4b. Spend counted exactly (budget/, issue #40): every billable request the simulator received is one spend_calls
  // row, per endpoint, whatever retries, dropped answers and killed workers did in between. The simulator counts each
  // request it reads; a worker records each before sending it (db/store/spend.ts), so a call is never unrecorded. The one
  // row without a request is a worker's SIGKILL between the record's commit and the request leaving the process (on
  // DuckDB the commit's tail, handing the file over, widens that moment): at most one per kill, and said as such.
  {
    const billable = [...new Set(KINDS.flatMap((k) => kindOf(k).endpoints.filter((e) => e.startsWith('POST '))))];
    const counted = sim.stats().byEndpoint;
    const rows = await selectAll(db, 'SELECT endpoint, COUNT(*) AS n FROM spend_calls GROUP BY endpoint', []);
    const recorded = new Map(rows.map((r) => [String(r['endpoint']), Number(r['n'])]));
    const details: string[] = [];
    const unsent: string[] = [];
    let simTotal = 0;
    let recTotal = 0;
    for (const e of billable) {
      const sent = counted[e] ?? 0;
      const got = recorded.get(e) ?? 0;
      simTotal += sent;
      recTotal += got;
      if (sent > got)
        details.push(`${e}: the simulator counted ${sent}, spend_calls holds ${got}: calls were sent unrecorded`);
      else if (sent !== got) unsent.push(`${e}: ${got - sent} recorded and not received`);
    }
    // Rows without a request, beyond one per killed worker, are not a kill's: a defect.
    if (recTotal - simTotal > c.workerKills)
      details.push(
        `${recTotal - simTotal} rows without a request, more than the ${c.workerKills} worker kills: ${unsent.join('; ')}`,
      );
    for (const [e, n] of recorded)
      if (!billable.includes(e)) details.push(`${e}: ${n} spend_calls rows for an endpoint that is not billable`);
    out.push({
      name: 'spend recorded = calls the simulator counted',
      pass: details.length === 0 && simTotal > 0,
      figures: `${recTotal} recorded / ${simTotal} counted${recTotal > simTotal ? ` (${recTotal - simTotal} recorded by a worker killed before its request left, of ${c.workerKills} kills)` : ''} (${billable.map((e) => `${e.replace(/^POST \/api\//, '')} ${recorded.get(e) ?? 0}/${counted[e] ?? 0}`).join(', ')})`,
      details,
    });
  }

  // 5. raw_responses rows per distinct body: every landing has its own row (its lineage), while an identical body is
  // stored once and referenced (body_ref, db/store/raw-responses.ts); the figure is printed.
  {
    const [row] = await selectAll(db, 'SELECT COUNT(*) AS n, COUNT(DISTINCT body_sha256) AS d FROM raw_responses', []);
    const n = Number(row?.['n'] ?? 0);
    const d = Number(row?.['d'] ?? 0);
    out.push({
      name: 'raw bodies per distinct body',
      pass: true,
      figures: `${(n / Math.max(1, d)).toFixed(3)} (${n} raw_responses rows, ${d} distinct bodies; identical bodies are stored once, later rows reference them)`,
      details: [],
    });
  }

  // 6. The API token: in history, the dev server's files, worker logs, the database and the exports.
  {
    const needles = [c.token, Buffer.from(c.token).toString('base64')].map((s) => Buffer.from(s));
    const countIn = (buf: Buffer) =>
      needles.reduce((n, needle) => {
        let k = 0;
        for (let i = buf.indexOf(needle); i >= 0; i = buf.indexOf(needle, i + 1)) k += 1;
        return n + k;
      }, 0);
    const details: string[] = [];
    const historyDir = path.join(c.dir, 'history');
    fs.mkdirSync(historyDir, { recursive: true });
    let historyHits = 0;
    let executions = 0;
    for await (const wf of c.client.workflow.list()) {
      executions += 1;
      const history = await c.client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
      // Payloads (Uint8Array) decoded to text, so a token inside any payload, failure or header is found as written.
      const decoded = JSON.stringify(history, (_k, v: unknown) =>
        v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : v,
      );
      fs.writeFileSync(path.join(historyDir, `${wf.workflowId}--${wf.runId}.json`), decoded);
      const hits = countIn(Buffer.from(decoded));
      if (hits) details.push(`history of ${wf.workflowId} (run ${wf.runId}): ${hits}`);
      historyHits += hits;
    }
    const filesUnder = (root: string): string[] =>
      fs.existsSync(root)
        ? fs
            .readdirSync(root, { recursive: true, withFileTypes: true })
            .filter((e) => e.isFile())
            .map((e) => path.join(e.parentPath, e.name))
        : [];
    const scanFiles = (files: string[], what: string) => {
      let hits = 0;
      for (const f of files) {
        const k = countIn(fs.readFileSync(f));
        if (k) details.push(`${what} ${f}: ${k}`);
        hits += k;
      }
      return hits;
    };
    // The dev server's SQLite file holds every event it persisted, of every run, whatever the SDK returns.
    const serverHits = scanFiles(filesUnder(c.temporal.dataDir), 'dev server file');
    const logHits = scanFiles(filesUnder(c.logsDir), 'worker log');
    let dbHits: number;
    const file = databaseFileOf(parseDatabaseUrl(c.dbUrl));
    if (file !== undefined) {
      dbHits = scanFiles(
        [file, `${file}-wal`, `${file}.wal`].filter((f) => fs.existsSync(f)),
        'database file',
      );
    } else {
      const pgBin = process.env['TEST_POSTGRES_BIN'] ?? '/usr/lib/postgresql/15/bin';
      const dump = execFileSync(path.join(pgBin, 'pg_dump'), ['--dbname', c.dbUrl, '--no-owner'], {
        maxBuffer: 2 * 1024 * 1024 * 1024,
      });
      fs.writeFileSync(path.join(c.dir, 'pg_dump.sql'), dump);
      dbHits = countIn(dump);
      if (dbHits) details.push(`pg_dump: ${dbHits}`);
    }
    const exportHits = scanFiles(filesUnder(c.exportsDir), 'export file');
    const logs = filesUnder(c.logsDir);
    const total = historyHits + serverHits + logHits + dbHits + exportHits;
    out.push({
      name: 'API token occurrences',
      pass: total === 0 && executions > 0 && logs.length > 0,
      figures: `${total} (history of ${executions} executions ${historyHits}, dev server files ${serverHits}, ${logs.length} worker logs ${logHits}, database ${dbHits}, exports ${exportHits})`,
      details,
    });
  }

  // 7. Export files: every one parses with Python's csv module (strict); no partial or temporary file is left;
  // no run left more than one set (files are named after the run's start time, so a retried export replaces its
  // own files: more distinct times than runs of a pipeline means an attempt added a set).
  {
    const names = fs.readdirSync(c.exportsDir);
    const csvFiles = names.filter((n) => n.endsWith('.csv') && !n.startsWith('.'));
    const leftovers = names.filter((n) => !csvFiles.includes(n));
    const bad = pythonStrictCsvFailures(csvFiles.map((n) => path.join(c.exportsDir, n)));
    const details = [...bad.map((b) => `${b.file}: ${b.error}`), ...leftovers.map((l) => `left behind: ${l}`)];
    let extraSets = 0;
    let strangeFiles = 0;
    const pipelines = new Map<string, { kind: PipelineKind; runs: number }>();
    for (const s of started) {
      const p = pipelines.get(s.spec.name) ?? { kind: s.spec.kind, runs: 0 };
      p.runs += 1;
      pipelines.set(s.spec.name, p);
    }
    const names2 = [...pipelines.keys()].sort((a, b) => b.length - a.length);
    const sets = new Map<string, Set<string>>();
    for (const f of csvFiles) {
      const pipeline = names2.find((p) => f.startsWith(`${p}_`));
      const m = pipeline ? /^_(.+)_([0-9]{8}T[0-9.]+Z)\.csv$/.exec(f.slice(pipeline.length)) : null;
      // A content pipeline also exports its inferred tables (<pipeline>_items and child tables).
      const inferred =
        pipeline !== undefined &&
        m !== null &&
        hasContentTables(kindOf(pipelines.get(pipeline)!.kind)) &&
        (m[1] === contentTableName(pipeline) || m[1]!.startsWith(`${contentTableName(pipeline)}__`));
      if (
        !pipeline ||
        !m ||
        !(inferred || (kindOf(pipelines.get(pipeline)!.kind).tables as readonly string[]).includes(m[1]!))
      ) {
        strangeFiles += 1;
        details.push(`not a file any run should write: ${f}`);
        continue;
      }
      (sets.get(pipeline) ?? sets.set(pipeline, new Set()).get(pipeline)!).add(m[2]!);
    }
    for (const [pipeline, times] of sets) {
      const runsOf = pipelines.get(pipeline)!.runs;
      if (times.size > runsOf) {
        extraSets += times.size - runsOf;
        details.push(`${pipeline}: ${times.size} export sets for ${runsOf} run(s): ${[...times].join(', ')}`);
      }
    }
    const reported = started.reduce((n, s) => n + (s.result?.exportedFiles ?? 0), 0) - c.lakeManifests;
    out.push({
      name: 'export files',
      pass:
        bad.length === 0 &&
        leftovers.length === 0 &&
        extraSets === 0 &&
        strangeFiles === 0 &&
        csvFiles.length > 0 &&
        csvFiles.length === reported,
      figures: `${bad.length} of ${csvFiles.length} do not parse (Python csv, strict); ${leftovers.length} partial/temp files left; ${extraSets} extra sets from retried exports, ${strangeFiles} unexpected files (${reported} files reported by the runs)`,
      details,
    });
  }

  // 8. A file destination opens in another program and reads whole; DuckDB's also had analyst sessions meanwhile.
  const file = databaseFileOf(parseDatabaseUrl(c.dbUrl));
  if (file !== undefined) {
    await db.close();
    const opens = fileOpensIndependently(c.destination, file);
    if (opens) out.push(opens);
  }
  if (FOREIGN_READERS[c.destination]?.during) {
    out.push({
      name: 'foreign read-only sessions during the soak',
      pass: c.readerFailures.length === 0 && c.readerSessions > 0,
      figures: `${c.readerSessions} Python duckdb sessions read the file while the workers loaded it; ${c.readerFailures.length} failed other than by finding it in use`,
      details: c.readerFailures.slice(0, 20),
    });
  }
  return out;
}

// Another program's read-only session on a DuckDB file (Python's duckdb, an independent reader): opens it, counts
// every table's rows, holds it for `holdMs`, closes. A refusal because a worker holds the file is the normal case.
const PY_DUCKDB_READ = `
import duckdb, json, sys, time
c = duckdb.connect(sys.argv[1], read_only=True)
tables = [r[0] for r in c.execute("select table_name from information_schema.tables where table_schema = 'main'").fetchall()]
counts = {t: c.execute('select count(*) from "%s"' % t.replace('"', '""')).fetchone()[0] for t in tables}
time.sleep(float(sys.argv[2]) / 1000)
c.close()
print(json.dumps(counts))
`;

function foreignDuckdbRead(file: string, holdMs: number): Promise<{ ok: true } | { ok: false; error: string }> {
  return new Promise((resolve) => {
    const child = spawn('python3', ['-c', PY_DUCKDB_READ, file, String(holdMs)], {
      env: pythonReadersEnv(),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) =>
      resolve(code === 0 ? { ok: true } : { ok: false, error: err.trim().split('\n').slice(-1)[0] ?? `exit ${code}` }),
    );
  });
}

// The whole file read by an independent reader: every row of every table (DuckDB deserializes each block it reads,
// so a damaged one fails here), or SQLite's integrity check.
const PY_DUCKDB_READ_ALL = `
import duckdb, json, sys
c = duckdb.connect(sys.argv[1], read_only=True)
tables = [r[0] for r in c.execute("select table_name from information_schema.tables where table_schema = 'main'").fetchall()]
rows = 0
for t in tables:
    cur = c.execute('select * from "%s"' % t.replace('"', '""'))
    while True:
        batch = cur.fetchmany(10000)
        if not batch:
            break
        rows += len(batch)
print(json.dumps({'tables': len(tables), 'rows': rows}))
`;
const PY_SQLITE_CHECK = `
import json, sqlite3, sys
c = sqlite3.connect('file:%s?mode=ro' % sys.argv[1], uri=True)
print(json.dumps({'integrity': c.execute('pragma integrity_check').fetchone()[0], 'tables': c.execute("select count(*) from sqlite_master where type = 'table'").fetchone()[0]}))
`;

interface ForeignReader {
  /** Who reads: named in the figures. */
  reader: string;
  /** Reads the whole file after the soak; prints JSON { tables, rows?, integrity? }. */
  script: string;
  /** Also holds the file now and then during the soak (foreignDuckdbRead): the engine's own lock, not scrape-etl's. */
  during: boolean;
}

/** Another program reading each file destination (none for a server). */
const FOREIGN_READERS: Record<SoakDestination, ForeignReader | undefined> = {
  sqlite: { reader: 'Python sqlite3', script: PY_SQLITE_CHECK, during: false },
  postgres: undefined,
  duckdb: { reader: 'Python duckdb', script: PY_DUCKDB_READ_ALL, during: true },
};

function fileOpensIndependently(destination: SoakDestination, file: string): Invariant | undefined {
  const foreign = FOREIGN_READERS[destination];
  if (!foreign) return undefined;
  const name = 'the file opens (independent reader)';
  const r = spawnSync('python3', ['-c', foreign.script, file], {
    env: pythonReadersEnv(),
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  if (r.status !== 0)
    return {
      name,
      pass: false,
      figures: `${foreign.reader} could not read ${file}`,
      details: [r.stderr.trim().split('\n').slice(-3).join(' ')],
    };
  const out = JSON.parse(r.stdout) as { tables: number; rows?: number; integrity?: string };
  return {
    name,
    pass: out.tables > 0 && (out.integrity === undefined || out.integrity === 'ok'),
    figures: `${foreign.reader} read ${out.tables} tables${out.rows === undefined ? '' : `, all ${out.rows} rows`}${out.integrity === undefined ? '' : `; integrity_check ${out.integrity}`}`,
    details: [],
  };
}

async function selectAll(db: Database, sql: string, params: unknown[]): Promise<Array<Record<string, unknown>>> {
  return db.adapter.exportReader.query(db, sql, params);
}

// One Python process reads every file with csv.reader(strict=True): an independent reader, not the writer's own.
const PY_CHECK = `
import csv, json, sys
bad = []
for name in json.load(sys.stdin):
    try:
        with open(name, newline='', encoding='utf-8-sig') as f:
            for _ in csv.reader(f, strict=True):
                pass
    except Exception as e:
        bad.append({'file': name, 'error': repr(e)})
json.dump(bad, sys.stdout)
`;

function pythonStrictCsvFailures(files: string[]): Array<{ file: string; error: string }> {
  const out = execFileSync('python3', ['-c', PY_CHECK], {
    input: JSON.stringify(files),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out) as Array<{ file: string; error: string }>;
}

/** One line per invariant, as the command prints them. */
export function formatInvariant(i: Invariant): string {
  return `${i.pass ? 'PASS' : 'FAIL'}  ${i.name}: ${i.figures}`;
}
