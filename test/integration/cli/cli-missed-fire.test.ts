// A schedule's missed fire (did_not_run, recorded by `scrape-etl up`) is an event with its fire time in `status` and
// `history`: no duration (the time between the fire and when `up` noticed it is not a run's), no start, no rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { MISSED_ID, MISSED_PIPELINE, RUN_ID, seedMissedFire } from '../../support/missed-fire.js';

let seeded: Awaited<ReturnType<typeof seedMissedFire>>;
const env = { SCRAPE_ETL_PROJECT: 'none', TEMPORAL_ADDRESS: '' };

beforeAll(async () => {
  seeded = await seedMissedFire('cli-missed-fire');
});

afterAll(() => seeded?.close());

function lineOf(stdout: string, id: string): string {
  const line = stdout.split('\n').find((l) => l.includes(id));
  expect(line, stdout).toBeDefined();
  return line!;
}

describe('a missed fire in status and history', () => {
  it('status: the fire time, no duration, said as a missed fire; the run beside it keeps its duration', async () => {
    const out = await runCli(['status', '--database', seeded.dbUrl], { cwd: seeded.dir, env });
    expect(out.code, out.stderr).toBe(0);
    const missed = lineOf(out.stdout, MISSED_ID);
    expect(missed).not.toMatch(/97\.3s|1m ?37/);
    expect(missed).toContain('missed fire 2026-11-26T12:00:00Z');
    expect(missed).toMatch(/DID_NOT_RUN +- +- +- +- +-/);
    // Rows seen (not recorded for this seeded run: '-'), rows changed, bookkeeping, duration.
    expect(lineOf(out.stdout, RUN_ID)).toMatch(/SUCCEEDED +- +2 +0 +4\.0s/);
    const json = await runCli(['status', '--json', '--database', seeded.dbUrl], { cwd: seeded.dir, env });
    const rows = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.find((r) => r['workflowId'] === MISSED_ID)).toMatchObject({
      missedFire: true,
      firedAt: '2026-11-26T12:00:00.000Z',
      durationMs: null,
      startedAt: null,
    });
  });

  it('history: the fire time, no duration, counted apart from the runs and out of the median', async () => {
    const out = await runCli(['history', MISSED_PIPELINE, '--database', seeded.dbUrl], { cwd: seeded.dir, env });
    expect(out.code, out.stderr).toBe(0);
    const missed = lineOf(out.stdout, MISSED_ID);
    expect(missed.startsWith('missed fire 2026-11-26T12:00:00Z')).toBe(true);
    expect(missed).not.toMatch(/97\.3s|1m ?37/);
    expect(missed).toMatch(/DID_NOT_RUN +- +- +- +- +-/);
    expect(out.stdout).toContain('1 run(s): 1 succeeded, 0 partial, 0 failed; 1 missed fire; median duration 4.0s');
  });
});
