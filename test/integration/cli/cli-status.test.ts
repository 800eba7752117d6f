// `scrape-etl status` is read-only and answers for the database it is given (compiled CLI, `npm run build` first;
// the embedded Temporal dev server the command starts, the simulator over HTTP, real SQLite files):
// - Temporal's runs of other databases are not mixed in: a run is shown when this database's pipeline_runs knows
//   it, or when Temporal records it as writing to this database (ScrapeEtlDestination), e.g. a detached run no
//   worker has begun, whose row does not exist yet;
// - with the embedded server stopped, status does not start it: it shows what pipeline_runs has and says that
//   Temporal was not asked;
// - a database file that does not exist is an error, and is not created.
// Temporal is asked with --live (or when pipeline_runs holds a run in progress): without either, status reads the
// table alone and loads no Temporal code (test/integration/cli/cli-project.test.ts checks the modules it loads).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDevServer, isProcessAlive, readDevServerState } from '../../../temporal/dev-server.js';
import { startCliBed, type CliBed } from '../../support/cli-bed.js';
import { REPO_ROOT, jsonLines, runCli } from '../../support/cli.js';

const TOKEN = 'cli-status-test-token';
const EXAMPLES = path.join(REPO_ROOT, 'pipelines', 'examples');
let bed: CliBed;
let dir: string;
let env: NodeJS.ProcessEnv;
let dbA: string;
let dbB: string;
/** Workflow ids by what they are. */
const ids = { a: '', b: '', detachedA: '' };

beforeAll(async () => {
  bed = await startCliBed({ name: 'cli-status', token: TOKEN, seed: 17 });
  ({ dir } = bed);
  // No `scrape-etl up` runs: the detached run below is then left with no worker at all, as the test needs.
  env = { ...bed.env };
  // Database A is the default destination, a relative path (sqlite:./data/scrape-etl.sqlite) opened in `dir`.
  dbA = `sqlite:${path.join(dir, 'data', 'scrape-etl.sqlite')}`;
  dbB = `sqlite:${path.join(dir, 'b.sqlite')}`;
  const a = await runCli(['run', '--json', path.join(EXAMPLES, 'leads-social.yaml')], {
    cwd: dir,
    env,
    timeoutMs: 90_000,
  });
  expect(a.code, a.stderr).toBe(0);
  ids.a = String(jsonLines(a.stdout).at(-1)!['workflowId']);
  const b = await runCli(['run', '--json', path.join(EXAMPLES, 'pdf.yaml')], {
    cwd: dir,
    env: { ...env, DATABASE_URL: dbB },
    timeoutMs: 90_000,
  });
  expect(b.code, b.stderr).toBe(0);
  ids.b = String(jsonLines(b.stdout).at(-1)!['workflowId']);
  // Started, and no worker runs it: Temporal has it RUNNING, no pipeline_runs row has it yet.
  const detached = await runCli(['run', '--detach', '--new', path.join(EXAMPLES, 'job-board.yaml')], { cwd: dir, env });
  expect(detached.code, detached.stderr).toBe(0);
  ids.detachedA = detached.stdout.trim();
  // Each command stopped the server it started (issue 36), and status never starts one: it runs as under `up`.
  await ensureDevServer({ dataDir: path.join(dir, 'data') });
}, 240_000);

afterAll(async () => {
  await bed?.close();
});

async function statusOf(database: string, cwd = dir) {
  const r = await runCli(['status', '--live', '--database', database, '--json'], { cwd, env });
  expect(r.code, r.stderr).toBe(0);
  return { runs: jsonLines(r.stdout), stderr: r.stderr };
}

