// The two dialect schemas describe one model: both are built from db/model/schema/definition.ts, agree with it and with
// each other on every column's type, nullability and default, keys and indexes, and so do the databases the
// committed migrations build; the comparison is shown to fail on deliberate differences. Migrations apply
// idempotently and safely when several processes open the same database at once; pipeline_runs rows are
// idempotent on the workflow id.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  generateDrizzleJson,
  generateMigration,
  generateSQLiteDrizzleJson,
  generateSQLiteMigration,
} from 'drizzle-kit/api';
import { getTableConfig as pgConfig, type PgTable } from 'drizzle-orm/pg-core';
import {
  getTableConfig as sqliteConfig,
  sqliteTable,
  integer,
  text,
  unique,
  type SQLiteTable,
} from 'drizzle-orm/sqlite-core';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { openDatabase, parseDatabaseUrl, redactDatabaseUrl, type Database } from '../../../destinations/open.js';
import { finishPipelineRun, getPipelineRun, startPipelineRun } from '../../../db/store/pipeline-runs.js';
import { pgTableFrom, sqliteTableFrom } from '../../../db/model/schema/build.js';
import {
  COLUMN_TYPES,
  TABLE_NAMES,
  TABLES,
  type AnyTableDef,
  type ColumnsDef,
} from '../../../db/model/schema/definition.js';
import { POSTGRES_COLUMN_TYPES } from '../../../destinations/postgres/column-types.js';
import { SQLITE_COLUMN_TYPES } from '../../../destinations/sqlite/column-types.js';
import {
  compareSchemas,
  compareTables,
  definitionShape,
  drizzleShape,
  pgDatabaseShapes,
  sqliteDatabaseShapes,
  type TableShape,
} from '../../../db/model/schema/parity.js';
import * as pgSchema from '../../../destinations/postgres/schema.js';
import * as sqliteSchema from '../../../destinations/sqlite/schema.js';
import { testPostgresUrl } from '../../support/postgres.js';
import { REPO_ROOT } from '../../support/cli.js';
import { pgPool } from '../../support/duckdb.js';
import { destinationKey } from '../../../db/model/url.js';

