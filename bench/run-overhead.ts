// Run overhead: what a `scrape-etl run` costs beyond loading its data, measured with the compiled command against
// `scrape-etl load` of the same saved responses in the same run (both are whole processes: Node start-up and
// imports are on both sides). A warm embedded dev server (left running by a first run, as for a user), a local
// simulator answering the marketplace calls, SQLite destinations in a temp folder.
//   - one URL: `run` of a one-URL pipeline against `load` of that URL's saved response (goal: <= 1.5x), both with a
//     `scrape-etl up` worker polling (`run` is then a client: it starts the workflow and waits) and with no worker
//     polling (`run` then runs a worker in its own process for that run);
//   - per URL: the time N URLs add to a run against the time N files add to a load (goal: <= 2x), both ways;
//   - memory: the peak RSS of `run` for 2,000 and 20,000 URLs (goal: <= 300 MB and <= 1.1x growth): with the worker
//     in the `run` process, read by a preloaded exit hook in the measured process itself, with its CPU time, and the
//     2,000-URL run again with V8's own heap growth (SCRAPE_ETL_HEAP_GROWTH_PERCENT=0), the baseline of the growth
//     limit's cost and saving; and the `up` worker's peak (VmHWM) after it worked on each of the two runs.
//   npm run build && npx tsx bench/run-overhead.ts     (BENCH_RUN_URLS, default 200; BENCH_RUN_REPEATS, default 5;
//   BENCH_RUN_MEMORY_URLS, default 2000: the memory runs use it and 10x it)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ScraperClient } from '../client/client.js';
import { startSimulator } from '../simulator/server.js';
import { liveUp } from '../cli/up/paths.js';
import { stopDevServer } from '../temporal/dev-server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin', 'scrape-etl.js');
const URLS = Number(process.env['BENCH_RUN_URLS'] ?? 200);
const REPEATS = Math.max(3, Number(process.env['BENCH_RUN_REPEATS'] ?? 5));
const TOKEN = 'bench-run-overhead-token';
const MEMORY_URLS = Number(process.env['BENCH_RUN_MEMORY_URLS'] ?? 2000);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const productUrl = (i: number) => `https://shopee.tw/api/v2/item/get?itemid=${4_420_309_814 + i}&shopid=10115139`;

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(root, 'dist', 'workflow-bundle.js')))
    throw new Error('run `npm run build` first (the compiled command is measured)');
  const sim = await startSimulator({ port: 0, token: TOKEN, seed: 5, runDurationMs: 200 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-run-'));
  const dataDir = path.join(dir, 'data');
  const env = {
    ...process.env,
    SCRAPER_BASE_URL: sim.baseUrl,
    SCRAPER_API_TOKEN: TOKEN,
    SCRAPE_ETL_DATA_DIR: dataDir,
    TEMPORAL_ADDRESS: '',
    DATABASE_URL: '',
  };
  // Spawned asynchronously: the simulator answers from this process's event loop, which spawnSync would block.
  const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<number> =>
    new Promise((resolve, reject) => {
      const t0 = process.hrtime.bigint();
      const child = spawn(process.execPath, [bin, ...args], {
        cwd: dir,
        env: { ...env, ...extraEnv },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      child.once('error', reject);
      child.once('exit', (code, signal) => {
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        if (code === 0) resolve(ms);
        else reject(new Error(`scrape-etl ${args.join(' ')} exited ${code ?? signal}:\n${stderr}`));
      });
    });
  const times = async (n: number, args: (i: number) => string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<number> => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push(await cli(args(i), extraEnv));
    return median(out);
  };
  const pipeline = (name: string, urls: string[]) => {
    const file = path.join(dir, `${name}.yaml`);
    fs.writeFileSync(
      file,
      `name: ${name}\nkind: marketplace\nrequest:\n  urls:\n${urls.map((u) => `    - ${u}`).join('\n')}\ndestination:\n  database: sqlite:${path.join(dir, `${name}.sqlite`)}\n`,
    );
    return file;
  };
  try {
    const urls = Array.from({ length: URLS }, (_, i) => productUrl(i));
    const one = pipeline('bench-one', urls.slice(0, 1));
    const many = pipeline('bench-many', urls);

    // The same responses saved as files, fetched once from the simulator.
    const client = new ScraperClient({ baseUrl: sim.baseUrl, token: TOKEN });
    const saved = path.join(dir, 'saved');
    fs.mkdirSync(saved);
    for (const [i, url] of urls.entries()) {
      const r = await client.marketplaceSync({ url });
      fs.writeFileSync(path.join(saved, `${String(i).padStart(6, '0')}.json`), r.raw);
    }
    const oneFile = path.join(saved, '000000.json');

    console.log(`# run overhead: compiled command, warm embedded server, SQLite; ${URLS} URLs; medians of ${REPEATS}`);
    await cli(['up', '--detach']); // the embedded server and a polling worker, as `scrape-etl up --detach` leaves them
    await cli(['run', one]); // warms the worker (its first workflow task, the destination's first open)
    const few = Math.max(3, Math.round(REPEATS / 2));
    const run1 = await times(REPEATS, () => ['run', '--new', one]);
    const runN = await times(few, () => ['run', '--new', many]);
    // Stopped before anything else is measured: it polls the same queue and would take a share of later runs' work.
    // The embedded server stops with it; the first in-process run below starts it again and is not counted.
    await cli(['down']);
    await cli(['run', '--new', one]);
    const inProcess = {};
    const run1InProcess = await times(REPEATS, () => ['run', '--new', one], inProcess);
    const runNInProcess = await times(few, () => ['run', '--new', many], inProcess);
    const load1 = await times(REPEATS, (i) => [
      'load',
      'marketplace',
      oneFile,
      '--database',
      `sqlite:${path.join(dir, `load-one-${i}.sqlite`)}`,
    ]);
    const loadN = await times(few, (i) => [
      'load',
      'marketplace',
      saved,
      '--database',
      `sqlite:${path.join(dir, `load-many-${i}.sqlite`)}`,
    ]);
    const perUrlRun = (runN - run1) / (URLS - 1);
    const perUrlRunInProcess = (runNInProcess - run1InProcess) / (URLS - 1);
    const perUrlLoad = (loadN - load1) / (URLS - 1);
    console.log(
      `run, 1 URL (client of a polling \`up\` worker): ${run1.toFixed(0)} ms   load, 1 file: ${load1.toFixed(0)} ms   ratio ${(run1 / load1).toFixed(2)}  (goal <= 1.5)`,
    );
    console.log(
      `run, 1 URL, no worker polling (a worker in the run's process): ${run1InProcess.toFixed(0)} ms   ratio ${(run1InProcess / load1).toFixed(2)}`,
    );
    console.log(
      `run, ${URLS} URLs: ${runN.toFixed(0)} ms (in the run's process ${runNInProcess.toFixed(0)} ms)   load, ${URLS} files: ${loadN.toFixed(0)} ms`,
    );
    console.log(
      `per URL (client of a polling \`up\` worker): run ${perUrlRun.toFixed(2)} ms, load ${perUrlLoad.toFixed(2)} ms, ratio ${(perUrlRun / perUrlLoad).toFixed(2)}  (goal <= 2)`,
    );
    console.log(
      `per URL, worker in the run's process: run ${perUrlRunInProcess.toFixed(2)} ms, ratio ${(perUrlRunInProcess / perUrlLoad).toFixed(2)}`,
    );

    // Peak RSS of a whole `run` (the command with its worker in its own process): an exit hook preloaded into that process
    // writes process.resourceUsage().maxRSS, so nothing samples from outside and misses the peak.
    const hook = path.join(dir, 'peak-rss.cjs');
    fs.writeFileSync(
      hook,
      `process.on('exit', () => { const u = process.resourceUsage(); require('node:fs').writeFileSync(process.env.BENCH_PEAK_FILE, JSON.stringify({ mb: u.maxRSS / 1024, cpu: (u.userCPUTime + u.systemCPUTime) / 1e6 })); });\n`,
    );
    const peakOfRun = async (n: number, extraEnv: NodeJS.ProcessEnv = {}) => {
      const file = pipeline(
        `bench-memory-${n}`,
        Array.from({ length: n }, (_, i) => productUrl(i)),
      );
      const out = path.join(dir, `peak-${n}.txt`);
      const ms = await cli(['run', '--new', file], {
        NODE_OPTIONS: `--require ${hook}`,
        BENCH_PEAK_FILE: out,
        ...inProcess,
        ...extraEnv,
      });
      const { mb, cpu } = JSON.parse(fs.readFileSync(out, 'utf8')) as { mb: number; cpu: number };
      return { ms, mb, cpu };
    };
    const line = (r: { ms: number; mb: number; cpu: number }) =>
      `peak RSS ${r.mb.toFixed(0)} MB, CPU ${r.cpu.toFixed(1)} s, ${(r.ms / 1000).toFixed(1)} s`;
    // The baseline: the same run with V8's own heap growth (temporal/heap-growth.ts sets a smaller one by default).
    const v8Growth = await peakOfRun(MEMORY_URLS, { SCRAPE_ETL_HEAP_GROWTH_PERCENT: '0' });
    const small = await peakOfRun(MEMORY_URLS);
    const large = await peakOfRun(MEMORY_URLS * 10);
    console.log(`memory, run of ${MEMORY_URLS} URLs: ${line(small)}; with V8's default heap growth: ${line(v8Growth)}`);
    console.log(`memory, run of ${MEMORY_URLS * 10} URLs: ${line(large)}`);
    console.log(
      `peak RSS growth for 10x URLs: ${(large.mb / small.mb).toFixed(2)}x  (goal <= 1.1, and <= 300 MB); heap growth limit vs V8's default: RSS ${(small.mb / v8Growth.mb).toFixed(2)}x, CPU ${(small.cpu / v8Growth.cpu).toFixed(2)}x`,
    );
    // An `up` worker outlives its runs: its peak after the first and after both is what it holds.
    await cli(['up', '--detach']);
    const workerPeak = async (n: number) => {
      const ms = await cli([
        'run',
        '--new',
        pipeline(
          `bench-memory-bg-${n}`,
          Array.from({ length: n }, (_, i) => productUrl(i)),
        ),
      ]);
      const pid = liveUp(dataDir)?.pid;
      const hwm =
        pid === undefined ? undefined : /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      if (hwm === undefined) throw new Error('no `up` worker worked on the memory run');
      return { ms, mb: Number(hwm) / 1024 };
    };
    const bgSmall = await workerPeak(MEMORY_URLS);
    const bgLarge = await workerPeak(MEMORY_URLS * 10);
    console.log(
      `memory, \`up\` worker: peak RSS ${bgSmall.mb.toFixed(0)} MB after a run of ${MEMORY_URLS} URLs (${(bgSmall.ms / 1000).toFixed(1)} s), ${bgLarge.mb.toFixed(0)} MB after one of ${MEMORY_URLS * 10} more (${(bgLarge.ms / 1000).toFixed(1)} s): growth ${(bgLarge.mb / bgSmall.mb).toFixed(2)}x  (goal <= 1.1, and <= 300 MB)`,
    );
  } finally {
    await cli(['down']).catch(() => undefined);
    await stopDevServer({ dataDir });
    await sim.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
