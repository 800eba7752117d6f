// True counts (issue 26), as `scrape-etl run` and `status` print them on a real embedded dev server, simulator and
// SQLite file, checked against the file with Python's sqlite3 (an independent reader):
// - "rows by table" includes the pipeline's inferred content tables (`<pipeline>_items` and its children), first;
//   bookkeeping tables (scrapers, their runs) last and marked; data rows and bookkeeping rows apart, in `run` and
//   `status`. Before: the `_items` tables were missing and ROWS mixed bookkeeping rows in.
// - a partial run is marked in Temporal's visibility: ScrapeEtlStatus = 'partial' (registered by the embedded
//   server) and the memo's status; where the attribute is not set at the start, the memo alone, and the run still
//   completes. Before: a green COMPLETED with nothing saying partial.
// - progress shown never goes down (a retried batch reported twice, then a lower figure).
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { defineSearchAttributeKey } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProgressReporter } from '../../../cli/progress.js';
import { pipelineWorkflowInput } from '../../../temporal/start.js';
import { PIPELINE_WORKFLOW_TYPE, pipelineWorkflowId } from '../../../temporal/contract.js';
import { readDevServerState, ensureDevServer } from '../../../temporal/dev-server.js';
import { pipelineDataConverter } from '../../../temporal/payload-codec.js';
import { secretKeyFile, secretKeys } from '../../../lib/secret-key.js';
import { startCliBed, type CliBed } from '../../support/cli-bed.js';
import { jsonLines, runCli } from '../../support/cli.js';
import { marketplaceSpec, productUrl } from '../../support/pipeline-specs.js';
import { startInProcessWorker } from '../../support/temporal.js';

const TOKEN = 'run-counts-token';
const STATUS_KEY = defineSearchAttributeKey('ScrapeEtlStatus', 'KEYWORD');
let bed: CliBed;
let env: NodeJS.ProcessEnv;
let dbFile: string;

beforeAll(async () => {
  bed = await startCliBed({ name: 'run-counts', token: TOKEN, seed: 21 });
  env = { ...bed.env, SCRAPE_ETL_BACKGROUND_WORKER: '0' };
  dbFile = path.join(bed.dir, 'counts.sqlite');
}, 120_000);

afterAll(async () => {
  await bed?.close();
});

/** Rows of `pipeline` in each table, read by Python's sqlite3. */
function sqliteCounts(tables: string[], pipeline: string): Record<string, number> {
  const script =
    'import sqlite3,sys,json\nc=sqlite3.connect(sys.argv[1])\nprint(json.dumps({t: c.execute(f\'SELECT count(*) FROM "{t}" WHERE pipeline = ?\', (sys.argv[2],)).fetchone()[0] for t in sys.argv[3:]}))';
  return JSON.parse(
    execFileSync('python3', ['-c', script, dbFile, pipeline, ...tables], { encoding: 'utf8' }),
  ) as Record<string, number>;
}

function writePipeline(name: string, body: string[]): string {
  const file = path.join(bed.dir, `${name}.yaml`);
  fs.writeFileSync(file, [`name: ${name}`, ...body, `destination: { database: "sqlite:${dbFile}" }`].join('\n'));
  return file;
}

/** A client of the CLI's embedded server; `keyFile` that of the worker whose payloads it reads (the CLI's by default). */
async function embeddedClient(
  keyFile = secretKeyFile(env),
): Promise<{ client: Client; close(): Promise<void>; address: string }> {
  const server = await ensureDevServer({ dataDir: path.join(bed.dir, 'data') });
  const address = `127.0.0.1:${server!.port}`;
  const connection = await Connection.connect({ address });
  // The CLI encrypts payloads under the data folder's key (temporal/payload-codec.ts): read them with it.
  const dataConverter = pipelineDataConverter(secretKeys(keyFile));
  return { client: new Client({ connection, dataConverter }), close: () => connection.close(), address };
}

