// Parquet from SQLite takes the CSV path (export/formats/parquet-sqlite.ts: SQLite writes each row as a CSV record,
// DuckDB reads it): every kind of value SQLite's dynamic typing lets a column hold must arrive in the file as the
// row path wrote it, with its exact type, read back by pyarrow. Values SQL writes itself (integers, reals, quoted
// text, hex blobs) and values it hands to the JavaScript cell function (an integral real in an INTEGER column, NaN
// text in a REAL column, epoch milliseconds, text in a BLOB column, numbers and blobs in an untyped column) both.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../../db/connect.js';
import { exportTables } from '../../../export/export.js';
import { readParquetWithPyarrow } from '../../support/python-readers.js';

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

const CREATE = 'create table odd (id integer, i integer, d real, b boolean, ts timestamp, tsm integer, j json, t text, bl blob, u)';

describe('Parquet from SQLite, value by value', () => {
  it('writes every value SQLite can hold in a typed column with its exact type and value', async () => {
    db.sqlite.exec(CREATE);
    const insert = db.sqlite.prepare('insert into odd values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    insert.run(1, 9223372036854775807n, 0.1, 1, '2025-01-02T03:04:05.678Z', 1735787045678, '{"a":[1,2]}', 'a "quoted", text\nwith a line, żółć 😀', Buffer.from([0, 255]), 'x');
    insert.run(2, 3.0, 5, 0, '2025-01-02 03:04:05', null, '[]', '', Buffer.alloc(0), 42);
    insert.run(3, -9223372036854775808n, 0.30000000000000004, null, null, '2025-01-02T03:04:05Z', null, null, 'text in a blob', 1.5);
    insert.run(4, null, 'NaN', null, null, null, null, '"', null, Buffer.from([1]));
    db.sqlite.exec(`insert into odd (id, d) values (5, 9e999), (6, -1.7976931348623157e308)`);

    const [f] = await exportTables(db, { tables: ['odd'], outDir: join(dir, 'out'), format: 'parquet', columnHints: { odd: { tsm: 'timestamp_ms' } } });
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
      { id: { int: '4' }, i: null, d: { float: 'nan' }, b: null, ts: null, tsm: null, j: null, t: '"', bl: null, u: '\\x01' },
      { id: { int: '5' }, i: null, d: { float: 'inf' }, b: null, ts: null, tsm: null, j: null, t: null, bl: null, u: null },
      { id: { int: '6' }, i: null, d: { float: '-1.7976931348623157e+308' }, b: null, ts: null, tsm: null, j: null, t: null, bl: null, u: null },
    ]);
  });

  it('refuses a value the column cannot hold with the column named, and a boolean other than 0 or 1', async () => {
    db.sqlite.exec(CREATE);
    db.sqlite.prepare('insert into odd (id, i) values (1, ?)').run(2.5);
    await expect(exportTables(db, { tables: ['odd'], outDir: join(dir, 'out'), format: 'parquet' })).rejects.toThrow(/column "i" \(integer\) holds number 2\.5, not an integer; export it as CSV/i);
    db.sqlite.exec('delete from odd');
    db.sqlite.prepare('insert into odd (id, b) values (1, 2)').run();
    await expect(exportTables(db, { tables: ['odd'], outDir: join(dir, 'out'), format: 'parquet' })).rejects.toThrow(/column "b" \(boolean\) holds bigint 2, not a boolean \(0\/1\); export it as CSV/i);
    db.sqlite.exec('delete from odd');
    db.sqlite.prepare('insert into odd (id, ts) values (1, ?)').run('yesterday');
    await expect(exportTables(db, { tables: ['odd'], outDir: join(dir, 'out'), format: 'parquet' })).rejects.toThrow(/column "ts" \(timestamp\) holds 'yesterday', not an ISO 8601 timestamp/i);
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
