// Open-content benchmark: leads results (~30 content fields, nested objects, one nested array) loaded the way a
// leads pipeline loads a run's results (db/store/load.ts with its inferred tables: raw landing, leads_results, the
// `<pipeline>_items` root table and its `__social_profiles` child table, schema registry, upserts), against a bare
// better-sqlite3 prepared INSERT loop writing the same rows into the same tables in the same run.
// Flattening is on BOTH clocks: the baseline calls the same flatteners (flattenScrapingRun, flattenContentRows)
// inside its timing, because our load cannot be timed without its own; what the ratio measures is what the load
// adds around them (raw landing, hashing, registry, upserts, child replacement). Then peak memory for N and 10N
// results, each in a child process of its own, streaming batches the way loadRunResults does.
//   npx tsx bench/open-content.ts                 full run (BENCH_CONTENT_RESULTS, default 100,000)
//   npx tsx bench/open-content.ts --memory <n>    (internal) load n results, print peaks as JSON
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { stringifyJson } from '../lib/json.js';
import type { ResultRecord, ScrapingRunResponse } from '../client/schemas.js';
import { openDatabase } from '../destinations/open.js';
import { contentTableName } from '../db/model/evolve/names.js';
import { flattenContentRows } from '../db/model/flatten/content.js';
import { flattenScrapingRun } from '../db/model/flatten/runs.js';
import { loadBatch } from '../db/store/load.js';
import { TABLE_META, type DataTableName } from '../db/model/tables.js';
import { memoryInChild, printPeaks } from './_memory.js';

const RESULTS = Number(process.env['BENCH_CONTENT_RESULTS'] ?? 100_000);
// The worker's default SCRAPE_ETL_LOAD_BATCH_SIZE: results per transaction in loadRunResults.
const BATCH = 500;
const PIPELINE = 'bench-leads';
const CONTENT_TABLE = contentTableName(PIPELINE);

const CITIES = [
  ['Berlin', 'DE', 52.52, 13.405],
  ['Lisbon', 'PT', 38.722, -9.139],
  ['Austin', 'US', 30.267, -97.743],
  ['Osaka', 'JP', 34.694, 135.502],
] as const;
const PLATFORMS = ['linkedin', 'x', 'github', 'instagram', 'facebook'] as const;

/** A lead's content: 29 scalar columns once flattened (location and company nested), 0-3 social profiles. */
function leadContent(i: number): Record<string, unknown> {
  const [city, country, lat, lng] = CITIES[i % CITIES.length]!;
  const first = `First${i % 997}`;
  const last = `Last${i % 1013}`;
  const domain = `company${i % 5003}.example`;
  return {
    name: `${first} ${last}`,
    first_name: first,
    last_name: last,
    job_title: ['CEO', 'CTO', 'Head of Sales', 'Founder'][i % 4],
    email: i % 7 === 0 ? null : `${first}.${last}.${i}@${domain}`.toLowerCase(),
    phone: i % 3 === 0 ? null : `+49 30 ${1000 + (i % 9000)} ${100 + (i % 900)}`,
    website: `https://${domain}`,
    source_url: `https://${domain}/about?ref=${i}`,
    search_query: 'solar installers',
    search_page: 1 + Math.floor(i / 10),
    rating: (i % 50) / 10,
    review_count: i % 1200,
    verified: i % 5 === 0,
    last_seen_at: new Date(Date.UTC(2026, 0, 1) + (i % 320) * 86_400_000).toISOString(),
    language: ['en', 'de', 'pt', 'ja'][i % 4],
    description: `Installs and services rooftop solar systems for homes and small businesses, lead ${i}.`,
    company: {
      name: `Company ${i % 5003}`,
      industry: ['energy', 'construction', 'utilities'][i % 3],
      size: 10 + (i % 490),
      founded_year: 1980 + (i % 45),
      // Beyond 2^53: must stay exact (bigint column).
      registry_id: 9_007_199_254_740_993n + BigInt(i),
      revenue_usd: 250_000 + (i % 1000) * 1250.5,
      funding_stage: i % 2 === 0 ? 'seed' : 'series-a',
    },
    location: { city, country, lat, lng, postcode: String(10_000 + (i % 89_999)), timezone: 'UTC' },
    social_profiles: PLATFORMS.slice(0, i % 4).map((platform) => ({
      platform,
      handle: `${first}${last}${i % 99}`.toLowerCase(),
      url: `https://${platform}.example/${first}${i}`,
      followers: (i * 37) % 250_000,
    })),
  };
}

