// What every Temporal pipeline test file needs before its first test: a temp dir with a SQLite (or DuckDB) destination, a
// real Temporal dev server and a seeded simulator, with one teardown for all of them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Database } from '../../destinations/open.js';
import { startSimulator, type RunningSimulator } from '../../simulator/server.js';
import { testPostgresUrl } from './postgres.js';
import { startInProcessWorker, startTestTemporal, type InProcessWorker, type TestTemporal } from './temporal.js';

export interface PipelineBed {
  dir: string;
  dbUrl: string;
  db: Database;
  temporal: TestTemporal;
  sim: RunningSimulator;
  close(): Promise<void>;
}

export async function startPipelineBed(o: {
  name: string;
  token: string;
  seed: number;
  runDurationMs: number;
  destination?: 'sqlite' | 'duckdb';
}): Promise<PipelineBed> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `scrape-etl-${o.name}-`));
  const dbUrl =
    o.destination === 'duckdb' ? `duckdb:${path.join(dir, 'dest.duckdb')}` : `sqlite:${path.join(dir, 'dest.sqlite')}`;
  const [temporal, sim] = await Promise.all([
    startTestTemporal(),
    startSimulator({ port: 0, token: o.token, seed: o.seed, runDurationMs: o.runDurationMs }),
  ]);
  const db = await openDatabase(dbUrl);
  return {
    dir,
    dbUrl,
    db,
    temporal,
    sim,
    async close() {
      await db.close();
      await sim.close();
      await temporal.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One destination of a test file that runs the same pipelines into SQLite, Postgres and DuckDB: its own simulator (the
 * results kind syncs everything the service holds, so destinations must not see each other's runs), database,
 * in-process worker and task queue, on a Temporal server the file shares.
 */
export interface DestinationBed {
  dbUrl: string;
  db: Database;
  sim: RunningSimulator;
  worker: InProcessWorker;
  taskQueue: string;
  close(): Promise<void>;
}

export async function startDestinationBed(o: {
  destination: 'sqlite' | 'postgres' | 'duckdb';
  dir: string;
  temporal: TestTemporal;
  taskQueue: string;
  token: string;
  seed: number;
  runDurationMs: number;
  /** Worker environment besides the simulator's URL and the token. */
  env?: Record<string, string>;
}): Promise<DestinationBed> {
  const dbUrl =
    o.destination === 'sqlite'
      ? `sqlite:${path.join(o.dir, `${o.destination}.sqlite`)}`
      : o.destination === 'duckdb'
        ? `duckdb:${path.join(o.dir, `${o.destination}.duckdb`)}`
        : await testPostgresUrl();
  const sim = await startSimulator({ port: 0, token: o.token, seed: o.seed, runDurationMs: o.runDurationMs });
  const worker = await startInProcessWorker({
    address: o.temporal.address,
    taskQueue: o.taskQueue,
    env: { SCRAPER_BASE_URL: sim.baseUrl, SCRAPER_API_TOKEN: o.token, ...o.env },
  });
  const db = await openDatabase(dbUrl);
  return {
    dbUrl,
    db,
    sim,
    worker,
    taskQueue: o.taskQueue,
    async close() {
      await db.close();
      await worker.stop();
      await sim.close();
    },
  };
}
