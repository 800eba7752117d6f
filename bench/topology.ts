// Throughput on the production topology (the one test/integration/temporal/topology-postgres.test.ts runs): a real Temporal server
// (go.temporal.io/server, scripts/temporal-server.version) on its own Postgres, N `scrape-etl worker` processes on
// one task queue, the warehouse on a second Postgres, the simulator answering the marketplace calls. For N = 1, 2, 3
// workers the same work (BENCH_TOPO_RUNS marketplace runs of BENCH_TOPO_URLS new products each, all started at
// once) is timed from the first start to the last result, and the CPU each part used is read from /proc:
//   - URLs/s in total and per worker; rows written to the warehouse per second;
//   - Temporal: history events per second (what the server persists and dispatches);
//   - CPU seconds per 1,000 URLs for the workers, the warehouse Postgres, the Temporal server and its Postgres,
//     and the simulator (this process): on a machine of its own, each part's share is what it needs to be sized.
// Every process shares this machine's cores, so the totals flatten once the cores are busy; the CPU per URL of
// each part is the figure that carries over to a cluster (docs/production.md).
//   npm run build && npx tsx bench/topology.ts   (BENCH_TOPO_WORKERS=1,2,3 BENCH_TOPO_RUNS=12 BENCH_TOPO_URLS=60
//                                                 BENCH_TOPO_LATENCY_MS=0: the simulator's delay per answer;
//                                                 SCRAPE_ETL_* settings are passed on to the workers)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startSimulator } from '../simulator/server.js';
import { startPipelineRun } from '../temporal/start.js';
import { marketplaceSpec, productUrl } from '../test/support/pipeline-specs.js';
import { startPostgresCluster, type PostgresCluster } from '../test/support/postgres.js';
import { startRealTemporal, TEMPORAL_SERVER_VERSION } from '../test/support/temporal-server.js';
import { spawnWorkerProcess, type WorkerProcess } from '../test/support/temporal.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WORKERS = (process.env['BENCH_TOPO_WORKERS'] ?? '1,2,3').split(',').map(Number);
const RUNS = Number(process.env['BENCH_TOPO_RUNS'] ?? 12);
const URLS = Number(process.env['BENCH_TOPO_URLS'] ?? 60);
const LATENCY = Number(process.env['BENCH_TOPO_LATENCY_MS'] ?? 0);
const CONCURRENCY = 4;
const TOKEN = 'bench-topology-token';
const TICK = 100; // USER_HZ on Linux

/** utime + stime (and, with children, the reaped children's) of a pid, in seconds. */
function cpuOf(pid: number, withChildren = false): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the command: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14)
    const own = Number(f[11]) + Number(f[12]);
    return (withChildren ? own + Number(f[13]) + Number(f[14]) : own) / TICK;
  } catch {
    return 0;
  }
}

