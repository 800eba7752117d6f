// No process outlives the command that started it, except `up --detach` (issue 36): `demo`, `run` and `schedule
// apply` without `up` stop the embedded Temporal server they started when they end (its state file's pid is no
// longer alive), while a server `up` runs is left alone by a `run` beside it. The real command, built.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isProcessAlive, readDevServerState } from '../../../temporal/dev-server.js';
import { runCli } from '../../support/cli.js';
import { startCliBed, type CliBed } from '../../support/cli-bed.js';

const TOKEN = 'tok-leftover-0123456789';
const example = path.resolve('pipelines', 'examples', 'leads-social.yaml');
const scheduled = path.resolve('pipelines', 'examples', 'leads-search-engine.yaml');
let bed: CliBed;
let env: NodeJS.ProcessEnv;
let dataDir: string;

beforeAll(async () => {
  bed = await startCliBed({ name: 'leftover', token: TOKEN, seed: 17 });
  dataDir = path.join(bed.dir, 'data');
  env = { ...bed.env, DATABASE_URL: `sqlite:${path.join(bed.dir, 'dest.sqlite')}` };
});

afterAll(async () => {
  await runCli(['down'], { cwd: bed.dir, env, timeoutMs: 120_000 }).catch(() => undefined);
  await bed?.close();
});

/** The pid the dev-server state file names, and whether it is alive. */
function server(): { pid: number | null; alive: boolean } {
  const pid = readDevServerState(dataDir)?.pid ?? null;
  return { pid, alive: pid !== null && isProcessAlive(pid) };
}

describe('the embedded server ends with the command that started it', () => {
  it('run without up: the run succeeds, then no temporal process of the data folder remains', async () => {
    const r = await runCli(['run', example], { cwd: bed.dir, env, timeoutMs: 150_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(readDevServerState(dataDir)).toBeDefined();
    expect(server().alive).toBe(false);
    expect(r.stderr).not.toContain('keeps running');
  }, 180_000);

  it('schedule apply without up: says in one line that schedules fire only while up runs, and leaves no server', async () => {
    const r = await runCli(['schedule', 'apply', scheduled], { cwd: bed.dir, env, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('schedules fire only while `scrape-etl up` runs');
    expect(server().alive).toBe(false);
    // The schedule is kept in the server's database: listing it (which starts and stops the server again) shows it.
    const list = await runCli(['schedule', 'list'], { cwd: bed.dir, env, timeoutMs: 120_000 });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^leads-coffee-roasters\tactive\t/m);
    expect(server().alive).toBe(false);
  }, 240_000);

  it('demo: no server remains after it, and its summary does not promise a running Web UI', async () => {
    const r = await runCli(['demo', example], { cwd: bed.dir, env, timeoutMs: 150_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('the demo stopped the embedded server it started');
    expect(r.stdout).not.toContain('keeps running');
    expect(server().alive).toBe(false);
  }, 180_000);

  it("with up running, run uses up's server and leaves it running", async () => {
    const up = await runCli(['up', '--detach'], { cwd: bed.dir, env, timeoutMs: 200_000 });
    expect(up.code, up.stderr).toBe(0);
    const before = server();
    expect(before.alive).toBe(true);
    const r = await runCli(['run', example], { cwd: bed.dir, env, timeoutMs: 150_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(server()).toEqual(before);
    const down = await runCli(['down'], { cwd: bed.dir, env, timeoutMs: 120_000 });
    expect(down.code, down.stderr).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'up.pid'))).toBe(false);
  }, 400_000);
});