const describeSqlite = (t: unknown) => {
  const c = sqliteConfig(t as SQLiteTable);
  return {
    name: c.name,
    columns: c.columns.map((x) => [x.name, x.notNull]),
    pk: c.primaryKeys.map((p) => p.columns.map((x) => x.name)),
  };
};
const describePg = (t: unknown) => {
  const c = pgConfig(t as PgTable);
  return {
    name: c.name,
    columns: c.columns.map((x) => [x.name, x.notNull]),
    pk: c.primaryKeys.map((p) => p.columns.map((x) => x.name)),
  };
};

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'db-schema-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('schema', () => {
  it('SQLite and Postgres have the same tables, columns, nullability and keys', () => {
    const s = Object.values(sqliteSchema)
      .map(describeSqlite)
      .sort((a, b) => a.name.localeCompare(b.name));
    const p = Object.values(pgSchema)
      .map(describePg)
      .sort((a, b) => a.name.localeCompare(b.name));
    expect(p).toEqual(s);
    expect(s.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        'pipeline_runs',
        'raw_responses',
        'job_records',
        'marketplace_products',
        'pdf_results',
        'leads_results',
        'scraper_results',
      ]),
    );
  });

  it('both dialect modules export exactly the defined tables, each under its SQL name', () => {
    for (const [schema, types] of [
      [sqliteSchema, SQLITE_COLUMN_TYPES],
      [pgSchema, POSTGRES_COLUMN_TYPES],
    ] as Array<[Record<string, SQLiteTable | PgTable>, typeof SQLITE_COLUMN_TYPES | typeof POSTGRES_COLUMN_TYPES]>) {
      expect(Object.keys(schema).sort()).toEqual([...TABLE_NAMES].sort());
      for (const [name, table] of Object.entries(schema)) expect(drizzleShape(table, types).name).toBe(name);
    }
  });

  it('maps the neutral column types to SQL as intended, and every column is built that way', () => {
    // The intended mapping, spelled out here so that editing an engine's column types (which would need new
    // migrations) fails; each engine's table is in destinations/<engine>/column-types.ts.
    const SQL_TYPES = Object.fromEntries(
      COLUMN_TYPES.map((t) => [t, { sqlite: SQLITE_COLUMN_TYPES[t], pg: POSTGRES_COLUMN_TYPES[t] }]),
    ) as Record<(typeof COLUMN_TYPES)[number], { sqlite: string; pg: string }>;
    expect(SQL_TYPES).toEqual({
      int64: { sqlite: 'integer', pg: 'bigint' },
      int32: { sqlite: 'integer', pg: 'integer' },
      double: { sqlite: 'real', pg: 'double precision' },
      text: { sqlite: 'text', pg: 'text' },
      json: { sqlite: 'text', pg: 'json' },
      bool: { sqlite: 'integer', pg: 'boolean' },
      timestamp: { sqlite: 'text', pg: 'timestamp with time zone' },
    });
    let checked = 0;
    for (const name of TABLE_NAMES) {
      const s = sqliteConfig(sqliteSchema[name]).columns;
      const p = pgConfig(pgSchema[name]).columns;
      expect([s.length, p.length], name).toEqual([
        Object.keys(TABLES[name].columns).length,
        Object.keys(TABLES[name].columns).length,
      ]);
      for (const [i, [col, def]] of Object.entries(TABLES[name].columns as ColumnsDef).entries()) {
        const where = `${name}.${col}`;
        expect(s[i]?.name, where).toBe(col);
        expect(p[i]?.name, where).toBe(col);
        expect(s[i]?.getSQLType(), where).toBe(SQL_TYPES[def.type].sqlite);
        expect(p[i]?.getSQLType(), where).toBe(SQL_TYPES[def.type].pg);
        // SQLite stores booleans as integers; only drizzle's boolean mode makes them read back as true/false.
        expect(s[i]?.columnType === 'SQLiteBoolean', where).toBe(def.type === 'bool');
        checked++;
      }
    }
    // Every column of every table went through the loop (423 is what drizzle-kit counts over the 29 tables).
    expect(checked).toBe(423);
  });

  it('SQLite and Postgres agree with each other and with the definition on every table', () => {
    for (const name of TABLE_NAMES) {
      const def = definitionShape(name, TABLES[name]);
      const s = drizzleShape(sqliteSchema[name], SQLITE_COLUMN_TYPES);
      const p = drizzleShape(pgSchema[name], POSTGRES_COLUMN_TYPES);
      expect({ name, diffs: compareTables(s, p) }).toEqual({ name, diffs: [] });
      expect({ name, diffs: compareTables(def, s) }).toEqual({ name, diffs: [] });
      expect({ name, diffs: compareTables(def, p) }).toEqual({ name, diffs: [] });
    }
    // Spot checks that the shapes carry what the comparison relies on.
    const runs = drizzleShape(pgSchema.pipeline_runs, POSTGRES_COLUMN_TYPES);
    expect(runs.primaryKey).toEqual(['id']);
    expect(runs.columns[0]).toMatchObject({ name: 'id', types: ['int64'], identity: true, notNull: true });
    expect(runs.indexes).toEqual([
      { name: 'pipeline_runs_pipeline_idx', columns: ['pipeline'], unique: false, partial: false },
      { name: 'pipeline_runs_workflow_id_uq', columns: ['workflow_id'], unique: true, partial: false },
    ]);
    expect(drizzleShape(sqliteSchema.marketplace_model_stocks, SQLITE_COLUMN_TYPES).primaryKey).toEqual([
      'pipeline',
      'shop_id',
      'item_id',
      'model_id',
      'price_stock_index',
      'location_index',
    ]);
  });

  it('keeps the static types hand-written drizzle tables had', () => {
    type Product = typeof sqliteSchema.marketplace_products.$inferSelect;
    expectTypeOf<Product['shop_id']>().toEqualTypeOf<number | bigint>();
    expectTypeOf<Product['price']>().toEqualTypeOf<number | bigint | null>();
    expectTypeOf<Product['price_major']>().toEqualTypeOf<number | null>();
    expectTypeOf<Product['is_adult']>().toEqualTypeOf<boolean | null>();
    expectTypeOf<Product['load_id']>().toEqualTypeOf<number>();
    expectTypeOf<Product['title']>().toEqualTypeOf<string | null>();
    type History = typeof pgSchema.marketplace_price_history.$inferInsert;
    expectTypeOf<History['id']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<History['loaded_at']>().toEqualTypeOf<string>();
    expectTypeOf<History['model_id']>().toEqualTypeOf<number | bigint | null | undefined>();
    expectTypeOf<keyof typeof pgSchema.sync_watermarks.$inferSelect>().toEqualTypeOf<
      'pipeline' | 'stream' | 'watermark' | 'updated_at'
    >();
    expectTypeOf(sqliteSchema.scrapers.scheduled.dataType).toEqualTypeOf<'boolean'>();
    expect(sqliteSchema.scrapers.scheduled.dataType).toBe('boolean');
  });

  it('the committed migrations are current: drizzle-kit finds nothing to generate from the definition', async () => {
    const lastSnapshot = (dir: 'sqlite' | 'pg') => {
      const journal = JSON.parse(
        fs.readFileSync(path.join(REPO_ROOT, MIGRATION_FOLDERS[dir], 'meta', '_journal.json'), 'utf8'),
      ) as {
        entries: { idx: number }[];
      };
      const idx = String(journal.entries.at(-1)?.idx).padStart(4, '0');
      return JSON.parse(
        fs.readFileSync(path.join(REPO_ROOT, MIGRATION_FOLDERS[dir], 'meta', `${idx}_snapshot.json`), 'utf8'),
      );
    };
    expect(
      await generateSQLiteMigration(lastSnapshot('sqlite'), await generateSQLiteDrizzleJson({ ...sqliteSchema })),
    ).toEqual([]);
    expect(await generateMigration(lastSnapshot('pg'), generateDrizzleJson({ ...pgSchema }))).toEqual([]);
  });

  it('parses database URLs and never shows a password', () => {
    expect(parseDatabaseUrl('sqlite:./data/x.sqlite')).toEqual({ dialect: 'sqlite', file: './data/x.sqlite' });
    expect(parseDatabaseUrl('sqlite:///abs/x.sqlite')).toEqual({ dialect: 'sqlite', file: '/abs/x.sqlite' });
    expect(parseDatabaseUrl('duckdb:./data/x.duckdb')).toEqual({ dialect: 'duckdb', file: './data/x.duckdb' });
    expect(parseDatabaseUrl('duckdb:///abs/x.duckdb')).toEqual({ dialect: 'duckdb', file: '/abs/x.duckdb' });
    expect(() => parseDatabaseUrl('duckdb:')).toThrow('has no file path (expected duckdb:<path>)');
    expect(() => parseDatabaseUrl('duckdb::memory:')).toThrow('a DuckDB destination must be a file');
    expect(destinationKey('duckdb:data/x.duckdb', '/srv')).toBe('duckdb:/srv/data/x.duckdb');
    expect(destinationKey('duckdb:///srv/data/x.duckdb', '/elsewhere')).toBe('duckdb:/srv/data/x.duckdb');
    expect(redactDatabaseUrl('postgres://etl:s3cret@db:5432/w')).toBe('postgres://etl:***@db:5432/w');
    expect(() => parseDatabaseUrl('mysql://u:s3cret@h/db')).toThrow(
      "unsupported database URL 'mysql://u:***@h/db': expected 'sqlite:<path>', 'duckdb:<path>'",
    );
  });
});

