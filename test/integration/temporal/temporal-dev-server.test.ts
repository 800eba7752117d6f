// The embedded dev server: started detached with a state file, reused while alive, restarted on the same SQLite
// file (workflows survive) and the same port; connectTemporal() finds it from the settings; a worker process
// stops cleanly on SIGTERM.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { locateTemporalCli } from '../../../temporal/cli-binary.js';
import { connectTemporal } from '../../../temporal/connect.js';
import {
  devServerPaths,
  ensureDevServer,
  isProcessAlive,
  readDevServerState,
  stopDevServer,
} from '../../../temporal/dev-server.js';
import { temporalSettings } from '../../../temporal/settings.js';
import { pipelineWorkflowId } from '../../../temporal/contract.js';
import { leadsSocialSpec } from '../../support/pipeline-specs.js';
import { spawnWorkerProcess } from '../../support/temporal.js';
import { startPipelineRun } from '../../../temporal/start.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-devserver-'));

afterAll(async () => {
  await stopDevServer({ dataDir });
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('embedded Temporal dev server', () => {
  it('starts once, is reused, and restarts on its SQLite file with workflows intact', async () => {
    const first = await ensureDevServer({ dataDir, headless: true });
    expect(first.started).toBe(true);
    expect(fs.existsSync(devServerPaths(dataDir).dbFile)).toBe(true);
    const again = await ensureDevServer({ dataDir, headless: true });
    expect(again).toMatchObject({ started: false, pid: first.pid, port: first.port });

    const settings = temporalSettings({ SCRAPE_ETL_DATA_DIR: dataDir, TEMPORAL_TASK_QUEUE: 'nobody-polls-this' });
    const conn = await connectTemporal({ settings });
    expect(conn).toMatchObject({
      embedded: true,
      address: first.address,
      namespace: 'default',
      taskQueue: 'nobody-polls-this',
    });
    expect(conn.uiUrl).toBe(`http://127.0.0.1:${first.port + 1000}`);
    // No worker polls this queue, so the run simply stays open across the restart.
    const handle = await startPipelineRun(conn, leadsSocialSpec('survives', 'sqlite::memory:'), 'k1');
    expect(handle.workflowId).toBe(pipelineWorkflowId('survives', 'k1'));
    await conn.connection.close();

    expect(await stopDevServer({ dataDir })).toBe(true);
    expect(isProcessAlive(first.pid)).toBe(false);
    expect(readDevServerState(dataDir)?.pid).toBeNull();

    const restarted = await ensureDevServer({ dataDir, headless: true });
    expect(restarted.started).toBe(true);
    expect(restarted.pid).not.toBe(first.pid);
    expect(restarted.port).toBe(first.port);
    const conn2 = await connectTemporal({ settings });
    const described = await conn2.client.workflow.getHandle(handle.workflowId).describe();
    expect(described.status.name).toBe('RUNNING');
    await conn2.client.workflow.getHandle(handle.workflowId).terminate('test done');
    await conn2.connection.close();
  });

  /**
   * A stand-in CLI whose first start-dev fails as the real one did ("address already in use", exit), then hands every
   * later call to the real CLI. Returns its folder (holding `temporal`) and the env naming it.
   */
  async function cliFailingOnceWithPortTaken(prefix: string): Promise<{ dir: string; env: NodeJS.ProcessEnv }> {
    const real = (await locateTemporalCli({ obtain: false })).path;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    const fake = path.join(dir, 'temporal');
    fs.writeFileSync(
      fake,
      `#!/bin/sh
if [ "$1" = server ] && [ ! -e "${dir}/failed-once" ]; then
  touch "${dir}/failed-once"
  echo '{"level":"FATAL","prefix":"echo","message":"listen tcp 127.0.0.1:1: bind: address already in use"}'
  exit 2
fi
exec "${real}" "$@"
`,
      { mode: 0o755 },
    );
    return { dir, env: { ...process.env, TEMPORAL_CLI_PATH: fake } };
  }

  it('a start whose port was taken before the server bound it is tried again on another port', async () => {
    const { dir, env } = await cliFailingOnceWithPortTaken('scrape-etl-devserver-taken-');
    const data = path.join(dir, 'data');
    const logs: string[] = [];
    try {
      const server = await ensureDevServer({ dataDir: data, headless: true, env, log: (m) => logs.push(m) });
      expect(server.started).toBe(true);
      expect(isProcessAlive(server.pid)).toBe(true);
      expect(logs.filter((m) => m.startsWith('started the embedded Temporal dev server'))).toHaveLength(2);
      expect(logs).toContainEqual(expect.stringContaining('found its port taken at start; trying again on'));
    } finally {
      await stopDevServer({ dataDir: data });
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a restart on the last server's ports, one of them taken before the server bound it, moves to a new pair", async () => {
    // As in CI: one command stopped its transient server, the next started it again on the remembered pair, and
    // the UI port was taken in between (the check passed, the bind failed). That start failed the command.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-devserver-retaken-'));
    const data = path.join(dir, 'data');
    const logs: string[] = [];
    try {
      const first = await ensureDevServer({ dataDir: data, headless: true });
      await stopDevServer({ dataDir: data });
      const { dir: cliDir, env } = await cliFailingOnceWithPortTaken('scrape-etl-devserver-retaken-cli-');
      try {
        const again = await ensureDevServer({ dataDir: data, headless: true, env, log: (m) => logs.push(m) });
        expect(again.started).toBe(true);
        expect(isProcessAlive(again.pid)).toBe(true);
        expect(again.port).not.toBe(first.port);
        expect(readDevServerState(data)?.port).toBe(again.port);
        expect(logs[0]).toContain(`on 127.0.0.1:${first.port},`);
        expect(logs).toContainEqual(expect.stringContaining(`trying again on ${again.port}`));
      } finally {
        fs.rmSync(cliDir, { recursive: true, force: true });
      }
    } finally {
      await stopDevServer({ dataDir: data });
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects a malformed TEMPORAL_ADDRESS with the expected form', () => {
    expect(() => temporalSettings({ TEMPORAL_ADDRESS: 'http://x:7233' })).toThrow(/host:port/);
    expect(temporalSettings({ TEMPORAL_ADDRESS: 'temporal.internal:7233' }).address).toBe('temporal.internal:7233');
    expect(temporalSettings({})).toMatchObject({ address: undefined, namespace: 'default', taskQueue: 'scrape-etl' });
  });

  it('a worker process drains and exits 143 on SIGTERM (README, "Exit codes")', async () => {
    const server = await ensureDevServer({ dataDir, headless: true });
    const w = await spawnWorkerProcess({
      address: server.address,
      taskQueue: `sigterm-${crypto.randomBytes(3).toString('hex')}`,
      env: { SCRAPER_BASE_URL: 'http://127.0.0.1:9', SCRAPER_API_TOKEN: 'unused-token' },
    });
    const code = await w.kill('SIGTERM');
    expect(code).toBe(143);
    expect(w.output()).toContain('stopped');
  });
});
