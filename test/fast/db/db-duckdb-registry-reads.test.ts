// Registry reads on DuckDB are kept per connection (db/store/evolve/registry.ts readRegistryStateKept, by the version
// destinations/duckdb/tx.ts gives): every load reads it, and only this process writes the file while it is open.
// What is kept must never outlive a change: a write to schema_history, DDL, or a rollback that undoes either. Each
// case reads the registry (so it is kept), changes it one way, and reads it again through db/store/evolve/registry.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../destinations/open.js';
import { readRegistry } from '../../../db/store/evolve/registry.js';
import { withTransaction, type Tx } from '../../../db/store/sql.js';

let dir: string;
let db: Database;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'duckdb-registry-reads-'));
  db = await openDatabase(`duckdb:${path.join(dir, 'r.duckdb')}`);
});
afterAll(async () => {
  await db?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const scope = { tables: ['items'], prefixes: [] };
const columnsOf = async (tx: Tx) => [...((await readRegistry(tx, scope)).get('items')?.keys() ?? [])].sort();
const read = () => withTransaction(db, columnsOf);
const record = (tx: Tx, column: string) =>
  tx.run(
    `INSERT INTO schema_history (table_name, column_name, data_type, change, pipeline, load_id, changed_at) VALUES ('items', $1, 'text', 'add_column', 'p', 1, '2026-11-26T00:00:00Z')`,
    [column],
  );

describe('DuckDB: kept reads of schema_history', () => {
  it('a committed write is seen by the next read, in the same transaction and after it', async () => {
    expect(await read()).toEqual([]);
    await withTransaction(db, async (tx) => {
      await record(tx, 'a');
      expect(await columnsOf(tx)).toEqual(['a']);
    });
    expect(await read()).toEqual(['a']);
  });

  it('a rolled back write is gone from the next read, even when the transaction read it back', async () => {
    await expect(
      withTransaction(db, async (tx) => {
        await record(tx, 'b');
        expect(await columnsOf(tx)).toEqual(['a', 'b']);
        throw new Error('undone');
      }),
    ).rejects.toThrow('undone');
    expect(await read()).toEqual(['a']);
  });

  it('a delete and an update are seen', async () => {
    expect(await read()).toEqual(['a']);
    await withTransaction(db, (tx) =>
      tx.run(`UPDATE schema_history SET column_name = 'c' WHERE table_name = 'items' AND column_name = 'a'`, []),
    );
    expect(await read()).toEqual(['c']);
    await withTransaction(db, (tx) => tx.run(`DELETE FROM schema_history WHERE table_name = 'items'`, []));
    expect(await read()).toEqual([]);
  });

  it('rows handed out are copies: a caller changing them changes nothing kept', async () => {
    await withTransaction(db, (tx) => record(tx, 'd'));
    const sql = `SELECT column_name FROM schema_history WHERE table_name = $1`;
    const first = await withTransaction(db, (tx) => tx.all(sql, ['items']));
    first[0]!['column_name'] = 'changed by the caller';
    expect(await withTransaction(db, (tx) => tx.all(sql, ['items']))).toEqual([{ column_name: 'd' }]);
  });

  it('the file closed and written by another connection meanwhile: the next read sees that write', async () => {
    expect(await read()).toEqual(['d']);
    await db.close();
    // Another process (here: another instance, the file released by close) writes the registry meanwhile.
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const other = await DuckDBInstance.create(path.join(dir, 'r.duckdb'));
    const conn = await other.connect();
    await conn.run(
      `INSERT INTO schema_history (table_name, column_name, data_type, change, pipeline, load_id, changed_at) VALUES ('items', 'e', 'text', 'add_column', 'p', 2, '2026-11-26T00:00:00Z')`,
    );
    conn.closeSync();
    other.closeSync();
    db = await openDatabase(`duckdb:${path.join(dir, 'r.duckdb')}`);
    expect(await read()).toEqual(['d', 'e']);
  });
});
