// The embedded server in the open, with the real command (compiled: `npm run build` first): `run --detach`
// warns that no worker polls the task queue and stops the server it started with it (issue 36); a server started
// otherwise: `server status` shows it (exit 0), a `run` leaves it running, `server stop` stops it (then status exits
// 1); the run's progress ends in the run's final state.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { startCliBed, type CliBed } from '../../support/cli-bed.js';
import { ensureDevServer } from '../../../temporal/dev-server.js';

const TOKEN = 'tok-server-0123456789';
let bed: CliBed;
const example = path.join('pipelines', 'examples', 'leads-social.yaml');

beforeAll(async () => {
  bed = await startCliBed({ name: 'server', token: TOKEN, seed: 12 });
});

afterAll(async () => {
  await bed?.close();
});

describe('scrape-etl server', () => {
  it('status before anything ran: exit 1; run --detach warns that no worker polls; status, stop, status', async () => {
    // No `scrape-etl up` runs: a detached run has no worker at all.
    const env = { ...bed.env, DATABASE_URL: `sqlite:${path.join(bed.dir, 'dest.sqlite')}` };
    const none = await runCli(['server', 'status'], { env });
    expect(none.code).toBe(1);
    expect(none.stdout).toContain('no embedded Temporal server in');

    const detached = await runCli(['run', '--detach', example], { env, timeoutMs: 120_000 });
    expect(detached.code, detached.stderr).toBe(0);
    expect(detached.stderr).toContain("warning: no worker polls task queue 'scrape-etl' (namespace 'default')");
    expect(detached.stderr).toContain(`or run \`scrape-etl run ${example}\` to attach to this run`);
    // No process outlives the command that started it (issue 36): the server the detached run started stopped with
    // it; the run waits in its database.
    const after = await runCli(['server', 'status'], { env });
    expect(after.code).toBe(1);
    expect(after.stdout).toContain('embedded Temporal server not running');
    // A server started by hand (here as `up` and `worker` do: not for one command) is kept by the commands that use it.
    await ensureDevServer({ dataDir: path.join(bed.dir, 'data') });

    const up = await runCli(['server', 'status', '--json'], { env });
    expect(up.code).toBe(0);
    const info = JSON.parse(up.stdout) as { running: boolean; pid: number; address: string; webUi: string };
    expect(info.running).toBe(true);
    expect(info.pid).toBeGreaterThan(0);
    expect(info.address).toMatch(/^127\.0\.0\.1:\d+$/);

    // Attaching finishes the run and leaves the server it did not start running.
    const attached = await runCli(['run', example], { env, timeoutMs: 120_000 });
    expect(attached.code, attached.stderr).toBe(0);
    expect(attached.stderr).not.toContain('keeps running');
    // The outcome is said once, by the summary (not also by a last progress line); progress never goes down and
    // never shows more rows than the run wrote.
    const rows = /rows by table:\n((?:  .+\n)+)/
      .exec(attached.stdout)?.[1]
      ?.trim()
      .split('\n')
      .reduce((a, l) => a + Number(/(\d+)\s*$/.exec(l)?.[1] ?? 0), 0);
    expect(attached.stdout).toMatch(/^pipeline leads-ai-sentiment succeeded \(/m);
    const progress = attached.stderr.split('\n').filter((l) => l.includes(': ') && / rows$/.test(l));
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.filter((l) => /: succeeded /.test(l))).toEqual([]);
    const shown = progress.map((l) => Number(/ (\d+) rows$/.exec(l)![1]));
    expect(shown).toEqual([...shown].sort((a, b) => a - b));
    expect(shown.at(-1)!).toBeLessThanOrEqual(rows!);

    const stop = await runCli(['server', 'stop'], { env });
    expect(stop.code).toBe(0);
    expect(stop.stdout).toContain(`stopped the embedded Temporal server (pid ${info.pid})`);
    const down = await runCli(['server', 'status'], { env });
    expect(down.code).toBe(1);
    expect(down.stdout).toContain('embedded Temporal server not running');
  });
});
