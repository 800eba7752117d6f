// Pipelines and runs as pipeline_runs, raw_responses, notify_deliveries, schema_history, export_watermarks and (when
// the checks feature made it) check_results hold them. Every query is bounded: by a run's workflow id (indexed),
// by a pipeline (indexed) with a LIMIT, or by the small bookkeeping tables.
import { countsCell, isMissedFire } from '../db/store/pipeline-runs.js';
import { quoteIdent } from '../db/store/sql.js';
import { splitRows } from '../db/model/table-names.js';
import { contentTables, describe, tableExists } from './catalog.js';
import type { Reader, Row } from './source.js';
import { isoTime, num, text, timeMs } from './values.js';
import { runStateOf, type RunState } from '../lib/run-states.js';
import { keptOutSampleCell, type KeptOutValue } from '../lib/kept-out.js';

export interface RunInfo {
  id: number;
  workflowId: string;
  pipeline: string;
  kind: string;
  status: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** Rows the run changed (inserted or updated), by table. */
  rowsByTable: Record<string, number>;
  /** Data rows changed (bookkeeping tables apart), as `status` counts them; null when not recorded. */
  rows: number | null;
  /** Data rows the run's responses held, changed or not; null for runs before it was counted (or still going). */
  rowsSeen: number | null;
  error: string | null;
  exportStatus: string | null;
  exportError: string | null;
  scheduledAt: string | null;
  tokens: number | null;
  /** Values its loads kept out of their columns (pipeline_runs.kept_out); null when not counted. */
  keptOut: number | null;
  /** The first few of them, each with the raw response that holds it. */
  keptOutSample: KeptOutValue[];
}

// Every column: a database written by an older version lacks the newer ones (seen_by_table), which read as absent.
const RUN_COLUMNS = '*';

function toRun(x: Row): RunInfo {
  const changed = countsCell(x['rows_by_table']);
  const seen = countsCell(x['seen_by_table']);
  const rowsByTable = changed ?? {};
  return {
    id: num(x['id'])!,
    workflowId: String(x['workflow_id']),
    pipeline: String(x['pipeline']),
    kind: String(x['kind']),
    status: String(x['status']),
    startedAt: isoTime(x['started_at']),
    finishedAt: isoTime(x['finished_at']),
    rowsByTable,
    rows: changed ? splitRows(changed).data : null,
    rowsSeen: seen ? splitRows(seen).data : null,
    error: text(x['error']),
    exportStatus: text(x['export_status']),
    exportError: text(x['export_error']),
    scheduledAt: isoTime(x['scheduled_at']),
    tokens: num(x['token_usage']),
    keptOut: num(x['kept_out']),
    keptOutSample: keptOutSampleCell(x['kept_out_sample']),
  };
}

export interface PipelineSummary {
  pipeline: string;
  kind: string;
  lastRun: RunInfo;
  /** Newest first, at most SPARK_RUNS. */
  recent: RunInfo[];
  lastSuccessAt: string | null;
  checks: CheckSummary | null;
}

export interface CheckSummary {
  passed: number;
  failed: number;
  other: number;
}

const SPARK_RUNS = 30;

export async function pipelineNames(r: Reader): Promise<string[]> {
  if (!(await tableExists(r, 'pipeline_runs'))) return [];
  const rows = await r.all('SELECT DISTINCT pipeline FROM pipeline_runs ORDER BY pipeline');
  return rows.map((x) => String(x['pipeline']));
}

export async function pipelineSummary(r: Reader, pipeline: string): Promise<PipelineSummary | undefined> {
  const recent = (
    await r.all(
      `SELECT ${RUN_COLUMNS} FROM pipeline_runs WHERE pipeline = ${r.ph(1)} ORDER BY id DESC LIMIT ${SPARK_RUNS}`,
      [pipeline],
    )
  ).map(toRun);
  const lastRun = recent[0];
  if (!lastRun) return undefined;
  const [ok] = await r.all(
    `SELECT max(finished_at) AS t FROM pipeline_runs WHERE pipeline = ${r.ph(1)} AND status = 'succeeded'`,
    [pipeline],
  );
  return {
    pipeline,
    kind: lastRun.kind,
    lastRun,
    recent,
    lastSuccessAt: isoTime(ok?.['t']),
    checks: await checksOfRun(r, lastRun.workflowId).then((c) => (c ? summarize(c.rows) : null)),
  };
}

export async function runsOfPipeline(
  r: Reader,
  pipeline: string,
  opts: { limit: number; since?: Date },
): Promise<RunInfo[]> {
  const params: unknown[] = [pipeline];
  let where = `pipeline = ${r.ph(1)}`;
  if (opts.since) {
    params.push(opts.since.toISOString());
    where += ` AND started_at >= ${r.ph(2)}`;
  }
  const rows = await r.all(
    `SELECT ${RUN_COLUMNS} FROM pipeline_runs WHERE ${where} ORDER BY id DESC LIMIT ${Math.max(1, Math.floor(opts.limit))}`,
    params,
  );
  return rows.map(toRun);
}

