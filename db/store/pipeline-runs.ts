// One pipeline_runs row per pipeline execution, keyed by its Temporal workflow id so that a retried activity
// starting or finishing the same execution twice leaves one row.
import type { Database } from '../../destinations/contract.js';
import { quoteIdent, withReadTransaction, withTransaction, type Tx } from './sql.js';
import {
  ALERT_STATUSES,
  RECORDED_EXPORT_STATUSES,
  RECORDED_RUN_STATES,
  type RecordedRunState,
} from '../../lib/run-states.js';
import {
  addKeptOut,
  emptyKeptOut,
  keptOutCell,
  keptOutSampleCell,
  type KeptOut,
  type KeptOutValue,
} from '../../lib/kept-out.js';

/**
 * `partial`: the run finished, but some URLs of a job-board or marketplace pipeline failed for good (listed in
 * `error`); every other URL's data is loaded.
 */
/**
 * 'interrupted': its process ended without finishing it (db/store/orphaned-runs.ts). 'did_not_run': a schedule's fire
 * time that passed with no run started, recorded by `scrape-etl up` (recordDidNotRun) with its alert's outcome.
 */
export type PipelineRunStatus = RecordedRunState;

/** `failed_checks`: the data loaded and is kept, and an `error` data check failed (check_results has which). */
const FINISHED_STATUSES: ReadonlySet<string> = new Set(
  RECORDED_RUN_STATES.filter((s) => s !== 'running' && s !== 'did_not_run'),
);

export { ALERT_STATUSES, RECORDED_EXPORT_STATUSES };
export type RecordedExportStatus = (typeof RECORDED_EXPORT_STATUSES)[number];

/** The columns a PipelineRunRow is read from. */
const RUN_COLUMNS =
  'id, workflow_id, pipeline, kind, status, started_at, finished_at, rows_by_table, seen_by_table, error, export_status, export_error, scheduled_at, token_usage, alert_status, alert_error, status_reason, kept_out, kept_out_sample';

export interface PipelineRunRow {
  id: number;
  workflowId: string;
  pipeline: string;
  kind: string;
  status: PipelineRunStatus;
  startedAt: string;
  finishedAt: string | null;
  /** Rows the run changed (inserted or updated), by table. */
  rowsByTable: Record<string, number> | null;
  /** Rows its responses held (fetched, changed or not), by table; null for runs recorded before it was counted. */
  seenByTable: Record<string, number> | null;
  error: string | null;
  /**
   * The exports' own outcome, null when the run had none or did not reach them: 'succeeded', 'failed', or
   * 'no_new_rows' (incremental exports found no new row in any table and wrote no file).
   */
  exportStatus: RecordedExportStatus | null;
  exportError: string | null;
  /** When a Schedule started the run: the time it was scheduled for. */
  scheduledAt: string | null;
  /** Sum of the service's `tokenUsage` over the run's responses; null when none carried one. */
  tokenUsage: number | null;
  /** The run's alerts once delivered or given up on ('delivered' | 'failed'); null when it had none to send. */
  alertStatus: AlertStatus | null;
  alertError: string | null;
  /** Why the run ended as it did (lib/run-states.ts RUN_STATE_REASONS: 'budget'); null when its status says it all. */
  statusReason: string | null;
  /**
   * Values its loads kept out of their columns (lib/kept-out.ts: a timestamp that is not one, stored NULL); null for
   * runs finished before they were counted, and while a run runs.
   */
  keptOut: number | null;
  /** The first few of them, each with the raw_responses id that holds it as sent; empty when none. */
  keptOutSample: KeptOutValue[];
}

export type AlertStatus = (typeof ALERT_STATUSES)[number];

/** Records how the run's alert deliveries ended (after its finishPipelineRun): what `status` and `history` show. */
export async function recordAlertOutcome(
  db: Database,
  workflowId: string,
  outcome: { status: AlertStatus; error: string | null },
): Promise<void> {
  await withTransaction(db, (tx) =>
    tx.run(
      `UPDATE pipeline_runs SET alert_status = ${tx.ph(1)}, alert_error = ${tx.ph(2)} WHERE workflow_id = ${tx.ph(3)}`,
      [outcome.status, outcome.error ? outcome.error.slice(0, MAX_ERROR_CHARS) : null, workflowId],
    ),
  );
}