/** CPU of a Postgres cluster: the postmaster with its reaped backends plus every live child. */
function postgresCpu(cluster: PostgresCluster): number {
  const pidFile = path.join(cluster.dir, 'data', 'postmaster.pid');
  const master = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  let total = cpuOf(master, true);
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === master) total += cpuOf(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(root, 'dist', 'workflow-bundle.js')))
    throw new Error('run `npm run build` first (the workers run bin/scrape-etl.js)');
  const [temporal, warehouse, sim] = await Promise.all([
    startRealTemporal(),
    startPostgresCluster(),
    startSimulator({ port: 0, token: TOKEN, seed: 9, runDurationMs: 200, faults: { latencyMs: LATENCY } }),
  ]);
  const admin = new pg.Client({ connectionString: warehouse.url });
  await admin.connect();
  await admin.query('CREATE DATABASE warehouse');
  await admin.end();
  const dbUrl = warehouse.url.replace(/\/postgres$/, '/warehouse');
  console.log(
    `Temporal server ${TEMPORAL_SERVER_VERSION} on Postgres 15, warehouse on Postgres 15 (fsync off), ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), ` +
      `${RUNS} marketplace runs x ${URLS} new products each (concurrency ${CONCURRENCY}, chunks of 25), simulator latency ${LATENCY} ms`,
  );
  const rows: string[] = [];
  let base = 1_000_000;
  try {
    for (const n of WORKERS) {
      const taskQueue = `bench-topo-${n}-${Date.now()}`;
      // The bench's own SCRAPE_ETL_* settings reach the workers (e.g. SCRAPE_ETL_URL_LOAD_GROUP=1 for a transaction per URL).
      const tuning = Object.fromEntries(
        Object.entries(process.env).filter(
          (e): e is [string, string] => e[0].startsWith('SCRAPE_ETL_') && e[1] !== undefined,
        ),
      );
      // Chunks of 25 (the default before a list of up to 100 URLs became one activity): a run's next chunk may go to
      // another worker, as in the runs docs/production.md's table measured, so its figures stay comparable.
      const env = {
        SCRAPE_ETL_PG_POOL_SIZE: '10',
        SCRAPE_ETL_URL_CHUNK_SIZE: '25',
        ...tuning,
        SCRAPER_BASE_URL: sim.baseUrl,
        SCRAPER_API_TOKEN: TOKEN,
      };
      const workers: WorkerProcess[] = await Promise.all(
        Array.from({ length: n }, () => spawnWorkerProcess({ address: temporal.address, taskQueue, env })),
      );
      try {
        const specs = Array.from({ length: RUNS }, (_, r) => {
          const urls = Array.from({ length: URLS }, (_, i) =>
            productUrl(base + r * URLS + i, [10115139, 42, 9001][i % 3]),
          );
          return { ...marketplaceSpec(`bench-topo-${n}`, dbUrl, urls), concurrency: CONCURRENCY };
        });
        base += RUNS * URLS;
        // Warm-up outside the clock: the warehouse's tables exist and every worker has run the code once.
        const warm = Array.from({ length: n * 2 }, (_, r) => ({
          ...marketplaceSpec(
            `bench-topo-warm`,
            dbUrl,
            Array.from({ length: 8 }, (_, i) => productUrl(900_000 + n * 100 + r * 8 + i)),
          ),
          concurrency: CONCURRENCY,
        }));
        await Promise.all(
          (
            await Promise.all(
              warm.map((s, r) => startPipelineRun({ client: temporal.client, taskQueue }, s, `warm${n}-${r}`)),
            )
          ).map((h) => h.result()),
        );
        const cpu0 = {
          workers: workers.reduce((s, w) => s + cpuOf(w.pid), 0),
          server: cpuOf(temporal.pid()!),
          temporalPg: postgresCpu(temporal.postgres),
          warehouse: postgresCpu(warehouse),
          sim: process.cpuUsage(),
        };
        const t0 = process.hrtime.bigint();
        const handles = await Promise.all(
          specs.map((s, r) => startPipelineRun({ client: temporal.client, taskQueue }, s, `r${r}`)),
        );
        const results = await Promise.all(handles.map((h) => h.result()));
        const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
        const simCpu = process.cpuUsage(cpu0.sim);
        const cpu = {
          workers: workers.reduce((s, w) => s + cpuOf(w.pid), 0) - cpu0.workers,
          server: cpuOf(temporal.pid()!) - cpu0.server,
          temporalPg: postgresCpu(temporal.postgres) - cpu0.temporalPg,
          warehouse: postgresCpu(warehouse) - cpu0.warehouse,
          sim: (simCpu.user + simCpu.system) / 1e6,
        };
        const bad = results.filter((r) => r.status !== 'succeeded');
        if (bad.length) throw new Error(`${bad.length} runs did not succeed: ${JSON.stringify(bad[0])}`);
        const urls = RUNS * URLS;
        const written = results.reduce(
          (s, r) =>
            s +
            Object.entries(r.rowsByTable)
              .filter(([t]) => t.startsWith('marketplace_'))
              .reduce((a, [, v]) => a + v, 0),
          0,
        );
        let events = 0;
        for (const h of handles) events += (await h.fetchHistory()).events?.length ?? 0;
        const per1k = (s: number) => ((s / urls) * 1000).toFixed(1);
        rows.push(
          `| ${n} | ${urls} | ${seconds.toFixed(1)} | ${(urls / seconds).toFixed(1)} | ${(urls / seconds / n).toFixed(1)} | ${(written / seconds).toFixed(0)} | ${(events / seconds).toFixed(0)} | ` +
            `${per1k(cpu.workers)} | ${per1k(cpu.warehouse)} | ${per1k(cpu.server)} | ${per1k(cpu.temporalPg)} | ${per1k(cpu.sim)} |`,
        );
        console.log(rows[rows.length - 1]);
      } finally {
        await Promise.all(workers.map((w) => w.kill('SIGTERM')));
      }
    }
  } finally {
    await sim.close();
    await temporal.stop();
    warehouse.stop();
  }
  console.log(
    '\n| workers | URLs | wall s | URLs/s | URLs/s per worker | warehouse rows/s | Temporal events/s | CPU s per 1k URLs: workers | warehouse PG | Temporal server | Temporal PG | simulator |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
