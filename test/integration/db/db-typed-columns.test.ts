// Columns typed for what they hold (issue 40), on a real SQLite file, a real Postgres server and a real DuckDB file:
// the service's timestamps are instants (timestamptz; ISO 8601 UTC text in SQLite) written in one form, so the CSV
// Python's csv reads is the same text from all three; JSON columns are the engine's JSON type and hold the text as
// written (hostile bytes included, which jsonb would refuse or rewrite); a timestamp that is not one is stored NULL
// with a warning while its response stays in raw_responses and the load goes on; `last_seen_at` moves on every load
// that saw a row and `loaded_at` only when it changed, through the per-response and the grouped writers. And a
// database made by the previous release (SQLite and Postgres migrated to 0015, a DuckDB file at schema version 8)
// is brought to the new types with its values kept.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { drizzle as drizzleSqlite } from 'drizzle-orm/better-sqlite3';
import { migrate as migrateSqlite } from 'drizzle-orm/better-sqlite3/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../../lib/json.js';
import { marketplaceResponseSchema, scrapingRunResponseSchema } from '../../../client/schemas.js';
import { openDatabase, type Database as Db } from '../../../destinations/open.js';
import { loadBatch, loadGroups, type LoadBatchOptions } from '../../../db/store/load.js';
import { exportTables } from '../../../export/export.js';
import { generateProduct } from '../../../simulator/generate/marketplace.js';
import { TABLES, type AnyTableDef, type ColumnDef } from '../../../db/model/schema/definition.js';
import { DUCKDB_SCHEMA_VERSION, SCHEMA_VERSION_TABLE, tableDdl } from '../../../destinations/duckdb/ddl.js';
import { VIEW_SQL } from '../../../db/model/schema/views.js';
import { duckQuery } from '../../../destinations/duckdb/export-reader.js';
import { postgresTypeName } from '../../../destinations/duckdb/type-names.js';
import { testDatabaseUrl, type TestDialect } from '../../support/destinations.js';
import { testPostgresUrl } from '../../support/postgres.js';
import { readCsvWithPython } from '../../support/python-csv.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const DIALECTS: TestDialect[] = ['sqlite', 'postgres', 'duckdb'];

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'db-typed-columns-'));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

async function select(db: Db, sql: string): Promise<Array<Record<string, unknown>>> {
  if (db.dialect === 'sqlite') return db.sqlite.prepare(sql).all() as Array<Record<string, unknown>>;
  if (db.dialect === 'duckdb') return duckQuery(db, sql);
  return (await db.pool.query(sql)).rows as Array<Record<string, unknown>>;
}

/** The SQL type of a column as the engine reports it, in Postgres's names (DuckDB's own names mapped). */
async function columnType(db: Db, table: string, column: string): Promise<string> {
  if (db.dialect === 'sqlite') {
    const rows = db.sqlite.prepare(`select type from pragma_table_info(?) where name = ?`).all(table, column) as Array<{
      type: string;
    }>;
    return String(rows[0]?.type ?? '').toLowerCase();
  }
  const rows = await select(
    db,
    `select data_type from information_schema.columns where table_name = '${table}' and column_name = '${column}'` +
      (db.dialect === 'postgres' ? ' and table_schema = current_schema()' : ''),
  );
  const type = String(rows[0]?.['data_type'] ?? '');
  return db.dialect === 'duckdb' ? postgresTypeName(type) : type.toLowerCase();
}

/** The text of a JSON column as stored (Postgres json and DuckDB JSON read as their text). */
const jsonText = (db: Db, column: string) =>
  db.dialect === 'postgres' ? `${column}::text` : db.dialect === 'duckdb' ? `${column}::varchar` : column;

/** An instant read back as ISO text with microseconds, whatever the engine returns it as. */
const instantSql = (db: Db, column: string) =>
  db.dialect === 'sqlite'
    ? column
    : db.dialect === 'postgres'
      ? `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
      : `strftime(${column} at time zone 'UTC', '%Y-%m-%dT%H:%M:%S.%fZ')`;

// Extra fields of a result land in `extra` as JSON: a NUL escape and key order jsonb would not keep.
const EXTRA = { zeta: 'nul \u0000 inside', alpha: [3, 2, 1], big: 9_007_199_254_740_993n };

function scrapingRunBody(): string {
  const result = (id: number, createdAt: unknown) => ({
    id,
    scraper_id: 5,
    scraping_run_id: 70,
    scraper_name: 'typed',
    scraped_url: `https://x.example/${id}`,
    status: 'succeeded',
    content: { name: `n${id}` },
    created_at: createdAt,
    updated_at: '2022-11-20T11:54:52.123456Z',
    ...EXTRA,
  });
  return stringifyJson({
    data: {
      id: 70,
      scraper_id: 5,
      status: 'succeeded',
      created_at: '2022-11-20T11:54:52.000000Z',
      results: [
        result(1, '2022-11-20T11:54:52.000000Z'),
        result(2, '2022-11-20T13:54:52.5+02:00'),
        result(3, 'yesterday at noon'),
      ],
    },
  });
}