/**
 * A schedule's fire with no run ('did_not_run'): an event at its fire time (scheduled_at), not a run. Its
 * started_at is the fire time and its finished_at when `up` noticed, so every surface shows it without a start, a
 * duration or a Temporal workflow (its id names no workflow).
 */
export function isMissedFire(status: string | null | undefined): boolean {
  return status === 'did_not_run';
}

const MAX_ERROR_CHARS = 4000;

/**
 * A fire time of a schedule that passed with no run started: a finished row of its own (started_at and
 * scheduled_at: the fire time; error: why), so `status` and `history` show the gap beside the runs and, once its
 * did_not_run alert went out, that alert's outcome as they do a run's. Written once: false when the row existed.
 */
export async function recordDidNotRun(
  db: Database,
  r: { workflowId: string; pipeline: string; kind: string; scheduledAt: Date; error: string; now?: Date },
): Promise<boolean> {
  return withTransaction(db, async (tx) => {
    const inserted = await tx.run(
      `INSERT INTO pipeline_runs (workflow_id, pipeline, kind, status, started_at, finished_at, scheduled_at, error)
       VALUES (${tx.ph(1)}, ${tx.ph(2)}, ${tx.ph(3)}, 'did_not_run', ${tx.ph(4)}, ${tx.ph(5)}, ${tx.ph(6)}, ${tx.ph(7)})
       ON CONFLICT (workflow_id) DO NOTHING`,
      [
        r.workflowId,
        r.pipeline,
        r.kind,
        r.scheduledAt.toISOString(),
        (r.now ?? new Date()).toISOString(),
        r.scheduledAt.toISOString(),
        r.error.slice(0, MAX_ERROR_CHARS),
      ],
    );
    return inserted > 0;
  });
}

/** Creates the row if it does not exist yet; returns it either way (`created` tells which). */
export async function startPipelineRun(
  db: Database,
  run: { workflowId: string; pipeline: string; kind: string; startedAt?: Date; scheduledAt?: Date },
): Promise<{ id: number; created: boolean }> {
  return withTransaction(db, async (tx) => {
    const inserted = await tx.run(
      `INSERT INTO pipeline_runs (workflow_id, pipeline, kind, status, started_at, scheduled_at) VALUES (${tx.ph(1)}, ${tx.ph(2)}, ${tx.ph(3)}, 'running', ${tx.ph(4)}, ${tx.ph(5)})
       ON CONFLICT (workflow_id) DO NOTHING`,
      [
        run.workflowId,
        run.pipeline,
        run.kind,
        (run.startedAt ?? new Date()).toISOString(),
        run.scheduledAt?.toISOString() ?? null,
      ],
    );
    const [row] = await tx.all(`SELECT id FROM pipeline_runs WHERE workflow_id = ${tx.ph(1)}`, [run.workflowId]);
    return { id: Number(row?.['id']), created: inserted > 0 };
  });
}

