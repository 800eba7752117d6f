// A second local user against the owner's embedded mode. The embedded Temporal server listens on 127.0.0.1 without
// authentication, so any local user can start workflows on it: the owner's worker must refuse every run that was not
// sealed with the owner's key (non-retryably, at once, nothing scraped or written), and none of the owner's files
// (key, the server's state, logs, remembered runs, exports) may be readable by the neighbour. And the Postgres
// password of the destination appears nowhere: not in the server's state (temporal.db), not in a log, not in the
// destination's own tables. And a shared data folder the neighbour made (0777, their key file in it) is refused by
// every command of the owner, before anything is started in it (issue 37). Needs root (CI runs as root) to create the second user; as anyone else it fails, saying so.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { findTemporalCli } from '../../../temporal/cli-binary.js';
import { readDevServerState, stopDevServer } from '../../../temporal/dev-server.js';
import { pipelineDataConverter } from '../../../temporal/payload-codec.js';
import { secretKeys } from '../../../lib/secret-key.js';
import { CLI, runCli } from '../../support/cli.js';
import { testPostgresUrl } from '../../support/postgres.js';

const NEIGHBOUR = 'scrapeetl-neighbour';
/** Where the neighbour's run would write if the owner's worker carried it out. */
const LOOT = path.join(os.tmpdir(), `scrape-etl-neighbour-loot-${process.pid}.sqlite`);
const TOKEN = 'neighbour-test-owner-token-5b1f';
const PASSWORD = 'Owner-PG-pass-9c2e7d41';
let sim: RunningSimulator;
let root: string;
let dataDir: string;
let env: NodeJS.ProcessEnv;
let database: string;
let worker: ReturnType<typeof spawn> | undefined;
let workerLog = '';
let temporalCli: string;

function asNeighbour(args: string[]): { code: number | null; out: string } {
  const r = spawnSync('runuser', ['-u', NEIGHBOUR, '--', ...args], { encoding: 'utf8', timeout: 60_000, cwd: '/' });
  return { code: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

beforeAll(async () => {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    throw new Error(
      'test/integration/security/security-neighbours.test.ts must run as root: it creates a second OS user (useradd) and acts as it (runuser); CI runs as root',
    );
  }
  if (spawnSync('id', ['-u', NEIGHBOUR]).status !== 0) {
    const made = spawnSync('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', NEIGHBOUR], {
      encoding: 'utf8',
    });
    if (made.status !== 0) throw new Error(`useradd ${NEIGHBOUR} failed: ${made.stderr}`);
  }
  sim = await startSimulator({ token: TOKEN, seed: 30, runDurationMs: 300 });
  // The test's folder is open to everyone (0755), as a home or a project folder often is: only the modes the tool
  // gives what it creates protect the owner's files.
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-neighbours-'));
  fs.chmodSync(root, 0o755);
  dataDir = path.join(root, 'data');
  // A role with a password: the destination URL carries it, as a user's DATABASE_URL does.
  const base = new URL(await testPostgresUrl());
  const admin = new pg.Client({ connectionString: base.toString() });
  await admin.connect();
  try {
    await admin
      .query(`CREATE ROLE owner_role LOGIN PASSWORD '${PASSWORD}'`)
      .catch(() => admin.query(`ALTER ROLE owner_role PASSWORD '${PASSWORD}'`));
    await admin.query(`GRANT ALL ON DATABASE ${base.pathname.slice(1)} TO owner_role`);
    await admin.query(`ALTER DATABASE ${base.pathname.slice(1)} OWNER TO owner_role`);
  } finally {
    await admin.end();
  }
  base.username = 'owner_role';
  base.password = PASSWORD;
  database = base.toString();
  // The neighbour needs a Temporal client it may execute: a copy of the CLI binary in the open folder.
  temporalCli = path.join(root, 'temporal');
  fs.copyFileSync(await findTemporalCli(), temporalCli);
  fs.chmodSync(temporalCli, 0o755);
  fs.writeFileSync(
    path.join(root, 'owner.yaml'),
    [
      'name: owner-pdf',
      'kind: pdf',
      'request:',
      '  keywords:',
      '    - keyword: annual report',
      '      prompt: Is this an annual report? Answer true or false.',
      'destination:',
      '  database: ${DATABASE_URL}',
      'exports:',
      `  - dir: ${path.join(root, 'exports')}`,
      'polling:',
      '  initial_interval: 1s',
      '',
    ].join('\n'),
  );
  env = {
    SCRAPER_BASE_URL: sim.baseUrl,
    SCRAPER_API_TOKEN: TOKEN,
    SCRAPE_ETL_DATA_DIR: dataDir,
    // The data folder's own key (not the test suite's shared one): what a user has.
    SCRAPE_ETL_KEY_FILE: '',
    SCRAPE_ETL_BACKGROUND_WORKER: '0',
    TEMPORAL_ADDRESS: '',
    DATABASE_URL: database,
  };
}, 240_000);