function scrapingRunLoad(pipeline: string): LoadBatchOptions {
  const raw = scrapingRunBody();
  return {
    pipeline,
    kind: 'scraping-run',
    endpoint: 'GET /api/scraping-runs/70',
    requestKey: '70',
    scrapingRunId: 70,
    resultTable: 'leads_results',
    raw,
    data: scrapingRunResponseSchema.parse(parseJson(raw)),
  };
}

function productLoad(pipeline: string, itemId: number, price?: number): LoadBatchOptions {
  const doc = generateProduct(7, {
    url: `https://shop.example.tw/api/v4/pdp/get_pc?itemid=${itemId}&shopid=9`,
    itemId,
    shopId: 9,
  }) as { data: { data: { item: Record<string, unknown> } } };
  if (price !== undefined) doc.data.data.item['price'] = price;
  const raw = stringifyJson(doc);
  return {
    pipeline,
    kind: 'marketplace',
    endpoint: 'POST /api/marketplace/sync',
    requestKey: `item-${itemId}`,
    raw,
    data: marketplaceResponseSchema.parse(parseJson(raw)),
  };
}

const csvByDialect: Record<string, string[][]> = {};

describe.each(DIALECTS)('typed columns on %s', (dialect) => {
  it('stores service timestamps as instants in one form, JSON as the JSON type with its text kept, and a bad timestamp as NULL with a warning', async () => {
    const db = await openDatabase(await testDatabaseUrl(dialect, dir, `typed-${dialect}`));
    try {
      const want =
        dialect === 'sqlite' ? { ts: 'text', json: 'text' } : { ts: 'timestamp with time zone', json: 'json' };
      for (const [t, c] of [
        ['leads_results', 'created_at'],
        ['scrapers', 'updated_at'],
        ['scraping_runs', 'created_at'],
        ['run_records', 'created_at'],
        ['marketplace_products', 'last_seen_at'],
      ] as const)
        expect(await columnType(db, t, c), `${t}.${c}`).toBe(want.ts);
      for (const [t, c] of [
        ['leads_results', 'extra'],
        ['marketplace_products', 'label_ids'],
        ['marketplace_product_models', 'tier_index'],
        ['pipeline_runs', 'rows_by_table'],
      ] as const)
        expect(await columnType(db, t, c), `${t}.${c}`).toBe(want.json);
      // content holds plain text when the service sends text: it stays a text column.
      expect(await columnType(db, 'leads_results', 'content')).toBe('text');

      const out = await loadBatch(db, scrapingRunLoad('typed'));
      expect(out.changedByTable['leads_results']).toBe(3);
      expect(out.warnings).toEqual([
        'leads_results.created_at: "yesterday at noon" is not an ISO 8601 timestamp with a zone; stored NULL (raw_responses keeps the response as sent)',
      ]);
      const rows = await select(
        db,
        `select id, ${instantSql(db, 'created_at')} as created_at, ${instantSql(db, 'updated_at')} as updated_at, ${jsonText(db, 'extra')} as extra from leads_results order by id`,
      );
      const micro = (s: string) => (dialect === 'sqlite' ? s : s.replace(/\.(\d{3})Z$/, '.$1000Z'));
      expect(rows.map((r) => [Number(r['id']), r['created_at'], r['updated_at']])).toEqual([
        [1, micro('2022-11-20T11:54:52.000Z'), '2022-11-20T11:54:52.123456Z'],
        [2, micro('2022-11-20T11:54:52.500Z'), '2022-11-20T11:54:52.123456Z'],
        [3, null, '2022-11-20T11:54:52.123456Z'],
      ]);
      // The JSON text exactly as the serializer wrote it: key order, the NUL escape and the 64-bit integer.
      for (const r of rows) expect(r['extra']).toBe(stringifyJson(EXTRA));
      // The value the column does not hold is in the response as received.
      const raw = await select(db, `select body from raw_responses where id = ${out.loadId}`);
      expect(String(raw[0]!['body'])).toContain('"created_at":"yesterday at noon"');

      const files = await exportTables(db, {
        pipeline: 'typed',
        outDir: path.join(dir, `csv-${dialect}`),
        format: 'csv',
        tables: ['leads_results'],
        fileName: '{table}.csv',
      });
      const csv = readCsvWithPython(files[0]!.file);
      const header = csv[0]!;
      const keep = ['id', 'created_at', 'updated_at', 'extra'].map((c) => header.indexOf(c));
      csvByDialect[dialect] = csv.slice(1).map((r) => keep.map((i) => r[i]!));
      expect(csvByDialect[dialect]![0]).toEqual([
        '1',
        '2022-11-20T11:54:52.000Z',
        '2022-11-20T11:54:52.123456Z',
        stringifyJson(EXTRA),
      ]);
    } finally {
      await db.close();
    }
  }, 120_000);

  it('moves last_seen_at on every load that saw a row and loaded_at only when the row changed, one by one and in groups', async () => {
    const db = await openDatabase(await testDatabaseUrl(dialect, dir, `seen-${dialect}`));
    const times = async (pipeline: string, table: string, itemId: number) => {
      const r = await select(
        db,
        `select ${instantSql(db, 'loaded_at')} as loaded_at, ${instantSql(db, 'last_seen_at')} as last_seen_at, load_id from ${table} where pipeline = '${pipeline}' and item_id = ${itemId} order by load_id limit 1`,
      );
      return {
        loadedAt: String(r[0]!['loaded_at']),
        lastSeenAt: String(r[0]!['last_seen_at']),
        loadId: Number(r[0]!['load_id']),
      };
    };
    const ms = (iso: string) => Date.parse(iso.replace(/(\.\d{3})\d*Z$/, '$1Z'));
    try {
      // One by one (loadBatch).
      const first = await loadBatch(db, productLoad('seen', 1));
      const a = await times('seen', 'marketplace_products', 1);
      expect(a.lastSeenAt).toBe(a.loadedAt);
      await new Promise((r) => setTimeout(r, 5));
      const again = await loadBatch(db, productLoad('seen', 1));
      expect(again.changedByTable['marketplace_products']).toBe(0);
      expect(again.changedByTable['marketplace_product_models']).toBe(0);
      for (const table of ['marketplace_products', 'marketplace_product_models', 'marketplace_product_images']) {
        const b = await times('seen', table, 1);
        expect(b.loadedAt, table).toBe(a.loadedAt);
        expect(b.loadId, table).toBe(first.loadId);
        expect(ms(b.lastSeenAt), table).toBeGreaterThan(ms(a.loadedAt));
      }
      const shop = await select(
        db,
        `select ${instantSql(db, 'last_seen_at')} as s, ${instantSql(db, 'loaded_at')} as l from marketplace_shops where pipeline = 'seen'`,
      );
      expect(ms(String(shop[0]!['s']))).toBeGreaterThan(ms(String(shop[0]!['l'])));
      // A change moves both.
      await new Promise((r) => setTimeout(r, 5));
      await loadBatch(db, productLoad('seen', 1, 123_400_000));
      const c = await times('seen', 'marketplace_products', 1);
      expect(c.lastSeenAt).toBe(c.loadedAt);
      expect(ms(c.loadedAt)).toBeGreaterThan(ms(a.loadedAt));

      // In groups (loadGroups, the writer of url-list chunks and `scrape-etl load`): the second group sees the
      // same two products unchanged.
      const group = () => [productLoad('grouped', 11), productLoad('grouped', 12)];
      for await (const o of loadGroups(db, [group()])) if (o.failed) throw o.failed.error;
      const g1 = await times('grouped', 'marketplace_products', 12);
      await new Promise((r) => setTimeout(r, 5));
      for await (const o of loadGroups(db, [group()])) {
        if (o.failed) throw o.failed.error;
        for (const res of o.results) expect(res.changedByTable['marketplace_products']).toBe(0);
      }
      for (const table of ['marketplace_products', 'marketplace_model_stocks']) {
        const g2 = await times('grouped', table, 12);
        expect(g2.loadedAt, table).toBe(g1.loadedAt);
        expect(ms(g2.lastSeenAt), table).toBeGreaterThan(ms(g1.lastSeenAt));
      }
      // Every row of every keyed table the loads wrote has it.
      for (const [table, def] of Object.entries(TABLES) as Array<[string, AnyTableDef]>) {
        if (!('last_seen_at' in def.columns)) continue;
        const missing = await select(db, `select count(*) as n from ${table} where last_seen_at is null`);
        expect(Number(missing[0]!['n']), table).toBe(0);
      }
    } finally {
      await db.close();
    }
  }, 120_000);
});