/** Marks the run finished. Finishing again overwrites with the latest outcome; an unknown workflow id throws. */
export async function finishPipelineRun(
  db: Database,
  run: {
    workflowId: string;
    status: Exclude<PipelineRunStatus, 'running'>;
    rowsByTable?: Record<string, number>;
    seenByTable?: Record<string, number>;
    error?: string | null;
    finishedAt?: Date;
    exportStatus?: RecordedExportStatus;
    exportError?: string | null;
    tokenUsage?: number | null;
    /** Why it ended so (lib/run-states.ts RUN_STATE_REASONS); NULL when its status says it all. */
    statusReason?: string | null;
    /** Values its loads kept out of their columns (keptOutOfRun); NULL when not counted (an interrupted run). */
    keptOut?: KeptOut | null;
  },
): Promise<void> {
  if (!FINISHED_STATUSES.has(run.status)) {
    throw new Error(
      `cannot finish pipeline run '${run.workflowId}' with status '${String(run.status)}' (expected one of ${[...FINISHED_STATUSES].join(', ')})`,
    );
  }
  const error = run.error ? run.error.slice(0, MAX_ERROR_CHARS) : null;
  const updated = await withTransaction(db, (tx) =>
    tx.run(
      `UPDATE pipeline_runs SET status = ${tx.ph(1)}, finished_at = ${tx.ph(2)}, rows_by_table = ${tx.ph(3)}, error = ${tx.ph(4)},
       export_status = ${tx.ph(5)}, export_error = ${tx.ph(6)}, token_usage = ${tx.ph(7)}, seen_by_table = ${tx.ph(8)}, status_reason = ${tx.ph(9)},
       kept_out = ${tx.ph(10)}, kept_out_sample = ${tx.ph(11)}
       WHERE workflow_id = ${tx.ph(12)}`,
      [
        run.status,
        (run.finishedAt ?? new Date()).toISOString(),
        run.rowsByTable ? JSON.stringify(run.rowsByTable) : null,
        error,
        run.exportStatus ?? null,
        run.exportError ? run.exportError.slice(0, MAX_ERROR_CHARS) : null,
        run.tokenUsage ?? null,
        run.seenByTable ? JSON.stringify(run.seenByTable) : null,
        run.statusReason ?? null,
        run.keptOut ? run.keptOut.count : null,
        run.keptOut && run.keptOut.sample.length > 0 ? JSON.stringify(run.keptOut.sample) : null,
        run.workflowId,
      ],
    ),
  );
  if (updated === 0) throw new Error(`no pipeline run with workflow id '${run.workflowId}' (start it first)`);
}

export async function getPipelineRun(db: Database, workflowId: string): Promise<PipelineRunRow | undefined> {
  const [row] = await withTransaction(db, (tx) =>
    tx.all(`SELECT ${RUN_COLUMNS} FROM pipeline_runs WHERE workflow_id = ${tx.ph(1)}`, [workflowId]),
  );
  return row ? toPipelineRunRow(row) : undefined;
}

/**
 * A counts-by-table cell (rows_by_table, seen_by_table, as stored): its numbers by table, or null when absent or
 * not an object. Read by every surface that shows a run's rows (status, history, the console).
 */
export function countsCell(cell: unknown): Record<string, number> | null {
  if (cell === null || cell === undefined || cell === '') return null;
  try {
    const parsed = JSON.parse(String(cell)) as unknown;
    if (!parsed || typeof parsed !== 'object') return null;
    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(parsed)) if (typeof v === 'number') out[k] = v;
    return out;
  } catch {
    return null;
  }
}

function toPipelineRunRow(row: Record<string, unknown>): PipelineRunRow {
  const time = (v: unknown) => (v === null || v === undefined ? null : v instanceof Date ? v.toISOString() : String(v));
  return {
    id: Number(row['id']),
    workflowId: String(row['workflow_id']),
    pipeline: String(row['pipeline']),
    kind: String(row['kind']),
    status: String(row['status']) as PipelineRunStatus,
    startedAt: time(row['started_at']) ?? '',
    finishedAt: time(row['finished_at']),
    rowsByTable: countsCell(row['rows_by_table']),
    seenByTable: countsCell(row['seen_by_table']),
    error: row['error'] === null || row['error'] === undefined ? null : String(row['error']),
    exportStatus: (RECORDED_EXPORT_STATUSES as readonly unknown[]).includes(row['export_status'])
      ? (row['export_status'] as RecordedExportStatus)
      : null,
    exportError: row['export_error'] === null || row['export_error'] === undefined ? null : String(row['export_error']),
    scheduledAt: time(row['scheduled_at']),
    tokenUsage: row['token_usage'] === null || row['token_usage'] === undefined ? null : Number(row['token_usage']),
    alertStatus: (ALERT_STATUSES as readonly unknown[]).includes(row['alert_status'])
      ? (row['alert_status'] as AlertStatus)
      : null,
    alertError: row['alert_error'] === null || row['alert_error'] === undefined ? null : String(row['alert_error']),
    statusReason:
      row['status_reason'] === null || row['status_reason'] === undefined ? null : String(row['status_reason']),
    keptOut: row['kept_out'] === null || row['kept_out'] === undefined ? null : Number(row['kept_out']),
    keptOutSample: keptOutSampleCell(row['kept_out_sample']),
  };
}

