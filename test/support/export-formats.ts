// The typed formats (Parquet, JSON Lines, XLSX), checked the same way on every dialect: the tricky rows of
// export-data.ts plus a price row are exported and read back by independent Python readers, and every value is
// compared with what was inserted, written out here independently of export/.
import { basename } from 'node:path';
import { expect } from 'vitest';
import type { Database } from '../../destinations/contract.js';
import { exportTables } from '../../export/export.js';
import { BIG_ID, exportWatermarks, insertScrapers, scraperRows, type ScraperRow } from './export-data.js';
import { readJsonlWithPython, readParquetWithPyarrow, readXlsxWithOpenpyxl, type PyValue } from './python-readers.js';
import { pgPool } from './duckdb.js';
import { withTransaction } from '../../db/store/sql.js';

export interface PriceRow {
  shop_id: bigint;
  item_id: bigint;
  price: bigint;
  price_major: number;
  currency: string;
  load_id: bigint;
  loaded_at: string;
}

export const PRICE_ROWS: PriceRow[] = [
  {
    shop_id: BIG_ID,
    item_id: 9223372036854775807n,
    price: 1234500000n,
    price_major: 12345,
    currency: 'EUR',
    load_id: 10n,
    loaded_at: '2025-03-04T05:06:07.891Z',
  },
  {
    shop_id: 7n,
    item_id: -9223372036854775808n,
    price: 199n,
    price_major: 0.00199,
    currency: '=USD',
    load_id: 10n,
    loaded_at: '2025-03-04T05:06:08.000Z',
  },
];

export async function insertPrices(db: Database, pipeline: string, rows: PriceRow[]): Promise<void> {
  const sql = `insert into marketplace_price_history (shop_id, item_id, price, price_major, currency, pipeline, load_id, loaded_at, row_hash) values `;
  for (const r of rows) {
    if (db.dialect === 'sqlite') {
      db.sqlite
        .prepare(`${sql}(?, ?, ?, ?, ?, ?, ?, ?, 'h')`)
        .run(r.shop_id, r.item_id, r.price, r.price_major, r.currency, pipeline, r.load_id, r.loaded_at);
    } else if (db.dialect === 'duckdb') {
      await withTransaction(db, (tx) =>
        tx.run(`${sql}($1, $2, $3, $4, $5, $6, $7, $8, 'h')`, [
          r.shop_id,
          r.item_id,
          r.price,
          r.price_major,
          r.currency,
          pipeline,
          r.load_id,
          r.loaded_at,
        ]),
      );
    } else {
      await pgPool(db).query(`${sql}($1, $2, $3, $4, $5, $6, $7, $8, 'h')`, [
        r.shop_id.toString(),
        r.item_id.toString(),
        r.price.toString(),
        r.price_major,
        r.currency,
        pipeline,
        r.load_id.toString(),
        r.loaded_at,
      ]);
    }
  }
}

const int = (v: bigint): PyValue => ({ int: v.toString() });
/** Python's isoformat of a UTC datetime: microseconds only when not zero. */
const utc = (iso: string): PyValue => ({
  datetime: new Date(iso)
    .toISOString()
    .replace(/\.000Z$/, 'Z')
    .replace(/\.(\d{3})Z$/, '.$1000Z')
    .replace('Z', '+00:00'),
  tz: 'UTC',
});

/** The object JSON.parse-free reading of `json` yields in Python, ints as strings (so 2^53 + 1 stays exact). */
function pyJson(json: string): PyValue {
  // The fixtures' JSON is {"big": <int>, "n": <int>}.
  const m = /^\{"big":(-?\d+),"n":(-?\d+)\}$/.exec(json);
  if (!m) throw new Error(`unexpected fixture JSON ${json}`);
  return { object: { big: { int: m[1]! }, n: { int: m[2]! } } };
}

function byKey<T extends Record<string, unknown>>(rows: T[], key: string): Map<string, T> {
  return new Map(rows.map((r) => [JSON.stringify(r[key]), r]));
}

/**
 * Exports the scrapers and price-history rows of pipeline p1 in every typed format (and the default file name
 * of each) and checks every value with the format's independent reader.
 */
