// CSV export from a real Postgres server: same files as from SQLite, value for value, plus a stream that breaks
// mid-table (the server kills the export's connection).
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type PostgresDatabase } from '../db/connect.js';
import { exportTables } from '../export/csv.js';
import { BIG_ID, byId, expectedById, insertScrapers, readCsv, scraperRows } from './support/export-data.js';
import { testPostgresUrl } from './support/postgres.js';

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
    const out = join(dir, 'inc');
    const first = scraperRows('p1', 10n, 0n);
    await insertScrapers(db, first);
    await insertScrapers(db, scraperRows('other', 11n, 1000n));
    const [a] = await exportTables(db, { pipeline: 'p1', tables: ['scrapers'], outDir: out, mode: 'incremental', fileName: 'a.csv', nullText: '\\N', neutralizeFormulas: false });
    expect(a!.rows).toBe(first.length);
    // Same expectations as for SQLite: booleans true/false, timestamps ISO 8601 with milliseconds, ids exact.
    expect(byId(await readCsv(a!.file))).toEqual(expectedById(first, '\\N'));

    const second = scraperRows('p1', BIG_ID, 500n).slice(0, 2);
    const changed = { ...first[5]!, name: 'changed "again"', load_id: BIG_ID };
    await insertScrapers(db, [...second, changed]);
    const [b] = await exportTables(db, { pipeline: 'p1', tables: ['scrapers'], outDir: out, mode: 'incremental', fileName: 'b.csv', nullText: '\\N', neutralizeFormulas: false });
    expect(byId(await readCsv(b!.file))).toEqual(expectedById([...second, changed], '\\N'));
    const wm = await db.pool.query(`select pipeline, table_name, last_load_id::text as id from export_watermarks`);
    expect(wm.rows).toEqual([{ pipeline: 'p1', table_name: 'scrapers', id: BIG_ID.toString() }]);

    // Default options: formulas neutralised in text columns only.
    const [c] = await exportTables(db, { pipeline: 'p1', tables: ['scrapers'], outDir: out, fileName: 'c.csv' });
    const csv = await readCsv(c!.file);
    const names = csv.rows.map((r) => r[csv.header.indexOf('name')]);
    expect(names).toContain("'=1+2");
    expect(names).toContain('-1');
  });

  it('a connection killed mid-stream leaves no file and does not move the watermark', async () => {
    await db.pool.query(`
      insert into scrapers (id, name, urls, scheduled, pipeline, load_id, loaded_at, row_hash)
      select i, 'name ' || i, '{"i":' || i || '}', i % 2 = 0, 'bulk', 3, now(), 'h' from generate_series(1, 300000) i`);
    const out = join(dir, 'killed');
    const running = exportTables(db, { pipeline: 'bulk', tables: ['scrapers'], outDir: out, mode: 'incremental', fileName: 'big.csv' });
    for (;;) {
      const partial = (await readdir(out).catch(() => [] as string[])).find((n) => n.endsWith('.partial'));
      if (partial && (await readFile(join(out, partial)).catch(() => Buffer.alloc(0))).length > 0) break;
      await new Promise((r) => setTimeout(r, 2));
    }
    await db.pool.query(`select pg_terminate_backend(pid) from pg_stat_activity where query like 'select "id"%' and pid <> pg_backend_pid()`);
    await expect(running).rejects.toThrow();
    expect(await readdir(out)).toEqual([]);
    const wm = await db.pool.query(`select 1 from export_watermarks where pipeline = 'bulk'`);
    expect(wm.rowCount).toBe(0);

    const [f] = await exportTables(db, { pipeline: 'bulk', tables: ['scrapers'], outDir: out, mode: 'incremental', fileName: 'big.csv' });
    expect(f!.rows).toBe(300000);
    const csv = await readCsv(f!.file);
    expect(csv.rows).toHaveLength(300000);
    expect(new Set(csv.rows.map((r) => r[csv.header.indexOf('scheduled')]))).toEqual(new Set(['true', 'false']));

    // Aborting (a cancelled activity) closes the cursor and returns a healthy connection to the pool.
    const abortedOut = join(dir, 'aborted');
    const ac = new AbortController();
    const aborted = exportTables(db, { pipeline: 'bulk', tables: ['scrapers'], outDir: abortedOut, fileName: 'big.csv', signal: ac.signal });
    for (;;) {
      const partial = (await readdir(abortedOut).catch(() => [] as string[])).find((n) => n.endsWith('.partial'));
      if (partial && (await readFile(join(abortedOut, partial)).catch(() => Buffer.alloc(0))).length > 0) break;
      await new Promise((r) => setTimeout(r, 2));
    }
    ac.abort();
    await expect(aborted).rejects.toThrow(/abort/i);
    expect(await readdir(abortedOut)).toEqual([]);
    const idle = await db.pool.query(`select count(*)::int as n from pg_stat_activity where state = 'idle in transaction'`);
    expect(idle.rows[0]).toEqual({ n: 0 });
  });
});
