// One DuckDB instance of a file per process (destinations/duckdb/instances.ts, issue #41). DuckDB's file lock is per
// process, so a second instance of a file in the same process is not refused; and a closed instance lives on while a
// streaming result of it is alive. The first case is the minimal reproduction with DuckDB alone, kept for when
// DuckDB changes either behaviour (then this case fails, and the guard can be revisited): committed rows of the
// second instance vanish when the first is freed. The others hold the destination's sessions to the guard.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../destinations/open.js';
import { duckBatches } from '../../../destinations/duckdb/export-reader.js';
import { DuckDBEngineError } from '../../../destinations/duckdb/engine-errors.js';
import {
  awaitNoInstance,
  closeInstance,
  collectGarbage,
  heldByThisProcess,
} from '../../../destinations/duckdb/instances.js';
import { duckSelect } from '../../support/duckdb.js';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'duckdb-instances-'));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const count = async (file: string) => {
  const inst = await DuckDBInstance.create(file);
  const conn = await inst.connect();
  const n = Number((await conn.runAndReadAll('SELECT count(*) AS n FROM t')).getRowObjectsJS()[0]!['n']);
  conn.closeSync();
  inst.closeSync();
  return n;
};
const settle = async () => {
  collectGarbage();
  await new Promise((r) => setTimeout(r, 200));
  collectGarbage();
  await new Promise((r) => setTimeout(r, 200));
};

describe('DuckDB alone: the hazard', () => {
  it('a closed instance whose streaming result is alive still holds the file, and when freed overwrites what a second instance committed', async () => {
    const file = path.join(dir, 'hazard.duckdb');
    // Made in a function of its own, so that dropping `held.stream` leaves no reference in this frame.
    const held: { stream?: unknown } = await (async () => {
      const inst = await DuckDBInstance.create(file, { threads: '1' });
      const conn = await inst.connect();
      await conn.run('CREATE TABLE t (a INTEGER PRIMARY KEY)');
      await conn.run('INSERT INTO t SELECT range FROM range(1000)');
      const result = await conn.stream('SELECT * FROM t');
      await result.fetchChunk();
      conn.closeSync();
      inst.closeSync();
      return { stream: result };
    })();
    expect(heldByThisProcess(file)).toBe(true);
    {
      const inst = await DuckDBInstance.create(file, { threads: '1' });
      const conn = await inst.connect();
      await conn.run('INSERT INTO t SELECT range FROM range(1000, 5000)');
      expect(Number((await conn.runAndReadAll('SELECT count(*) AS n FROM t')).getRowObjectsJS()[0]!['n'])).toBe(5000);
      conn.closeSync();
      inst.closeSync();
    }
    expect(held.stream).toBeDefined();
    delete held.stream;
    await settle();
    expect(heldByThisProcess(file)).toBe(false);
    // The 4,000 rows the second instance committed are gone.
    expect(await count(file)).toBe(1000);
  });
});

describe('the guard (instances.ts)', () => {
  it('closing an instance held by a live result waits for it to be freed; opening waits for that', async () => {
    const file = path.join(dir, 'guard.duckdb');
    const inst = await DuckDBInstance.create(file, { threads: '1' });
    const conn = await inst.connect();
    await conn.run('CREATE TABLE t (a INTEGER)');
    await conn.run('INSERT INTO t SELECT range FROM range(10000)');
    let result: unknown = await conn.stream('SELECT * FROM t');
    const reports: string[] = [];
    let released = false;
    const wait = closeInstance(file, inst, conn, (m) => reports.push(m));
    expect(wait).toBeDefined();
    const closing = wait!.then(() => (released = true));
    await new Promise((r) => setTimeout(r, 150));
    // Still referenced: not released, however often the garbage is collected.
    expect(released).toBe(false);
    expect(heldByThisProcess(file)).toBe(true);
    let opened = false;
    const opening = awaitNoInstance(file).then(() => (opened = true));
    await new Promise((r) => setTimeout(r, 150));
    expect(opened).toBe(false);
    expect(result).toBeDefined();
    result = undefined;
    await closing;
    await opening;
    expect(heldByThisProcess(file)).toBe(false);
    expect(reports).toEqual([]);
  });

  it('a file this process holds outside the sessions is refused rather than opened a second time', async () => {
    const file = path.join(dir, 'foreign.duckdb');
    const inst = await DuckDBInstance.create(file, { threads: '1' });
    try {
      await expect(awaitNoInstance(file, 300)).rejects.toThrow(
        /already open in this process .* can overwrite committed rows/,
      );
    } finally {
      inst.closeSync();
    }
    await awaitNoInstance(file, 300);
  });
});