/** Adds one batch's counts into a running total (for rows_by_table). */
export function addCounts(total: Record<string, number>, add: Partial<Record<string, number>>): Record<string, number> {
  for (const [t, n] of Object.entries(add)) if (n !== undefined) total[t] = (total[t] ?? 0) + n;
  return total;
}

/**
 * The inferred tables (db/store/evolve/) a pipeline's loads created: its `<pipeline>_items` content table and their child
 * tables, from schema_history, so that a run's counts include the tables that hold its content.
 */
export async function inferredTablesOf(db: Database, pipeline: string): Promise<string[]> {
  const rows = await withReadTransaction(db, (tx) =>
    tx.all(
      `SELECT DISTINCT table_name FROM schema_history WHERE pipeline = ${tx.ph(1)} AND change = 'create_table' ORDER BY table_name`,
      [pipeline],
    ),
  );
  return rows.map((r) => String(r['table_name']));
}

/**
 * Rows of `tables` whose load belongs to one workflow, per table (tables with none are left out). Counted from
 * the tables rather than summed from activity results: a batch loaded twice (a retry after a crash) must not be
 * counted twice, and rows unchanged by a re-load keep their older load id.
 */
export async function countRowsOfRun(
  db: Database,
  run: { pipeline: string; workflowId: string; tables: readonly string[] },
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  // The run's responses by raw_responses_workflow_idx, then its rows by each table's (pipeline, load_id) index; read
  // without the write lock, so loads into the same file go on.
  await withReadTransaction(db, async (tx) => {
    for (const table of run.tables) {
      const [row] = await tx.all(
        `SELECT count(*) AS n FROM ${quoteIdent(table)} WHERE pipeline = ${tx.ph(1)} AND load_id IN (SELECT id FROM raw_responses WHERE workflow_id = ${tx.ph(2)})`,
        [run.pipeline, run.workflowId],
      );
      const n = Number(row?.['n'] ?? 0);
      if (n > 0) counts[table] = n;
    }
  });
  return counts;
}

/**
 * Rows the responses of one workflow held, by table, changed or not: the sum of their rows_seen. A URL's answer and
 * a slice of a finished scraping run's results are landed once per run (land-once.ts: a load that finds its request
 * landed by its run leaves it, whether a retry after a lost heartbeat or an attempt still running beside its retry),
 * in the transaction that loaded their rows, so a retry or a crash neither adds nor loses their count. A scraping
 * run's results found in the results list are landed once too: a retry leaves those its run stored (run-results.ts).
 * A results sync's page is landed as often as it is fetched with new results (its content moves within a run, so a
 * page fetched again after a lost heartbeat counts again). Responses landed before rows_seen
 * was recorded count nothing. A row the run changed is one it saw: rows derived in the load rather than held by a
 * response (the price history) count as seen where they were written, so seen is never below changed.
 */
export async function seenRowsOfRun(
  db: Database,
  workflowId: string,
  changed: Readonly<Record<string, number>>,
): Promise<Record<string, number>> {
  const rows = await withReadTransaction(db, (tx) =>
    tx.all(`SELECT rows_seen FROM raw_responses WHERE workflow_id = ${tx.ph(1)} AND rows_seen IS NOT NULL`, [
      workflowId,
    ]),
  );
  const total: Record<string, number> = {};
  for (const r of rows) addCounts(total, JSON.parse(String(r['rows_seen'])) as Record<string, number>);
  for (const [t, n] of Object.entries(changed)) if (n > (total[t] ?? 0)) total[t] = n;
  return total;
}