function result(i: number): ResultRecord {
  return {
    id: 1_000_000 + i,
    scraper_id: 77,
    scraping_run_id: 5000,
    scraper_name: PIPELINE,
    scraped_url: `https://company${i % 5003}.example/about?ref=${i}`,
    status: 'succeeded',
    content: leadContent(i),
    created_at: '2026-11-01T10:00:00.000Z',
    updated_at: '2026-11-01T10:00:00.000Z',
  } as ResultRecord;
}

interface Batch {
  from: number;
  data: ScrapingRunResponse;
  raw: string;
}

/** The run detail's results in slices of BATCH, as loadRunResults lands them (raw = the slice's body). */
function* batches(n: number): Generator<Batch> {
  for (let from = 0; from < n; from += BATCH) {
    const results = Array.from({ length: Math.min(BATCH, n - from) }, (_, j) => result(from + j));
    const data = {
      data: { id: 5000, scraper_id: 77, status: 'succeeded', results, created_at: '2026-11-01T10:00:00.000Z' },
    } as ScrapingRunResponse;
    yield { from, data, raw: stringifyJson(data) };
  }
}

function tmpFile(name: string): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-content-')), name);
}

async function loadOne(db: Awaited<ReturnType<typeof openDatabase>>, b: Batch): Promise<number> {
  const out = await loadBatch(db, {
    pipeline: PIPELINE,
    resultTable: 'leads_results',
    endpoint: 'GET /api/scraping-runs/5000',
    requestKey: `scraping-run:5000:results[${b.from}..${b.from + b.data.data.results.length})`,
    raw: b.raw,
    scrapingRunId: 5000,
    content: { table: CONTENT_TABLE, mode: 'evolve' },
    schemaMode: 'evolve',
    kind: 'scraping-run',
    data: b.data,
  });
  let rows = 0;
  for (const n of Object.values(out.rowsByTable)) rows += n ?? 0;
  return rows;
}

async function ours(list: readonly Batch[]): Promise<{ seconds: number; rows: number; file: string }> {
  const file = tmpFile('ours.sqlite');
  const db = await openDatabase(`sqlite:${file}`);
  let rows = 0;
  const t0 = process.hrtime.bigint();
  for (const b of list) rows += await loadOne(db, b);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  await db.close();
  return { seconds, rows, file };
}

/** A value as better-sqlite3 binds it, the way the loader's toParam stores each logical type on SQLite. */
function bind(v: unknown): string | number | bigint | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'object') return stringifyJson(v);
  return v as string | number | bigint;
}

/**
 * The same tables, created from the schema our load ended with (columns, keys, indexes), in a fresh file;
 * then per batch, in one transaction: flatten (same functions) and one prepared single-row INSERT OR REPLACE per row (the run row repeats in every batch).
 * No raw landing, no registry, no hashing beyond what the flatteners do, no upsert, no child replacement.
 */
