// Spend control (issue #40) as a user meets it: `scrape-etl run` against the simulator (which counts every request it
// receives), the embedded Temporal dev server the command starts, the in-process worker and a real SQLite file read
// back with Python's sqlite3. A forecast over a limit refuses the run before any call; a limit reached mid-run stops
// new calls and ends the run partial with the reason 'budget'; budget_warning and budget_exhausted go out once per
// limit and period.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliBed, type CliBed } from '../../support/cli-bed.js';
import { jsonLines, runCli } from '../../support/cli.js';
import { startLocalServer, type LocalServer } from '../../support/local-server.js';

const TOKEN = 'cli-budget-test-token';
const SYNC = 'POST /api/marketplace/sync';
const JOBS = 'POST /api/job-board-scrape';
let bed: CliBed;
let hooks: LocalServer;
let db: string;

beforeAll(async () => {
  bed = await startCliBed({ name: 'cli-budget', token: TOKEN, seed: 40 });
  hooks = await startLocalServer();
  hooks.respond = (_req, res) => {
    res.writeHead(200);
    res.end('ok');
  };
  db = path.join(bed.dir, 'dest.sqlite');
}, 60_000);

afterAll(async () => {
  await hooks?.close();
  await bed?.close();
});

function productUrls(n: number, first: number): string[] {
  return Array.from({ length: n }, (_, i) => `https://shop.example.tw/api/v4/pdp/get_pc?itemid=${first + i}&shopid=77`);
}

/** A marketplace pipeline file with the given budget section (YAML lines under `budget:`). */
function pipelineFile(name: string, urls: string[], budget: string[], extra: string[] = []): string {
  return writePipeline(
    name,
    ['kind: marketplace', 'request:', '  urls:', ...urls.map((u) => `    - ${u}`)],
    budget,
    extra,
  );
}