export async function runByWorkflowId(r: Reader, workflowId: string): Promise<RunInfo | undefined> {
  const [row] = await r.all(`SELECT ${RUN_COLUMNS} FROM pipeline_runs WHERE workflow_id = ${r.ph(1)}`, [workflowId]);
  return row ? toRun(row) : undefined;
}

/** Data status of a run as people read it: a partial run is not a success. */
export function dataStatus(run: RunInfo): RunState {
  return runStateOf(run.status);
}

// ---- checks (the check_results table, when the checks feature made one) ---------------------------------------

function summarize(rows: Row[]): CheckSummary {
  const s = { passed: 0, failed: 0, other: 0 };
  for (const x of rows) {
    const v = String(x['status'] ?? x['outcome'] ?? x['result'] ?? '').toLowerCase();
    if (['passed', 'pass', 'ok', 'succeeded'].includes(v)) s.passed++;
    else if (['failed', 'fail', 'error', 'warn', 'warning'].includes(v)) s.failed++;
    else s.other++;
  }
  return s;
}

const CHECK_COLUMNS = [
  'check_name',
  'check_type',
  'severity',
  'status',
  'observed',
  'threshold',
  'message',
  'checked_at',
];

/**
 * The check_results rows of a run, whatever columns that table has; undefined when there is no such table or it
 * has no workflow_id column to tie a row to a run.
 */
export async function checksOfRun(
  r: Reader,
  workflowId: string,
): Promise<{ columns: string[]; rows: Row[] } | undefined> {
  if (!(await tableExists(r, 'check_results'))) return undefined;
  const meta = await describe(r, 'check_results');
  if (!meta?.columns.some((c) => c.name === 'workflow_id')) return undefined;
  // The checks feature's table (db/model/schema/definition.ts) has bookkeeping columns (id, pipeline, workflow_id) and a
  // JSON sample of failing keys beside what a person reads; those are shown, in this order, when the table has them.
  const names = meta.columns.map((c) => c.name);
  const shown = CHECK_COLUMNS.filter((c) => names.includes(c));
  const columns = shown.length >= 2 ? shown : names;
  const rows = await r.all(
    `SELECT ${columns.map(quoteIdent).join(', ')} FROM check_results WHERE workflow_id = ${r.ph(1)} ORDER BY ${quoteIdent(columns[0]!)} LIMIT 500`,
    [workflowId],
  );
  return { columns, rows };
}

// ---- one run --------------------------------------------------------------------------------------------------

export interface FailedUrl {
  url: string;
  reason: string;
}

/**
 * The failed URLs a partial run lists in its error (workflows/pipeline.ts writes
 * `<n> of <m> URLs failed: <url>: <error> | <url>: <error> ...`, cut at 4,000 characters).
 */
export function failedUrlsOf(run: RunInfo): { count: number | null; total: number | null; listed: FailedUrl[] } {
  const m = /^(\d+) of (\d+) URLs failed: ([\s\S]*)$/.exec(run.error ?? '');
  if (!m) return { count: null, total: null, listed: [] };
  // Entries are joined with ' | ', which a reason may contain too: a new entry starts where a URL follows.
  const listed = m[3]!
    .split(/ \| (?=[a-z][a-z0-9+.-]*:\/\/)/i)
    .map((part) => {
      const at = part.search(/: /);
      return at < 0 ? { url: part, reason: '' } : { url: part.slice(0, at), reason: part.slice(at + 2) };
    })
    .filter((f) => f.url.trim() !== '');
  return { count: Number(m[1]), total: Number(m[2]), listed };
}

export interface RunDetail {
  run: RunInfo;
  timeline: Array<{ step: string; at: string | null; note?: string }>;
  /** Rows per table written by this run (their load belongs to it), content tables first. */
  tables: Array<{ table: string; rows: number; content: boolean }>;
  failed: ReturnType<typeof failedUrlsOf>;
  tokensByEndpoint: Array<{ endpoint: string; responses: number; tokens: number | null }>;
  alerts: Row[];
  schemaChanges: Row[];
  exports: Row[];
  checks: { columns: string[]; rows: Row[] } | undefined;
}