export async function checkTypedFormats(db: Database, out: string): Promise<void> {
  const scrapers = scraperRows('p1', 10n, 0n);
  await insertScrapers(db, scrapers);
  await insertScrapers(db, scraperRows('other', 11n, 1000n));
  await insertPrices(db, 'p1', PRICE_ROWS);
  const tables = ['scrapers', 'marketplace_price_history'];

  // Parquet: Arrow types as declared, values exact.
  const pq = await exportTables(db, { pipeline: 'p1', tables, outDir: out, format: 'parquet' });
  expect(pq.map((f) => basename(f.file))).toEqual([
    expect.stringMatching(/^p1_scrapers_\d{8}T\d{6}\.\d{3}Z\.parquet$/),
    expect.stringMatching(/^p1_marketplace_price_history_.*\.parquet$/),
  ]);
  const pqScrapers = readParquetWithPyarrow(pq[0]!.file);
  const types = Object.fromEntries(pqScrapers.schema);
  expect(types).toMatchObject({
    id: 'int64',
    name: 'string',
    urls: 'extension<arrow.json>',
    scheduled: 'bool',
    load_id: 'int64',
    loaded_at: 'timestamp[us, tz=UTC]',
  });
  expect(pqScrapers.compression).toBe('SNAPPY');
  const pqById = byKey(pqScrapers.rows, 'id');
  expect(pqScrapers.rows).toHaveLength(scrapers.length);
  for (const r of scrapers) {
    expect(pqById.get(JSON.stringify(int(r.id)))).toMatchObject({
      id: int(r.id),
      name: r.name,
      urls: r.urls,
      scheduled: r.scheduled,
      schedule: r.schedule,
      pipeline: 'p1',
      load_id: int(r.load_id),
      loaded_at: utc(r.loaded_at),
    });
  }
  // 2^53 + 1 arrived as itself: the reader's int, compared as text.
  expect(pqById.has(JSON.stringify(int(BIG_ID)))).toBe(true);
  const pqPrices = readParquetWithPyarrow(pq[1]!.file);
  expect(Object.fromEntries(pqPrices.schema)).toMatchObject({
    shop_id: 'int64',
    item_id: 'int64',
    price: 'int64',
    price_major: 'double',
    currency: 'string',
    loaded_at: 'timestamp[us, tz=UTC]',
  });
  expect(
    pqPrices.rows.map((r) => [r['shop_id'], r['item_id'], r['price'], r['price_major'], r['currency'], r['loaded_at']]),
  ).toEqual(
    PRICE_ROWS.map((p) => [
      int(p.shop_id),
      int(p.item_id),
      int(p.price),
      { float: String(p.price_major === 12345 ? '12345.0' : p.price_major) },
      p.currency,
      utc(p.loaded_at),
    ]),
  );

  // JSON Lines: one object per line, exact integers, JSON columns as nested values, text exactly as stored.
  const jl = await exportTables(db, { pipeline: 'p1', tables, outDir: out, format: 'jsonl' });
  expect(basename(jl[0]!.file)).toMatch(/^p1_scrapers_.*\.jsonl$/);
  const lines = readJsonlWithPython(jl[0]!.file);
  expect(lines).toHaveLength(scrapers.length);
  const jlById = byKey(lines, 'id');
  for (const r of scrapers) {
    const line = jlById.get(JSON.stringify(int(r.id)))!;
    expect(Object.keys(line).slice(0, 4)).toEqual(['id', 'name', 'type', 'urls']);
    expect(line).toMatchObject({
      id: int(r.id),
      name: r.name,
      urls: r.urls === null ? null : pyJson(r.urls),
      scheduled: r.scheduled,
      schedule: r.schedule,
      load_id: int(r.load_id),
      loaded_at: new Date(r.loaded_at).toISOString(),
    });
  }
  const jlPrices = readJsonlWithPython(jl[1]!.file);
  expect(jlPrices.map((r) => [r['item_id'], r['price'], r['price_major'], r['currency']])).toEqual(
    PRICE_ROWS.map((p) => [
      int(p.item_id),
      int(p.price),
      p.price_major === 12345 ? int(12345n) : { float: String(p.price_major) },
      p.currency,
    ]),
  );

  // XLSX: numbers as numbers, big ids as text, booleans, dates, neutralised formulas, styled and frozen header.
  const xl = await exportTables(db, { pipeline: 'p1', tables, outDir: out, format: 'xlsx' });
  expect(basename(xl[0]!.file)).toMatch(/^p1_scrapers_.*\.xlsx$/);
  const [sheet, ...more] = readXlsxWithOpenpyxl(xl[0]!.file);
  expect(more).toEqual([]);
  expect(sheet!.title).toBe('scrapers');
  expect(sheet!.headerBold).toBe(true);
  expect(sheet!.frozen).toBe('A2');
  expect(sheet!.header.slice(0, 5)).toEqual(['id', 'name', 'type', 'urls', 'scheduled']);
  expect(sheet!.rows).toHaveLength(scrapers.length);
  const col = (name: string) => sheet!.header.indexOf(name);
  const xlById = new Map(sheet!.rows.map((row) => [JSON.stringify(row[col('id')]!.v), row]));
  for (const r of scrapers) {
    // Excel holds 15 significant digits: 2^53 + 1 (and any id from 10^15) is text, small ids are numbers.
    const id: { t: string; v: PyValue } =
      r.id >= 10n ** 15n ? { t: 's', v: r.id.toString() } : { t: 'n', v: int(r.id) };
    const row = xlById.get(JSON.stringify(id.v));
    expect(row, `row ${r.id}`).toBeDefined();
    expect(row![col('id')]).toEqual(id);
    expect(row![col('name')]!.v).toBe(expectedSpreadsheetText(r.name));
    expect(row![col('urls')]!.v).toBe(r.urls);
    expect(row![col('scheduled')]).toEqual(r.scheduled === null ? { t: 'n', v: null } : { t: 'b', v: r.scheduled });
    expect(row![col('load_id')]).toEqual({ t: 'n', v: int(r.load_id) });
    const at = row![col('loaded_at')]!;
    expect(at.t).toBe('d');
    // Excel dates have no zone: the cell holds the UTC wall-clock time, to the millisecond.
    expect(at.v).toEqual({
      datetime: new Date(r.loaded_at)
        .toISOString()
        .slice(0, -1)
        .replace(/\.(\d{3})$/, '.$1000'),
      tz: null,
    });
  }
  const [prices] = readXlsxWithOpenpyxl(xl[1]!.file);
  const pc = (name: string) => prices!.header.indexOf(name);
  expect(
    prices!.rows.map((row) => [
      row[pc('shop_id')],
      row[pc('item_id')],
      row[pc('price')],
      row[pc('price_major')],
      row[pc('currency')],
    ]),
  ).toEqual([
    [
      { t: 's', v: BIG_ID.toString() },
      { t: 's', v: '9223372036854775807' },
      { t: 'n', v: int(1234500000n) },
      { t: 'n', v: int(12345n) },
      { t: 's', v: 'EUR' },
    ],
    [
      { t: 'n', v: int(7n) },
      { t: 's', v: '-9223372036854775808' },
      { t: 'n', v: int(199n) },
      { t: 'n', v: { float: '0.00199' } },
      { t: 's', v: "'=USD" },
    ],
  ]);
}

