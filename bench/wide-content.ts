// Memory of an evolving load of very wide content into DuckDB (issue 30: 5,000 distinct fields peaked the worker
// at 8.6 GB). Each figure is a child process of its own (bench/_memory.ts): it loads `batches` pages of results
// whose content brings `n` new distinct fields per page after a narrow first one (so the schema evolves) through loadBatch,
// the loader the activities call, into a fresh DuckDB file, and prints its peak RSS. The baseline is the same
// loader with 50 fields per page in the same run; the budget is 500 MB for 5,000 fields.
//
//   npx tsx bench/wide-content.ts                 full run (baseline 50 fields, then 5,000)
//   npx tsx bench/wide-content.ts --memory <n>    (internal) one load of n fields per page, peak RSS as JSON
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseJson } from '../lib/json.js';
import { resultsListResponseSchema } from '../client/schemas.js';
import { openDatabase } from '../destinations/open.js';
import { contentTableName } from '../db/model/evolve/names.js';
import { loadBatch } from '../db/store/load.js';
import { memoryInChild, printPeaks } from './_memory.js';

const PAGES = 5;
const RESULTS_PER_PAGE = 4;
const BUDGET_MB = 500;

async function child(n: number): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-wide-'));
  let peakHeap = 0;
  const sample = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 20);
  try {
    const db = await openDatabase(`duckdb:${path.join(dir, 'wide.duckdb')}`);
    const started = Date.now();
    let id = 1;
    for (let page = 0; page < PAGES; page++) {
      // The first page creates the table with a few columns; every later page brings n fields no earlier page had
      // (ALTER TABLE in the load's transaction until the column budget, then the overflow column): each result a
      // quarter of them, half integers.
      const count = page === 0 ? RESULTS_PER_PAGE * 2 : n;
      const results = Array.from({ length: RESULTS_PER_PAGE }, () => {
        const fields = Array.from({ length: count / RESULTS_PER_PAGE }, (_, i) => {
          const f = page * n + ((id - 1) % RESULTS_PER_PAGE) * (count / RESULTS_PER_PAGE) + i;
          return `"f_${f}":${f % 2 === 0 ? f : `"v${f}"`}`;
        });
        const rid = id++;
        return `{"id":${rid},"scraper_id":1,"scraping_run_id":1,"scraper_name":"wide","scraped_url":"u${rid}","status":"succeeded","content":{${fields.join(',')}},"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}`;
      });
      const raw = `{"data":[${results.join(',')}]}`;
      await loadBatch(db, {
        pipeline: 'wide',
        kind: 'results',
        endpoint: 'GET /api/results',
        requestKey: `page-${page}`,
        resultTable: 'scraper_results',
        raw,
        data: resultsListResponseSchema.parse(parseJson(raw)),
        content: { table: contentTableName('wide'), mode: 'evolve' },
      });
    }
    const seconds = (Date.now() - started) / 1000;
    await db.close();
    clearInterval(sample);
    printPeaks({ fieldsPerPage: n, pages: PAGES, seconds }, peakHeap);
  } finally {
    clearInterval(sample);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

interface Peaks {
  fieldsPerPage: number;
  seconds: number;
  peakRssMb: number;
  peakHeapMb: number;
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--memory');
  if (at >= 0) return child(Number(process.argv[at + 1]));
  const base = memoryInChild<Peaks>(import.meta.url, 50);
  const wide = memoryInChild<Peaks>(import.meta.url, 5000);
  const line = (p: Peaks) =>
    `${String(p.fieldsPerPage).padStart(5)} fields/page x ${PAGES} pages: peak RSS ${p.peakRssMb.toFixed(0)} MB, peak heap ${p.peakHeapMb.toFixed(0)} MB, ${p.seconds.toFixed(1)} s`;
  process.stdout.write(
    `DuckDB, evolving content load\n  baseline ${line(base)}\n  wide     ${line(wide)}\n  ratio    ${(wide.peakRssMb / base.peakRssMb).toFixed(2)}x RSS\n`,
  );
  if (wide.peakRssMb > BUDGET_MB) {
    process.stdout.write(`FAIL: ${wide.peakRssMb.toFixed(0)} MB is over the ${BUDGET_MB} MB budget\n`);
    process.exitCode = 1;
  }
}

await main();
