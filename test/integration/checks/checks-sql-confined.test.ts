// `sql:` checks read only the destination (issue 37): on real SQLite and DuckDB files and a real Postgres server, a
// check that tries to read a file of the machine (`read_text`, `read_csv`, a file name as a table, `pg_read_file`,
// `pg_ls_dir`, `COPY`, `lo_import`), another database (`ATTACH`), or to smuggle a second statement past the wrapper
// is refused: it ends in `error`, stores no failing keys, and what it tried to read appears nowhere in
// check_results. An ordinary `sql:` check still fails with its rows. A check's stored failing keys are capped.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  evaluateChecks,
  listCheckResults,
  recordCheckResults,
  MAX_FAILING_KEYS_BYTES,
} from '../../../checks/evaluate.js';
import { openDatabase, type Database } from '../../../destinations/open.js';
import { withTransaction } from '../../../db/store/sql.js';
import type { CheckSpec } from '../../../pipelines/spec.js';
import { testPostgresUrl } from '../../support/postgres.js';

const SECRET = 'Sq1-check-secret-7f3a9d';
let dir: string;
let secretFile: string;
let otherDb: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-sql-confined-'));
  secretFile = path.join(dir, 'secret.key');
  fs.writeFileSync(secretFile, `${SECRET}\n`);
  otherDb = path.join(dir, 'other');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const sqlCheck = (name: string, sql: string): CheckSpec => ({ name, type: 'sql', sql, severity: 'error' }) as CheckSpec;

/** Attempts every destination must refuse; names say what each tries. */
function attempts(engine: 'sqlite' | 'duckdb' | 'postgres'): Array<[string, string]> {
  const other = `${otherDb}.${engine === 'duckdb' ? 'duckdb' : 'sqlite'}`;
  return [
    ['read_text', `SELECT content FROM read_text('${secretFile}')`],
    ['read_text in a subquery', `SELECT (SELECT content FROM read_text('${secretFile}')) AS c, 1 AS n`],
    ['read_csv', `SELECT * FROM read_csv('${secretFile}', header = false)`],
    ['read_csv of /etc/passwd', "SELECT * FROM read_csv('/etc/passwd', header = false, delim = ':')"],
    ['a file name as a table', `SELECT * FROM '${secretFile}'`],
    ['read_blob', `SELECT content FROM read_blob('${secretFile}')`],
    ['glob', "SELECT * FROM glob('/etc/*')"],
    ['readfile (SQLite shell)', `SELECT readfile('${secretFile}') AS c`],
    ['load_extension', "SELECT load_extension('/nonexistent/ext') AS c"],
    ['pg_read_file', `SELECT pg_read_file('${engine === 'postgres' ? 'PG_VERSION' : secretFile}') AS c`],
    ['pg_read_file of an absolute path', `SELECT pg_read_file('${secretFile}') AS c`],
    ['pg_read_binary_file', "SELECT pg_read_binary_file('PG_VERSION') AS c"],
    ['pg_ls_dir', "SELECT pg_ls_dir('.') AS c"],
    ['lo_import', `SELECT lo_import('${secretFile}') AS c`],
    ['ATTACH', `ATTACH '${other}' AS other_db`],
    [
      'ATTACH smuggled after the wrapper',
      `SELECT 1 AS n) AS a; ATTACH '${other}' AS other_db; SELECT * FROM (SELECT 1 AS n`,
    ],
    [
      'COPY smuggled after the wrapper',
      `SELECT 1 AS n) AS a; COPY (SELECT 1) TO '${path.join(dir, `copied-${engine}.csv`)}'; SELECT * FROM (SELECT 1 AS n`,
    ],
    ['COMMIT smuggled after the wrapper', 'SELECT 1 AS n) AS a; COMMIT; SELECT * FROM (SELECT 1 AS n'],
    ['COPY FROM a file', `COPY scrape_etl_probe FROM '${secretFile}'`],
  ];
}

async function seed(db: Database): Promise<void> {
  await withTransaction(db, async (tx) => {
    await tx.run('CREATE TABLE IF NOT EXISTS confined_items (id integer, title text)', []);
    await tx.run('DELETE FROM confined_items', []);
    await tx.run("INSERT INTO confined_items VALUES (1, 'alpha'), (2, 'beta'), (3, 'gamma')", []);
  });
}

