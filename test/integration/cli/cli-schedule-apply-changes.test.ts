// `schedule apply` says what it changes and keeps a pause made with `schedule pause` (issue 36: applying a changed file
// printed only `updated` and silently unpaused a schedule paused by hand). Against the embedded Temporal dev server;
// the schedule's state is read with Temporal's own CLI, not through scrape-etl.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findTemporalCli } from '../../../temporal/cli-binary.js';
import { readDevServerState, stopDevServer, ensureDevServer } from '../../../temporal/dev-server.js';
import { REPO_ROOT, runCli } from '../../support/cli.js';

const ID = 'leads-ai-sentiment';
let dir: string;
let env: NodeJS.ProcessEnv;
let file: string;

function writeSchedule(o: { cron: string; paused?: boolean; overlap?: string }): void {
  fs.writeFileSync(
    file,
    fs.readFileSync(path.join(REPO_ROOT, 'pipelines', 'examples', 'leads-social.yaml'), 'utf8') +
      `schedule:\n  cron: "${o.cron}"\n  timezone: UTC\n  overlap: ${o.overlap ?? 'skip'}\n${o.paused === undefined ? '' : `  paused: ${o.paused}\n`}`,
  );
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-schedule-changes-'));
  env = {
    SCRAPER_BASE_URL: 'http://127.0.0.1:9',
    SCRAPER_API_TOKEN: 'unused',
    SCRAPE_ETL_DATA_DIR: path.join(dir, 'data'),
    TEMPORAL_ADDRESS: '',
    DATABASE_URL: '',
  };
  file = path.join(dir, 'social.yaml');
});

afterAll(async () => {
  await stopDevServer({ dataDir: path.join(dir, 'data') });
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Whether Temporal holds the schedule paused, and its cron, as Temporal's CLI reports them. */
async function temporalState(): Promise<{ paused: boolean; cron: string }> {
  const server = await ensureDevServer({ dataDir: path.join(dir, 'data') });
  const binary = await findTemporalCli({ obtain: false });
  const r = spawnSync(
    binary,
    ['schedule', 'describe', '--schedule-id', ID, '--address', `127.0.0.1:${server!.port}`, '-o', 'json'],
    { encoding: 'utf8' },
  );
  expect(r.status, r.stderr).toBe(0);
  const d = JSON.parse(r.stdout) as {
    schedule: { state?: { paused?: boolean }; spec: { cronString?: string[]; structuredCalendar?: unknown[] } };
  };
  return { paused: d.schedule.state?.paused ?? false, cron: JSON.stringify(d.schedule.spec) };
}

async function apply(): Promise<{ text: string; json: Record<string, unknown> }> {
  const t = await runCli(['schedule', 'apply', file], { cwd: dir, env, timeoutMs: 120_000 });
  expect(t.code, t.stderr).toBe(0);
  // The same apply again: unchanged now, and its JSON form.
  const j = await runCli(['schedule', 'apply', '--json', file], { cwd: dir, env });
  expect(j.code, j.stderr).toBe(0);
  return { text: t.stdout.trim(), json: JSON.parse(j.stdout) as Record<string, unknown> };
}

describe('schedule apply', () => {
  it('prints what it changes, and keeps a pause made with `schedule pause` unless the file changed `paused`', async () => {
    writeSchedule({ cron: '15 4 * * 1' });
    expect((await apply()).text).toBe(`${ID}: created`);
    expect((await temporalState()).paused).toBe(false);

    const paused = await runCli(['schedule', 'pause', ID], { cwd: dir, env });
    expect(paused.code, paused.stderr).toBe(0);
    expect((await temporalState()).paused).toBe(true);

    // The file changes, but not `paused`: the hand-made pause stays, and apply says so.
    const before = await temporalState();
    writeSchedule({ cron: '30 5 * * 2', overlap: 'buffer_one' });
    const changed = await apply();
    expect(changed.text).toBe(
      `${ID}: updated: cron "15 4 * * 1" → "30 5 * * 2", overlap skip → buffer_one; stays paused (paused with \`schedule pause\`; \`scrape-etl schedule unpause ${ID}\` resumes it)`,
    );
    expect(changed.json).toMatchObject({ scheduleId: ID, outcome: 'unchanged' });
    const after = await temporalState();
    expect(after.paused).toBe(true);
    expect(after.cron).not.toBe(before.cron);

    // The file itself says paused: true, then false: each is applied, and said.
    writeSchedule({ cron: '30 5 * * 2', overlap: 'buffer_one', paused: true });
    expect((await apply()).text).toBe(`${ID}: updated: paused (the file's paused: true)`);
    expect((await temporalState()).paused).toBe(true);
    writeSchedule({ cron: '30 5 * * 2', overlap: 'buffer_one', paused: false });
    expect((await apply()).text).toBe(`${ID}: updated: paused → active (the file's paused: false)`);
    expect((await temporalState()).paused).toBe(false);

    // A change while active: the fields only.
    writeSchedule({ cron: '0 6 * * *', overlap: 'buffer_one', paused: false });
    const json = await runCli(['schedule', 'apply', '--json', file], { cwd: dir, env });
    expect(JSON.parse(json.stdout)).toMatchObject({
      outcome: 'updated',
      changes: ['cron "30 5 * * 2" → "0 6 * * *"'],
      paused: false,
    });
  }, 240_000);
});
