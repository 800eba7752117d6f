// The results-sync watermark table comes from the migrations (not created on first use) in both dialects, also
// where an earlier version had already created it; a watermark only moves forward, exactly beyond 2^53, even
// when several commits race.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitSyncWatermark, readSyncWatermark } from '../../../db/store/sync-watermarks.js';
import { openDatabase, type Database } from '../../../destinations/open.js';
import { testPostgresUrl } from '../../support/postgres.js';
import { duckSelect } from '../../support/duckdb.js';
import { testDatabaseUrl } from '../../support/destinations.js';

/** The table as activities/watermark-store.ts created it before it moved into the schema. */
const OLD_AD_HOC_CREATE = `CREATE TABLE IF NOT EXISTS sync_watermarks (
  pipeline text NOT NULL,
  stream text NOT NULL,
  watermark text NOT NULL,
  updated_at text NOT NULL,
  PRIMARY KEY (pipeline, stream)
)`;

let tmp: string;
const opened: Database[] = [];
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'db-sync-wm-'));
});
afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function open(url: string): Promise<Database> {
  const db = await openDatabase(url);
  opened.push(db);
  return db;
}

async function tableColumns(db: Database): Promise<string[]> {
  if (db.dialect === 'sqlite') {
    return (
      db.sqlite.prepare(`SELECT name FROM pragma_table_info('sync_watermarks') ORDER BY cid`).all() as Array<{
        name: string;
      }>
    ).map((r) => r.name);
  }
  if (db.dialect === 'duckdb') {
    return (
      await duckSelect(
        db,
        `SELECT column_name FROM information_schema.columns WHERE table_name = 'sync_watermarks' ORDER BY ordinal_position`,
      )
    ).map((r) => String(r['column_name']));
  }
  const res = await db.pool.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'sync_watermarks' ORDER BY ordinal_position`,
  );
  return res.rows.map((r) => r.column_name);
}

describe.each(['sqlite', 'postgres', 'duckdb'] as const)('sync_watermarks in %s', (dialect) => {
  const freshUrl = async (name: string) => testDatabaseUrl(dialect, tmp, name);

  it('is created by the migrations and moves forward only, exactly beyond 2^53, also under racing commits', async () => {
    const db = await open(await freshUrl('fresh'));
    expect(await tableColumns(db)).toEqual(['pipeline', 'stream', 'watermark', 'updated_at']);
    expect(await readSyncWatermark(db, 'sync', 'results')).toBeNull();
    await commitSyncWatermark(db, 'sync', 'results', '9007199254740993');
    await commitSyncWatermark(db, 'sync', 'results', '9007199254740992');
    expect(await readSyncWatermark(db, 'sync', 'results')).toBe('9007199254740993');
    // Compared as integers, not text ('10' < '9' as text).
    await commitSyncWatermark(db, 'other', 'results', '9');
    await commitSyncWatermark(db, 'other', 'results', '10');
    expect(await readSyncWatermark(db, 'other', 'results')).toBe('10');
    const values = Array.from({ length: 12 }, (_, i) => String(9007199254741000n + BigInt((i * 7) % 12)));
    await Promise.all(values.map((v) => commitSyncWatermark(db, 'race', 'results', v)));
    expect(await readSyncWatermark(db, 'race', 'results')).toBe('9007199254741011');
    await expect(commitSyncWatermark(db, 'sync', 'results', '-1')).rejects.toThrow(/non-negative integer, got '-1'/);
  });
});

// Only SQLite and Postgres destinations existed when the table was created ad hoc; DuckDB files start with the
// current schema.
describe.each(['sqlite', 'postgres'] as const)('sync_watermarks in %s made by an earlier version', (dialect) => {
  it('opens a database where an earlier version had already created the table, keeping its watermarks', async () => {
    const url = await testDatabaseUrl(dialect, tmp, 'legacy');
    if (dialect === 'sqlite') {
      const raw = new BetterSqlite3(path.join(tmp, 'legacy.sqlite'));
      raw.exec(OLD_AD_HOC_CREATE);
      raw
        .prepare('INSERT INTO sync_watermarks VALUES (?, ?, ?, ?)')
        .run('old', 'results', '500', new Date().toISOString());
      raw.close();
    } else {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(OLD_AD_HOC_CREATE);
      await client.query(`INSERT INTO sync_watermarks VALUES ('old', 'results', '500', $1)`, [
        new Date().toISOString(),
      ]);
      await client.end();
    }
    const db = await open(url);
    expect(await readSyncWatermark(db, 'old', 'results')).toBe('500');
    await commitSyncWatermark(db, 'old', 'results', '501');
    expect(await readSyncWatermark(db, 'old', 'results')).toBe('501');
  });
});