async function expectConfined(db: Database, engine: 'sqlite' | 'duckdb' | 'postgres'): Promise<void> {
  await seed(db);
  const list = attempts(engine);
  const results = await evaluateChecks(db, {
    pipeline: 'p',
    workflowId: `w-${engine}`,
    checks: list.map(([name, sql]) => sqlCheck(name, sql)),
  });
  for (const r of results) {
    expect(r.status, `${engine}: ${r.name}: ${r.message}`).toBe('error');
    expect(r.failingKeys, `${engine}: ${r.name}`).toBeNull();
    expect(r.message).not.toContain(SECRET);
    expect(r.message).not.toContain('root:x:0:0');
  }
  expect(fs.existsSync(path.join(dir, `copied-${engine}.csv`)), `${engine}: COPY wrote a file`).toBe(false);
  expect(
    fs.existsSync(`${otherDb}.duckdb`) || fs.existsSync(`${otherDb}.sqlite`),
    `${engine}: ATTACH made a database`,
  ).toBe(false);
  await recordCheckResults(db, 'p', `w-${engine}`, results);
  const stored = JSON.stringify(await listCheckResults(db, { workflowId: `w-${engine}` }));
  expect(stored).not.toContain(SECRET);
  expect(stored).not.toContain('root:x:0:0');

  // The refusals say why, in a sentence a user can act on.
  const byName = new Map(results.map((r) => [r.name, r.message]));
  expect(byName.get('COMMIT smuggled after the wrapper')).toMatch(
    /one SELECT statement|more than one statement|multiple commands/i,
  );
  if (engine === 'duckdb')
    expect(byName.get('read_text')).toMatch(
      /reads only this database's tables; this one uses the table function read_text\(\)/,
    );
  if (engine === 'postgres') expect(byName.get('pg_read_file')).toMatch(/permission denied for function pg_read_file/);

  // An ordinary check still works: its rows are the failing keys; a passing one passes.
  const [failing, passing, joined] = await evaluateChecks(db, {
    pipeline: 'p',
    workflowId: `w2-${engine}`,
    checks: [
      sqlCheck('titles', "SELECT id, title FROM confined_items WHERE title <> 'alpha' ORDER BY id"),
      sqlCheck('none', 'SELECT id FROM confined_items WHERE id > 100'),
      sqlCheck(
        'cte and join',
        'WITH t AS (SELECT id FROM confined_items) SELECT a.id FROM t a JOIN confined_items b ON a.id = b.id WHERE b.id = 3',
      ),
    ],
  });
  expect(failing!.status, failing!.message).toBe('fail');
  expect(failing!.failingKeys).toEqual([
    { id: 2, title: 'beta' },
    { id: 3, title: 'gamma' },
  ]);
  expect(passing!.status, passing!.message).toBe('pass');
  expect(joined!.status, joined!.message).toBe('fail');
  expect(joined!.failingKeys).toEqual([{ id: 3 }]);

  // Failing keys are capped in size: ten rows of 100 kB each are stored as a bounded sample.
  const [big] = await evaluateChecks(db, {
    pipeline: 'p',
    workflowId: `w3-${engine}`,
    checks: [
      sqlCheck(
        'wide',
        `SELECT id, ${engine === 'sqlite' ? "printf('%.*c', 100000, 'x')" : "repeat('x', 100000)"} AS blob FROM confined_items`,
      ),
    ],
  });
  expect(big!.status).toBe('fail');
  expect(JSON.stringify(big!.failingKeys).length).toBeLessThanOrEqual(MAX_FAILING_KEYS_BYTES);
  expect(big!.message).toMatch(/failing keys cut to/);
}

describe('sql: checks read only the destination', () => {
  it('SQLite', async () => {
    const db = await openDatabase(`sqlite:${path.join(dir, 'confined.sqlite')}`);
    try {
      await expectConfined(db, 'sqlite');
    } finally {
      await db.close();
    }
  }, 120_000);

  it('DuckDB', async () => {
    const db = await openDatabase(`duckdb:${path.join(dir, 'confined.duckdb')}`);
    try {
      await expectConfined(db, 'duckdb');
      // External access stays on for the process: an export's COPY TO works after the checks.
      const out = path.join(dir, 'after-checks.csv');
      if (db.dialect !== 'duckdb') throw new Error('not DuckDB');
      await db.session((c) => c.run(`COPY (SELECT 42 AS answer) TO '${out}' (HEADER)`));
      expect(fs.readFileSync(out, 'utf8').trim().split('\n')).toEqual(['answer', '42']);
    } finally {
      await db.close();
    }
  }, 120_000);

  it('Postgres (the destination user is a superuser)', async () => {
    const db = await openDatabase(await testPostgresUrl());
    try {
      await expectConfined(db, 'postgres');
    } finally {
      await db.close();
    }
  }, 180_000);

  it('Postgres: an ordinary destination user is denied by the server itself; one that may read files but cannot make the reader role is refused with what to do', async () => {
    // Each role owns a fresh database of its own, as a destination user does.
    const as = async (role: string, extra: string): Promise<string> => {
      const url = new URL(await testPostgresUrl());
      const admin = new pg.Client({ connectionString: url.toString() });
      await admin.connect();
      try {
        await admin.query(
          `DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role}') THEN CREATE ROLE ${role} LOGIN PASSWORD 'pw'; END IF; END $$`,
        );
        await admin.query(`ALTER DATABASE ${url.pathname.slice(1)} OWNER TO ${role}`);
        await admin.query(`ALTER SCHEMA public OWNER TO ${role}`);
        if (extra) await admin.query(extra);
      } finally {
        await admin.end();
      }
      url.username = role;
      url.password = 'pw';
      return url.toString();
    };
    const plain = await openDatabase(await as('checks_plain', ''));
    try {
      await expectConfined(plain, 'postgres');
    } finally {
      await plain.close();
    }
    const files = await openDatabase(await as('checks_files', 'GRANT pg_read_server_files TO checks_files'));
    try {
      await seed(files);
      const [r] = await evaluateChecks(files, {
        pipeline: 'p',
        workflowId: 'w-files',
        checks: [sqlCheck('pg_read_file', "SELECT pg_read_file('PG_VERSION') AS c")],
      });
      expect(r!.status).toBe('error');
      expect(r!.message).toContain(
        "refused: the destination user checks_files can read the server's files (member of pg_read_server_files), so sql: checks run as the role scrape_etl_check_reader",
      );
      expect(r!.message).toContain('connect as a user without those rights');
    } finally {
      await files.close();
    }
  }, 180_000);
});
