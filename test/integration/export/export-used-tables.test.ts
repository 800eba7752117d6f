// `scrape-etl export` without --pipeline writes the tables that hold rows, not a file of no rows for every table of
// the model the project never used (issue 36), and says each file's real row count, pluralised ("1 row", "7 rows"),
// checked against the files read with Python's csv. A database whose tables are all empty says so and writes nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { REAL_FIXTURES } from '../../support/fixtures.js';
import { readCsvWithPython } from '../../support/python-csv.js';

let dir: string;
let dbUrl: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-used-'));
  dbUrl = `sqlite:${path.join(dir, 'd.sqlite')}`;
  const r = await runCli([
    'load',
    'marketplace',
    path.join(REAL_FIXTURES, 'shopee-sync-response-1.json'),
    '--db',
    dbUrl,
    '--pipeline',
    'shop',
  ]);
  expect(r.code, r.stderr).toBe(0);
}, 60_000);

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('export without --pipeline', () => {
  it('writes only tables with rows, each line with its real count, pluralised', async () => {
    const out = path.join(dir, 'out');
    const r = await runCli(['export', '--database', dbUrl, '--out', out, '--file-name', '{table}.csv']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    const files = fs.readdirSync(out).sort();
    // The marketplace load wrote marketplace tables only: no job_records, scrapers, pdf_results... files.
    expect(files.length).toBeGreaterThan(0);
    expect(files.every((f) => f.startsWith('marketplace_'))).toBe(true);
    expect(lines).toHaveLength(files.length);
    for (const line of lines) {
      const m = /^(\w+): (\d+) (rows?) -> (.+)$/.exec(line);
      expect(m, line).not.toBeNull();
      const [, table, n, word, file] = m!;
      const dataRows = readCsvWithPython(file!).length - 1;
      expect(Number(n), line).toBe(dataRows);
      expect(dataRows).toBeGreaterThan(0);
      expect(word, line).toBe(dataRows === 1 ? 'row' : 'rows');
      expect(path.basename(file!)).toBe(`${table}.csv`);
    }
    expect(r.stdout).toMatch(/^marketplace_products: 1 row -> /m);
    expect(r.stdout).not.toMatch(/\b1 rows\b/);
  });

  it('a database whose data tables are all empty: nothing written, said in one line', async () => {
    const empty = `sqlite:${path.join(dir, 'empty.sqlite')}`;
    // A load creates every table of the model; its rows are then deleted, leaving every data table empty.
    const made = await runCli([
      'load',
      'marketplace',
      path.join(REAL_FIXTURES, 'shopee-sync-response-1.json'),
      '--db',
      empty,
      '--pipeline',
      'gone',
    ]);
    expect(made.code, made.stderr).toBe(0);
    const { openDatabase } = await import('../../../destinations/open.js');
    const db = await openDatabase(empty);
    try {
      if (db.dialect !== 'sqlite') throw new Error('sqlite expected');
      const tables = db.sqlite
        .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'marketplace_%'`)
        .all() as Array<{ name: string }>;
      db.sqlite.pragma('foreign_keys = OFF');
      for (const t of tables) db.sqlite.prepare(`DELETE FROM "${t.name}"`).run();
    } finally {
      await db.close();
    }
    const out = path.join(dir, 'out-empty');
    const r = await runCli(['export', '--database', empty, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('nothing to export: no table holds rows\n');
    expect(fs.existsSync(out) ? fs.readdirSync(out) : []).toEqual([]);
  });
});