/** A copy of a table's definition with `change` applied to its columns (in order) and to the rest. */
function altered(
  name: keyof typeof TABLES,
  change: { columns?: (c: ColumnsDef) => ColumnsDef; rest?: Partial<AnyTableDef> },
): AnyTableDef {
  const def: AnyTableDef = TABLES[name];
  return { ...def, ...change.rest, columns: change.columns ? change.columns(def.columns) : def.columns };
}

function moveToEnd(columns: ColumnsDef, name: string): ColumnsDef {
  const { [name]: moved, ...rest } = columns;
  if (!moved) throw new Error(`no column ${name}`);
  return { ...rest, [name]: moved };
}

function rename(columns: ColumnsDef, from: string, to: string): ColumnsDef {
  const { [from]: col, ...rest } = columns;
  if (!col) throw new Error(`no column ${from}`);
  return { ...rest, [to]: col };
}

describe('the schema comparison reports deliberate differences', () => {
  const sqliteOf = (name: keyof typeof TABLES, def: AnyTableDef = TABLES[name]) =>
    drizzleShape(sqliteTableFrom(name, def), SQLITE_COLUMN_TYPES);
  const pgOf = (name: keyof typeof TABLES, def: AnyTableDef = TABLES[name]) =>
    drizzleShape(pgTableFrom(name, def), POSTGRES_COLUMN_TYPES);

  it('a column type changed in one dialect', () => {
    const def = altered('marketplace_products', { columns: (c) => ({ ...c, price: { type: 'double' } }) });
    expect(compareTables(sqliteOf('marketplace_products'), pgOf('marketplace_products', def))).toEqual([
      'marketplace_products.price: type: integer (int64|int32) vs double precision (double)',
    ]);
    // A boolean turned into a plain integer is invisible in SQLite's SQL, but not to the comparison.
    const flag = altered('scrapers', { columns: (c) => ({ ...c, scheduled: { type: 'int32' } }) });
    expect(compareTables(sqliteOf('scrapers', flag), pgOf('scrapers'))).toEqual([
      'scrapers.scheduled: type: integer (int64|int32) vs boolean (bool)',
    ]);
    expect(compareTables(definitionShape('scrapers', TABLES.scrapers), sqliteOf('scrapers', flag))).toEqual([
      'scrapers.scheduled: type: bool vs integer (int64|int32)',
    ]);
    // int64 vs int32 is the same type in SQLite, so only Postgres and the definition can tell.
    const narrow = altered('marketplace_shops', { columns: (c) => ({ ...c, item_count: { type: 'int32' } }) });
    expect(compareTables(sqliteOf('marketplace_shops'), pgOf('marketplace_shops', narrow))).toEqual([]);
    expect(
      compareTables(definitionShape('marketplace_shops', TABLES.marketplace_shops), pgOf('marketplace_shops', narrow)),
    ).toEqual(['marketplace_shops.item_count: type: int64 vs integer (int32)']);
  });

  it('a default, nullability or identity changed', () => {
    const def = altered('job_records', {
      columns: (c) => ({
        ...c,
        job_currency: { type: 'text', default: 'USD' },
        job_title: { type: 'text', notNull: true },
      }),
    });
    expect(compareTables(pgOf('job_records'), sqliteOf('job_records', def))).toEqual([
      'job_records.job_title: not null: false vs true',
      "job_records.job_currency: default: none vs 'USD'",
    ]);
    const noIdentity = altered('raw_responses', {
      columns: (c) => ({ ...c, id: { type: 'int64', mode: 'number', notNull: true } }),
    });
    expect(compareTables(sqliteOf('raw_responses'), pgOf('raw_responses', noIdentity))).toEqual([
      'raw_responses.id: identity: true vs false',
      'raw_responses: primary key: (id) vs ()',
    ]);
  });

  it('an index renamed, on other columns, made unique, or gone', () => {
    const def = altered('scraper_results', {
      rest: {
        indexes: [
          { name: 'scraper_results_load_index', columns: ['pipeline', 'load_id'], unique: false },
          { name: 'scraper_results_run_idx', columns: ['scraping_run_id'], unique: true },
        ],
      },
    });
    expect(compareTables(sqliteOf('scraper_results'), pgOf('scraper_results', def))).toEqual([
      'scraper_results: index only on the left: scraper_results_load_idx (pipeline, load_id)',
      'scraper_results: index only on the left: scraper_results_run_idx (scraping_run_id)',
      'scraper_results: index only on the right: scraper_results_load_index (pipeline, load_id)',
      'scraper_results: index only on the right: unique scraper_results_run_idx (scraping_run_id)',
    ]);
    const reordered = altered('marketplace_price_history', {
      rest: {
        indexes: [
          {
            name: 'marketplace_price_history_item_idx',
            columns: ['pipeline', 'item_id', 'shop_id', 'model_id'],
            unique: false,
          },
        ],
      },
    });
    expect(compareTables(pgOf('marketplace_price_history'), pgOf('marketplace_price_history', reordered))).toEqual([
      'marketplace_price_history: index only on the left: marketplace_price_history_item_idx (pipeline, shop_id, item_id, model_id)',
      'marketplace_price_history: index only on the left: marketplace_price_history_load_idx (pipeline, load_id)',
      'marketplace_price_history: index only on the right: marketplace_price_history_item_idx (pipeline, item_id, shop_id, model_id)',
    ]);
  });

  it('columns reordered, renamed or missing, a primary key changed, a unique constraint added, a table missing', () => {
    const swapped = altered('scraping_runs', {
      columns: (c) => moveToEnd(moveToEnd(c, 'created_at'), 'status'),
      rest: { primaryKey: ['pipeline', 'id', 'scraper_id'] },
    });
    expect(compareTables(sqliteOf('scraping_runs'), sqliteOf('scraping_runs', swapped))).toEqual([
      'scraping_runs: columns: (id, scraper_id, status, created_at, pipeline, load_id, loaded_at, row_hash, last_seen_at) vs (id, scraper_id, pipeline, load_id, loaded_at, row_hash, last_seen_at, created_at, status)',
      'scraping_runs: primary key: (pipeline, id) vs (pipeline, id, scraper_id)',
    ]);
    const renamed = altered('sync_watermarks', { columns: (c) => rename(c, 'watermark', 'high_watermark') });
    expect(
      compareTables(definitionShape('sync_watermarks', TABLES.sync_watermarks), pgOf('sync_watermarks', renamed)),
    ).toEqual([
      'sync_watermarks: columns: (pipeline, stream, watermark, updated_at) vs (pipeline, stream, updated_at, high_watermark)',
    ]);
    // Written by hand: the definition has no unique constraints, only unique indexes, so a stray one must show.
    const withUnique = sqliteTable(
      'sync_watermarks',
      {
        pipeline: text().notNull(),
        stream: text().notNull().unique(),
        watermark: text().notNull(),
        updated_at: text().notNull(),
      },
      (t) => [unique().on(t.pipeline, t.watermark)],
    );
    expect(compareTables(sqliteOf('sync_watermarks'), drizzleShape(withUnique, SQLITE_COLUMN_TYPES))).toEqual([
      'sync_watermarks: primary key: (pipeline, stream) vs ()',
      'sync_watermarks: unique constraints: [] vs [(pipeline, watermark), (stream)]',
    ]);
    const all = TABLE_NAMES.map((t) => definitionShape(t, TABLES[t]));
    const withoutOne: TableShape[] = [
      ...all.filter((t) => t.name !== 'job_records'),
      drizzleShape(sqliteTable('job_record', { id: integer() }), SQLITE_COLUMN_TYPES),
    ];
    expect(compareSchemas(all, withoutOne)).toEqual([
      'job_records: table only on the left',
      'job_record: table only on the right',
    ]);
  });
});

