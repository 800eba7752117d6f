// CSV export from a real Postgres server: the same incremental-export checks as SQLite, value for value, plus a stream that breaks
// mid-table (the server kills the export's connection).
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type PostgresDatabase } from '../../../destinations/open.js';
import { exportTables } from '../../../export/csv.js';
import { checkIncrementalExports, readCsv } from '../../support/export-data.js';
import { testPostgresUrl } from '../../support/postgres.js';

let dir: string;
let db: PostgresDatabase;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-pg-'));
  db = (await openDatabase(await testPostgresUrl())) as PostgresDatabase;
});
afterAll(async () => {
  await db?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('CSV export from Postgres', () => {
  it('writes every value exactly, incremental exports hold only new rows', async () => {
    await checkIncrementalExports(db, join(dir, 'inc'));

    // Default options: formulas neutralised in text columns only.
    const [c] = await exportTables(db, {
      pipeline: 'p1',
      tables: ['scrapers'],
      outDir: join(dir, 'inc'),
      fileName: 'defaults.csv',
    });
    const csv = await readCsv(c!.file);
    const names = csv.rows.map((r) => r[csv.header.indexOf('name')]);
    expect(names).toContain("'=1+2");
    expect(names).toContain('-1');
  });

  it('a connection killed mid-stream leaves no file and does not move the watermark', async () => {
    await db.pool.query(`
      insert into scrapers (id, name, urls, scheduled, pipeline, load_id, loaded_at, row_hash)
      select i, 'name ' || i, ('{"i":' || i || '}')::json, i % 2 = 0, 'bulk', 3, now(), 'h' from generate_series(1, 300000) i`);
    const out = join(dir, 'killed');
    // The kill is sent as soon as the first batch is written (not after a sleep): on a loaded machine a timer could
    // fire after the whole table was already exported.
    let killing: Promise<unknown> | undefined;
    const running = exportTables(db, {
      pipeline: 'bulk',
      tables: ['scrapers'],
      outDir: out,
      mode: 'incremental',
      fileName: 'big.csv',
      onProgress: () => {
        killing ??= db.pool.query(
          `select pg_terminate_backend(pid) from pg_stat_activity where query like 'select "id"%' and pid <> pg_backend_pid()`,
        );
      },
    });
    await expect(running).rejects.toThrow();
    await killing;
    expect(await readdir(out)).toEqual([]);
    const wm = await db.pool.query(`select 1 from export_watermarks where pipeline = 'bulk'`);
    expect(wm.rowCount).toBe(0);

    const [f] = await exportTables(db, {
      pipeline: 'bulk',
      tables: ['scrapers'],
      outDir: out,
      mode: 'incremental',
      fileName: 'big.csv',
    });
    expect(f!.rows).toBe(300000);
    const csv = await readCsv(f!.file);
    expect(csv.rows).toHaveLength(300000);
    expect(new Set(csv.rows.map((r) => r[csv.header.indexOf('scheduled')]))).toEqual(new Set(['true', 'false']));

    // Aborting (a cancelled activity) closes the cursor and returns a healthy connection to the pool.
    const abortedOut = join(dir, 'aborted');
    const ac = new AbortController();
    const aborted = exportTables(db, {
      pipeline: 'bulk',
      tables: ['scrapers'],
      outDir: abortedOut,
      fileName: 'big.csv',
      signal: ac.signal,
      onProgress: () => ac.abort(),
    });
    await expect(aborted).rejects.toThrow(/abort/i);
    expect(await readdir(abortedOut)).toEqual([]);
    const idle = await db.pool.query(
      `select count(*)::int as n from pg_stat_activity where state = 'idle in transaction'`,
    );
    expect(idle.rows[0]).toEqual({ n: 0 });
  });
});
