// Parquet from SQLite takes the CSV path (destinations/sqlite/parquet.ts: SQLite writes each row as a CSV record,
// DuckDB reads it): every kind of value SQLite's dynamic typing lets a column hold must arrive in the file with its
// exact type and value, read back by pyarrow. Values of their column's storage class go the CSV path (checked by
// calling it: it must not decline); any other (NaN text in a REAL column, epoch milliseconds, text in a BLOB column,
// numbers and blobs in an untyped column) makes it decline the table, which the row path then writes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../../destinations/open.js';
import { describeTable } from '../../../export/columns.js';
import { exportTables } from '../../../export/export.js';
import { copySqliteParquet } from '../../../destinations/sqlite/parquet.js';
import { typeColumns } from '../../../export/typed.js';
import { readParquetWithPyarrow } from '../../support/python-readers.js';
import { exportTyping } from '../../../export/database.js';

let dir: string;
let db: SqliteDatabase;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-parquet-cells-'));
  db = (await openDatabase(`sqlite:${join(dir, 'db.sqlite')}`)) as SqliteDatabase;
});
afterEach(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

const CREATE =
  'create table odd (id integer, i integer, d real, b boolean, ts timestamp, tsm integer, j json, t text, bl blob, u)';

/** The CSV path alone on table `table` (as export.ts calls it): its result, null when it declines the table. */
async function csvPath(
  table: string,
  path = join(dir, 'probe.parquet'),
): Promise<{ rows: number; maxLoadId: bigint | null } | null> {
  const typed = typeColumns(table, await describeTable(db, table, undefined), exportTyping(db));
  return copySqliteParquet(db, {
    path,
    table,
    columns: typed.map((t) => ({ typed: t, expr: `"${t.name}"` })),
    where: [],
    params: [],
    maxLoadId: false,
  });
}

describe('Parquet from SQLite, value by value', () => {
  it('writes every value SQLite can hold in a typed column with its exact type and value', async () => {
    db.sqlite.exec(CREATE);
    const insert = db.sqlite.prepare('insert into odd values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    insert.run(
      1,
      9223372036854775807n,
      0.1,
      1,
      '2025-01-02T03:04:05.678Z',
      1735787045678,
      '{"a":[1,2]}',
      'a "quoted", text\nwith a line, żółć 😀',
      Buffer.from([0, 255]),
      'x',
    );
    insert.run(2, 3.0, 5, 0, '2025-01-02 03:04:05', null, '[]', '', Buffer.alloc(0), 42);
    insert.run(
      3,
      -9223372036854775808n,
      0.30000000000000004,
      null,
      null,
      '2025-01-02T03:04:05Z',
      null,
      null,
      'text in a blob',
      1.5,
    );
    insert.run(4, null, 'NaN', null, null, null, null, '"', null, Buffer.from([1]));
    db.sqlite.exec(`insert into odd (id, d) values (5, 9e999), (6, -1.7976931348623157e308)`);

    expect(await csvPath('odd')).toBeNull();
    const [f] = await exportTables(db, {
      tables: ['odd'],
      outDir: join(dir, 'out'),
      format: 'parquet',
      columnHints: { odd: { tsm: 'timestamp_ms' } },
    });
    expect(f!.rows).toBe(6);
    const read = readParquetWithPyarrow(f!.file);
    expect(read.schema).toEqual([
      ['id', 'int64'],
      ['i', 'int64'],
      ['d', 'double'],
      ['b', 'bool'],
      ['ts', 'timestamp[us, tz=UTC]'],
      ['tsm', 'timestamp[us, tz=UTC]'],
      ['j', expect.stringMatching(/json|string/)],
      ['t', 'string'],
      ['bl', 'binary'],
      ['u', 'string'],
    ]);
    expect(read.rows).toEqual([
      {
        id: { int: '1' },
        i: { int: '9223372036854775807' },
        d: { float: '0.1' },
        b: true,
        ts: { datetime: '2025-01-02T03:04:05.678000+00:00', tz: 'UTC' },
        tsm: { datetime: '2025-01-02T03:04:05.678000+00:00', tz: 'UTC' },
        j: '{"a":[1,2]}',
        t: 'a "quoted", text\nwith a line, żółć 😀',
        bl: { bytes: '00ff' },
        u: 'x',
      },
      {
        id: { int: '2' },
        i: { int: '3' },
        d: { float: '5.0' },
        b: false,
        ts: { datetime: '2025-01-02T03:04:05+00:00', tz: 'UTC' },
        tsm: null,
        j: '[]',
        t: '',
        bl: { bytes: '' },
        u: '42',
      },
      {
        id: { int: '3' },
        i: { int: '-9223372036854775808' },
        d: { float: '0.30000000000000004' },
        b: null,
        ts: null,
        tsm: { datetime: '2025-01-02T03:04:05+00:00', tz: 'UTC' },
        j: null,
        t: null,
        bl: { bytes: Buffer.from('text in a blob').toString('hex') },
        u: '1.5',
      },
      {
        id: { int: '4' },
        i: null,
        d: { float: 'nan' },
        b: null,
        ts: null,
        tsm: null,
        j: null,
        t: '"',
        bl: null,
        u: '\\x01',
      },
      {
        id: { int: '5' },
        i: null,
        d: { float: 'inf' },
        b: null,
        ts: null,
        tsm: null,
        j: null,
        t: null,
        bl: null,
        u: null,
      },
      {
        id: { int: '6' },
        i: null,
        d: { float: '-1.7976931348623157e+308' },
        b: null,
        ts: null,
        tsm: null,
        j: null,
        t: null,
        bl: null,
        u: null,
      },
    ]);
  });

  it('writes the values of each column storage class on the CSV path, exactly', async () => {
    db.sqlite.exec(CREATE);
    const insert = db.sqlite.prepare('insert into odd values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    insert.run(
      1,
      9223372036854775807n,
      0.1,
      1,
      '2025-01-02T03:04:05.678Z',
      null,
      '{"a":[1,2]}',
      'a "quoted", text\nwith a line, żółć 😀',
      Buffer.from([0, 255]),
      'x',
    );
    insert.run(
      2,
      -9223372036854775808n,
      0.30000000000000004,
      0,
      '2025-01-02 03:04:05',
      null,
      '[]',
      '',
      Buffer.alloc(0),
      '',
    );
    insert.run(3, null, -1.7976931348623157e308, null, null, null, null, null, null, null);
    insert.run(4, 0, 5, null, null, null, null, '""', null, null);
    db.sqlite.exec(`insert into odd (id, d) values (5, 9e999)`);
    const out = join(dir, 'csv.parquet');
    expect(await csvPath('odd', out)).toEqual({ rows: 5, maxLoadId: null });
    const read = readParquetWithPyarrow(out);
    expect(read.schema.map((s) => s[1])).toEqual([
      'int64',
      'int64',
      'double',
      'bool',
      'timestamp[us, tz=UTC]',
      'int64',
      expect.stringMatching(/json|string/),
      'string',
      'binary',
      'string',
    ]);
    const nulls = { id: null, i: null, d: null, b: null, ts: null, tsm: null, j: null, t: null, bl: null, u: null };
    expect(read.rows).toEqual([
      {
        ...nulls,
        id: { int: '1' },
        i: { int: '9223372036854775807' },
        d: { float: '0.1' },
        b: true,
        ts: { datetime: '2025-01-02T03:04:05.678000+00:00', tz: 'UTC' },
        j: '{"a":[1,2]}',
        t: 'a "quoted", text\nwith a line, żółć 😀',
        bl: { bytes: '00ff' },
        u: 'x',
      },
      {
        ...nulls,
        id: { int: '2' },
        i: { int: '-9223372036854775808' },
        d: { float: '0.30000000000000004' },
        b: false,
        ts: { datetime: '2025-01-02T03:04:05+00:00', tz: 'UTC' },
        j: '[]',
        t: '',
        bl: { bytes: '' },
        u: '',
      },
      { ...nulls, id: { int: '3' }, d: { float: '-1.7976931348623157e+308' } },
      { ...nulls, id: { int: '4' }, i: { int: '0' }, d: { float: '5.0' }, t: '""' },
      { ...nulls, id: { int: '5' }, d: { float: 'inf' } },
    ]);
  });

  it('refuses a value the column cannot hold with the column named, and a boolean other than 0 or 1', async () => {
    db.sqlite.exec(CREATE);
    db.sqlite.prepare('insert into odd (id, i) values (1, ?)').run(2.5);
    await expect(exportTables(db, { tables: ['odd'], outDir: join(dir, 'out'), format: 'parquet' })).rejects.toThrow(
      /column "i" \(integer\) holds number 2\.5, not an integer; export it as CSV/i,
    );
    db.sqlite.exec('delete from odd');
    db.sqlite.prepare('insert into odd (id, b) values (1, 2)').run();
    await expect(exportTables(db, { tables: ['odd'], outDir: join(dir, 'out'), format: 'parquet' })).rejects.toThrow(
      /column "b" \(boolean\) holds bigint 2, not a boolean \(0\/1\); export it as CSV/i,
    );
    db.sqlite.exec('delete from odd');
    db.sqlite.prepare('insert into odd (id, ts) values (1, ?)').run('yesterday');
    await expect(exportTables(db, { tables: ['odd'], outDir: join(dir, 'out'), format: 'parquet' })).rejects.toThrow(
      /column "ts" \(timestamp\) holds 'yesterday', not an ISO 8601 timestamp/i,
    );
  });

  it('writes a row longer than DuckDB reads as one CSV record (the row path takes the table)', async () => {
    db.sqlite.exec(CREATE);
    const long = 'é'.repeat(9 * 1024 * 1024); // 18 MB of UTF-8
    db.sqlite.prepare('insert into odd (id, t) values (1, ?), (2, ?)').run(long, 'short');
    const [f] = await exportTables(db, { tables: ['odd'], outDir: join(dir, 'out'), format: 'parquet' });
    const rows = readParquetWithPyarrow(f!.file).rows;
    expect(rows.map((r) => (r['t'] as string).length)).toEqual([long.length, 5]);
    expect(rows[0]!['t'] === long).toBe(true);
  });
});
