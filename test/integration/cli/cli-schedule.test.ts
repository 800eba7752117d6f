// `scrape-etl schedule` against the embedded Temporal dev server, checked through Temporal's own CLI.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../../simulator/server.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { findTemporalCli } from '../../../temporal/cli-binary.js';
import { ensureDevServer, stopDevServer } from '../../../temporal/dev-server.js';
import { jsonLines, REPO_ROOT, runCli } from '../../support/cli.js';
import { startTlsFront } from '../../support/grpc-tls-front.js';

const TOKEN = 'cli-schedule-test-token';
let sim: RunningSimulator;
let dir: string;
let env: NodeJS.ProcessEnv;
let pipelineFile: string;

beforeAll(async () => {
  sim = await startSimulator({ token: TOKEN, seed: 3, runDurationMs: 300 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-cli-schedule-'));
  env = {
    SCRAPER_BASE_URL: sim.baseUrl,
    SCRAPER_API_TOKEN: TOKEN,
    SCRAPE_ETL_DATA_DIR: path.join(dir, 'data'),
    TEMPORAL_ADDRESS: '',
    DATABASE_URL: '',
  };
  pipelineFile = path.join(dir, 'social.yaml');
  fs.writeFileSync(
    pipelineFile,
    fs.readFileSync(path.join(REPO_ROOT, 'pipelines', 'examples', 'leads-social.yaml'), 'utf8') +
      'schedule:\n  cron: "15 4 * * 1"\n  timezone: America/New_York\n  overlap: buffer_one\n  catchup_window: 30m\n',
  );
});

afterAll(async () => {
  await stopDevServer({ dataDir: path.join(dir, 'data') });
  await sim?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function describeWithTemporalCli(id: string): Promise<Record<string, unknown>> {
  // The commands stop the server they started (issue 36): Temporal's own CLI reads it as it runs under `up`.
  const server = await ensureDevServer({ dataDir: path.join(dir, 'data') });
  expect(server).toBeDefined();
  const binary = await findTemporalCli({ obtain: false });
  const r = spawnSync(
    binary,
    ['schedule', 'describe', '--schedule-id', id, '--address', `127.0.0.1:${server!.port}`, '-o', 'json'],
    { encoding: 'utf8' },
  );
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

describe('scrape-etl schedule', () => {
  it('apply creates, re-apply changes nothing, and Temporal reports the schedule as written in the file', async () => {
    const first = await runCli(['schedule', 'apply', '--json', pipelineFile], { cwd: dir, env });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({
      file: pipelineFile,
      scheduleId: 'leads-ai-sentiment',
      outcome: 'created',
    });
    const before = await describeWithTemporalCli('leads-ai-sentiment');

    const second = await runCli(['schedule', 'apply', '--json', pipelineFile], { cwd: dir, env });
    expect(JSON.parse(second.stdout)).toMatchObject({ outcome: 'unchanged' });
    const after = await describeWithTemporalCli('leads-ai-sentiment');
    expect(after['schedule']).toEqual(before['schedule']);

    const schedule = after['schedule'] as {
      spec: { structuredCalendar?: unknown[]; cronString?: string[]; timezoneName?: string };
      action: { startWorkflow: { workflowType: { name: string }; taskQueue: { name: string }; workflowId: string } };
      policies: { overlapPolicy: string; catchupWindow: string };
      state: { paused?: boolean; notes?: string };
    };
    expect(schedule.spec.timezoneName).toBe('America/New_York');
    expect(JSON.stringify(schedule.spec.structuredCalendar ?? schedule.spec.cronString)).toContain('"start":4'); // hour 4
    expect(schedule.action.startWorkflow.workflowType.name).toBe('pipelineWorkflow');
    expect(schedule.action.startWorkflow.taskQueue.name).toBe('scrape-etl');
    expect(schedule.action.startWorkflow.workflowId).toBe('leads-ai-sentiment--scheduled');
    expect(schedule.policies.overlapPolicy).toBe('SCHEDULE_OVERLAP_POLICY_BUFFER_ONE');
    expect(schedule.policies.catchupWindow).toBe('1800s');
    expect(schedule.state.paused ?? false).toBe(false);

    // Changing the file updates the schedule.
    fs.writeFileSync(
      pipelineFile,
      fs.readFileSync(pipelineFile, 'utf8').replace('overlap: buffer_one', 'overlap: skip'),
    );
    const third = await runCli(['schedule', 'apply', '--json', pipelineFile], { cwd: dir, env });
    expect(JSON.parse(third.stdout)).toMatchObject({ outcome: 'updated' });
    const updated = (await describeWithTemporalCli('leads-ai-sentiment'))['schedule'] as typeof schedule;
    expect(updated.policies.overlapPolicy).toBe('SCHEDULE_OVERLAP_POLICY_SKIP');
  });

  it('pause shows in describe; trigger --wait produces a completed run', async () => {
    const paused = await runCli(['schedule', 'pause', 'leads-ai-sentiment', '--note', 'maintenance'], {
      cwd: dir,
      env,
    });
    expect(paused.code, paused.stderr).toBe(0);
    const d = await runCli(['schedule', 'describe', '--json', 'leads-ai-sentiment'], { cwd: dir, env });
    expect(JSON.parse(d.stdout)).toMatchObject({
      scheduleId: 'leads-ai-sentiment',
      paused: true,
      note: 'maintenance',
      cron: '15 4 * * 1',
    });
    await runCli(['schedule', 'unpause', 'leads-ai-sentiment'], { cwd: dir, env });

    const t = await runCli(['schedule', 'trigger', '--wait', '--json', 'leads-ai-sentiment'], {
      cwd: dir,
      env,
      timeoutMs: 90_000,
    });
    expect(t.code, `${t.stdout}\n${t.stderr}`).toBe(0);
    const result = JSON.parse(t.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(result).toMatchObject({ type: 'result', scheduleId: 'leads-ai-sentiment', status: 'succeeded' });
    expect(String(result['workflowId'])).toMatch(/^leads-ai-sentiment--scheduled-\d{4}-\d{2}-\d{2}T/);

    // status never starts the server, which trigger stopped with it (issue 36): it runs here as under `up`.
    await ensureDevServer({ dataDir: path.join(dir, 'data') });
    const status = await runCli(['status', '--live', '--json'], { cwd: dir, env });
    const runs = status.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(runs.find((r) => r['workflowId'] === result['workflowId'])).toMatchObject({
      state: 'SUCCEEDED',
      tableStatus: 'succeeded',
    });
  });

  it('apply from a second file whose pipeline has the same name is refused, changing nothing; --force replaces it', async () => {
    const other = path.join(dir, 'copy-of-social.yaml');
    fs.writeFileSync(other, fs.readFileSync(pipelineFile, 'utf8').replace(/cron: "[^"]*"/, 'cron: "45 5 * * 2"'));
    const before = await describeWithTemporalCli('leads-ai-sentiment');
    const refused = await runCli(['schedule', 'apply', other], { cwd: dir, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `${other}: schedule 'leads-ai-sentiment' was applied from ${pipelineFile}, another file with the same pipeline name; rename one pipeline (\`name:\`), ` +
        `or replace the schedule with this file's: scrape-etl schedule apply --force ${other}`,
    );
    expect((await describeWithTemporalCli('leads-ai-sentiment'))['schedule']).toEqual(before['schedule']);
    // The printed command, run verbatim, replaces it.
    const forced = await runCli(['schedule', 'apply', '--force', other], { cwd: dir, env });
    expect(forced.code, forced.stderr).toBe(0);
    // What changed is said (issue 36: it printed only `updated`).
    expect(forced.stdout).toBe(
      `leads-ai-sentiment: updated: cron "15 4 * * 1" → "45 5 * * 2", file ${pipelineFile} → ${other}\n`,
    );
    const d = await runCli(['schedule', 'describe', '--json', 'leads-ai-sentiment'], { cwd: dir, env });
    expect(JSON.parse(d.stdout)).toMatchObject({ cron: '45 5 * * 2' });
    // Now the first file is the second one, and the same rule holds; forced back for the next test.
    const back = await runCli(['schedule', 'apply', pipelineFile], { cwd: dir, env });
    expect(back.code).toBe(2);
    expect((await runCli(['schedule', 'apply', '--force', pipelineFile], { cwd: dir, env })).code).toBe(0);
  });

  it('apply --prune deletes the schedule of a file without a schedule section; unknown ids are errors', async () => {
    fs.writeFileSync(pipelineFile, fs.readFileSync(pipelineFile, 'utf8').replace(/schedule:[\s\S]*$/, ''));
    const kept = await runCli(['schedule', 'apply', '--json', pipelineFile], { cwd: dir, env });
    expect(JSON.parse(kept.stdout)).toMatchObject({ outcome: 'absent' });
    const pruned = await runCli(['schedule', 'apply', '--prune', '--json', pipelineFile], { cwd: dir, env });
    expect(JSON.parse(pruned.stdout)).toMatchObject({ outcome: 'deleted' });
    const list = await runCli(['schedule', 'list'], { cwd: dir, env });
    expect(list.stdout).toBe('no schedules\n');
    const missing = await runCli(['schedule', 'describe', 'leads-ai-sentiment'], { cwd: dir, env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no schedule 'leads-ai-sentiment'");
  });

  it("list shows what Temporal's own CLI lists, without loading the Temporal SDK; through TLS with an API key; failures as the exit-code table says", async () => {
    for (const [name, extra] of [
      ['list-active', ''],
      ['list-paused', '  paused: true\n'],
    ] as const) {
      const file = path.join(dir, `${name}.yaml`);
      fs.writeFileSync(
        file,
        fs.readFileSync(pipelineFile, 'utf8').replace(/^name: .*$/m, `name: ${name}`) +
          `schedule:\n  cron: "30 6 * * *"\n  timezone: Europe/Paris\n${extra}`,
      );
      const applied = await runCli(['schedule', 'apply', file], { cwd: dir, env });
      expect(applied.code, applied.stderr).toBe(0);
    }
    const server = await ensureDevServer({ dataDir: path.join(dir, 'data') });
    const address = `127.0.0.1:${server.port}`;
    // Temporal's CLI, the independent reader: id, paused and the next action time of each schedule.
    const binary = await findTemporalCli({ obtain: false });
    const theirs = spawnSync(binary, ['schedule', 'list', '--address', address, '-o', 'json'], { encoding: 'utf8' });
    expect(theirs.status, theirs.stderr).toBe(0);
    const expected = (
      JSON.parse(theirs.stdout) as Array<{
        scheduleId: string;
        info?: { paused?: boolean; futureActionTimes?: string[] };
      }>
    )
      .map((s) => ({
        scheduleId: s.scheduleId,
        paused: s.info?.paused ?? false,
        nextActionTime: s.info?.futureActionTimes?.[0] ? new Date(s.info.futureActionTimes[0]).toISOString() : null,
      }))
      .sort((a, b) => a.scheduleId.localeCompare(b.scheduleId));
    expect(expected.map((s) => s.scheduleId)).toEqual(['list-active', 'list-paused']);
    expect(expected.map((s) => s.paused)).toEqual([false, true]);
    const byId = (rows: Array<Record<string, unknown>>) =>
      [...rows].sort((a, b) => String(a['scheduleId']).localeCompare(String(b['scheduleId'])));

    // The embedded server, with every module the command loads recorded: none of the Temporal SDK.
    const trace = path.join(dir, 'schedule-list-modules.txt');
    const traced = await runCli(['schedule', 'list', '--json'], {
      cwd: dir,
      env: {
        ...env,
        SCRAPE_ETL_MODULE_TRACE: trace,
        NODE_OPTIONS: `--import ${path.join(REPO_ROOT, 'test', 'support', 'module-trace.mjs')}`,
      },
    });
    expect(traced.code, traced.stderr).toBe(0);
    expect(byId(jsonLines(traced.stdout))).toEqual(expected);
    const modules = fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean);
    expect(modules.some((m) => m.includes('/dist/cli/schedule-list.js'))).toBe(true);
    expect(modules.filter((m) => /@temporalio|@grpc/.test(m))).toEqual([]);
    const text = await runCli(['schedule', 'list'], { cwd: dir, env });
    expect(text.stdout.trim().split('\n').sort()).toEqual(
      expected.map((s) => `${s.scheduleId}\t${s.paused ? 'paused' : 'active'}\tnext ${s.nextActionTime}`),
    );

    // A cluster behind TLS that wants an API key (as Temporal Cloud): the same list; the key and namespace were sent.
    const front = await startTlsFront({ upstream: address, dir: path.join(dir, 'tls'), apiKey: 'k-list' });
    try {
      const tlsEnv = {
        ...env,
        TEMPORAL_ADDRESS: front.address,
        TEMPORAL_TLS_SERVER_CA_CERT_PATH: front.caFile,
        TEMPORAL_TLS_SERVER_NAME: front.serverName,
      };
      const viaTls = await runCli(['schedule', 'list', '--json'], {
        cwd: dir,
        env: { ...tlsEnv, TEMPORAL_API_KEY: 'k-list' },
      });
      expect(viaTls.code, viaTls.stderr).toBe(0);
      expect(byId(jsonLines(viaTls.stdout))).toEqual(expected);
      expect(front.calls.at(-1)).toEqual({
        path: '/temporal.api.workflowservice.v1.WorkflowService/ListSchedules',
        authorization: 'Bearer k-list',
        namespace: 'default',
      });
      // A rejected key, and a server certificate not trusted (no CA given): exit 1, said as a connection failure.
      const wrongKey = await runCli(['schedule', 'list'], {
        cwd: dir,
        env: { ...tlsEnv, TEMPORAL_API_KEY: 'k-wrong' },
      });
      expect(wrongKey.code).toBe(1);
      expect(wrongKey.stdout).toBe('');
      expect(wrongKey.stderr).toContain(
        `scrape-etl: cannot connect to Temporal at ${front.address} (TEMPORAL_ADDRESS): 16 UNAUTHENTICATED: API key missing or wrong`,
      );
      const untrusted = await runCli(['schedule', 'list'], {
        cwd: dir,
        env: {
          ...env,
          TEMPORAL_ADDRESS: front.address,
          TEMPORAL_TLS_SERVER_NAME: front.serverName,
          TEMPORAL_API_KEY: 'k-list',
        },
      });
      expect(untrusted.code).toBe(1);
      expect(untrusted.stderr).toMatch(
        new RegExp(`cannot connect to Temporal at ${front.address} \\(TEMPORAL_ADDRESS\\): .*certificate`, 'i'),
      );
    } finally {
      await front.close();
    }

    // Nothing listening: exit 1 at once; a namespace the server does not have: exit 1, named.
    const closedPort = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const port = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(port));
      });
    });
    const down = await runCli(['schedule', 'list'], {
      cwd: dir,
      env: { ...env, TEMPORAL_ADDRESS: `127.0.0.1:${closedPort}` },
    });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(
      `scrape-etl: cannot connect to Temporal at 127.0.0.1:${closedPort} (TEMPORAL_ADDRESS): connect ECONNREFUSED`,
    );
    const noNamespace = await runCli(['schedule', 'list'], {
      cwd: dir,
      env: { ...env, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'no-such-namespace' },
    });
    expect(noNamespace.code).toBe(1);
    expect(noNamespace.stderr).toBe("scrape-etl: Namespace not found: 'no-such-namespace'\n");
  });
});