describe('true counts', () => {
  it('rows by table: content tables first, bookkeeping last and marked, data and bookkeeping rows apart; status agrees', async () => {
    const file = writePipeline('lead-counts', [
      'kind: leads-search-engine',
      'request: { search_type: keywords, keywords: solar installers, limit_pages: 2 }',
    ]);
    const json = await runCli(['run', '--json', file], { cwd: bed.dir, env, timeoutMs: 120_000 });
    expect(json.code, json.stderr).toBe(0);
    const result = jsonLines(json.stdout).at(-1)!;
    const rows = result['rowsByTable'] as Record<string, number>;
    // Every table the run wrote, the inferred content tables too, each as the file holds it.
    expect(Object.keys(rows)).toContain('lead_counts_items');
    expect(rows).toEqual(sqliteCounts(Object.keys(rows), 'lead-counts'));
    // Content rows are counted seen too (flattened in the load's transaction): on a first run, each one new.
    expect((result['seenByTable'] as Record<string, number>)['lead_counts_items']).toBe(rows['lead_counts_items']);

    const text = await runCli(['run', file], { cwd: bed.dir, env, timeoutMs: 120_000 });
    expect(text.code, text.stderr).toBe(0);
    const block = /rows by table:\n((?: {2}.+\n)+)/.exec(text.stdout)?.[1]?.trimEnd().split('\n') ?? [];
    const tables = block.slice(0, -1).map((l) => l.trim().split(/\s+/)[0]!);
    // Content first (the pipeline's inferred tables), then the model's data tables, bookkeeping last.
    expect(tables[0]).toBe('lead_counts_items');
    const firstBookkeeping = block.findIndex((l) => l.includes('(bookkeeping)'));
    expect(firstBookkeeping).toBeGreaterThan(tables.indexOf('leads_results'));
    expect(block.slice(firstBookkeeping, -1).every((l) => l.includes('(bookkeeping)'))).toBe(true);
    const second = jsonLines(
      (await runCli(['status', '--json', '--database', `sqlite:${dbFile}`, '--limit', '1'], { cwd: bed.dir, env }))
        .stdout,
    )[0]!;
    const secondRows = second['rowsByTable'] as Record<string, number>;
    const bookkeeping = ['scrapers', 'run_records', 'scraping_runs'].reduce((a, t) => a + (secondRows[t] ?? 0), 0);
    const data = Object.values(secondRows).reduce((a, n) => a + n, 0) - bookkeeping;
    expect(bookkeeping).toBeGreaterThan(0);
    expect(block.at(-1)!.trim()).toBe(`${data} data rows, ${bookkeeping} bookkeeping rows`);
    expect(second['rows']).toBe(data);
    expect(second['bookkeepingRows']).toBe(bookkeeping);

    // --live: the same state word as without it (lib/run-states.ts: the recorded outcome wins).
    // `run` stopped the server it started (issue 36), and status never starts one: it runs again here, as under `up`.
    await ensureDevServer({ dataDir: path.join(bed.dir, 'data') });
    const status = await runCli(['status', '--live', '--database', `sqlite:${dbFile}`, '--limit', '1'], {
      cwd: bed.dir,
      env,
    });
    expect(status.stdout).toMatch(/^PIPELINE\s+STATE\s+ROWS SEEN\s+ROWS CHANGED\s+BOOKKEEPING\s+DURATION/);
    expect(status.stdout.split('\n')[1]).toMatch(
      new RegExp(`^lead-counts\\s+SUCCEEDED\\s+\\d+\\s+${data}\\s+${bookkeeping}\\s`),
    );
  }, 300_000);

  it('a partial run carries ScrapeEtlStatus=partial and the memo status; status shows PARTIAL, as without --live', async () => {
    const file = writePipeline('shop-partial', [
      'kind: marketplace',
      'request:',
      '  urls:',
      `    - ${productUrl(4420309814)}`,
      // The simulator refuses this one (422: sim_models out of range): the URL fails for good, the other loads.
      `    - ${productUrl(777, 42)}&sim_models=999999`,
    ]);
    const r = await runCli(['run', '--json', file], { cwd: bed.dir, env, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(3);
    const workflowId = String(jsonLines(r.stdout).at(-1)!['workflowId']);
    const { client, close } = await embeddedClient();
    try {
      const d = await client.workflow.getHandle(workflowId).describe();
      expect(d.status.name).toBe('COMPLETED');
      expect(d.typedSearchAttributes.get(STATUS_KEY)).toBe('partial');
      expect(d.memo?.['status']).toBe('partial');
      // The Web UI's list filter works on it.
      const listed: string[] = [];
      for await (const w of client.workflow.list({ query: `ScrapeEtlStatus = 'partial'` })) listed.push(w.workflowId);
      expect(listed).toContain(workflowId);
    } finally {
      await close();
    }
    const status = await runCli(['status', '--live', '--database', `sqlite:${dbFile}`, '--pipeline', 'shop-partial'], {
      cwd: bed.dir,
      env,
    });
    expect(status.stdout).toMatch(/shop-partial\s+PARTIAL\s/);
  }, 300_000);

  it('a run started without the attribute (a namespace where it is not registered) records the memo only and completes', async () => {
    // The in-process worker encrypts under this test process's key, so the client uses that key too.
    const { client, close, address } = await embeddedClient(secretKeyFile());
    const taskQueue = `counts-${crypto.randomBytes(4).toString('hex')}`;
    const worker = await startInProcessWorker({
      address,
      taskQueue,
      env: { SCRAPER_BASE_URL: bed.sim.baseUrl, SCRAPER_API_TOKEN: TOKEN },
    });
    try {
      const spec = marketplaceSpec('shop-memo-only', `sqlite:${dbFile}`, [productUrl(4420309814)]);
      const handle = await client.workflow.start(PIPELINE_WORKFLOW_TYPE, {
        workflowId: pipelineWorkflowId(spec.name, 'r1'),
        taskQueue,
        args: [await pipelineWorkflowInput(spec, 'r1')],
        memo: { pipeline: spec.name },
      });
      const result = (await handle.result()) as { status: string };
      expect(result.status).toBe('succeeded');
      const d = await handle.describe();
      expect(d.memo?.['status']).toBe('succeeded');
      expect(d.typedSearchAttributes.get(STATUS_KEY)).toBeUndefined();
    } finally {
      await worker.stop();
      await close();
    }
  }, 120_000);

  it('rows seen beside rows changed: a re-run of unchanged products saw 2 and changed 0, in run, status, history and the table', async () => {
    const file = writePipeline('shop-seen', [
      'kind: marketplace',
      'request:',
      '  urls:',
      `    - ${productUrl(4420309814)}`,
      `    - ${productUrl(4420309815)}`,
    ]);
    const first = jsonLines(
      (await runCli(['run', '--json', file], { cwd: bed.dir, env, timeoutMs: 120_000 })).stdout,
    ).at(-1)!;
    expect(first['status']).toBe('succeeded');
    expect((first['seenByTable'] as Record<string, number>)['marketplace_products']).toBe(2);
    expect((first['rowsByTable'] as Record<string, number>)['marketplace_products']).toBe(2);

    const again = await runCli(['run', file], { cwd: bed.dir, env, timeoutMs: 120_000 });
    expect(again.code, again.stderr).toBe(0);
    // Before: "0 data rows" and nothing else, as if nothing had been fetched.
    const seenLine = /^data rows: (\d+) rows? seen, 0 changed$/m.exec(again.stdout);
    expect(seenLine, again.stdout).not.toBeNull();
    const seen = Number(seenLine![1]);
    expect(seen).toBeGreaterThanOrEqual(2);

    // The table, read by Python's sqlite3: the run's seen_by_table is the sum of its responses' rows_seen (no
    // price history was derived: no price changed), and nothing changed.
    const script = [
      'import sqlite3,sys,json',
      'c=sqlite3.connect(sys.argv[1])',
      'wf,seen,changed=c.execute("SELECT workflow_id, seen_by_table, rows_by_table FROM pipeline_runs WHERE pipeline=\'shop-seen\' ORDER BY id DESC LIMIT 1").fetchone()',
      'total={}',
      "for (r,) in c.execute('SELECT rows_seen FROM raw_responses WHERE workflow_id = ?', (wf,)):",
      '  for t,n in json.loads(r).items(): total[t]=total.get(t,0)+n',
      'print(json.dumps({"seen": json.loads(seen), "changed": json.loads(changed), "responses": total}))',
    ].join('\n');
    const read = JSON.parse(execFileSync('python3', ['-c', script, dbFile], { encoding: 'utf8' })) as Record<
      string,
      Record<string, number>
    >;
    expect(read['seen']).toEqual(read['responses']);
    expect(read['seen']!['marketplace_products']).toBe(2);
    expect(Object.values(read['seen']!).reduce((a, b) => a + b, 0)).toBe(seen);
    expect(Object.values(read['changed']!).reduce((a, b) => a + b, 0)).toBe(0);

    const status = jsonLines(
      (
        await runCli(
          ['status', '--json', '--database', `sqlite:${dbFile}`, '--pipeline', 'shop-seen', '--limit', '1'],
          { cwd: bed.dir, env },
        )
      ).stdout,
    )[0]!;
    expect([status['rowsSeen'], status['rows']]).toEqual([seen, 0]);
    const table = await runCli(
      ['status', '--database', `sqlite:${dbFile}`, '--pipeline', 'shop-seen', '--limit', '1'],
      { cwd: bed.dir, env },
    );
    expect(table.stdout).toMatch(/^PIPELINE\s+STATE\s+ROWS SEEN\s+ROWS CHANGED\s+BOOKKEEPING/);
    expect(table.stdout.split('\n')[1]).toMatch(new RegExp(`^shop-seen\\s+SUCCEEDED\\s+${seen}\\s+0\\s`));
    const history = await runCli(['history', file, '--database', `sqlite:${dbFile}`], { cwd: bed.dir, env });
    const lines = history.stdout.split('\n');
    expect(lines[0]).toMatch(/^STARTED\s+STATUS\s+ROWS SEEN\s+ROWS CHANGED\s+BOOKKEEPING/);
    // Newest first: the re-run (seen, 0 changed), then the first run: every row new, its price history derived
    // (seen where written), so seen is never below changed; a shop both products name is seen twice, changed once.
    expect(lines[1]).toMatch(new RegExp(`\\sSUCCEEDED\\s+${seen}\\s+0\\s`));
    const [, seen1, changed1] = /\sSUCCEEDED\s+(\d+)\s+(\d+)\s/.exec(lines[2]!) ?? [];
    expect(Number(changed1)).toBeGreaterThan(0);
    expect(Number(seen1)).toBeGreaterThanOrEqual(Number(changed1));
  }, 300_000);

  it('progress shown never goes down', () => {
    const out: string[] = [];
    const io = {
      stdout: { write: (s: string) => out.push(s) },
      stderr: { write: (s: string) => out.push(s) },
    } as never;
    const lines = createProgressReporter('lines', 'wf', io);
    lines.update({ phase: 'loading', done: 3, total: 5, rows: 110 });
    lines.update({ phase: 'loading', done: 2, total: 5, rows: 109 });
    lines.update({ phase: 'loading', done: 4, total: 5, rows: 120 });
    expect(out).toEqual(['wf: loading 3/5 110 rows\n', 'wf: loading 4/5 120 rows\n']);
    const json: string[] = [];
    const jio = { stdout: { write: (s: string) => json.push(s) }, stderr: { write: () => true } } as never;
    const j = createProgressReporter('json', 'wf', jio);
    j.update({ phase: 'loading', rows: 110 });
    j.update({ phase: 'loading', rows: 109 });
    expect(json.map((l) => (JSON.parse(l) as { rows: number }).rows)).toEqual([110]);
  });
});
