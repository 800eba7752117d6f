// Rows with every value that is hard to get through CSV, written to the project's real tables (through the
// raw drivers, so the tests do not depend on the loader), and helpers that read CSV back with papaparse.
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import Papa from 'papaparse';
import { expect } from 'vitest';
import { exportTables, exportTablesReport } from '../../export/csv.js';
import type { Database } from '../../destinations/contract.js';
import { duckSelect, pgPool } from './duckdb.js';
import { withTransaction } from '../../db/store/sql.js';

export const BIG_ID = 9007199254740993n; // 2^53 + 1: a double would round it to ...992

export const TRICKY_TEXT: Array<string | null> = [
  'plain',
  'comma, inside',
  'quote " inside',
  '"starts with a quote',
  'line\nbreak',
  'crlf\r\nbreak',
  'unicode: Grüße — 日本語 🎉',
  '=1+2',
  '@SUM(A1:A2)',
  '+cmd',
  '-cmd|calc',
  '-1',
  '\ttab first',
  '\rcarriage return first',
  ';semicolon; inside',
  ' spaces around ',
  '',
  null,
];

export interface ScraperRow {
  id: bigint;
  name: string | null;
  urls: string | null;
  scheduled: boolean | null;
  schedule: string | null;
  pipeline: string;
  load_id: bigint;
  loaded_at: string;
  row_hash: string;
}

/** One row per tricky text, with ids, JSON, booleans and nulls that must also survive. */
export function scraperRows(pipeline: string, loadId: bigint, firstId: bigint): ScraperRow[] {
  return TRICKY_TEXT.map((text, i) => ({
    id: i === 0 ? BIG_ID + firstId : firstId + BigInt(i),
    name: text,
    urls: i % 3 === 0 ? null : JSON.stringify({ big: '§', n: i }).replace('"§"', (BIG_ID + BigInt(i)).toString()),
    scheduled: i % 3 === 0 ? null : i % 3 === 1,
    schedule: i % 2 === 0 ? '' : null,
    pipeline,
    load_id: loadId,
    loaded_at: `2025-01-02T03:04:${String(10 + i).padStart(2, '0')}.${i % 2 === 0 ? '678' : '600'}Z`,
    row_hash: `h${i}`,
  }));
}

const SCRAPER_COLUMNS = [
  'id',
  'name',
  'urls',
  'scheduled',
  'schedule',
  'pipeline',
  'load_id',
  'loaded_at',
  'row_hash',
] as const;

export async function insertScrapers(db: Database, rows: ScraperRow[]): Promise<void> {
  const cols = SCRAPER_COLUMNS.join(', ');
  if (db.dialect === 'sqlite') {
    const stmt = db.sqlite.prepare(
      `insert or replace into scrapers (${cols}) values (${SCRAPER_COLUMNS.map(() => '?').join(', ')})`,
    );
    db.sqlite.transaction(() => {
      for (const r of rows)
        stmt.run(
          r.id,
          r.name,
          r.urls,
          r.scheduled === null ? null : r.scheduled ? 1 : 0,
          r.schedule,
          r.pipeline,
          r.load_id,
          r.loaded_at,
          r.row_hash,
        );
    })();
    return;
  }
  if (db.dialect === 'duckdb') {
    await withTransaction(db, async (tx) => {
      for (const r of rows) {
        await tx.run(
          `insert or replace into scrapers (${cols}) values (${SCRAPER_COLUMNS.map((_c, i) => tx.ph(i + 1)).join(', ')})`,
          [r.id, r.name, r.urls, r.scheduled, r.schedule, r.pipeline, r.load_id, r.loaded_at, r.row_hash],
        );
      }
    });
    return;
  }
  for (const r of rows) {
    await pgPool(db).query(
      `insert into scrapers (${cols}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       on conflict (pipeline, id) do update set name = excluded.name, load_id = excluded.load_id, row_hash = excluded.row_hash`,
      [
        r.id.toString(),
        r.name,
        r.urls,
        r.scheduled,
        r.schedule,
        r.pipeline,
        r.load_id.toString(),
        r.loaded_at,
        r.row_hash,
      ],
    );
  }
}

/** The text each cell of a scrapers row must have in the CSV, written independently of export/cells.ts. */
export function expectedScraperCells(r: ScraperRow, nullText: string): string[] {
  const cell = (v: string | bigint | boolean | null) =>
    v === null ? nullText : typeof v === 'boolean' ? String(v) : v.toString();
  return SCRAPER_COLUMNS.map((c) => cell(r[c]));
}

export interface ParsedCsv {
  raw: string;
  header: string[];
  rows: string[][];
}

/** Parses an exported file with papaparse, checking the framing (BOM, record separator at the end) on the way. */
export async function readCsv(
  file: string,
  o: { newline?: '\r\n' | '\n'; delimiter?: string; bom?: boolean } = {},
): Promise<ParsedCsv> {
  let raw = await readFile(file, 'utf8');
  const newline = o.newline ?? '\r\n';
  if (o.bom) {
    if (!raw.startsWith('\uFEFF')) throw new Error(`${file} does not start with a BOM`);
    raw = raw.slice(1);
  } else if (raw.startsWith('\uFEFF')) {
    throw new Error(`${file} starts with a BOM that was not asked for`);
  }
  if (!raw.endsWith(newline)) throw new Error(`${file} does not end with ${JSON.stringify(newline)}`);
  const parsed = Papa.parse<string[]>(raw.slice(0, -newline.length), {
    newline,
    delimiter: o.delimiter ?? ',',
    quoteChar: '"',
  });
  if (parsed.errors.length > 0) throw new Error(`${file}: ${JSON.stringify(parsed.errors.slice(0, 3))}`);
  const [header, ...rows] = parsed.data;
  return { raw, header: header ?? [], rows };
}

