// Two attempts of one URL-chunk activity running at once, as when Temporal timed out an attempt whose worker was too
// busy to heartbeat in time: the timed-out attempt keeps running until it next hears from the server, while its retry
// (attempt 2) starts from the landed responses it finds, which are none yet. The simulator answers slowly, so both
// attempts fetch every URL and both try to land each answer. Used by the fast tier (SQLite, DuckDB) and the
// integration tier (Postgres): db/store/land-once.ts must leave each URL landed once.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities, createActivityDeps } from '../../activities/index.js';
import type { UrlChunkOutput } from '../../activities/types.js';
import { databaseFileOf, parseDatabaseUrl } from '../../destinations/open.js';
import { seenRowsOfRun } from '../../db/store/pipeline-runs.js';
import type { RunningSimulator } from '../../simulator/server.js';
import { marketplaceSpec, productUrl } from './pipeline-specs.js';
import { pythonReadersEnv } from './python-readers.js';

export interface ConcurrentAttemptsOutcome {
  outputs: UrlChunkOutput[];
  urls: string[];
  /** raw_responses rows of the run per request key, as an independent reader counts them. */
  landings: Record<string, number>;
  /** marketplace_products rows of the pipeline, as the same reader counts them. */
  products: number;
  /** The run's rows seen as finishPipelineRun counts them (from raw_responses). */
  seen: Record<string, number>;
  /** Marketplace calls the simulator answered. */
  calls: number;
}

const PY_COUNT = `
import json, sys
dialect, where, workflow, pipeline = sys.argv[1:5]
if dialect == 'duckdb':
    import duckdb
    c = duckdb.connect(where, read_only=True)
else:
    import sqlite3
    c = sqlite3.connect('file:%s?mode=ro' % where, uri=True)
keys = c.execute('select request_key, count(*) from raw_responses where workflow_id = ? group by request_key', [workflow]).fetchall()
products = c.execute('select count(*) from marketplace_products where pipeline = ?', [pipeline]).fetchone()[0]
print(json.dumps({'landings': {k: n for k, n in keys}, 'products': products}))
`;

/** The counts by a reader that is not scrape-etl's: Python's sqlite3 or duckdb for a file, psql for Postgres. */
function independentCounts(
  dbUrl: string,
  workflowId: string,
  pipeline: string,
): { landings: Record<string, number>; products: number } {
  const file = databaseFileOf(parseDatabaseUrl(dbUrl));
  if (file !== undefined) {
    const out = execFileSync(
      'python3',
      ['-c', PY_COUNT, dbUrl.startsWith('duckdb:') ? 'duckdb' : 'sqlite', file, workflowId, pipeline],
      {
        env: pythonReadersEnv(),
        encoding: 'utf8',
      },
    );
    return JSON.parse(out) as { landings: Record<string, number>; products: number };
  }
  const psql = path.join(process.env['TEST_POSTGRES_BIN'] ?? '/usr/lib/postgresql/15/bin', 'psql');
  const query = (sql: string) =>
    execFileSync(psql, ['--dbname', dbUrl, '--no-align', '--tuples-only', '--field-separator', '\t', '-c', sql], {
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .filter((l) => l.length > 0);
  const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;
  const landings: Record<string, number> = {};
  for (const line of query(
    `select request_key, count(*) from raw_responses where workflow_id = ${quote(workflowId)} group by request_key`,
  )) {
    const [k, n] = line.split('\t');
    landings[k!] = Number(n);
  }
  const [products] = query(`select count(*) from marketplace_products where pipeline = ${quote(pipeline)}`);
  return { landings, products: Number(products) };
}

/** Runs attempts 1 and 2 of one chunk of four URLs at once into `dbUrl`; `loadGroup` is the worker's url_load_group. */
export async function runConcurrentAttempts(
  sim: RunningSimulator,
  token: string,
  dbUrl: string,
  opts: { pipeline: string; loadGroup: number; firstProduct: number },
): Promise<ConcurrentAttemptsOutcome> {
  const urls = Array.from({ length: 4 }, (_, i) => productUrl(opts.firstProduct + i));
  const spec = marketplaceSpec(opts.pipeline, dbUrl, urls);
  const workflowId = `${opts.pipeline}--twice`;
  const deps = createActivityDeps({
    env: {
      SCRAPER_BASE_URL: sim.baseUrl,
      SCRAPER_API_TOKEN: token,
      SCRAPE_ETL_URL_LOAD_GROUP: String(opts.loadGroup),
    },
  });
  // Slow answers: the retry has looked for landed responses long before the first attempt lands one.
  sim.setFaults({ latencyMs: 400 });
  sim.resetStats();
  let ran: Pick<ConcurrentAttemptsOutcome, 'outputs' | 'seen' | 'calls'>;
  try {
    const { loadUrlChunk } = createActivities(deps);
    const input = { workflowId, spec, offset: 0, urls };
    const outputs = (await Promise.all(
      [1, 2].map((attempt) => new MockActivityEnvironment({ attempt }).run(loadUrlChunk, input)),
    )) as UrlChunkOutput[];
    const seen = await seenRowsOfRun(await deps.destination(dbUrl), workflowId, {});
    ran = { outputs, seen, calls: sim.stats().byEndpoint['POST /api/marketplace/sync'] ?? 0 };
  } finally {
    sim.setFaults({ latencyMs: 0 });
    // Closed before the independent reader opens a file (DuckDB's lock).
    await deps.close();
  }
  return { ...ran, urls, ...independentCounts(dbUrl, workflowId, opts.pipeline) };
}
