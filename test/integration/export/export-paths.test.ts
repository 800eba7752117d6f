// Path traversal in export file names (issue 10, defect 9): `export --pipeline '../../pwn'` wrote outside --out.
// Every value substituted into a file name (pipeline, table, timestamp, the template itself) is checked and
// the written path must stay directly under the export directory. Through the real command and the module.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../../destinations/open.js';
import { exportTables } from '../../../export/csv.js';
import { renderFileName } from '../../../export/file-name.js';
import { runCli } from '../../support/cli.js';
import { insertScrapers, scraperRows } from '../../support/export-data.js';

let dir: string;
let dbUrl: string;
let out: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-paths-'));
  dbUrl = `sqlite:${join(dir, 'db.sqlite')}`;
  out = join(dir, 'deep', 'out');
  const db = (await openDatabase(dbUrl)) as SqliteDatabase;
  try {
    await insertScrapers(db, scraperRows('p1', 1n, 0n));
    // A table whose very name climbs out: SQLite allows any quoted identifier.
    db.sqlite.exec('create table "../../evil" (name text, pipeline text, load_id integer)');
    db.sqlite.exec(`insert into "../../evil" values ('x', 'p1', 1)`);
  } finally {
    await db.close();
  }
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every file under the temporary directory, relative to it: nothing may appear outside `deep/out`. */
async function filesUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(root.length + 1))
    .sort();
}

describe('export file names stay inside the export directory', () => {
  it("scrape-etl export --pipeline '../../pwn' fails with a clear error and writes nothing", async () => {
    const res = await runCli([
      'export',
      '--db',
      dbUrl,
      '--out',
      out,
      '--tables',
      'scrapers',
      '--pipeline',
      '../../pwn',
    ]);
    expect(await filesUnder(dir)).toEqual(['db.sqlite']);
    // A name that cannot be a file name is the caller's to fix: exit 2, as every configuration error (README, Exit codes).
    expect(res.code).toBe(2);
    // `--pipeline` takes a pipeline file or name (the project file work): a value with a path separator is a file,
    // and one that does not exist is refused before anything is opened. The export module's own refusal of such a
    // name is the API test below.
    expect(res.stderr).toContain('no pipeline file ../../pwn (file not found)');
  });

  it('a table name, a template or a combination that climbs out is refused too', async () => {
    const evil = await runCli(['export', '--db', dbUrl, '--out', out, '--tables', '../../evil']);
    expect(evil.code).toBe(1);
    expect(evil.stderr).toContain(
      'export: table "../../evil" cannot be used in a file name: it contains a path separator',
    );

    const template = await runCli([
      'export',
      '--db',
      dbUrl,
      '--out',
      out,
      '--tables',
      'scrapers',
      '--file-name',
      '../{table}.csv',
    ]);
    expect(template.code).toBe(1);
    expect(template.stderr).toContain('contains a path separator');

    // Each value alone is harmless, the name they make is the parent directory.
    const dots = await runCli([
      'export',
      '--db',
      dbUrl,
      '--out',
      out,
      '--tables',
      'scrapers',
      '--pipeline',
      '..',
      '--file-name',
      '{pipeline}',
    ]);
    expect(dots.code).toBe(1);
    expect(dots.stderr).toMatch(/export: pipeline "\.\." cannot be used in a file name/);
    expect(await filesUnder(dir)).toEqual(['db.sqlite']);
  });

  it('the module refuses the same through its API, before creating anything', async () => {
    const db = (await openDatabase(dbUrl)) as SqliteDatabase;
    try {
      for (const pipeline of ['../../pwn', 'a/b', 'a\\b', 'nul\0byte', 'line\nbreak', '.', '..']) {
        await expect(
          exportTables(db, { pipeline, tables: ['scrapers'], outDir: out }),
          JSON.stringify(pipeline),
        ).rejects.toThrow(/cannot be used in a file name/);
      }
      await expect(exportTables(db, { tables: ['../../evil'], outDir: out })).rejects.toThrow(
        /table "\.\.\/\.\.\/evil" cannot be used in a file name/,
      );
      expect(existsSync(out)).toBe(false);
      // Plain names, dots inside a name included, still work.
      await mkdir(out, { recursive: true });
      const [f] = await exportTables(db, {
        pipeline: 'p1',
        tables: ['scrapers'],
        outDir: out,
        fileName: '{pipeline}..{table}.csv',
      });
      expect(f!.file).toBe(join(out, 'p1..scrapers.csv'));
    } finally {
      await db.close();
    }
    expect(() => renderFileName('{timestamp}.csv', { pipeline: 'p', table: 't', timestamp: '../x' })).toThrow(
      /timestamp "\.\.\/x" cannot be used/,
    );
  });
});
