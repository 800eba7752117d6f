// `scrape-etl up`'s log as an operator tails it: one line per schedule fire and per run started and ended (pipeline,
// run id, outcome, rows, duration), warnings one line each (never an SDK object dump, never an activity's task
// token), and a header whose next fire time is still to come. A real `up` on the embedded server, a pipeline whose
// error check fails on a schedule firing every few seconds.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliBed, type CliBed } from '../../support/cli-bed.js';
import { runCli } from '../../support/cli.js';
import { startUp, until, type UpProcess } from '../../support/up-process.js';

const TOKEN = 'up-log-test-token';
let bed: CliBed;
let up: UpProcess | undefined;

beforeAll(async () => {
  bed = await startCliBed({ name: 'up-log', token: TOKEN, seed: 12 });
});

afterAll(async () => {
  if (up && up.child.exitCode === null && up.child.signalCode === null) {
    up.child.kill('SIGKILL');
    await up.exited;
  }
  await bed?.close();
});

const ISO = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(?:\\.\\d+)?Z';

describe("up's log", () => {
  it('says each fire and each run in one line, warnings in one line, no task token, and a next fire time in the future', async () => {
    const dir = bed.dir;
    const db = path.join(dir, 'up-log.sqlite');
    const file = path.join(dir, 'up-log.yaml');
    fs.writeFileSync(
      file,
      [
        'name: up-log',
        'kind: marketplace',
        'request:',
        '  urls:',
        '    - https://shopee.tw/api/v2/item/get?itemid=5500000001&shopid=10115139',
        'destination:',
        `  database: sqlite:${db}`,
        'checks:',
        '  - type: row_count',
        '    table: marketplace_products',
        '    min: 100',
        'schedule:',
        '  cron: "@every 10s"',
        '  timezone: UTC',
        '  overlap: skip',
        '',
      ].join('\n'),
    );
    const env = { ...bed.env, SCRAPE_ETL_UP_WATCH_SECONDS: '2' };
    const applied = await runCli(['schedule', 'apply', file], { cwd: dir, env, timeoutMs: 120_000 });
    expect(applied.code, applied.stderr).toBe(0);

    up = startUp([], { cwd: dir, env });
    await up.ready();
    const bannerAt = Date.now();
    const next = new RegExp(`next: up-log at (${ISO})`).exec(up.stdout())?.[1];
    expect(next, up.stdout()).toBeDefined();
    // Printed after the look that found it: still ahead of the moment the banner was read (a second of slack).
    expect(Date.parse(next!)).toBeGreaterThan(bannerAt - 1000);

    // Two runs ended, and the schedule's line for each (the watch looks every 2 s here).
    const ended = await until(
      "two runs ended and their fires in up's log",
      () => {
        const text = up!.stderr();
        const lines = text.split('\n').filter((l) => / run ended: /.test(l));
        const fires = lines
          .map((l) => /scheduled-(\S+?) /.exec(l)?.[1])
          .filter((f) => f && text.includes(`schedule up-log fired at ${f}`));
        return lines.length >= 2 && fires.length >= 2 ? lines : undefined;
      },
      150_000,
    ).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}\nup's stderr:\n${up!.stderr()}`);
    });
    const log = up.stderr();
    const lines = log.split('\n').filter((l) => l.length > 0);
    for (const l of ended) {
      expect(l).toMatch(
        new RegExp(
          `^${ISO} run ended: up-log run up-log--scheduled-\\S+ failed_checks, \\d+ rows? seen, \\d+ changed, \\d+\\.\\ds`,
        ),
      );
      const id = / run (up-log--scheduled-\S+?) /.exec(l)![1]!;
      expect(
        lines.some((s) => s.includes(`run started: up-log run ${id}`)),
        log,
      ).toBe(true);
      const fire = /scheduled-(\S+)$/.exec(id)![1]!;
      const fireLine = lines.find((s) => s.includes(`schedule up-log fired at ${fire}: run ${id}`));
      expect(fireLine, log).toBeDefined();
      // The next fire it names is after the one it says.
      const nextAt = new RegExp(`next fire at (${ISO})`).exec(fireLine!)?.[1];
      expect(Date.parse(nextAt!)).toBeGreaterThan(Date.parse(fire));
    }
    // One event, one line: every line of the log starts with its time; nothing carries a task token.
    for (const l of lines) expect(l, log).toMatch(new RegExp(`^${ISO} `));
    expect(log + up.stdout()).not.toMatch(/taskToken|task_token/i);
    // The failed check's warning is one sentence naming the pipeline and the check.
    expect(lines.filter((l) => /warning: /.test(l) && /row_count/.test(l)).length, log).toBeGreaterThan(0);

    up.child.kill('SIGTERM');
    await up.exited;
  }, 300_000);
});
