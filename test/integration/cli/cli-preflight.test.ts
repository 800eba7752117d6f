// Everything checkable before a workflow starts is checked by `validate` and `run` (issue 10, defect 3): the
// destination database URL (read-only probe: nothing is created or migrated), and for `run` with the embedded
// worker the service settings. A problem is a pipeline-file error (exit 2) found in seconds, not a workflow
// that starts and then fails (or retries) on it.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeDatabase } from '../../../destinations/open.js';
import { stopDevServer } from '../../../temporal/dev-server.js';
import { runCli } from '../../support/cli.js';
import { testPostgresUrl } from '../../support/postgres.js';

let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-preflight-'));
});
afterAll(async () => {
  // Only a failing check would have started an embedded server in these data folders; stop it if so.
  for (const d of ['run-data-1', 'run-data-2']) await stopDevServer({ dataDir: path.join(dir, d) });
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A port nothing listens on (bound, then released). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** A pipeline file whose destination is `database`, written at a known line:col (line 6, col 13). */
function pipelineFile(name: string, database: string): string {
  const file = path.join(dir, `${name}.yaml`);
  fs.writeFileSync(
    file,
    [
      'name: preflight-test',
      'kind: results',
      'request:',
      '  per_page: 10',
      'destination:',
      `  database: "${database}"`,
      '',
    ].join('\n'),
  );
  return file;
}

function textFile(name: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, 'root:x:0:0:root:/root:/bin/bash\n'.repeat(20));
  return file;
}

describe('probeDatabase (read-only)', () => {
  it('an existing file that is not an SQLite database is an error saying so', async () => {
    const file = textFile('passwd-copy');
    await expect(probeDatabase(`sqlite:${file}`)).rejects.toThrow(/not an SQLite database/);
    // Looked at, not touched: no journal, no WAL, no migration.
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('passwd-copy'))).toEqual(['passwd-copy']);
  });

  it('an existing SQLite database passes and is left exactly as it was', async () => {
    const file = path.join(dir, 'existing.sqlite');
    const db = new BetterSqlite3(file);
    db.exec('CREATE TABLE t (x INTEGER)');
    db.close();
    const before = fs.readFileSync(file);
    await probeDatabase(`sqlite:${file}`);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('existing.sqlite'))).toEqual(['existing.sqlite']);
  });

  it('a missing file passes when its folder can be created, and nothing is created', async () => {
    const file = path.join(dir, 'not', 'yet', 'there.sqlite');
    await probeDatabase(`sqlite:${file}`);
    expect(fs.existsSync(path.join(dir, 'not'))).toBe(false);
  });

  it('a missing file under a regular file is an error naming that file', async () => {
    const blocker = textFile('blocker');
    await expect(probeDatabase(`sqlite:${path.join(blocker, 'sub', 'db.sqlite')}`)).rejects.toThrow(
      `${blocker} is not a folder`,
    );
  });

  it('a directory is not a database file', async () => {
    await expect(probeDatabase(`sqlite:${dir}`)).rejects.toThrow(/is a folder, not a database file/);
  });

  it('an unreachable Postgres is an error naming host:port, never the password', async () => {
    const port = await closedPort();
    const err = await probeDatabase(`postgres://etl:hunter2secret@127.0.0.1:${port}/warehouse`, {
      timeoutMs: 3000,
    }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toContain(`cannot reach Postgres at 127.0.0.1:${port}`);
    expect(err?.message).not.toContain('hunter2secret');
  });

  it('a Postgres database or role that does not exist is an error; an existing one passes', async () => {
    const url = await testPostgresUrl();
    await probeDatabase(url);
    const missingDb = new URL(url);
    missingDb.pathname = '/no_such_database_here';
    await expect(probeDatabase(missingDb.toString())).rejects.toThrow(/no_such_database_here.*does not exist/);
    const missingRole = new URL(url);
    missingRole.username = 'no_such_role_here';
    await expect(probeDatabase(missingRole.toString())).rejects.toThrow(/no_such_role_here/);
  }, 60_000);
});

describe('scrape-etl validate probes the destination', () => {
  it('a destination that is not a database is a pipeline-file error at destination.database, exit 2', async () => {
    const notDb = textFile('passwd-for-validate');
    const file = pipelineFile('not-a-db', `sqlite:${notDb}`);
    const r = await runCli(['validate', file]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      `${file}:6:13: destination.database: sqlite:${notDb}: ${notDb} is not an SQLite database`,
    );
  });

  it('an unreachable Postgres is reported with host:port; --offline skips the network probe', async () => {
    const port = await closedPort();
    const file = pipelineFile('pg-down', `postgres://etl:pw-not-shown@127.0.0.1:${port}/warehouse`);
    const r = await runCli(['validate', file]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${file}:6:13: destination.database: `);
    expect(r.stderr).toContain(`cannot reach Postgres at 127.0.0.1:${port}`);
    expect(r.stderr).not.toContain('pw-not-shown');

    const offline = await runCli(['validate', '--offline', file]);
    expect(offline.code, offline.stderr).toBe(0);
    expect(offline.stdout).toBe(`OK ${file}\n`);
  });
});

describe('scrape-etl run checks before anything starts', () => {
  it('refuses a destination that is not a database with exit 2, starting nothing', async () => {
    const notDb = textFile('passwd-for-run');
    const file = pipelineFile('run-not-a-db', `sqlite:${notDb}`);
    const dataDir = path.join(dir, 'run-data-1');
    const r = await runCli(['run', file], {
      cwd: dir,
      env: {
        SCRAPE_ETL_DATA_DIR: dataDir,
        TEMPORAL_ADDRESS: '',
        SCRAPER_BASE_URL: 'http://127.0.0.1:9',
        SCRAPER_API_TOKEN: 'preflight-token',
      },
      timeoutMs: 30_000,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      `${file}:6:13: destination.database: sqlite:${notDb}: ${notDb} is not an SQLite database`,
    );
    // No embedded Temporal server, no remembered run: nothing was started.
    expect(fs.existsSync(dataDir)).toBe(false);
  });

  it('refuses to run on the embedded worker without SCRAPER_BASE_URL / SCRAPER_API_TOKEN, saying what to set', async () => {
    const file = pipelineFile('run-no-service', `sqlite:${path.join(dir, 'ok.sqlite')}`);
    const dataDir = path.join(dir, 'run-data-2');
    const r = await runCli(['run', file], {
      cwd: dir,
      env: {
        SCRAPE_ETL_DATA_DIR: dataDir,
        TEMPORAL_ADDRESS: '',
        SCRAPER_BASE_URL: undefined,
        SCRAPER_API_TOKEN: undefined,
      },
      timeoutMs: 30_000,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('SCRAPER_BASE_URL');
    expect(r.stderr).toContain('SCRAPER_API_TOKEN');
    expect(r.stderr).toMatch(/scrape-etl simulate/);
    expect(fs.existsSync(dataDir)).toBe(false);
    // Read-only: the destination the run would have used was not created either.
    expect(fs.existsSync(path.join(dir, 'ok.sqlite'))).toBe(false);
  });
});