/**
 * Formula neutralisation as README states it, written independently of export/cells.ts. An empty string reads
 * back as no value, and XML's end-of-line normalisation turns CR LF and a lone CR into LF (Excel's own line break).
 */
function expectedSpreadsheetText(text: ScraperRow['name']): string | null {
  if (text === null || text === '') return null;
  const shown = /^[=+\-@\t\r\n]/.test(text) && !/^[+-]?\d+$/.test(text) ? `'${text}` : text;
  return shown.replace(/\r\n?/g, '\n');
}

/**
 * A table the dialect's own SQL created with one row of `(9223372036854775807, '2025-06-07 08:09:10.123456+02',
 * '2025-06-07 08:09:10.5', NaN, false, '{"a": [1, 2]}', 'p', 3)` in columns (id bigint, at timestamptz, wall
 * timestamp, ratio double, flag boolean, doc json, pipeline text, load_id bigint): exported to Parquet with the
 * types the database declares, read back by pyarrow, and the watermark moved to its load id.
 */
export async function checkDeclaredTypesParquet(db: Database, table: string, outDir: string): Promise<void> {
  const [f] = await exportTables(db, {
    pipeline: 'p',
    tables: [table],
    outDir,
    format: 'parquet',
    mode: 'incremental',
  });
  const read = readParquetWithPyarrow(f!.file);
  expect(read.schema).toEqual([
    ['id', 'int64'],
    ['at', 'timestamp[us, tz=UTC]'],
    ['wall', 'timestamp[us]'],
    ['ratio', 'double'],
    ['flag', 'bool'],
    ['doc', 'extension<arrow.json>'],
    ['pipeline', 'string'],
    ['load_id', 'int64'],
  ]);
  expect(read.rows).toEqual([
    {
      id: { int: '9223372036854775807' },
      at: { datetime: '2025-06-07T06:09:10.123456+00:00', tz: 'UTC' },
      wall: { datetime: '2025-06-07T08:09:10.500000', tz: null },
      ratio: { float: 'nan' },
      flag: false,
      doc: '{"a": [1, 2]}',
      pipeline: 'p',
      load_id: { int: '3' },
    },
  ]);
  expect(await exportWatermarks(db)).toContainEqual({ pipeline: 'p', table_name: table, last_load_id: 3n });
}
