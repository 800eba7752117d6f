// How `scrape-etl export` opens an SQLite destination (cli/read-destination.ts openForExport): a current file in WAL
// mode with better-sqlite3 alone (destinations/sqlite/open-current.ts), which writes the same file and moves the
// same watermark as the full open; an older file, or one not in WAL mode, through openDatabase, which brings it up to
// date as before. Real SQLite files; the CSV files are compared byte for byte.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../../destinations/open.js';
import { sqliteDestination } from '../../../destinations/sqlite/index.js';
import { openForExport } from '../../../cli/read-destination.js';
import { exportTables } from '../../../export/csv.js';
import { insertScrapers, scraperRows } from '../../support/export-data.js';

let dir: string;
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-open-current-'));
  file = join(dir, 'db.sqlite');
  const db = (await openDatabase(`sqlite:${file}`)) as SqliteDatabase;
  try {
    await insertScrapers(db, scraperRows('p1', 7n, 100n));
  } finally {
    await db.close();
  }
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function onFile<T>(fn: (sqlite: BetterSqlite3.Database) => T): T {
  const sqlite = new BetterSqlite3(file);
  try {
    return fn(sqlite);
  } finally {
    sqlite.close();
  }
}

const watermarks = () =>
  onFile((s) => s.prepare('select pipeline, table_name, last_load_id from export_watermarks').all());

describe('opening an SQLite destination for an export', () => {
  it('a current file in WAL mode: the driver alone, the same bytes and the same watermark as the full open', async () => {
    const lean = await sqliteDestination.openCurrentForExport!({ dialect: 'sqlite', file });
    expect(lean).toBeDefined();
    expect(lean).not.toHaveProperty('drizzle');
    const options = (out: string) => ({
      tables: ['scrapers'],
      outDir: join(dir, out),
      fileName: 'scrapers.csv',
      pipeline: 'p1',
      mode: 'incremental' as const,
    });
    try {
      await exportTables(lean!, options('lean'));
    } finally {
      await lean!.close();
    }
    const afterLean = watermarks();
    expect(afterLean).toEqual([{ pipeline: 'p1', table_name: 'scrapers', last_load_id: 7 }]);
    onFile((s) => s.exec('delete from export_watermarks'));
    const full = await openDatabase(`sqlite:${file}`);
    try {
      await exportTables(full, options('full'));
    } finally {
      await full.close();
    }
    expect(watermarks()).toEqual(afterLean);
    const [a, b] = await Promise.all([
      readFile(join(dir, 'lean', 'scrapers.csv')),
      readFile(join(dir, 'full', 'scrapers.csv')),
    ]);
    expect(a.length).toBeGreaterThan(0);
    expect(a.equals(b)).toBe(true);
  });

  it('a file not in WAL mode is left to the full open, which brings it up to date; so is one missing a migration', async () => {
    onFile((s) => s.pragma('journal_mode = DELETE'));
    expect(await sqliteDestination.openCurrentForExport!({ dialect: 'sqlite', file })).toBeUndefined();
    const opened = await openForExport(`sqlite:${file}`);
    try {
      expect(opened).toHaveProperty('drizzle');
    } finally {
      await opened.close();
    }
    expect(onFile((s) => s.pragma('journal_mode', { simple: true }))).toBe('wal');
    expect(await sqliteDestination.openCurrentForExport!({ dialect: 'sqlite', file })).toBeDefined();

    // An older file: its newest migration not recorded (openSqlite would apply it; here it is put back).
    const newest = onFile(
      (s) =>
        s.prepare('select id, hash, created_at from "__drizzle_migrations" order by created_at desc limit 1').get() as {
          id: number;
          hash: string;
          created_at: number;
        },
    );
    onFile((s) => s.prepare('delete from "__drizzle_migrations" where id = ?').run(newest.id));
    expect(await sqliteDestination.openCurrentForExport!({ dialect: 'sqlite', file })).toBeUndefined();
    onFile((s) =>
      s
        .prepare('insert into "__drizzle_migrations" (id, hash, created_at) values (?, ?, ?)')
        .run(newest.id, newest.hash, newest.created_at),
    );
    const lean = await sqliteDestination.openCurrentForExport!({ dialect: 'sqlite', file });
    expect(lean).toBeDefined();
    await lean!.close();
  });
});