describe('scrape-etl status', () => {
  it("shows this database's runs only, including a run Temporal records for it that has no row yet", async () => {
    const a = await statusOf(dbA);
    expect(a.runs.map((r) => r['workflowId']).sort()).toEqual([ids.a, ids.detachedA].sort());
    expect(a.runs.find((r) => r['workflowId'] === ids.a)).toMatchObject({
      state: 'SUCCEEDED',
      tableStatus: 'succeeded',
    });
    expect(a.runs.find((r) => r['workflowId'] === ids.detachedA)).toMatchObject({
      state: 'RUNNING',
      tableStatus: null,
    });
    expect(a.stderr).not.toContain('Temporal was not asked');

    const b = await statusOf(dbB);
    expect(b.runs.map((r) => r['workflowId'])).toEqual([ids.b]);
    expect(b.runs[0]).toMatchObject({ state: 'SUCCEEDED', tableStatus: 'succeeded' });

    // The same database named from another folder, by another spelling (sqlite:/// and an absolute path).
    const elsewhere = fs.mkdtempSync(path.join(dir, 'elsewhere-'));
    const again = await statusOf(`sqlite://${path.join(dir, 'data', 'scrape-etl.sqlite')}`, elsewhere);
    expect(again.runs.map((r) => r['workflowId']).sort()).toEqual([ids.a, ids.detachedA].sort());
  });

  it('a run reads the same state word with an open run beside it (Temporal asked) and without (issue 36)', async () => {
    // Without --live the table answers alone; with it, Temporal is asked because the detached run is open.
    const alone = await runCli(['status', '--no-temporal', '--database', dbA], { cwd: dir, env });
    const beside = await runCli(['status', '--live', '--database', dbA], { cwd: dir, env });
    expect(alone.code, alone.stderr).toBe(0);
    expect(beside.code, beside.stderr).toBe(0);
    const stateOf = (out: string) =>
      out
        .split('\n')
        .find((l) => l.includes(ids.a))
        ?.split(/\s{2,}/)[1];
    expect(stateOf(alone.stdout)).toBe('SUCCEEDED');
    expect(stateOf(beside.stdout)).toBe('SUCCEEDED');
    expect(
      beside.stdout
        .split('\n')
        .find((l) => l.includes(ids.detachedA))
        ?.split(/\s{2,}/)[1],
    ).toBe('RUNNING');
    const json = await runCli(['status', '--no-temporal', '--database', dbA, '--json'], { cwd: dir, env });
    expect(jsonLines(json.stdout).find((r) => r['workflowId'] === ids.a)).toMatchObject({ state: 'SUCCEEDED' });
    expect((await statusOf(dbA)).runs.find((r) => r['workflowId'] === ids.a)).toMatchObject({ state: 'SUCCEEDED' });
  });

  it('-v says on stderr what it read: the database, how many rows, and what it asked Temporal; without it, nothing', async () => {
    const quiet = await runCli(['status', '--live', '--database', dbB], { cwd: dir, env });
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).toBe('');
    const loud = await runCli(['status', '--live', '--database', dbB, '-v'], { cwd: dir, env });
    expect(loud.code, loud.stderr).toBe(0);
    expect(loud.stdout).toBe(quiet.stdout);
    expect(loud.stderr).toContain('read pipeline_runs');
    expect(loud.stderr).toContain(path.join(dir, 'b.sqlite'));
    expect(loud.stderr).toContain('listing workflows in Temporal');
    expect(loud.stderr).toMatch(/"listed":\s*[1-9]/);
    expect(loud.stderr).not.toContain(TOKEN);
  });

  it('never starts the embedded server: with it stopped, shows pipeline_runs and says Temporal was not asked', async () => {
    const stopped = await runCli(['server', 'stop'], { cwd: dir, env });
    expect(stopped.code, stopped.stderr).toBe(0);
    const dataDir = path.join(dir, 'data');
    const before = readDevServerState(dataDir);
    expect(before?.pid ?? null).toBeNull();

    const text = await runCli(['status', '--live', '--database', dbA], { cwd: dir, env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^leads-ai-sentiment\\s+SUCCEEDED\\s+.*${ids.a}`, 'm'));
    expect(text.stdout).toContain(`Temporal was not asked: the embedded Temporal server in ${dataDir} is not running`);
    const json = await statusOf(dbA);
    expect(json.runs.map((r) => r['workflowId'])).toEqual([ids.a]);
    expect(json.stderr).toContain('Temporal was not asked');

    // Still not running, and nothing was started in its place.
    const after = readDevServerState(dataDir);
    expect(after).toEqual(before);
    const server = await runCli(['server', 'status'], { cwd: dir, env });
    expect(server.code).toBe(1);
    expect(after?.pid === null || !isProcessAlive(after!.pid)).toBe(true);
  });

  it('a database file that does not exist is an error and is not created', async () => {
    const missing = path.join(dir, 'typo.sqlite');
    const r = await runCli(['status', '--database', `sqlite:${missing}`], { cwd: dir, env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`no database at sqlite:${missing}`);
    expect(fs.existsSync(missing)).toBe(false);
  });
});