afterAll(async () => {
  if (worker && worker.exitCode === null) {
    worker.kill('SIGTERM');
    await new Promise((r) => worker!.once('exit', r));
  }
  if (dataDir) await stopDevServer({ dataDir });
  await sim?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

describe('a second local user', () => {
  it("the owner's run succeeds; the neighbour can neither start a run the owner's worker executes nor read the owner's files; the password is nowhere", async () => {
    const owned = await runCli(['run', '--json', path.join(root, 'owner.yaml')], {
      cwd: root,
      env,
      timeoutMs: 180_000,
    });
    expect(owned.code, owned.stderr).toBe(0);
    const ownerLog = owned.stdout + owned.stderr;

    // The owner's worker stays up, polling the embedded server's queue.
    worker = spawn(process.execPath, [CLI, 'worker', '--shutdown-grace', '1s'], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    worker.stdout!.on('data', (b: Buffer) => (workerLog += b.toString()));
    worker.stderr!.on('data', (b: Buffer) => (workerLog += b.toString()));
    const deadline = Date.now() + 90_000;
    while (!/polling|worker .*started|Worker state changed/i.test(workerLog)) {
      if (Date.now() > deadline || worker.exitCode !== null)
        throw new Error(`the owner's worker did not start:\n${workerLog}`);
      await new Promise((r) => setTimeout(r, 200));
    }

    const state = readDevServerState(dataDir)!;
    const address = `127.0.0.1:${state.port}`;
    const scrapersBefore = sim.truth.runs().length;

    // The neighbour starts the owner's pipeline kind with a plain (unsigned) input, into a database of its own.
    const input = {
      spec: {
        name: 'evil',
        kind: 'pdf',
        request: { keywords: [{ keyword: 'secrets', prompt: 'x' }] },
        destination: { database: `sqlite:${LOOT}` },
        exports: [],
      },
      runKey: 'k1',
    };
    const started = asNeighbour([
      temporalCli,
      'workflow',
      'start',
      '--address',
      address,
      '--task-queue',
      'scrape-etl',
      '--type',
      'pipelineWorkflow',
      '--workflow-id',
      'evil--k1',
      '--input',
      JSON.stringify(input),
    ]);
    expect(started.code, started.out).toBe(0);
    // ...and one whose payload pretends to be encrypted (garbage under the codec's encoding).
    const forged = asNeighbour([
      temporalCli,
      'workflow',
      'start',
      '--address',
      address,
      '--task-queue',
      'scrape-etl',
      '--type',
      'pipelineWorkflow',
      '--workflow-id',
      'evil--k2',
      '--input',
      Buffer.from('not really encrypted').toString('base64'),
      '--input-meta',
      'encoding=binary/encrypted',
      '--input-meta',
      `encryption-key-id=${secretKeys(path.join(dataDir, 'secret.key')).id}`,
      '--input-base64',
    ]);
    expect(forged.code, forged.out).toBe(0);

    const connection = await Connection.connect({ address });
    try {
      const client = new Client({
        connection,
        dataConverter: pipelineDataConverter(secretKeys(path.join(dataDir, 'secret.key'))),
      });
      for (const id of ['evil--k1', 'evil--k2']) {
        const handle = client.workflow.getHandle(id);
        const failure = await handle.result().then(
          () => undefined,
          (err: unknown) => err,
        );
        expect(failure, id).toBeInstanceOf(WorkflowFailedError);
        const text = JSON.stringify({
          m: (failure as Error).message,
          c: String((failure as WorkflowFailedError).cause),
          cc: String(((failure as WorkflowFailedError).cause as Error | undefined)?.cause),
        });
        expect(text, id).toMatch(/refused/);
        // Refused in its first workflow task, not retried: no activity was ever scheduled.
        const history = await handle.fetchHistory();
        const types = (history.events ?? []).map((e) => String(e.eventType));
        expect(
          types.some((t) => /ACTIVITY_TASK_SCHEDULED/.test(t)),
          id,
        ).toBe(false);
        expect(
          types.filter((t) => /WORKFLOW_TASK_FAILED/.test(t)),
          id,
        ).toHaveLength(0);
      }
    } finally {
      await connection.close();
    }
    expect(sim.truth.runs().length).toBe(scrapersBefore);
    expect(fs.existsSync(LOOT)).toBe(false);

    // Nothing of the owner's is readable by the neighbour.
    const ownerFiles = [
      path.join(dataDir, 'secret.key'),
      state.dbFile,
      state.logFile,
      ...fs.readdirSync(path.join(root, 'exports')).map((f) => path.join(root, 'exports', f)),
      ...(fs.existsSync(path.join(dataDir, 'runs'))
        ? fs.readdirSync(path.join(dataDir, 'runs')).map((f) => path.join(dataDir, 'runs', f))
        : []),
    ];
    expect(ownerFiles.length).toBeGreaterThan(3);
    for (const f of ownerFiles) {
      const r = asNeighbour(['cat', f]);
      expect(r.code, `${f} was readable by ${NEIGHBOUR}`).not.toBe(0);
      expect(r.out).toMatch(/Permission denied/);
    }
    expect(asNeighbour(['ls', dataDir]).code).not.toBe(0);
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(state.dbFile).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600);

    // The password: not in the server's state (with its WAL), not in a log, not in the destination's tables.
    const stateFiles = fs.readdirSync(path.dirname(state.dbFile)).map((f) => path.join(path.dirname(state.dbFile), f));
    for (const f of stateFiles) {
      if (!fs.statSync(f).isFile()) continue;
      const bytes = fs.readFileSync(f);
      expect(bytes.includes(PASSWORD), `password in ${f}`).toBe(false);
      expect(bytes.includes(TOKEN), `token in ${f}`).toBe(false);
    }
    for (const [name, text] of [
      ['run output', ownerLog],
      ['worker log', workerLog],
    ] as const)
      expect(text, name).not.toContain(PASSWORD);
    const dump = spawnSync('pg_dump', ['--data-only', '--dbname', database], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(dump.status, dump.stderr).toBe(0);
    expect(dump.stdout).toContain('owner-pdf'); // the dump has the run's rows...
    expect(dump.stdout).not.toContain(PASSWORD); // ...and no password
  }, 420_000);

  it("a world-writable shared data folder holding the neighbour's key file is refused by every owner's command, with one sentence and exit 2", async () => {
    // The neighbour makes the shared folder (0777) with a key of their own in it, as in issue 37.
    const shared = path.join(os.tmpdir(), `scrape-etl-shared-${process.pid}`);
    const made = asNeighbour([
      'sh',
      '-c',
      `mkdir ${shared} && chmod 777 ${shared} && head -c 32 /dev/urandom | base64 > ${shared}/secret.key && chmod 600 ${shared}/secret.key`,
    ]);
    expect(made.code, made.out).toBe(0);
    try {
      const ownerEnv = { ...env, SCRAPE_ETL_DATA_DIR: shared };
      const uid = spawnSync('id', ['-u', NEIGHBOUR], { encoding: 'utf8' }).stdout.trim();
      const sentence = `the data folder ${shared} belongs to another user (uid ${uid}, you are 0), who could replace what scrape-etl trusts in it; use a folder you own (SCRAPE_ETL_DATA_DIR or the project file's data_dir)`;
      for (const args of [
        ['server', 'status'],
        ['up', '--detach'],
        ['run', path.join(root, 'owner.yaml')],
        ['worker'],
      ]) {
        const r = await runCli(args, { cwd: root, env: ownerEnv, timeoutMs: 60_000 });
        expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(2);
        expect(r.stderr.trim(), args.join(' ')).toBe(`scrape-etl: ${sentence}`);
      }
      // A project file's data_dir: the same, naming the file that chose the folder.
      const project = path.join(root, 'project');
      fs.mkdirSync(project);
      fs.writeFileSync(path.join(project, 'scrape-etl.yaml'), `data_dir: ${shared}\n`);
      const { SCRAPE_ETL_DATA_DIR: _unset, ...noDataDir } = env;
      const viaProject = await runCli(['up', '--detach'], {
        cwd: project,
        env: { ...noDataDir, SCRAPE_ETL_DATA_DIR: undefined },
        timeoutMs: 60_000,
      });
      expect(viaProject.code, viaProject.stdout + viaProject.stderr).toBe(2);
      expect(viaProject.stderr).toContain(
        `the data folder ${shared} (data_dir in ${path.join(project, 'scrape-etl.yaml')}) belongs to another user`,
      );

      // The owner takes the folder over but leaves it open to all (0777): refused, naming the chmod.
      fs.chownSync(shared, 0, 0);
      const open = await runCli(['run', path.join(root, 'owner.yaml')], {
        cwd: root,
        env: ownerEnv,
        timeoutMs: 60_000,
      });
      expect(open.code, open.stdout + open.stderr).toBe(2);
      expect(open.stderr.trim()).toBe(
        `scrape-etl: the data folder ${shared} can be written by every user (mode 777), who could replace what scrape-etl trusts in it; make it yours alone: chmod go-w ${shared}`,
      );

      // The folder made the owner's own and private, the key file still the neighbour's: refused by name.
      fs.chmodSync(shared, 0o700);
      const key = await runCli(['run', path.join(root, 'owner.yaml')], { cwd: root, env: ownerEnv, timeoutMs: 60_000 });
      expect(key.code, key.stdout + key.stderr).toBe(2);
      expect(key.stderr).toMatch(
        new RegExp(
          `^scrape-etl: the secret key file ${shared}/secret.key belongs to another user \\(uid \\d+, you are 0\\)`,
        ),
      );
      // Nothing was started or written there: no server, no up, no remembered run.
      expect(fs.readdirSync(shared).sort()).toEqual(['secret.key']);

      // The owner's own private data folder with the embedded server's state file left writable by all: refused.
      const own = path.join(root, 'own-data');
      fs.mkdirSync(path.join(own, 'temporal'), { recursive: true, mode: 0o700 });
      const stateFile = path.join(own, 'temporal', 'dev-server.json');
      fs.writeFileSync(
        stateFile,
        JSON.stringify({ pid: null, port: 1, uiPort: 2, dbFile: 'x', logFile: 'y', startedAt: 'z' }),
      );
      fs.chmodSync(stateFile, 0o666);
      const server = await runCli(['server', 'status'], {
        cwd: root,
        env: { ...env, SCRAPE_ETL_DATA_DIR: own },
        timeoutMs: 60_000,
      });
      expect(server.code, server.stdout + server.stderr).toBe(2);
      expect(server.stderr.trim()).toBe(
        `scrape-etl: the embedded Temporal server's file ${stateFile} can be written by every user (mode 666), who could replace what scrape-etl trusts in it; make it yours alone: chmod go-w ${stateFile}`,
      );
    } finally {
      fs.rmSync(shared, { recursive: true, force: true });
    }
  }, 300_000);
});