describe('the same CSV from every destination', () => {
  it('writes the typed columns as the same text from SQLite, Postgres and DuckDB', () => {
    expect(Object.keys(csvByDialect).sort()).toEqual(['duckdb', 'postgres', 'sqlite']);
    expect(csvByDialect['postgres']).toEqual(csvByDialect['sqlite']);
    expect(csvByDialect['duckdb']).toEqual(csvByDialect['sqlite']);
  });
});

// ---- a database made by the previous release ----------------------------------------------------------------

/** destinations/<engine>/migrations up to and including `last`, as a folder of its own. */
function migrationsUpTo(engine: 'sqlite' | 'postgres', last: number): string {
  const from = path.join(ROOT, 'destinations', engine, 'migrations');
  const to = fs.mkdtempSync(path.join(dir, `${engine}-migrations-`));
  fs.mkdirSync(path.join(to, 'meta'));
  const journal = JSON.parse(fs.readFileSync(path.join(from, 'meta', '_journal.json'), 'utf8')) as {
    entries: Array<{ idx: number; tag: string }>;
  };
  journal.entries = journal.entries.filter((e) => e.idx <= last);
  for (const e of journal.entries) fs.copyFileSync(path.join(from, `${e.tag}.sql`), path.join(to, `${e.tag}.sql`));
  fs.writeFileSync(path.join(to, 'meta', '_journal.json'), JSON.stringify(journal));
  return to;
}