function baseline(list: readonly Batch[], schemaFrom: string): { seconds: number; rows: number } {
  const file = tmpFile('baseline.sqlite');
  const src = new BetterSqlite3(schemaFrom, { readonly: true });
  const tables = ['scraping_runs', 'leads_results', CONTENT_TABLE, `${CONTENT_TABLE}__social_profiles`];
  const ddl = src
    .prepare(
      `SELECT sql FROM sqlite_master WHERE tbl_name IN (${tables.map(() => '?').join(', ')}) AND sql IS NOT NULL`,
    )
    .all(...tables) as Array<{ sql: string }>;
  const columnsOf = new Map(
    tables.map((t) => [
      t,
      (src.prepare(`SELECT name FROM pragma_table_info(?)`).all(t) as Array<{ name: string }>).map((c) => c.name),
    ]),
  );
  src.close();
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  for (const { sql } of ddl) db.exec(sql);
  const insert = new Map(
    tables.map((t) => {
      const cols = columnsOf.get(t)!;
      return [
        t,
        {
          cols,
          stmt: db.prepare(
            `INSERT OR REPLACE INTO "${t}" (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
          ),
        },
      ];
    }),
  );
  const loadedAt = new Date().toISOString();
  let rows = 0;
  const t0 = process.hrtime.bigint();
  list.forEach((b, i) => {
    const loadId = i + 1;
    db.transaction(() => {
      const model = flattenScrapingRun(b.data, 'leads_results');
      for (const [t, list] of Object.entries(model) as Array<[DataTableName, Array<Record<string, unknown>>]>) {
        const { cols, stmt } = insert.get(t)!;
        const known = new Set(TABLE_META[t].columns);
        for (const r of list) {
          stmt.run(
            cols.map((c) =>
              c === 'pipeline'
                ? PIPELINE
                : c === 'load_id'
                  ? loadId
                  : c === 'loaded_at'
                    ? loadedAt
                    : c === 'row_hash'
                      ? 'x'
                      : known.has(c)
                        ? bind(r[c])
                        : null,
            ),
          );
          rows++;
        }
      }
      for (const root of flattenContentRows(b.data.data.results, { table: CONTENT_TABLE })) {
        const { cols, stmt } = insert.get(CONTENT_TABLE)!;
        const values = new Map<string, unknown>([
          ['pipeline', PIPELINE],
          ['row_key', root.rowKey],
          ['result_id', root.resultId],
          ['scraping_run_id', root.scrapingRunId],
          ['scraped_url', root.scrapedUrl],
          ['result_created_at', root.resultCreatedAt],
          ['load_id', loadId],
          ['loaded_at', loadedAt],
          ['row_hash', root.rowHash],
          ...root.fields.map(([c, v]) => [c, v] as const),
        ]);
        stmt.run(cols.map((c) => bind(values.get(c))));
        rows++;
        for (const child of root.children) {
          const target = insert.get(child.table)!;
          const cv = new Map<string, unknown>([
            ['pipeline', PIPELINE],
            ['row_key', child.rowKey],
            ['root_key', child.rootKey],
            ['parent_key', child.parentKey],
            ['list_index', child.listIndex],
            ['load_id', loadId],
            ['loaded_at', loadedAt],
            ...child.fields.map(([c, v]) => [c, v] as const),
          ]);
          target.stmt.run(target.cols.map((c) => bind(cv.get(c))));
          rows++;
        }
      }
    })();
  });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  db.close();
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  return { seconds, rows };
}

/** Child-process mode: stream n results through loadBatch, BATCH at a time, keeping nothing; report peaks. */
async function memoryRun(n: number): Promise<void> {
  const file = tmpFile('memory.sqlite');
  const db = await openDatabase(`sqlite:${file}`);
  let peakHeap = 0;
  let i = 0;
  const t0 = Date.now();
  for (const b of batches(n)) {
    await loadOne(db, b);
    if (++i % 20 === 0) peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }
  const seconds = (Date.now() - t0) / 1000;
  await db.close();
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  printPeaks({ results: n, seconds }, peakHeap);
}

interface MemoryFigures {
  results: number;
  seconds: number;
  peakRssMb: number;
  peakHeapMb: number;
  liveHeapMb: number;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  const memIdx = process.argv.indexOf('--memory');
  if (memIdx >= 0) return memoryRun(Number(process.argv[memIdx + 1]));

  console.log(
    `# open-content benchmark: ${fmt(RESULTS)} leads results (29 content columns, 0-3 social profiles each), ${BATCH} per transaction, SQLite file; flattening timed on both sides`,
  );
  const list = [...batches(RESULTS)];
  const o = await ours(list);
  const b = baseline(list, o.file);
  fs.rmSync(path.dirname(o.file), { recursive: true, force: true });
  if (b.rows !== o.rows) throw new Error(`baseline wrote ${b.rows} rows, ours ${o.rows}: not the same rows`);
  console.log(
    `load with inferred tables (db/store/load.ts): ${fmt(RESULTS / o.seconds)} results/s, ${fmt(o.rows / o.seconds)} rows/s (${fmt(o.rows)} rows, ${o.seconds.toFixed(2)} s)`,
  );
  console.log(
    `bare prepared INSERT loop:              ${fmt(RESULTS / b.seconds)} results/s, ${fmt(b.rows / b.seconds)} rows/s (${fmt(b.rows)} rows, ${b.seconds.toFixed(2)} s)`,
  );
  console.log(`ratio ours/baseline (rows/s): ${(o.rows / o.seconds / (b.rows / b.seconds)).toFixed(2)}  (goal >= 0.5)`);
  const small = memoryInChild<MemoryFigures>(import.meta.url, RESULTS);
  const large = memoryInChild<MemoryFigures>(import.meta.url, RESULTS * 10);
  for (const m of [small, large]) {
    console.log(
      `memory, ${fmt(m.results)} results in a child process: peak RSS ${m.peakRssMb.toFixed(0)} MB, peak heap ${m.peakHeapMb.toFixed(0)} MB, live heap at the end ${m.liveHeapMb.toFixed(0)} MB (${m.seconds.toFixed(1)} s)`,
    );
  }
  console.log(`peak RSS growth for 10x results: ${(large.peakRssMb / small.peakRssMb).toFixed(2)}x  (goal <= 1.2)`);
}

await main();