function writePipeline(name: string, kindLines: string[], budget: string[], extra: string[] = []): string {
  const file = path.join(bed.dir, `${name}.yaml`);
  const lines = [
    `name: ${name}`,
    ...kindLines,
    `destination: { database: "sqlite:${db}" }`,
    // One URL at a time: the call a limit stops is then the same on every machine.
    'concurrency: 1',
    'budget:',
    ...budget.map((l) => `  ${l}`),
    ...extra,
  ];
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

function syncCalls(): number {
  return bed.sim.stats().byEndpoint[SYNC] ?? 0;
}

/** Rows of the destination read by Python's sqlite3, not by the product's own code. */
function pyQuery(sql: string): unknown[][] {
  const out = execFileSync(
    'python3',
    [
      '-c',
      'import json,sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(json.dumps(c.execute(sys.argv[2]).fetchall()))',
      db,
      sql,
    ],
    { encoding: 'utf8' },
  );
  return JSON.parse(out) as unknown[][];
}

describe('budgets', () => {
  it('refuses a run whose forecast exceeds a limit before any call: exit 5, one sentence, the simulator counted nothing', async () => {
    const file = pipelineFile('shop-refused', productUrls(3, 1000), ['calls: { run: 2 }']);
    const plan = await runCli(['run', '--plan', file], { cwd: bed.dir, env: bed.env });
    expect(plan.code, plan.stderr).toBe(5);
    expect(plan.stdout).toContain('service calls  3   3 URLs x 1 calls per URL (no history yet: one call each)');
    expect(plan.stdout).toMatch(
      /OVER budget\.calls\.run of pipeline shop-refused .*: 2; spent this run 0, this run adds 3 service calls/,
    );

    const r = await runCli(['run', file], { cwd: bed.dir, env: bed.env, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(5);
    const sentence = r.stderr
      .trim()
      .split('\n')
      .filter((l) => l.includes('was not started'));
    expect(sentence).toEqual([
      `scrape-etl: pipeline shop-refused was not started: its forecast of 3 service calls exceeds budget.calls.run of pipeline shop-refused (${file}), 2; raise budget.calls.run or give the run fewer URLs`,
    ]);
    // Not one request of any kind reached the service.
    expect(bed.sim.stats().total).toBe(0);
  }, 120_000);

  it('stops starting calls when a limit is reached mid-run and ends partial with the reason budget', async () => {
    // Tokens are known only from answers: the first run of a pipeline has no token forecast, so it starts, and its
    // first job-board answer (tokenUsage 800 or more) spends the run's 500.
    const file = writePipeline(
      'jobs-capped',
      [
        'kind: job-board',
        'request:',
        '  urls:',
        ...[1, 2, 3].map((i) => `    - https://remoteok.com/remote-jobs-${i}`),
        '  min: 1',
        '  max: 3',
        '  timeout: 60',
        '  schema: { type: array, items: { type: object, properties: { job_title: { type: string } }, required: [job_title] } }',
      ],
      ['tokens: { run: 500 }'],
    );
    const before = bed.sim.stats().byEndpoint[JOBS] ?? 0;
    const r = await runCli(['run', '--json', file], { cwd: bed.dir, env: bed.env, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(3);
    const result = jsonLines(r.stdout).at(-1)!;
    expect(result['status']).toBe('partial');
    expect(result['reason']).toBe('budget');
    expect((result['budget'] as { limit: string }).limit).toBe('budget.tokens.run');
    expect((bed.sim.stats().byEndpoint[JOBS] ?? 0) - before).toBe(1);
    // Recorded once, with the tokens the service's answer reported; the run's row says why it is partial.
    const [[calls, tokens]] = pyQuery(
      "SELECT count(*), sum(tokens) FROM spend_calls WHERE pipeline = 'jobs-capped'",
    ) as [[number, number]];
    expect(calls).toBe(1);
    expect(pyQuery("SELECT sum(token_usage) FROM raw_responses WHERE pipeline = 'jobs-capped'")).toEqual([[tokens]]);
    expect(tokens).toBeGreaterThanOrEqual(800);
    expect(pyQuery("SELECT status, status_reason FROM pipeline_runs WHERE pipeline = 'jobs-capped'")).toEqual([
      ['partial', 'budget'],
    ]);

    const history = await runCli(['history', file], { cwd: bed.dir, env: bed.env });
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toContain('PARTIAL (budget)');

    // Now the history knows tokens per URL: the next run's forecast (3 URLs' worth) is refused before any call.
    const again = await runCli(['run', file], { cwd: bed.dir, env: bed.env, timeoutMs: 60_000 });
    expect(again.code, again.stderr).toBe(5);
    expect(again.stderr).toContain(
      `its forecast of ${3 * tokens} tokens exceeds budget.tokens.run of pipeline jobs-capped`,
    );
    expect((bed.sim.stats().byEndpoint[JOBS] ?? 0) - before).toBe(1);
  }, 240_000);

  it("--plan forecasts from the pipeline's own history: calls and tokens per URL of its last runs", async () => {
    // Without history (the first test's pipeline): said, and what is assumed.
    const fresh = await runCli(['run', '--plan', path.join(bed.dir, 'shop-refused.yaml')], {
      cwd: bed.dir,
      env: bed.env,
    });
    expect(fresh.stdout).toContain('3 URLs x 1 calls per URL (no history yet: one call each)');
    expect(fresh.stdout).toMatch(
      /^ {2}tokens +unknown +\(no earlier call of this pipeline reported tokenUsage: tokens are not forecast/m,
    );
    // jobs-capped's one run called one URL once, and its answer reported the tokens Python reads here.
    const [[calls, tokens]] = pyQuery(
      "SELECT count(*), sum(tokens) FROM spend_calls WHERE pipeline = 'jobs-capped'",
    ) as [[number, number]];
    expect(calls).toBe(1);
    const plan = await runCli(['run', '--plan', path.join(bed.dir, 'jobs-capped.yaml')], {
      cwd: bed.dir,
      env: bed.env,
    });
    expect(plan.code, plan.stderr).toBe(5);
    expect(plan.stdout).toContain("service calls  3   3 URLs x 1 calls per URL (the pipeline's last 1 run)");
    expect(plan.stdout).toContain(
      `tokens         ${3 * tokens}   3 URLs x ${tokens} tokens per URL (the pipeline's last 1 run)`,
    );
  }, 60_000);

  it('sends budget_warning and budget_exhausted once per limit and period', async () => {
    const file = pipelineFile(
      'shop-alerts',
      productUrls(1, 3000),
      ['calls: { day: 4 }', "warn_at: '50%'"],
      ['notify:', '  webhooks:', `    - url: ${hooks.base}/hook`, '      on: [budget_warning, budget_exhausted]'],
    );
    const events = () =>
      hooks.seen.map(
        (s) => JSON.parse(s.body) as { event: string; budget: { limit: string; spent: number; period_id: string } },
      );
    const today = new Date().toISOString().slice(0, 10);
    const seenAfter: string[][] = [];
    const before = syncCalls();
    for (let i = 1; i <= 4; i++) {
      const r = await runCli(['run', file], { cwd: bed.dir, env: bed.env, timeoutMs: 120_000 });
      expect(r.code, r.stderr).toBe(0);
      seenAfter.push(events().map((e) => `${e.event}:${e.budget.spent}`));
    }
    // 1 of 4: nothing; 2 of 4 (50%): the warning; 3 of 4: nothing new (sent this period); 4 of 4: exhausted.
    expect(syncCalls() - before).toBe(4);
    expect(seenAfter).toEqual([
      [],
      ['budget_warning:2'],
      ['budget_warning:2'],
      ['budget_warning:2', 'budget_exhausted:4'],
    ]);
    expect(events().every((e) => e.budget.limit === 'budget.calls.day' && e.budget.period_id === today)).toBe(true);
    const keys = hooks.seen.map((s) => s.headers['idempotency-key']);
    expect(keys).toEqual([
      `scrape-etl:budget:pipeline:shop-alerts:budget.calls.day:${today}:budget_warning`,
      `scrape-etl:budget:pipeline:shop-alerts:budget.calls.day:${today}:budget_exhausted`,
    ]);
    // Spent: a fifth run today is refused before any call, and sends nothing.
    const refused = await runCli(['run', file], { cwd: bed.dir, env: bed.env, timeoutMs: 60_000 });
    expect(refused.code, refused.stderr).toBe(5);
    expect(hooks.seen).toHaveLength(2);
    expect(syncCalls() - before).toBe(4);
  }, 480_000);
});