/**
 * Sum of `tokenUsage` over the responses one workflow landed (null when none carried one). Summed from
 * raw_responses rather than from activity results, like the row counts: what was landed is what was paid for,
 * including a call repeated by a retried activity.
 */
export async function sumTokenUsageOfRun(db: Database, workflowId: string): Promise<number | null> {
  const [row] = await withReadTransaction(db, (tx) =>
    tx.all(`SELECT sum(token_usage) AS n FROM raw_responses WHERE workflow_id = ${tx.ph(1)}`, [workflowId]),
  );
  const n = row?.['n'];
  return n === null || n === undefined ? null : Number(n);
}

/**
 * Values the responses of one workflow kept out of their columns: the sum of their kept_out counts, and the first
 * few in landing order with the raw_responses id of each. Each response is landed once per run, in the transaction
 * that loaded its rows, and a request fixed for its run is landed once however many attempts fetch it
 * (land-once.ts), so a retried load neither adds nor loses one: the same rule as rows seen (seenRowsOfRun).
 */
export async function keptOutOfRun(db: Database, workflowId: string): Promise<KeptOut> {
  const rows = await withReadTransaction(db, (tx) =>
    tx.all(
      `SELECT id, kept_out FROM raw_responses WHERE workflow_id = ${tx.ph(1)} AND kept_out IS NOT NULL ORDER BY id`,
      [workflowId],
    ),
  );
  const total = emptyKeptOut();
  for (const r of rows) {
    const k = keptOutCell(r['kept_out']);
    if (k) addKeptOut(total, k, Number(r['id']));
  }
  return total;
}

/** The most recent runs, newest first; optionally of one pipeline and started at or after `since`. */
export async function listPipelineRuns(
  db: Database,
  opts: { limit: number; pipeline?: string; since?: Date },
): Promise<PipelineRunRow[]> {
  return withTransaction(db, (tx) => selectPipelineRuns(tx, opts));
}

/** listPipelineRuns inside a transaction of the caller's, or on a read-only connection (destinations/sqlite/read-only.ts). */
export async function selectPipelineRuns(
  tx: Pick<Tx, 'ph' | 'all'>,
  opts: { limit: number; pipeline?: string; since?: Date },
): Promise<PipelineRunRow[]> {
  const where: string[] = [];
  const params: Array<string | number> = [];
  if (opts.pipeline !== undefined) {
    params.push(opts.pipeline);
    where.push(`pipeline = ${tx.ph(params.length)}`);
  }
  if (opts.since !== undefined) {
    params.push(opts.since.toISOString());
    where.push(`started_at >= ${tx.ph(params.length)}`);
  }
  params.push(opts.limit);
  const rows = await tx.all(
    `SELECT ${RUN_COLUMNS}
     FROM pipeline_runs ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY started_at DESC LIMIT ${tx.ph(params.length)}`,
    params,
  );
  return rows.map(toPipelineRunRow);
}

/**
 * Results the loads of one workflow quarantined (rejected_results): how many, and the first few with their
 * reasons, for the run's status and error.
 */
export async function rejectedResultsOfRun(
  db: Database,
  workflowId: string,
): Promise<{ count: number; first: Array<{ resultId: string; reason: string }> }> {
  return withTransaction(db, async (tx) => {
    const [n] = await tx.all(`SELECT COUNT(*) AS n FROM rejected_results WHERE workflow_id = ${tx.ph(1)}`, [
      workflowId,
    ]);
    const count = Number(n?.['n'] ?? 0);
    if (count === 0) return { count, first: [] };
    const rows = await tx.all(
      `SELECT result_id, reason FROM rejected_results WHERE workflow_id = ${tx.ph(1)} ORDER BY id LIMIT 3`,
      [workflowId],
    );
    return { count, first: rows.map((r) => ({ resultId: String(r['result_id']), reason: String(r['reason']) })) };
  });
}
