// Values kept out of their columns (issue 40), through a real Temporal run on SQLite and Postgres: the simulator
// answers every result's `created_at` with text that is not a timestamp. The run still succeeds (the rest of each
// row is stored, created_at NULL) and says how many values it kept out, once, wherever a run is shown:
// pipeline_runs (read with Python's sqlite3 and psql), `status --json` and its table, `history`, the run-ended
// webhook, the run report (parsed with Python's html.parser), and the workflow's result. The load activity is made
// to fail after it landed part of the results (the /api/results pages behind the run's detail answer 503 beyond the
// client's attempts), so its retry loads the rest: the count is still one per value, not one per attempt.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultRecord } from '../../../client/index.js';
import { openDatabase } from '../../../destinations/open.js';
import type { Database } from '../../../destinations/contract.js';
import type { PipelineSpec } from '../../../pipelines/spec.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { startPipelineRun } from '../../../temporal/start.js';
import { jsonLines, runCli } from '../../support/cli.js';
import { testDatabaseUrl, type TestDialect } from '../../support/destinations.js';
import { startLocalServer, type LocalServer } from '../../support/local-server.js';
import { leadsSearchSpec } from '../../support/pipeline-specs.js';
import {
  startInProcessWorker,
  startTestTemporal,
  type InProcessWorker,
  type TestTemporal,
} from '../../support/temporal.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const PG_BIN = process.env['TEST_POSTGRES_BIN'] ?? '/usr/lib/postgresql/15/bin';
const NOT_A_TIMESTAMP = 'yesterday at noon';
/** The run's detail carries this many results; the rest come from /api/results, where the fault is. */
const IN_DETAIL = 4;
/** More 503s than the client's own attempts of one request (5): the activity attempt fails and Temporal retries it. */
const PAGE_FAULTS = 6;

