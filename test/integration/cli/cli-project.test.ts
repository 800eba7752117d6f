// The project file and pipelines by name (compiled CLI: `npm run build` first; real SQLite files, the simulator
// over HTTP, `scrape-etl load` for runs):
// - in a project whose destination is not the default (a SQLite file in a folder of its own), status, history,
//   schema show and export find a pipeline's runs by its name from a subfolder, with no --database;
// - a relative destination written in a pipeline file is the project root's, from any folder;
// - the commands that only read the database load no Temporal code (the modules they load are recorded);
// - project file errors name file:line:col and the fix; ambiguous names list the files;
// - precedence: flag > environment variable > project file > built-in default;
// - the same in a project whose destination is Postgres (its URL from a ${VAR} of the project file);
// - exit codes of the README's table for a few representative mistakes.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScraperClient } from '../../../client/index.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { jsonLines, REPO_ROOT, runCli } from '../../support/cli.js';
import { JOB_SCHEMA } from '../../support/job-schema.js';
import { testPostgresUrl } from '../../support/postgres.js';

const TOKEN = `tok-${crypto.randomBytes(8).toString('hex')}`;
let sim: RunningSimulator;
let root: string;
let sub: string;
let answer: string;
/** Environment without anything that would name another database, data folder or project. */
const env: NodeJS.ProcessEnv = {
  DATABASE_URL: undefined,
  SCRAPE_ETL_DATA_DIR: undefined,
  SCRAPE_ETL_PROJECT: undefined,
  TEMPORAL_ADDRESS: undefined,
};

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

