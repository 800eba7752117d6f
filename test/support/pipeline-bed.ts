// What every Temporal pipeline test file needs before its first test: a temp dir with a SQLite destination, a
// real Temporal dev server and a seeded simulator, with one teardown for all of them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Database } from '../../db/connect.js';
import { startSimulator, type RunningSimulator } from '../../simulator/server.js';
import { startTestTemporal, type TestTemporal } from './temporal.js';

export interface PipelineBed {
  dir: string;
  dbUrl: string;
  db: Database;
  temporal: TestTemporal;
  sim: RunningSimulator;
  close(): Promise<void>;
}

export async function startPipelineBed(o: { name: string; token: string; seed: number; runDurationMs: number }): Promise<PipelineBed> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `scrape-etl-${o.name}-`));
  const dbUrl = `sqlite:${path.join(dir, 'dest.sqlite')}`;
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