/** Only the scrapers columns the fixtures fill, keyed by id, so the comparison does not depend on row order. */
export function byId(csv: ParsedCsv): Map<string, string[]> {
  const idx = SCRAPER_COLUMNS.map((c) => csv.header.indexOf(c));
  if (idx.some((i) => i < 0))
    throw new Error(`header lacks some of ${SCRAPER_COLUMNS.join(', ')}: ${csv.header.join(', ')}`);
  return new Map(csv.rows.map((row) => [row[idx[0]!]!, idx.map((i) => row[i]!)]));
}

export function expectedById(rows: ScraperRow[], nullText: string): Map<string, string[]> {
  return new Map(rows.map((r) => [r.id.toString(), expectedScraperCells(r, nullText)]));
}

/**
 * Waits until an export into `dir` has a non-empty temporary file, proof that it is mid-stream, and returns that
 * file's name. Fails after `timeoutMs` rather than hanging the test.
 */
export async function waitForPartialFile(dir: string, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const name = (await readdir(dir).catch(() => [] as string[])).find((n) => n.endsWith('.partial'));
    if (name && (await stat(join(dir, name)).catch(() => undefined))?.size) return name;
    if (Date.now() > deadline) throw new Error(`no export started writing into ${dir} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

export async function exportWatermarks(
  db: Database,
): Promise<Array<{ pipeline: string; table_name: string; last_load_id: bigint }>> {
  const sql = 'select pipeline, table_name, last_load_id from export_watermarks order by pipeline, table_name';
  const rows =
    db.dialect === 'sqlite'
      ? (db.sqlite.prepare(sql).safeIntegers(true).all() as Array<Record<string, unknown>>)
      : db.dialect === 'duckdb'
        ? await duckSelect(db, sql)
        : ((await pgPool(db).query(sql.replace('last_load_id', 'last_load_id::text as last_load_id'))).rows as Array<
            Record<string, unknown>
          >);
  return rows.map((r) => ({
    pipeline: String(r['pipeline']),
    table_name: String(r['table_name']),
    last_load_id: BigInt(r['last_load_id'] as bigint | string),
  }));
}

/**
 * The incremental-export story, the same for every dialect: the first export holds the pipeline's rows (not another
 * pipeline's), a second holds only the rows of the second load (new and changed, load ids beyond 2^53), a full export
 * leaves the watermark alone, and nothing new gives no file (the table is reported unchanged, the watermark stays),
 * or with writeEmpty a header-only file as before.
 */
export async function checkIncrementalExports(db: Database, out: string): Promise<void> {
  const first = scraperRows('p1', 10n, 0n);
  await insertScrapers(db, first);
  await insertScrapers(db, scraperRows('other', 11n, 1000n));
  const incremental = {
    pipeline: 'p1',
    tables: ['scrapers'],
    outDir: out,
    mode: 'incremental' as const,
    nullText: '\\N',
    neutralizeFormulas: false,
  };
  const [a] = await exportTables(db, { ...incremental, fileName: 'a.csv' });
  expect(a!.rows).toBe(first.length);
  expect(byId(await readCsv(a!.file))).toEqual(expectedById(first, '\\N'));
  expect(await exportWatermarks(db)).toEqual([{ pipeline: 'p1', table_name: 'scrapers', last_load_id: 10n }]);

  const second = scraperRows('p1', BIG_ID, 500n).slice(0, 2);
  const changed = { ...first[3]!, name: 'changed "again"', load_id: BIG_ID };
  await insertScrapers(db, [...second, changed]);
  const [b] = await exportTables(db, { ...incremental, fileName: 'b.csv' });
  expect(b!.rows).toBe(3);
  expect(byId(await readCsv(b!.file))).toEqual(expectedById([...second, changed], '\\N'));
  expect(await exportWatermarks(db)).toEqual([{ pipeline: 'p1', table_name: 'scrapers', last_load_id: BIG_ID }]);

  const [full] = await exportTables(db, { pipeline: 'p1', tables: ['scrapers'], outDir: out, fileName: 'full.csv' });
  expect(full!.rows).toBe(first.length + 2);
  const nothingNew = await exportTablesReport(db, {
    pipeline: 'p1',
    tables: ['scrapers'],
    outDir: out,
    mode: 'incremental',
    fileName: 'c.csv',
  });
  expect(nothingNew).toEqual({ files: [], unchanged: ['scrapers'] });
  expect(existsSync(join(out, 'c.csv'))).toBe(false);
  expect(await exportWatermarks(db)).toEqual([{ pipeline: 'p1', table_name: 'scrapers', last_load_id: BIG_ID }]);
  const [c] = await exportTables(db, {
    pipeline: 'p1',
    tables: ['scrapers'],
    outDir: out,
    mode: 'incremental',
    fileName: 'c.csv',
    writeEmpty: true,
  });
  expect(c!.rows).toBe(0);
  expect((await readCsv(c!.file)).rows).toEqual([]);
  expect((await readCsv(c!.file)).header[0]).toBe('id');
  expect(await exportWatermarks(db)).toEqual([{ pipeline: 'p1', table_name: 'scrapers', last_load_id: BIG_ID }]);
  // Rows loaded after an export that found nothing are the next export's, as always.
  const third = scraperRows('p1', BIG_ID + 1n, 900n).slice(0, 1);
  await insertScrapers(db, third);
  const [d] = await exportTables(db, { ...incremental, fileName: 'd.csv' });
  expect(d!.rows).toBe(1);
  expect(await exportWatermarks(db)).toEqual([{ pipeline: 'p1', table_name: 'scrapers', last_load_id: BIG_ID + 1n }]);
}