describe('the destination (database.ts, export-reader.ts)', () => {
  let db: Database;
  let file: string;
  beforeAll(async () => {
    file = path.join(dir, 'dest.duckdb');
    db = await openDatabase(`duckdb:${file}`);
  });
  afterAll(async () => {
    await db?.close();
  });

  it('an export read stopped after its first batch leaves nothing holding the file once the session closes', async () => {
    if (db.dialect !== 'duckdb') throw new Error('expected DuckDB');
    await db.session(async (conn) => {
      await conn.run('CREATE TABLE IF NOT EXISTS big (a BIGINT)');
      await conn.run('INSERT INTO big SELECT range FROM range(50000)');
    });
    for await (const batch of duckBatches({ dialect: 'duckdb', session: db.session }, 'SELECT a FROM big', [], 100)) {
      expect(batch).toHaveLength(100);
      break;
    }
    await db.close();
    // Closed and let go of, without any garbage collection.
    expect(heldByThisProcess(file)).toBe(false);
    // Written again by a new session, then read after a collection: nothing of it is lost.
    await db.session((conn) => conn.run('INSERT INTO big SELECT range FROM range(50000, 60000)'));
    await db.close();
    await settle();
    expect(Number((await duckSelect(db, 'SELECT count(*) AS n FROM big'))[0]!['n'])).toBe(60000);
  });

  it('an engine error (a damaged file) names the file; the process stops using it until the file is replaced', async () => {
    const damaged = path.join(dir, 'damaged.duckdb');
    const first = await openDatabase(`duckdb:${damaged}`);
    if (first.dialect !== 'duckdb') throw new Error('expected DuckDB');
    await first.session(async (conn) => {
      await conn.run('CREATE TABLE filler (a INTEGER, b VARCHAR)');
      await conn.run(`INSERT INTO filler SELECT range, repeat('x', 200) FROM range(100000)`);
      await conn.run('CHECKPOINT');
    });
    await first.close();
    await awaitNoInstance(damaged);
    // Garbage over a block in the middle of the file: DuckDB's checksum of that block no longer matches.
    const size = fs.statSync(damaged).size;
    const fd = fs.openSync(damaged, 'r+');
    fs.writeSync(fd, Buffer.alloc(65536, 0x5a), 0, 65536, Math.floor(size / 2 / 65536) * 65536);
    fs.closeSync(fd);
    const read = () =>
      first.session(async (conn) =>
        (await conn.runAndReadAll('SELECT count(*), sum(length(b)) FROM filler')).getRows(),
      );
    const err = await read().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DuckDBEngineError);
    expect((err as Error).message).toContain(damaged);
    expect((err as Error).message).toMatch(/Corrupt database file|checksum/);
    expect((err as Error).message).toMatch(
      /This process stops using the file; .*restore it from a backup or move it aside/,
    );
    // At once, the same error, and the file is not opened again.
    await expect(read()).rejects.toBe(err);
    await awaitNoInstance(damaged);
    expect(heldByThisProcess(damaged)).toBe(false);
    // Replaced by a new file: used again.
    fs.rmSync(damaged);
    fs.rmSync(`${damaged}.wal`, { force: true });
    await first.session(async (conn) => conn.run('CREATE TABLE filler (a INTEGER, b VARCHAR)'));
    expect(await read()).toEqual([[0n, null]]);
    await first.close();
  });
});
