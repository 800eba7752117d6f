// Runs into DuckDB against the same runs into SQLite (issue 29: "runs into DuckDB staying >= 0.5x the same run into
// SQLite"): the compiled command's `run` of one marketplace pipeline, its destination the only difference, as a
// user runs it: a warm embedded dev server and a polling worker (`scrape-etl up --detach`), the simulator in this
// process, every run into a fresh database file. Runs of BENCH_RUNDEST_URLS URLs (default 150) and of one URL,
// SQLite and DuckDB alternately, BENCH_RUNDEST_ROUNDS times each (default 5); the ratio printed is DuckDB's speed
// against SQLite's (median SQLite time / median DuckDB time). Every run must succeed with one product row per URL.
// bench/load-duckdb.ts measures the load calls alone (one response per transaction and in groups).
//   npm run build && npx tsx bench/run-destinations.ts
//   BENCH_RUNDEST_CHECKOUT=<dir>: runs another built checkout's command instead (a before/after pair)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimulator } from '../simulator/server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const checkout = process.env['BENCH_RUNDEST_CHECKOUT'] ?? root;
const bin = path.join(checkout, 'bin', 'scrape-etl.js');
const URLS = Number(process.env['BENCH_RUNDEST_URLS'] ?? 150);
const ROUNDS = Math.max(3, Number(process.env['BENCH_RUNDEST_ROUNDS'] ?? 5));
const TOKEN = 'bench-run-destinations-token';
const DESTINATIONS = ['sqlite', 'duckdb'] as const;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const productUrl = (i: number) => `https://shopee.tw/api/v2/item/get?itemid=${5_520_309_814 + i}&shopid=10115139`;

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(checkout, 'dist', 'workflow-bundle.js')))
    throw new Error('run `npm run build` first (the compiled command is measured)');
  const sim = await startSimulator({ port: 0, token: TOKEN, seed: 9 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-run-destinations-'));
  const env = {
    ...process.env,
    SCRAPER_BASE_URL: sim.baseUrl,
    SCRAPER_API_TOKEN: TOKEN,
    SCRAPE_ETL_DATA_DIR: path.join(dir, 'data'),
    TEMPORAL_ADDRESS: '',
    DATABASE_URL: '',
  };
  // Spawned asynchronously: the simulator answers from this process's event loop, which spawnSync would block.
  const cli = (args: string[]): Promise<{ ms: number; stdout: string }> =>
    new Promise((resolve, reject) => {
      const t0 = process.hrtime.bigint();
      const child = spawn(process.execPath, [bin, ...args], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      child.once('error', reject);
      child.once('exit', (code, signal) => {
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        if (code === 0) resolve({ ms, stdout });
        else reject(new Error(`scrape-etl ${args.join(' ')} exited ${code ?? signal}:\n${stderr}`));
      });
    });
  let file = 0;
  /** One `run --json` of `urls` into a fresh file of `destination`; its time, after checking what it loaded. */
  const run = async (destination: (typeof DESTINATIONS)[number], urls: string[]): Promise<number> => {
    const name = `bench-${destination}-${++file}`;
    const spec = path.join(dir, `${name}.yaml`);
    fs.writeFileSync(
      spec,
      `name: ${name}\nkind: marketplace\nrequest:\n  urls:\n${urls.map((u) => `    - ${u}`).join('\n')}\ndestination:\n  database: ${destination}:${path.join(dir, `${name}.${destination}`)}\n`,
    );
    const { ms, stdout } = await cli(['run', '--json', spec]);
    const result = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type?: string; status?: string; rowsByTable?: Record<string, number> })
      .find((l) => l.type === 'result');
    if (result?.status !== 'succeeded' || result.rowsByTable?.['marketplace_products'] !== urls.length) {
      throw new Error(`${name}: expected a succeeded run with ${urls.length} products, got ${JSON.stringify(result)}`);
    }
    return ms;
  };
  try {
    const urls = Array.from({ length: URLS }, (_, i) => productUrl(i));
    await cli(['up', '--detach']);
    // Warms the worker on both destinations (its first workflow task, each driver's first open).
    for (const d of DESTINATIONS) await run(d, urls.slice(0, 1));
    const times = {
      sqlite: { one: [] as number[], many: [] as number[] },
      duckdb: { one: [] as number[], many: [] as number[] },
    };
    for (let r = 0; r < ROUNDS; r++) {
      for (const d of DESTINATIONS) {
        times[d].many.push(await run(d, urls));
        times[d].one.push(await run(d, urls.slice(0, 1)));
      }
    }
    console.log(
      `# runs into DuckDB vs SQLite: compiled command of ${checkout}, \`up --detach\` worker, simulator; medians of ${ROUNDS}; load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    for (const [label, key] of [
      [`${URLS} URLs`, 'many'],
      ['1 URL', 'one'],
    ] as const) {
      const s = median(times.sqlite[key]);
      const k = median(times.duckdb[key]);
      console.log(
        `run of ${label.padEnd(9)} SQLite ${s.toFixed(0).padStart(6)} ms   DuckDB ${k.toFixed(0).padStart(6)} ms   speed DuckDB/SQLite ${(s / k).toFixed(2)} (goal >= 0.5)`,
      );
    }
  } finally {
    await cli(['down']).catch((err: Error) => console.error(`down: ${err.message}`));
    await sim.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