/**
 * A table that uses every neutral type with a default, an identity key and a composite unique index: created by
 * drizzle-kit's own DDL in a scratch database, it must read back exactly as defined, so reading defaults and
 * types from a database is shown right for each type before the migrated tables are compared.
 */
const EVERY_DEFAULT = {
  columns: {
    id: { type: 'int64', mode: 'number', identity: true, notNull: true },
    big: { type: 'int64', notNull: true, default: -1 },
    small: { type: 'int32', default: 0 },
    ratio: { type: 'double', default: 0.5 },
    label: { type: 'text', default: "it's" },
    doc: { type: 'json', default: '{"a":[1]}' },
    yes: { type: 'bool', default: true },
    no: { type: 'bool', default: false },
    at: { type: 'timestamp', notNull: true, default: '2024-06-01T00:00:00Z' },
  },
  indexes: [{ name: 'every_default_label_uq', columns: ['label', 'big'], unique: true }],
} as const satisfies AnyTableDef;

/** sync_watermarks as it would look after a careless hand edit: another type, two defaults and an extra index. */
const DRIFTED_WATERMARKS = altered('sync_watermarks', {
  columns: (c) => ({
    ...c,
    watermark: { type: 'int64', notNull: true, default: -1 },
    updated_at: { type: 'timestamp', notNull: true, default: '2024-06-01T00:00:00Z' },
  }),
  rest: { indexes: [{ name: 'sync_watermarks_stream_uq', columns: ['stream', 'pipeline'], unique: true }] },
});