let temporal: TestTemporal;
let receiver: LocalServer;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-kept-out-'));
  temporal = await startTestTemporal();
  receiver = await startLocalServer();
  receiver.respond = (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  };
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await temporal?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** pipeline_runs' figures of one run and the raw_responses' counts, read by a reader that is not ours. */
function independentRead(
  dialect: TestDialect,
  dbUrl: string,
  workflowId: string,
): { keptOut: number | null; sample: unknown; landed: number[]; nullCreatedAt: number } {
  if (dialect === 'sqlite') {
    const py = String.raw`
import sqlite3, sys, json
c = sqlite3.connect(sys.argv[1])
wf = sys.argv[2]
k, s = c.execute("SELECT kept_out, kept_out_sample FROM pipeline_runs WHERE workflow_id = ?", (wf,)).fetchone()
landed = [json.loads(r[0])["count"] for r in c.execute("SELECT kept_out FROM raw_responses WHERE workflow_id = ? AND kept_out IS NOT NULL ORDER BY id", (wf,))]
n = c.execute("SELECT count(*) FROM leads_results WHERE load_id IN (SELECT id FROM raw_responses WHERE workflow_id = ?) AND created_at IS NULL", (wf,)).fetchone()[0]
print(json.dumps({"keptOut": k, "sample": json.loads(s) if s else None, "landed": landed, "nullCreatedAt": n}))
`;
    return JSON.parse(
      execFileSync('python3', ['-c', py, dbUrl.replace(/^sqlite:/, ''), workflowId], { encoding: 'utf8' }),
    ) as ReturnType<typeof independentRead>;
  }
  const psql = (sql: string) =>
    execFileSync(`${PG_BIN}/psql`, [dbUrl, '-At', '-v', 'ON_ERROR_STOP=1', '-c', sql], { encoding: 'utf8' }).trim();
  const wf = workflowId.replace(/'/g, "''");
  const [k, s] = psql(
    `SELECT coalesce(kept_out::text, 'null') || E'\t' || coalesce(kept_out_sample::text, 'null') FROM pipeline_runs WHERE workflow_id = '${wf}'`,
  ).split('\t');
  const landed = psql(
    `SELECT (kept_out::jsonb ->> 'count') FROM raw_responses WHERE workflow_id = '${wf}' AND kept_out IS NOT NULL ORDER BY id`,
  )
    .split('\n')
    .filter((l) => l !== '')
    .map(Number);
  const nullCreatedAt = Number(
    psql(
      `SELECT count(*) FROM leads_results WHERE load_id IN (SELECT id FROM raw_responses WHERE workflow_id = '${wf}') AND created_at IS NULL`,
    ),
  );
  return { keptOut: JSON.parse(k!) as number | null, sample: JSON.parse(s!) as unknown, landed, nullCreatedAt };
}

/** The text of the report's elements of class `kept-out`, parsed by Python's html.parser. */
function reportKeptOut(file: string): string[] {
  const py = String.raw`
import sys, json
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.depth = 0; self.out = []; self.cur = []
    def handle_starttag(self, tag, attrs):
        cls = (dict(attrs).get("class") or "").split()
        if self.depth: self.depth += 1
        elif "kept-out" in cls: self.depth = 1; self.cur = []
    def handle_endtag(self, tag):
        if self.depth:
            self.depth -= 1
            if self.depth == 0: self.out.append(" ".join(" ".join(self.cur).split()))
    def handle_data(self, d):
        if self.depth: self.cur.append(d)
p = P(); p.feed(open(sys.argv[1], encoding="utf-8").read()); print(json.dumps(p.out))
`;
  return JSON.parse(execFileSync('python3', ['-c', py, file], { encoding: 'utf8' })) as string[];
}

describe.each<TestDialect>(['sqlite', 'postgres'])('values kept out on %s', (dialect) => {
  let sim: RunningSimulator;
  let worker: InProcessWorker;
  let db: Database;
  let dbUrl: string;
  const taskQueue = `kept-out-${dialect}-${crypto.randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    dbUrl = await testDatabaseUrl(dialect, dir, `kept-out-${dialect}`);
    sim = await startSimulator({
      port: 0,
      token: TOKEN,
      seed: 40,
      runDurationMs: 300,
      runDetailResultsLimit: IN_DETAIL,
    });
    worker = await startInProcessWorker({
      address: temporal.address,
      taskQueue,
      env: {
        SCRAPER_BASE_URL: sim.baseUrl,
        SCRAPER_API_TOKEN: TOKEN,
        HOOK_BASE: receiver.base,
        // Two results a transaction: the detail's results land in two batches before the list is asked.
        SCRAPE_ETL_LOAD_BATCH_SIZE: '2',
      },
    });
    db = await openDatabase(dbUrl);
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await db?.close();
    await sim?.close();
  });

  it('counts each value once across a retried load, and every surface shows the count and the first few', async () => {
    const name = `kept-${dialect}`;
    const hook = `/ended-${dialect}`;
    const spec: PipelineSpec = {
      ...leadsSearchSpec(name, dbUrl, 1),
      notify: { webhooks: [{ url: `\${HOOK_BASE}${hook}`, format: 'json', on: ['succeeded'] }] },
    };
    sim.setResultFields({ created_at: NOT_A_TIMESTAMP });
    sim.queueFaults(
      Array.from({ length: PAGE_FAULTS }, () => ({ status: 503 })),
      { path: '/api/results', method: 'GET' },
    );
    let handle;
    let result;
    try {
      handle = await startPipelineRun({ client: temporal.client, taskQueue }, spec, 'r1');
      result = await handle.result();
    } finally {
      sim.setResultFields(null);
      sim.clearFaults();
    }
    const workflowId = handle.workflowId;
    const results = result.scrapingRunIds.flatMap(
      (id) => sim.truth.runResults(Number(id)) as unknown as ResultRecord[],
    );
    expect(results.length).toBeGreaterThan(IN_DETAIL);
    for (const r of results) expect(r.created_at).toBe(NOT_A_TIMESTAMP);

    // The run succeeded: everything it could store is stored. It says what it kept out.
    expect(result.status).toBe('succeeded');
    expect(result.keptOut).toBe(results.length);

    // The load activity ran more than once: its first attempt failed after landing the detail's batches.
    const events = (await handle.fetchHistory()).events ?? [];
    const loadStarted = events.filter(
      (e) =>
        e.activityTaskStartedEventAttributes &&
        events.some(
          (s) =>
            s.eventId?.toString() === e.activityTaskStartedEventAttributes!.scheduledEventId?.toString() &&
            s.activityTaskScheduledEventAttributes?.activityType?.name === 'loadRunResults',
        ),
    );
    expect(loadStarted.length).toBe(1);
    expect(loadStarted[0]!.activityTaskStartedEventAttributes!.attempt).toBeGreaterThanOrEqual(2);

    // pipeline_runs and raw_responses, read by Python's sqlite3 or psql: one count per value.
    const read = independentRead(dialect, dbUrl, workflowId);
    expect(read.keptOut).toBe(results.length);
    expect(read.landed.reduce((a, b) => a + b, 0)).toBe(results.length);
    expect(read.nullCreatedAt).toBe(results.length);
    const sample = read.sample as Array<Record<string, unknown>>;
    expect(sample).toHaveLength(5);
    for (const v of sample) {
      expect(v).toMatchObject({ table: 'leads_results', column: 'created_at', value: NOT_A_TIMESTAMP });
      expect(results.map((r) => String(r.id))).toContain(String((v['key'] as Record<string, unknown>)['id']));
      expect(typeof v['rawResponseId']).toBe('number');
    }

    // status --json and its table.
    const status = await runCli(['status', '--database', dbUrl, '--json', '--no-temporal'], { cwd: dir });
    expect(status.code, status.stderr).toBe(0);
    const shown = jsonLines(status.stdout).find((r) => r['workflowId'] === workflowId);
    expect(shown).toMatchObject({ tableStatus: 'succeeded', keptOut: results.length });
    expect(shown!['keptOutSample']).toEqual(sample);
    const table = await runCli(['status', '--database', dbUrl, '--no-temporal'], { cwd: dir });
    expect(table.code, table.stderr).toBe(0);
    const line = table.stdout.split('\n').find((l) => l.includes(workflowId) && l.startsWith(name));
    expect(line).toContain(`SUCCEEDED, ${results.length} values kept out`);
    expect(table.stdout).toContain(`${workflowId}: ${results.length} values kept out: leads_results.created_at (id `);

    // history.
    const history = await runCli(['history', name, '--database', dbUrl], { cwd: dir });
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toContain(`SUCCEEDED, ${results.length} values kept out`);
    expect(history.stdout).toMatch(new RegExp(`; ${results.length} values kept out\\n`));

    // The run-ended webhook, once.
    const bodies = receiver.seen
      .filter((r) => r.url === hook)
      .map((r) => JSON.parse(r.body) as Record<string, unknown>);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toMatchObject({ event: 'succeeded', status: 'succeeded', values_kept_out: results.length });
    expect(bodies[0]!['values_kept_out_sample']).toEqual(sample);

    // The report: the run's page says it and names the values.
    const out = path.join(dir, `report-${dialect}.html`);
    const report = await runCli(['report', name, '--database', dbUrl, '--out', out], { cwd: dir });
    expect(report.code, report.stderr).toBe(0);
    const kept = reportKeptOut(out);
    expect(kept).toContain(`${results.length} values kept out`);
    expect(kept.some((t) => t.startsWith(`${results.length} values kept out: stored NULL`))).toBe(true);
    const tableText = kept.find((t) => t.startsWith('Table Column Row key'));
    expect(tableText).toContain(`leads_results created_at id=`);
    expect(tableText).toContain(NOT_A_TIMESTAMP);
  }, 240_000);
});
