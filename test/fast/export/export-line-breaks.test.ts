// CSV cells holding a bare CR or LF (issue 10, defect 8). csv-stringify quotes only the exact record delimiter,
// so with CRLF records a lone "\r" or "\n" went out unquoted: "\r=1+1" split a record and left an
// un-neutralised "=1+1" cell; "Zürich\nRemote" broke Python's csv reader. Every file here is read back by
// Python's csv module in strict mode, for both record delimiters.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../../destinations/open.js';
import { exportTables } from '../../../export/csv.js';
import { insertScrapers, scraperRows, type ScraperRow } from '../../support/export-data.js';
import { readCsvWithPython } from '../../support/python-csv.js';

// Line breaks on their own, in every position, and in front of formula triggers.
const LINE_BREAK_TEXT = [
  '\r=1+1',
  '\n=1+1',
  '\r\n=1+1',
  'Zürich\nRemote',
  'Zürich\rRemote',
  'a\r\nb',
  'ends with CR\r',
  'ends with LF\n',
  '\n',
  '\r',
  '\t@SUM(A1)',
  '\n-2+3',
  '\r+cmd',
  'x,\ny',
  'quote "\r" inside',
];

let dir: string;
let db: SqliteDatabase;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-breaks-'));
  db = (await openDatabase(`sqlite:${join(dir, 'db.sqlite')}`)) as SqliteDatabase;
});
afterEach(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

function rowsWith(texts: string[]): ScraperRow[] {
  const base = scraperRows('p', 1n, 0n)[1]!;
  return texts.map((name, i) => ({ ...base, id: BigInt(100 + i), name, row_hash: `h${i}` }));
}

// What a spreadsheet must not run: the OWASP triggers, after any run of leading CR, LF or tab.
const expectNeutralised = (t: string) => (/^[\r\n\t]*[=+\-@]/.test(t) || /^[\r\n\t]/.test(t) ? `'${t}` : t);

describe('CSV cells with line breaks, read by Python', () => {
  for (const lineEnding of ['crlf', 'lf'] as const) {
    it(`quotes every cell holding CR or LF with ${lineEnding} records, values exact`, async () => {
      const rows = rowsWith(LINE_BREAK_TEXT);
      await insertScrapers(db, rows);
      const [f] = await exportTables(db, {
        tables: ['scrapers'],
        outDir: join(dir, lineEnding),
        lineEnding,
        neutralizeFormulas: false,
        columns: { scrapers: ['id', 'name'] },
      });
      const [header, ...records] = readCsvWithPython(f!.file);
      expect(header).toEqual(['id', 'name']);
      expect(records).toEqual(rows.map((r) => [r.id.toString(), r.name]));
    });

    it(`neutralises formulas behind leading CR, LF or tab with ${lineEnding} records`, async () => {
      const rows = rowsWith(LINE_BREAK_TEXT);
      await insertScrapers(db, rows);
      const [f] = await exportTables(db, {
        tables: ['scrapers'],
        outDir: join(dir, lineEnding),
        lineEnding,
        columns: { scrapers: ['id', 'name'] },
      });
      const records = readCsvWithPython(f!.file).slice(1);
      expect(records).toHaveLength(rows.length);
      const names = records.map((r) => r[1]!);
      expect(names).toEqual(rows.map((r) => expectNeutralised(r.name!)));
      // No cell, anywhere, starts with a formula trigger once leading whitespace is ignored.
      for (const cell of records.flat()) expect(cell, JSON.stringify(cell)).not.toMatch(/^[\s]*[=+@]|^[\s]*-(?!\d+$)/);
    });
  }

  it('a header cell with a line break is quoted too', async () => {
    db.sqlite.exec('create table odd ("multi\nline" text, "cr\rname" text, pipeline text, load_id integer)');
    db.sqlite.prepare('insert into odd values (?, ?, ?, ?)').run('v\r1', 'v2', 'p', 1);
    const [f] = await exportTables(db, { tables: ['odd'], outDir: join(dir, 'odd'), lineEnding: 'lf' });
    expect(readCsvWithPython(f!.file)).toEqual([
      ['multi\nline', 'cr\rname', 'pipeline', 'load_id'],
      ['v\r1', 'v2', 'p', '1'],
    ]);
  });
});