/** Opens the same database from `n` separate node processes at the same moment. */
function openFromProcesses(url: string, n: number): Promise<string[]> {
  const script = `import { openDatabase } from ${JSON.stringify(path.join(REPO_ROOT, 'destinations', 'open.ts'))};
const db = await openDatabase(process.argv[1]); await db.close(); process.stdout.write('ok');`;
  return Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<string>((resolve, reject) => {
          const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, url], {
            cwd: REPO_ROOT,
          });
          let out = '';
          let err = '';
          child.stdout.on('data', (d: Buffer) => (out += d.toString()));
          child.stderr.on('data', (d: Buffer) => (err += d.toString()));
          child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${err}`))));
        }),
    ),
  );
}

/** Each engine's drizzle-kit migrations, beside its adapter. */
const MIGRATION_FOLDERS = { sqlite: 'destinations/sqlite/migrations', pg: 'destinations/postgres/migrations' } as const;

const journalEntries = (dialect: 'sqlite' | 'pg') =>
  (
    JSON.parse(fs.readFileSync(path.join(REPO_ROOT, MIGRATION_FOLDERS[dialect], 'meta', '_journal.json'), 'utf8')) as {
      entries: unknown[];
    }
  ).entries.length;

describe.each(['sqlite', 'postgres'] as const)('%s', (dialect) => {
  let url: string;
  let db: Database;
  beforeAll(async () => {
    url = dialect === 'sqlite' ? `sqlite:${path.join(tmp, 'schema.sqlite')}` : await testPostgresUrl();
  }, 30_000);
  afterAll(async () => db?.close());

  it('migrates once when several processes open a fresh database together, and again is a no-op', async () => {
    expect(await openFromProcesses(url, 3)).toEqual(['ok', 'ok', 'ok']);
    db = await openDatabase(url);
    const applied =
      db.dialect === 'sqlite'
        ? (db.sqlite.prepare('SELECT COUNT(*) AS n FROM __drizzle_migrations').get() as { n: number }).n
        : Number((await pgPool(db).query('SELECT COUNT(*) AS n FROM drizzle.__drizzle_migrations')).rows[0].n);
    expect(applied).toBe(journalEntries(dialect === 'sqlite' ? 'sqlite' : 'pg'));
    if (db.dialect === 'sqlite') expect(db.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
  }, 30_000);

  it('starts and finishes a pipeline run idempotently on its workflow id', async () => {
    const a = await startPipelineRun(db, {
      workflowId: 'shop-daily--2024-06-01',
      pipeline: 'shop-daily',
      kind: 'marketplace',
    });
    const b = await startPipelineRun(db, {
      workflowId: 'shop-daily--2024-06-01',
      pipeline: 'shop-daily',
      kind: 'marketplace',
    });
    expect(a.created).toBe(true);
    expect(b).toEqual({ id: a.id, created: false });
    await finishPipelineRun(db, {
      workflowId: 'shop-daily--2024-06-01',
      status: 'succeeded',
      rowsByTable: { marketplace_products: 3 },
    });
    await finishPipelineRun(db, {
      workflowId: 'shop-daily--2024-06-01',
      status: 'succeeded',
      rowsByTable: { marketplace_products: 3 },
    });
    const row = await getPipelineRun(db, 'shop-daily--2024-06-01');
    expect(row).toMatchObject({
      id: a.id,
      pipeline: 'shop-daily',
      kind: 'marketplace',
      status: 'succeeded',
      rowsByTable: { marketplace_products: 3 },
      error: null,
    });
    expect(row?.finishedAt).not.toBeNull();
    await expect(finishPipelineRun(db, { workflowId: 'never-started', status: 'failed' })).rejects.toThrow(
      /no pipeline run with workflow id 'never-started'/,
    );
  });

  it('the migrated database has exactly the tables, columns, types, defaults, keys and indexes of the definition', async () => {
    const actual =
      db.dialect === 'sqlite'
        ? sqliteDatabaseShapes(db.sqlite, SQLITE_COLUMN_TYPES)
        : await pgDatabaseShapes(pgPool(db), POSTGRES_COLUMN_TYPES);
    const expected = TABLE_NAMES.map((t) => definitionShape(t, TABLES[t]));
    expect(compareSchemas(expected, actual)).toEqual([]);
    expect(actual.map((t) => t.name).sort()).toEqual([...TABLE_NAMES].sort());
    // The database's own words for a few columns, so the comparison is seen to read real types.
    const products = actual.find((t) => t.name === 'marketplace_products');
    const col = (n: string) => products?.columns.find((c) => c.name === n)?.sqlType;
    expect([col('shop_id'), col('price_major'), col('is_adult'), col('loaded_at')]).toEqual(
      db.dialect === 'sqlite'
        ? ['integer', 'real', 'integer', 'text']
        : ['bigint', 'double precision', 'boolean', 'timestamp with time zone'],
    );
  });

  it('reads every kind of default back from a database, and reports one that drifted from the definition', async () => {
    // drizzle-kit writes the DDL, as it would for a migration, into a scratch database or schema: the migrated
    // tables stay untouched.
    let shapes: TableShape[];
    if (db.dialect === 'sqlite') {
      const ddl = await generateSQLiteMigration(
        await generateSQLiteDrizzleJson({}),
        await generateSQLiteDrizzleJson({
          a: sqliteTableFrom('every_default', EVERY_DEFAULT),
          b: sqliteTableFrom('sync_watermarks', DRIFTED_WATERMARKS),
        }),
      );
      const scratch = new BetterSqlite3(':memory:');
      try {
        for (const stmt of ddl) scratch.exec(stmt);
        shapes = sqliteDatabaseShapes(scratch, SQLITE_COLUMN_TYPES);
      } finally {
        scratch.close();
      }
    } else {
      const ddl = await generateMigration(
        generateDrizzleJson({}),
        generateDrizzleJson({
          a: pgTableFrom('every_default', EVERY_DEFAULT),
          b: pgTableFrom('sync_watermarks', DRIFTED_WATERMARKS),
        }),
      );
      const client = await pgPool(db).connect();
      try {
        await client.query('CREATE SCHEMA drift');
        await client.query('SET search_path TO drift');
        for (const stmt of ddl) await client.query(stmt);
        shapes = await pgDatabaseShapes(client, POSTGRES_COLUMN_TYPES, 'drift');
      } finally {
        await client.query('RESET search_path');
        client.release();
      }
    }
    const shape = (name: string) => {
      const found = shapes.find((t) => t.name === name);
      if (!found) throw new Error(`scratch database has no table ${name}`);
      return found;
    };
    expect(compareTables(definitionShape('every_default', EVERY_DEFAULT), shape('every_default'))).toEqual([]);
    expect(compareTables(definitionShape('sync_watermarks', DRIFTED_WATERMARKS), shape('sync_watermarks'))).toEqual([]);
    const diffs = compareTables(definitionShape('sync_watermarks', TABLES.sync_watermarks), shape('sync_watermarks'));
    expect(diffs).toEqual([
      db.dialect === 'sqlite'
        ? 'sync_watermarks.watermark: type: text vs integer (int64|int32|bool)'
        : 'sync_watermarks.watermark: type: text vs bigint (int64)',
      'sync_watermarks.watermark: default: none vs -1',
      // Postgres shows the instant in its own format and the server's time zone.
      expect.stringMatching(/^sync_watermarks\.updated_at: default: none vs '2024-0[56]-\d\d.*'$/),
      'sync_watermarks: index only on the right: unique sync_watermarks_stream_uq (stream, pipeline)',
    ]);
  });

  it("records 'partial' when some URLs failed and the rest loaded, and refuses an unknown status", async () => {
    await startPipelineRun(db, { workflowId: 'jobs--r7', pipeline: 'jobs', kind: 'job-board' });
    const error = '1 of 3 URLs failed: https://jobs.example/x: 422 The urls field is invalid.';
    await finishPipelineRun(db, { workflowId: 'jobs--r7', status: 'partial', rowsByTable: { job_records: 8 }, error });
    expect(await getPipelineRun(db, 'jobs--r7')).toMatchObject({
      status: 'partial',
      rowsByTable: { job_records: 8 },
      error,
    });
    await expect(finishPipelineRun(db, { workflowId: 'jobs--r7', status: 'running' as never })).rejects.toThrow(
      "cannot finish pipeline run 'jobs--r7' with status 'running' (expected one of succeeded, partial, failed_checks, failed, cancelled, interrupted)",
    );
    expect((await getPipelineRun(db, 'jobs--r7'))?.status).toBe('partial');
  });
});