export async function runDetail(r: Reader, workflowId: string): Promise<RunDetail | undefined> {
  const run = await runByWorkflowId(r, workflowId);
  if (!run) return undefined;
  const hasRaw = await tableExists(r, 'raw_responses');
  const p = r.ph(1);
  const [span] = hasRaw
    ? await r.all(
        `SELECT min(received_at) AS first, max(received_at) AS last, max(loaded_at) AS loaded FROM raw_responses WHERE workflow_id = ${p}`,
        [workflowId],
      )
    : [];
  const exports = (await tableExists(r, 'export_watermarks'))
    ? await r.all(
        `SELECT table_name, last_file, last_rows, exported_at FROM export_watermarks WHERE last_run = ${p} ORDER BY table_name`,
        [workflowId],
      )
    : [];
  const lastExport = exports.map((x) => timeMs(x['exported_at'])).filter((x): x is number => x !== null);
  // A missed fire started nothing: its fire time and when `up` noticed it are all there is.
  const timeline = isMissedFire(run.status)
    ? [
        { step: 'fired', at: run.scheduledAt ?? run.startedAt, note: 'no run started' },
        { step: 'noticed missed', at: run.finishedAt, note: 'by scrape-etl up' },
      ]
    : [
        {
          step: 'started',
          at: run.startedAt,
          ...(run.scheduledAt ? { note: `scheduled for ${run.scheduledAt}` } : {}),
        },
        {
          step: 'scraped',
          at: isoTime(span?.['last']),
          ...(span?.['first'] ? { note: `first response ${isoTime(span['first'])}` } : {}),
        },
        { step: 'loaded', at: isoTime(span?.['loaded']) },
        {
          step: 'exported',
          at: lastExport.length > 0 ? new Date(Math.max(...lastExport)).toISOString() : null,
          ...(run.exportStatus ? { note: run.exportStatus } : {}),
        },
        { step: 'finished', at: run.finishedAt, note: run.status },
      ];

  // Content tables: the open-content tables this pipeline's loads created, counted from the tables (rows_by_table
  // has the inferred ones too, in no set order; they are listed once, here, and skipped below).
  const content = await contentTables(r, run.pipeline);
  const tables: RunDetail['tables'] = [];
  if (hasRaw) {
    for (const t of content) {
      const [c] = await r.all(
        `SELECT count(*) AS n FROM ${quoteIdent(t)} WHERE pipeline = ${r.ph(1)} AND load_id IN (SELECT id FROM raw_responses WHERE workflow_id = ${r.ph(2)})`,
        [run.pipeline, workflowId],
      );
      const n = num(c?.['n']) ?? 0;
      if (n > 0) tables.push({ table: t, rows: n, content: true });
    }
  }
  for (const [t, n] of Object.entries(run.rowsByTable))
    if (!content.includes(t)) tables.push({ table: t, rows: n, content: false });

  const tokensByEndpoint = hasRaw
    ? (
        await r.all(
          `SELECT endpoint, count(*) AS n, sum(token_usage) AS tokens FROM raw_responses WHERE workflow_id = ${p} GROUP BY endpoint ORDER BY endpoint`,
          [workflowId],
        )
      ).map((x) => ({ endpoint: String(x['endpoint']), responses: num(x['n']) ?? 0, tokens: num(x['tokens']) }))
    : [];
  const alerts = (await tableExists(r, 'notify_deliveries'))
    ? await r.all(
        `SELECT event, target, http_status, sent_at FROM notify_deliveries WHERE workflow_id = ${p} ORDER BY sent_at`,
        [workflowId],
      )
    : [];
  const schemaChanges =
    hasRaw && (await tableExists(r, 'schema_history'))
      ? await r.all(
          `SELECT table_name, column_name, data_type, change, variant_of, changed_at FROM schema_history
            WHERE load_id IN (SELECT id FROM raw_responses WHERE workflow_id = ${p}) ORDER BY table_name, changed_at, column_name LIMIT 1000`,
          [workflowId],
        )
      : [];
  return {
    run,
    timeline,
    tables,
    failed: failedUrlsOf(run),
    tokensByEndpoint,
    alerts,
    schemaChanges,
    exports,
    checks: await checksOfRun(r, workflowId),
  };
}

// ---- cost ------------------------------------------------------------------------------------------------------

export interface CostPoint {
  pipeline: string;
  workflowId: string;
  startedAt: string | null;
  tokens: number;
}

/** Tokens of the most recent runs that reported any (pipeline_runs.token_usage: the run's sum over its responses). */
export async function costOfRuns(
  r: Reader,
  opts: { limit: number; pipeline?: string; since?: Date },
): Promise<CostPoint[]> {
  if (!(await tableExists(r, 'pipeline_runs'))) return [];
  const where = ['token_usage IS NOT NULL'];
  const params: unknown[] = [];
  if (opts.pipeline !== undefined) {
    params.push(opts.pipeline);
    where.push(`pipeline = ${r.ph(params.length)}`);
  }
  if (opts.since) {
    params.push(opts.since.toISOString());
    where.push(`started_at >= ${r.ph(params.length)}`);
  }
  const rows = await r.all(
    `SELECT pipeline, workflow_id, started_at, token_usage FROM pipeline_runs WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ${Math.floor(opts.limit)}`,
    params,
  );
  return rows
    .map((x) => ({
      pipeline: String(x['pipeline']),
      workflowId: String(x['workflow_id']),
      startedAt: isoTime(x['started_at']),
      tokens: num(x['token_usage']) ?? 0,
    }))
    .reverse();
}
