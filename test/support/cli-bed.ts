// What the tests that run the command as a user need: a seeded simulator, a temp folder holding the command's data
// dir (the embedded dev server the command starts lives there), and the environment pointing the command at both.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startSimulator, type RunningSimulator } from '../../simulator/server.js';
import { stopDevServer } from '../../temporal/dev-server.js';

export interface CliBed {
  sim: RunningSimulator;
  dir: string;
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

export async function startCliBed(o: { name: string; token: string; seed: number }): Promise<CliBed> {
  const sim = await startSimulator({ token: o.token, seed: o.seed, runDurationMs: 500 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `scrape-etl-${o.name}-`));
  const env: NodeJS.ProcessEnv = {
    SCRAPER_BASE_URL: sim.baseUrl,
    SCRAPER_API_TOKEN: o.token,
    SCRAPE_ETL_DATA_DIR: path.join(dir, 'data'),
    TEMPORAL_ADDRESS: '',
    DATABASE_URL: '',
  };
  return {
    sim,
    dir,
    env,
    async close() {
      await stopDevServer({ dataDir: path.join(dir, 'data') });
      await sim.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