const OLD_ROWS = {
  scrapers: `insert into scrapers (id, name, created_at, updated_at, urls, pipeline, load_id, loaded_at, row_hash) values (1, 's', '2022-11-20T11:54:52.000000Z', 'not a time', '["https://x.example"]', 'old', 1, '2022-11-21T00:00:00.000Z', 'h')`,
  leads: `insert into leads_results (id, content_type, content, created_at, updated_at, extra, pipeline, load_id, loaded_at, row_hash) values (2, 'string', 'plain text, not JSON', '2022-11-20T11:54:52.123400Z', '2022-11-20T11:54:52Z', '{"z":1,"a":"\\u0000"}', 'old', 1, '2022-11-21T00:00:00.000Z', 'h')`,
};

describe('a database of the previous release', () => {
  it('SQLite: the service timestamps are rewritten in the stored form, last_seen_at added', async () => {
    const file = path.join(dir, 'old.sqlite');
    const raw = new Database(file);
    migrateSqlite(drizzleSqlite(raw), { migrationsFolder: migrationsUpTo('sqlite', 15) });
    raw.exec(OLD_ROWS.scrapers);
    raw.exec(OLD_ROWS.leads);
    raw.close();
    const db = await openDatabase(`sqlite:${file}`);
    try {
      expect(await select(db, `select created_at, updated_at, urls, last_seen_at from scrapers`)).toEqual([
        {
          created_at: '2022-11-20T11:54:52.000Z',
          updated_at: 'not a time',
          urls: '["https://x.example"]',
          last_seen_at: null,
        },
      ]);
      expect(await select(db, `select created_at, updated_at, content, extra from leads_results`)).toEqual([
        {
          created_at: '2022-11-20T11:54:52.1234Z',
          updated_at: '2022-11-20T11:54:52.000Z',
          content: 'plain text, not JSON',
          extra: '{"z":1,"a":"\\u0000"}',
        },
      ]);
      const comment = await select(
        db,
        `select comment from scrape_etl_comments where table_name = 'scrapers' and column_name = 'last_seen_at'`,
      );
      expect(String(comment[0]!['comment'])).toContain('whether or not the row changed');
    } finally {
      await db.close();
    }
  }, 60_000);

  it('Postgres: text becomes timestamptz and json in place, a text that is no instant NULL, the views made again', async () => {
    const url = await testPostgresUrl();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await migratePg(drizzlePg({ client }), { migrationsFolder: migrationsUpTo('postgres', 15) });
      await client.query(OLD_ROWS.scrapers);
      await client.query(OLD_ROWS.leads);
    } finally {
      await client.end();
    }
    const db = await openDatabase(url);
    try {
      expect(await columnType(db, 'scrapers', 'created_at')).toBe('timestamp with time zone');
      expect(await columnType(db, 'scrapers', 'urls')).toBe('json');
      expect(await columnType(db, 'leads_results', 'content')).toBe('text');
      expect(
        await select(
          db,
          `select ${instantSql(db, 'created_at')} as c, updated_at, urls::text as urls, last_seen_at from scrapers`,
        ),
      ).toEqual([
        { c: '2022-11-20T11:54:52.000000Z', updated_at: null, urls: '["https://x.example"]', last_seen_at: null },
      ]);
      expect(
        await select(
          db,
          `select ${instantSql(db, 'created_at')} as c, ${instantSql(db, 'updated_at')} as u, content, extra::text as extra from leads_results`,
        ),
      ).toEqual([
        {
          c: '2022-11-20T11:54:52.123400Z',
          u: '2022-11-20T11:54:52.000000Z',
          content: 'plain text, not JSON',
          extra: '{"z":1,"a":"\\u0000"}',
        },
      ]);
      expect(await select(db, `select result_table, id, is_copy from results_landed`)).toEqual([
        { result_table: 'leads_results', id: '2', is_copy: false },
      ]);
    } finally {
      await db.close();
    }
  }, 120_000);

  it('DuckDB: a file at schema version 8 is brought to version 9 with its values', async () => {
    const file = path.join(dir, 'old.duckdb');
    // The version-8 schema: the definition as it was (service timestamps and JSON as text, no last_seen_at).
    const SERVICE_TS = new Set(['created_at', 'updated_at']);
    const oldDef = (name: string, def: AnyTableDef): AnyTableDef => ({
      ...def,
      columns: Object.fromEntries(
        Object.entries(def.columns)
          .filter(([c]) => c !== 'last_seen_at')
          .map(([c, d]): [string, ColumnDef] => [
            c,
            d.type === 'json' ||
            (d.type === 'timestamp' &&
              SERVICE_TS.has(c) &&
              ['scrapers', 'scraping_runs', 'run_records', 'scraper_results', 'pdf_results', 'leads_results'].includes(
                name,
              ))
              ? ({ type: 'text', ...(d.notNull ? { notNull: true } : {}) } as ColumnDef)
              : d,
          ]),
      ),
    });
    const instance = await DuckDBInstance.create(file);
    const conn = await instance.connect();
    await conn.run(
      `CREATE TABLE ${SCHEMA_VERSION_TABLE} (version integer PRIMARY KEY, applied_at timestamp with time zone NOT NULL)`,
    );
    for (const [name, def] of Object.entries(TABLES) as Array<[string, AnyTableDef]>)
      for (const sql of tableDdl(name, oldDef(name, def))) await conn.run(sql);
    for (const sql of Object.values(VIEW_SQL)) await conn.run(sql);
    await conn.run(`INSERT INTO ${SCHEMA_VERSION_TABLE} VALUES (8, now())`);
    await conn.run(OLD_ROWS.scrapers);
    await conn.run(OLD_ROWS.leads);
    conn.closeSync();
    instance.closeSync();

    const db = await openDatabase(`duckdb:${file}`);
    try {
      expect(await columnType(db, 'scrapers', 'created_at')).toBe('timestamp with time zone');
      expect(await columnType(db, 'scrapers', 'urls')).toBe('json');
      expect(await columnType(db, 'marketplace_products', 'label_ids')).toBe('json');
      expect(await columnType(db, 'marketplace_products', 'last_seen_at')).toBe('timestamp with time zone');
      expect(
        await select(
          db,
          `select ${instantSql(db, 'created_at')} as c, updated_at, urls::varchar as urls, last_seen_at from scrapers`,
        ),
      ).toEqual([
        { c: '2022-11-20T11:54:52.000000Z', updated_at: null, urls: '["https://x.example"]', last_seen_at: null },
      ]);
      expect(await select(db, `select content, extra::varchar as extra from leads_results`)).toEqual([
        { content: 'plain text, not JSON', extra: '{"z":1,"a":"\\u0000"}' },
      ]);
      const version = await select(db, `select max(version) as v from ${SCHEMA_VERSION_TABLE}`);
      expect(Number(version[0]!['v'])).toBe(DUCKDB_SCHEMA_VERSION);
      // The indexes of the altered tables were made again, under their names.
      const indexes = await select(
        db,
        `select index_name from duckdb_indexes() where table_name = 'pipeline_runs' order by 1`,
      );
      expect(indexes.map((i) => i['index_name'])).toEqual([
        'pipeline_runs_pipeline_idx',
        'pipeline_runs_workflow_id_uq',
      ]);
      expect((await select(db, `select count(*) as n from results_landed`))[0]!['n']).toBeDefined();
    } finally {
      await db.close();
    }
  }, 120_000);
});
