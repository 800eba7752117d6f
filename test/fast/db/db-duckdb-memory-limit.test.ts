// The destination's DuckDB instance runs under a memory limit (destinations/duckdb/instance-settings.ts), which a
// large transaction's new rows must fit under; and DuckDB must hold an ART index in memory while it builds it: a schema step that indexes an existing table larger than the
// limit fails with "Out of Memory". Schema steps run with the limit lifted (database.ts ensureSchema). The test sets
// a smaller limit of its own so that a table of 6 million rows is larger than it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import {
  LIFTED_MEMORY_LIMIT,
  MEMORY_LIMIT,
  withMemoryLimitLifted,
} from '../../../destinations/duckdb/instance-settings.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'duckdb-memory-limit-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('DuckDB memory limit and index builds', () => {
  it("a transaction's new rows fit under the instance limit: 6 million short rows with a primary key commit under MEMORY_LIMIT, and not under a small limit", async () => {
    const insert = async (limit: string) => {
      const file = path.join(dir, `rows-${limit}.duckdb`);
      const instance = await DuckDBInstance.create(file, { threads: '1', memory_limit: limit });
      const conn = await instance.connect();
      try {
        await conn.run(`CREATE TABLE t (id BIGINT PRIMARY KEY, s VARCHAR)`);
        await conn.run(`INSERT INTO t SELECT i, 'value ' || i FROM range(6000000) r(i)`);
        return Number((await conn.runAndReadAll('SELECT count(*) FROM t')).getRows()[0]?.[0]);
      } finally {
        conn.closeSync();
        instance.closeSync();
        for (const f of [file, `${file}.wal`]) fs.rmSync(f, { force: true });
      }
    };
    // The transaction does need memory: 32 MB is too little for it (DuckDB 1.5.6; 64 MB carries it).
    await expect(insert('32MB')).rejects.toThrow(/Out of Memory/);
    expect(await insert(MEMORY_LIMIT)).toBe(6_000_000);
  }, 120_000);

  it('an index over millions of rows fails under the instance limit and is built with the limit lifted, which is set again after', async () => {
    const file = path.join(dir, 'big.duckdb');
    const open = async () => {
      const instance = await DuckDBInstance.create(file, { threads: '1', memory_limit: '64MB' });
      return { instance, conn: await instance.connect() };
    };
    const first = await open();
    try {
      await first.conn.run(`CREATE TABLE t (id BIGINT, s VARCHAR)`);
      await first.conn.run(`SET memory_limit = '${LIFTED_MEMORY_LIMIT}'`);
      await first.conn.run(`INSERT INTO t SELECT i, 'value ' || i FROM range(6000000) r(i)`);
      await first.conn.run(`SET memory_limit = '64MB'`);
      await expect(first.conn.run('CREATE INDEX t_s ON t (s)')).rejects.toThrow(/Out of Memory/);
      // RESET reports DuckDB's default but leaves the buffer pool at the instance's limit.
      await first.conn.run('RESET memory_limit');
      await expect(first.conn.run('CREATE INDEX t_s ON t (s)')).rejects.toThrow(/Out of Memory/);
    } finally {
      first.conn.closeSync();
      first.instance.closeSync();
    }
    // Opened again as the destination opens it, the index is built as ensureSchema builds a step's.
    const { instance, conn } = await open();
    try {
      await withMemoryLimitLifted(conn, () => conn.run('CREATE INDEX t_s ON t (s)'));
      const setting = async () =>
        String((await conn.runAndReadAll(`SELECT current_setting('memory_limit') AS l`)).getRowObjectsJS()[0]?.['l']);
      const after = await setting();
      await conn.run(`SET memory_limit = '${MEMORY_LIMIT}'`);
      expect(after).toBe(await setting());
      await conn.run(`SET memory_limit = '${LIFTED_MEMORY_LIMIT}'`);
      expect(after).not.toBe(await setting());
      const indexes = await conn.runAndReadAll(`SELECT index_name FROM duckdb_indexes() WHERE table_name = 't'`);
      expect(indexes.getRowObjectsJS().map((r) => r['index_name'])).toEqual(['t_s']);
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  }, 60_000);
});
