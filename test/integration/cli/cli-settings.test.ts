// The settings object through the compiled command (`npm run build` first), in spawned processes: one precedence,
// command flag > environment variable > project file > built-in default, for a few real settings (the destination a
// reading command opens, a worker's shutdown grace and log level, the data folder `up --print-systemd` names), and a
// malformed value reported with its variable, project key or flag and the fix (exit 2, nothing started). The
// project file's values reach no environment: a child of the command sees them only through the settings.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';

let root: string;
let bare: string;
/** Nothing of the test runner's own that would name another database, data folder, project or Temporal. */
const clean: NodeJS.ProcessEnv = {
  DATABASE_URL: undefined,
  SCRAPE_ETL_DATA_DIR: undefined,
  SCRAPE_ETL_PROJECT: undefined,
  TEMPORAL_ADDRESS: undefined,
  SCRAPE_ETL_SHUTDOWN_GRACE: undefined,
  SCRAPE_ETL_WORKER_LOG_LEVEL: undefined,
  SCRAPE_ETL_URL_LOAD_GROUP: undefined,
};

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-settings-')));
  fs.writeFileSync(
    path.join(root, 'scrape-etl.yaml'),
    'destination: sqlite:from-project.sqlite\ndata_dir: project-data\nworker:\n  shutdown_grace: 10s\n  log_level: INFO\n',
  );
  bare = path.join(root, 'outside');
  fs.mkdirSync(bare);
});

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

/** The database `status` looked for (none exists: it says which). */
function lookedFor(stderr: string): string {
  const m = /no database at (\S+)/.exec(stderr);
  expect(m, stderr).not.toBeNull();
  return m![1]!;
}

describe('settings precedence through the command', () => {
  it('the destination: --database > DATABASE_URL > the project file > the default', async () => {
    const byDefault = await runCli(['status'], { cwd: bare, env: { ...clean, SCRAPE_ETL_PROJECT: 'none' } });
    expect(lookedFor(byDefault.stderr)).toBe('sqlite:./data/scrape-etl.sqlite');
    const byProject = await runCli(['status'], { cwd: root, env: clean });
    expect(lookedFor(byProject.stderr)).toBe(`sqlite:${path.join(root, 'from-project.sqlite')}`);
    const byEnv = await runCli(['status'], {
      cwd: root,
      env: { ...clean, DATABASE_URL: `sqlite:${path.join(root, 'from-env.sqlite')}` },
    });
    expect(lookedFor(byEnv.stderr)).toBe(`sqlite:${path.join(root, 'from-env.sqlite')}`);
    const byFlag = await runCli(['status', '--database', `sqlite:${path.join(root, 'from-flag.sqlite')}`], {
      cwd: root,
      env: { ...clean, DATABASE_URL: `sqlite:${path.join(root, 'from-env.sqlite')}` },
    });
    expect(lookedFor(byFlag.stderr)).toBe(`sqlite:${path.join(root, 'from-flag.sqlite')}`);
    // A variable set to empty wins over the file, and means the default.
    const empty = await runCli(['status'], { cwd: root, env: { ...clean, DATABASE_URL: '' } });
    expect(lookedFor(empty.stderr)).toBe('sqlite:./data/scrape-etl.sqlite');
  }, 120_000);

  it("a worker's shutdown grace: the flag over the variable over the project file (the first one read is the one checked)", async () => {
    // The project's 10s is valid; a malformed variable over it is what the worker reads, and refuses.
    const env = await runCli(['worker'], { cwd: root, env: { ...clean, SCRAPE_ETL_SHUTDOWN_GRACE: 'soon' } });
    expect(env.code, env.stderr).toBe(2);
    expect(env.stderr).toContain(
      "SCRAPE_ETL_SHUTDOWN_GRACE='soon' is not a duration like '30s'; fix or unset the environment variable SCRAPE_ETL_SHUTDOWN_GRACE (or set worker.shutdown_grace in the project file)",
    );
    // A malformed flag over the same variable: the flag is read, and named.
    const flag = await runCli(['worker', '--shutdown-grace', 'later'], {
      cwd: root,
      env: { ...clean, SCRAPE_ETL_SHUTDOWN_GRACE: 'soon' },
    });
    expect(flag.code, flag.stderr).toBe(2);
    expect(flag.stderr).toContain("--shutdown-grace 'later' is not a duration like '30s'");
    expect(flag.stderr).not.toContain('SCRAPE_ETL_SHUTDOWN_GRACE');
    // A valid flag over the malformed variable: the grace is fine, and the worker goes on to the next setting it
    // reads (a malformed log level from the environment over the project's INFO), which names its variable.
    const next = await runCli(['worker', '--shutdown-grace', '5s'], {
      cwd: root,
      env: { ...clean, SCRAPE_ETL_SHUTDOWN_GRACE: 'soon', SCRAPE_ETL_WORKER_LOG_LEVEL: 'loud' },
    });
    expect(next.code, next.stderr).toBe(2);
    expect(next.stderr).toContain("SCRAPE_ETL_WORKER_LOG_LEVEL='loud' is not one of TRACE, DEBUG, INFO, WARN, ERROR");
    expect(next.stderr).not.toContain('SHUTDOWN_GRACE');
    // Nothing was started: no data folder, no server.
    expect(fs.existsSync(path.join(root, 'project-data'))).toBe(false);
  }, 120_000);

  it("the data folder `up --print-systemd` names: the variable over the project's data_dir", async () => {
    const unit = await runCli(['up', '--print-systemd'], { cwd: root, env: clean });
    expect(unit.code, unit.stderr).toBe(0);
    expect(unit.stdout).toContain(`Environment=SCRAPE_ETL_DATA_DIR=${path.join(root, 'project-data')}`);
    const fromEnv = path.join(root, 'env-data');
    const unitEnv = await runCli(['up', '--print-systemd'], {
      cwd: root,
      env: { ...clean, SCRAPE_ETL_DATA_DIR: fromEnv },
    });
    expect(unitEnv.code, unitEnv.stderr).toBe(0);
    expect(unitEnv.stdout).toContain(`Environment=SCRAPE_ETL_DATA_DIR=${fromEnv}`);
  }, 120_000);
});

describe('a wrong value', () => {
  it('from the environment names the variable and the fix, and starts nothing', async () => {
    const r = await runCli(['worker'], {
      cwd: bare,
      env: {
        ...clean,
        SCRAPE_ETL_PROJECT: 'none',
        SCRAPE_ETL_URL_LOAD_GROUP: 'many',
        SCRAPE_ETL_DATA_DIR: path.join(bare, 'data'),
      },
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      "scrape-etl: SCRAPE_ETL_URL_LOAD_GROUP='many' must be a positive integer; fix or unset the environment variable SCRAPE_ETL_URL_LOAD_GROUP (or set worker.url_load_group in the project file)",
    );
    expect(fs.existsSync(path.join(bare, 'data'))).toBe(false);
  }, 120_000);

  it('from the project file names the file, line and key with what is expected', async () => {
    const dir = path.join(root, 'broken');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'scrape-etl.yaml'), 'worker:\n  url_load_group: many\n');
    const r = await runCli(['worker'], { cwd: dir, env: clean });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${path.join(dir, 'scrape-etl.yaml')}:2:`);
    expect(r.stderr).toContain('worker.url_load_group');
  }, 120_000);
});