beforeAll(async () => {
  sim = await startSimulator({ port: 0, token: TOKEN, seed: 5 });
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-project-')));
  sub = path.join(root, 'reports', 'weekly');
  fs.mkdirSync(sub, { recursive: true });
  write(
    path.join(root, 'scrape-etl.yaml'),
    'pipelines:\n  - jobs/**/*.yaml\ndestination: sqlite:warehouse/main.sqlite\n',
  );
  // `jobs` has no destination (the project's); `other` writes its own, relative to the project root.
  const example = fs.readFileSync(path.join(REPO_ROOT, 'pipelines', 'examples', 'job-board.yaml'), 'utf8');
  write(path.join(root, 'jobs', 'jobs.yaml'), example.replace('name: jobs-remote-typescript', 'name: jobs'));
  write(
    path.join(root, 'jobs', 'nested', 'other.yaml'),
    example.replace('name: jobs-remote-typescript', 'name: other\ndestination:\n  database: sqlite:side/other.sqlite'),
  );
  const client = new ScraperClient({ baseUrl: sim.baseUrl, token: TOKEN });
  const api = await client.jobBoardScrape({
    urls: ['https://weworkremotely.com/remote-jobs/search?term=p'],
    min: 2,
    max: 5,
    timeout: 60,
    schema: JOB_SCHEMA,
  } as never);
  answer = path.join(root, 'answer.json');
  fs.writeFileSync(answer, api.raw);
  // Two runs of `jobs` into the project's destination (load reads DATABASE_URL, which the project fills), run
  // from the subfolder; one of `other` into its own file.
  for (let i = 0; i < 2; i++) {
    const r = await runCli(['load', 'job-board', answer, '--pipeline', 'jobs'], { cwd: sub, env });
    expect(r.code, r.stderr).toBe(0);
  }
  const o = await runCli(
    [
      'load',
      'job-board',
      answer,
      '--pipeline',
      'other',
      '--database',
      `sqlite:${path.join(root, 'side', 'other.sqlite')}`,
    ],
    { cwd: sub, env },
  );
  expect(o.code, o.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await sim?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** The command run with every module it loads recorded; returns its result and the module URLs. */
async function traced(args: string[], cwd: string, extra: NodeJS.ProcessEnv = {}) {
  const trace = path.join(root, `trace-${crypto.randomBytes(4).toString('hex')}.txt`);
  const r = await runCli(args, {
    cwd,
    env: {
      ...env,
      ...extra,
      SCRAPE_ETL_MODULE_TRACE: trace,
      NODE_OPTIONS: `--import ${path.join(REPO_ROOT, 'test', 'support', 'module-trace.mjs')}`,
    },
  });
  const modules = fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean) : [];
  return { ...r, modules };
}

describe('a project: pipelines by name, from a subfolder, in a destination that is not the default', () => {
  it('status, history and schema show find the runs by pipeline name, load no Temporal code, and create nothing in the subfolder', async () => {
    const status = await traced(['status', 'jobs', '--json'], sub);
    expect(status.code, status.stderr).toBe(0);
    const runs = jsonLines(status.stdout);
    expect(runs).toHaveLength(2);
    for (const r of runs) expect(r).toMatchObject({ pipeline: 'jobs', tableStatus: 'succeeded' });

    const history = await traced(['history', 'jobs'], sub);
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toMatch(/^2 run\(s\): 2 succeeded/m);

    // job-board rows go to model tables: no inferred ones, said with the database that was read.
    const schema = await traced(['schema', 'show', 'jobs'], sub);
    expect(schema.code, schema.stderr).toBe(0);
    expect(schema.stdout).toContain(
      `pipeline 'jobs' has no inferred tables or columns in sqlite:${path.join(root, 'warehouse', 'main.sqlite')}`,
    );

    const out = path.join(root, 'out');
    const exported = await traced(['export', '--pipeline', 'jobs', '--out', out, '--json'], sub);
    expect(exported.code, exported.stderr).toBe(0);
    expect(jsonLines(exported.stdout).length).toBeGreaterThan(0);

    for (const r of [status, history, schema, exported]) {
      // The trace works (the command's own modules are in it) and holds no Temporal SDK module.
      expect(r.modules.some((m) => m.includes('/dist/cli/launch.js'))).toBe(true);
      expect(r.modules.filter((m) => m.includes('@temporalio'))).toEqual([]);
    }
    // The runs were read from the project's destination; nothing was created where the commands ran.
    expect(fs.existsSync(path.join(root, 'warehouse', 'main.sqlite'))).toBe(true);
    expect(fs.readdirSync(sub)).toEqual([]);
  });

  it("a pipeline file's relative destination is the project root's; a name the files do not hold reads the default database", async () => {
    const other = await runCli(['history', 'other', '--json'], { cwd: sub, env });
    expect(other.code, other.stderr).toBe(0);
    expect(jsonLines(other.stdout)).toHaveLength(1);
    // By file, from another folder: the same database.
    const byFile = await runCli(['status', path.join(root, 'jobs', 'nested', 'other.yaml'), '--json'], {
      cwd: os.tmpdir(),
      env,
    });
    expect(byFile.code, byFile.stderr).toBe(0);
    expect(jsonLines(byFile.stdout).map((r) => r['pipeline'])).toEqual(['other']);
    // Not a pipeline of the project: the project's destination, which has no runs of it.
    const unknown = await runCli(['history', 'nobody'], { cwd: sub, env });
    expect(unknown.code, unknown.stderr).toBe(0);
    expect(unknown.stdout).toContain(`no runs of 'nobody' in sqlite:${path.join(root, 'warehouse', 'main.sqlite')}`);
  });

  it('validate, prune and rebuild take names; `run` with an unknown name is a usage error naming the project', async () => {
    const v = await runCli(['validate', '--offline'], { cwd: sub, env });
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout.trim().split('\n').sort()).toEqual(['OK ../../jobs/jobs.yaml', 'OK ../../jobs/nested/other.yaml']);
    const p = await runCli(['prune', 'jobs'], { cwd: sub, env });
    expect(p.code, p.stderr).toBe(0);
    expect(p.stdout).toContain('jobs: no retention section');
    // The name reached the pipeline file: its kind is what rebuild refuses (job-board rows are in model tables).
    const rb = await runCli(['rebuild', 'jobs'], { cwd: sub, env });
    expect(rb.code).toBe(2);
    expect(rb.stderr).toContain(
      "pipeline 'jobs' is of kind job-board, which has no inferred content tables to rebuild",
    );
    const run = await runCli(['run', 'jobz'], { cwd: sub, env: { ...env, SCRAPER_API_TOKEN: TOKEN } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `no pipeline named 'jobz' among the files jobs/**/*.yaml of ${path.join(root, 'scrape-etl.yaml')}`,
    );
    expect(run.stderr).toContain("did you mean 'jobs'?");
  });

  it('two files with the same name: the name is ambiguous and both files are listed (exit 2)', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-project-twice-')));
    try {
      write(path.join(dir, 'scrape-etl.yaml'), '');
      write(
        path.join(dir, 'pipelines', 'a.yaml'),
        'name: same\nkind: job-board\nrequest:\n  urls: [https://weworkremotely.com/x]\n',
      );
      write(
        path.join(dir, 'pipelines', 'b.yaml'),
        'name: same\nkind: job-board\nrequest:\n  urls: [https://weworkremotely.com/y]\n',
      );
      const r = await runCli(['history', 'same'], { cwd: dir, env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("pipeline name 'same' is ambiguous");
      expect(r.stderr).toContain('pipelines/a.yaml');
      expect(r.stderr).toContain('pipelines/b.yaml');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the project file', () => {
  it('every problem at its line:col with the fix, exit 2, for any command', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-project-bad-')));
    try {
      const file = path.join(dir, 'scrape-etl.yaml');
      write(
        file,
        'pipelines: [pipelines/*.yaml]\ndestinaton: sqlite:x.sqlite\ntemporal:\n  address: localhost\nworker:\n  url_chunk_size: 0\n',
      );
      const r = await runCli(['status'], { cwd: dir, env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${file}:2:1: destinaton: unknown setting; did you mean 'destination'?`);
      expect(r.stderr).toContain(`${file}:4:12: temporal.address: expected host:port`);
      expect(r.stderr).toContain(`${file}:6:19: worker.url_chunk_size: expected a positive whole number`);
      // Help still works beside a broken project file.
      const help = await runCli(['--help'], { cwd: dir, env });
      expect(help.code).toBe(0);
      write(file, 'destination: sqlite:${WAREHOUSE_DIR}/x.sqlite\n');
      const unset = await runCli(['status'], { cwd: dir, env: { ...env, WAREHOUSE_DIR: undefined } });
      expect(unset.code).toBe(2);
      expect(unset.stderr).toContain(`${file}:1:14: destination: \${WAREHOUSE_DIR} is not set`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('precedence: command flag > environment variable > project file > built-in default', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-project-order-')));
    try {
      // Databases that do not exist: the error names the one each command chose.
      const fromFile = path.join(dir, 'from-file.sqlite');
      const fromEnv = path.join(dir, 'from-env.sqlite');
      const fromFlag = path.join(dir, 'from-flag.sqlite');
      const none = await runCli(['status'], { cwd: dir, env });
      expect(none.stderr).toContain(`no database at sqlite:./data/scrape-etl.sqlite`);
      write(path.join(dir, 'scrape-etl.yaml'), `destination: sqlite:from-file.sqlite\ndata_dir: state\n`);
      const file = await runCli(['status'], { cwd: dir, env });
      expect(file.code).toBe(1);
      expect(file.stderr).toContain(`no database at sqlite:${fromFile}`);
      const envWins = await runCli(['status'], { cwd: dir, env: { ...env, DATABASE_URL: `sqlite:${fromEnv}` } });
      expect(envWins.stderr).toContain(`no database at sqlite:${fromEnv}`);
      const flagWins = await runCli(['status', '--database', `sqlite:${fromFlag}`], {
        cwd: dir,
        env: { ...env, DATABASE_URL: `sqlite:${fromEnv}` },
      });
      expect(flagWins.stderr).toContain(`no database at sqlite:${fromFlag}`);
      // A setting without a flag: the data folder (the embedded server's), file < environment.
      const dataFromFile = await runCli(['server', 'status'], { cwd: dir, env });
      expect(dataFromFile.stdout).toContain(`no embedded Temporal server in ${path.join(dir, 'state')}`);
      const dataFromEnv = await runCli(['server', 'status'], {
        cwd: dir,
        env: { ...env, SCRAPE_ETL_DATA_DIR: path.join(dir, 'elsewhere') },
      });
      expect(dataFromEnv.stdout).toContain(`no embedded Temporal server in ${path.join(dir, 'elsewhere')}`);
      // SCRAPE_ETL_PROJECT=none: the built-in defaults again.
      const ignored = await runCli(['status'], { cwd: dir, env: { ...env, SCRAPE_ETL_PROJECT: 'none' } });
      expect(ignored.stderr).toContain('no database at sqlite:./data/scrape-etl.sqlite');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('init writes a project and refuses to overwrite it', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-project-init-')));
    try {
      const first = await runCli(['init', 'proj'], { cwd: dir, env });
      expect(first.code, first.stderr).toBe(0);
      const before = fs.readFileSync(path.join(dir, 'proj', 'scrape-etl.yaml'), 'utf8');
      fs.appendFileSync(path.join(dir, 'proj', 'scrape-etl.yaml'), '# mine\n');
      const again = await runCli(['init', 'proj'], { cwd: dir, env });
      expect(again.code).toBe(2);
      expect(again.stderr).toContain('already exist');
      expect(fs.readFileSync(path.join(dir, 'proj', 'scrape-etl.yaml'), 'utf8')).toBe(`${before}# mine\n`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a project on Postgres', () => {
  it('status and history by name from a subfolder read the Postgres destination the project file names through ${VAR}', async () => {
    const url = await testPostgresUrl();
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-project-pg-')));
    try {
      write(path.join(dir, 'scrape-etl.yaml'), 'destination: ${WAREHOUSE_URL}\n');
      const example = fs.readFileSync(path.join(REPO_ROOT, 'pipelines', 'examples', 'job-board.yaml'), 'utf8');
      write(path.join(dir, 'pipelines', 'pg.yaml'), example.replace('name: jobs-remote-typescript', 'name: pgjobs'));
      const deep = path.join(dir, 'a', 'b');
      fs.mkdirSync(deep, { recursive: true });
      const pgEnv = { ...env, WAREHOUSE_URL: url };
      const loaded = await runCli(['load', 'job-board', answer, '--pipeline', 'pgjobs'], { cwd: deep, env: pgEnv });
      expect(loaded.code, loaded.stderr).toBe(0);
      // Without the variable, the project file's reference is unset: an error at its place.
      const unset = await runCli(['status', 'pgjobs'], { cwd: deep, env });
      expect(unset.code).toBe(2);
      expect(unset.stderr).toContain(
        `${path.join(dir, 'scrape-etl.yaml')}:1:14: destination: \${WAREHOUSE_URL} is not set`,
      );
      const s = await traced(['status', 'pgjobs', '--json'], deep, pgEnv);
      expect(s.code, s.stderr).toBe(0);
      expect(s.modules.filter((m) => m.includes('@temporalio'))).toEqual([]);
      expect(jsonLines(s.stdout).map((r) => [r['pipeline'], r['tableStatus']])).toEqual([['pgjobs', 'succeeded']]);
      const h = await runCli(['history', 'pgjobs'], { cwd: deep, env: pgEnv });
      expect(h.code, h.stderr).toBe(0);
      expect(h.stdout).toMatch(/^1 run\(s\): 1 succeeded/m);
      expect(fs.existsSync(path.join(deep, 'data'))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('exit codes (README, "Exit codes"): the same for every command', () => {
  it('usage 2, bad configuration 2, missing database 1, not running 1', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-exit-')));
    try {
      const usage = await runCli(['status', '--limit', '0'], { cwd: dir, env });
      expect(usage.code).toBe(2);
      const unknownOption = await runCli(['history', 'x', '--nope'], { cwd: dir, env });
      expect(unknownOption.code).toBe(2);
      // A malformed setting: no retry or wait fixes it.
      const address = await runCli(['schedule', 'list'], {
        cwd: dir,
        env: { ...env, TEMPORAL_ADDRESS: 'not an address' },
      });
      expect(address.code).toBe(2);
      expect(address.stderr).toContain('TEMPORAL_ADDRESS must be host:port');
      const url = await runCli(['status', '--database', 'mysql://u:pw@h/db'], { cwd: dir, env });
      expect(url.code).toBe(2);
      expect(url.stderr).toContain("unsupported database URL 'mysql://u:***@h/db'");
      // What was named is not there: 1, in every reading command alike.
      for (const args of [
        ['status'],
        ['history', 'x'],
        ['schema', 'show', 'x'],
        ['export', '--out', path.join(dir, 'out')],
      ]) {
        const missing = await runCli([...args, '--database', `sqlite:${path.join(dir, 'typo.sqlite')}`], {
          cwd: dir,
          env,
        });
        expect({ args, code: missing.code }).toEqual({ args, code: 1 });
        expect(missing.stderr).toContain(`no database at sqlite:${path.join(dir, 'typo.sqlite')}`);
      }
      expect(fs.existsSync(path.join(dir, 'typo.sqlite'))).toBe(false);
      const server = await runCli(['server', 'status'], { cwd: dir, env });
      expect(server.code).toBe(1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
