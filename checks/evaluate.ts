// Evaluates a pipeline's `checks:` against its destination and records each outcome in check_results. Every
// query reads only the pipeline's own rows (`pipeline = ?`); table and column names come from the file, are
// checked against the destination's columns first, and reach SQL only quoted as identifiers; values are bound.
import type { Database } from '../destinations/contract.js';
import { quoteIdent, withReadTransaction, withTransaction, type Param, type Tx } from '../db/store/sql.js';
import type { CheckSpec } from '../pipelines/spec.js';
import { sampleKey, tableColumns } from './columns.js';
import type { CheckEnv, CheckOutcome, CheckStatus, CheckTables } from './definition.js';
import { checkDefinitionOf } from './registry.js';
import { runReadOnlyQuery } from './sql-readonly.js';
import { MAX_ALERT_FAILING_KEYS, selectChecksOfRuns } from './read.js';
import { num, plainRow } from './values.js';

export type { CheckStatus } from './definition.js';
export { formatAge } from './values.js';

export interface CheckResult {
  name: string;
  type: CheckSpec['type'];
  severity: CheckSpec['severity'];
  status: CheckStatus;
  /** As shown to people: '37.5% (15 of 40 rows)', '120 rows', '3h 2m old'. */
  observed: string | null;
  observedValue: number | null;
  threshold: string | null;
  /** A sample of the failing rows' keys (at most SAMPLE_SIZE). */
  failingKeys: Array<Record<string, unknown>> | null;
  message: string;
}

export interface EvaluateOptions {
  pipeline: string;
  /** The run's workflow id, or an id of its own for an evaluation without a run. */
  workflowId: string;
  checks: readonly CheckSpec[];
  /** Rows the run delivered per table (row_count with scope run); absent without a run. */
  rowsLoaded?: Record<string, number>;
  now?: Date;
  /** Bound of one `sql:` check. */
  sqlTimeoutMs?: number;
}

/** Failing keys kept per check: as many as a check_failed alert carries (read.ts). */
export const SAMPLE_SIZE = MAX_ALERT_FAILING_KEYS;
/** The most a check's stored failing keys take as JSON (check_results.failing_keys), whatever the rows hold. */
export const MAX_FAILING_KEYS_BYTES = 4096;
/** The longest text value kept in a failing key; longer ones end in '…'. */
export const MAX_FAILING_KEY_VALUE_CHARS = 200;

/**
 * Failing keys within MAX_FAILING_KEYS_BYTES: long text values cut, then rows dropped from the end. A key is there
 * to find the row again, not to carry its content (a `sql:` check selects whatever it likes).
 */
function capFailingKeys(keys: Array<Record<string, unknown>>): { keys: Array<Record<string, unknown>>; cut: boolean } {
  let cut = false;
  const short = keys.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([k, v]) => {
        if (typeof v === 'string' && v.length > MAX_FAILING_KEY_VALUE_CHARS) {
          cut = true;
          return [k, `${v.slice(0, MAX_FAILING_KEY_VALUE_CHARS)}…`];
        }
        return [k, v];
      }),
    ),
  );
  const out: Array<Record<string, unknown>> = [];
  let size = 2;
  for (const row of short) {
    const more = JSON.stringify(row).length + (out.length > 0 ? 1 : 0);
    if (size + more > MAX_FAILING_KEYS_BYTES) {
      cut = true;
      break;
    }
    out.push(row);
    size += more;
  }
  return { keys: out, cut };
}

/** `pass`, or the message of a failure; each result says what was observed and against what. */
export async function evaluateChecks(db: Database, o: EvaluateOptions): Promise<CheckResult[]> {
  const out: CheckResult[] = [];
  for (const c of o.checks) {
    try {
      out.push(await evaluateOne(db, c, o));
    } catch (err) {
      // A check that cannot be evaluated is not a pass: it is reported as an error of the check, with its cause.
      out.push(result(c, 'error', { message: `could not be evaluated: ${(err as Error).message}` }));
    }
  }
  return out;
}

function result(c: CheckSpec, status: CheckStatus, r: Omit<CheckOutcome, 'status'>): CheckResult {
  let failingKeys = r.failingKeys ?? null;
  let message = r.message;
  if (failingKeys) {
    const capped = capFailingKeys(failingKeys);
    if (capped.cut) {
      failingKeys = capped.keys;
      message += ` (failing keys cut to ${capped.keys.length} row${capped.keys.length === 1 ? '' : 's'}, text values to ${MAX_FAILING_KEY_VALUE_CHARS} characters, ${MAX_FAILING_KEYS_BYTES} bytes in all)`;
    }
  }
  return {
    name: c.name,
    type: c.type,
    severity: c.severity,
    status,
    observed: r.observed ?? null,
    observedValue: r.observedValue ?? null,
    threshold: r.threshold ?? null,
    failingKeys,
    message,
  };
}

async function columnsOrThrow(tx: Tx, table: string, wanted: readonly string[]): Promise<Map<string, string>> {
  const cols = await tableColumns(tx, table);
  if (cols.size === 0) throw new Error(`table '${table}' does not exist in the destination (yet)`);
  const missing = wanted.filter((c) => !cols.has(c));
  if (missing.length > 0) throw new Error(`table '${table}' has no column ${missing.map((m) => `'${m}'`).join(', ')}`);
  return cols;
}

/** Counts rows of the pipeline in `table` matching `where` (SQL over quoted identifiers and bound values), and samples their keys. */
async function failing(
  tx: Tx,
  table: string,
  cols: Map<string, string>,
  where: string,
  params: Param[],
  pipeline: string,
) {
  const t = quoteIdent(table);
  // The pipeline is parameter 1; `where` numbers its own parameters from 2.
  const all = [pipeline, ...params];
  const [count] = await tx.all(`SELECT count(*) AS n FROM ${t} WHERE pipeline = ${tx.ph(1)} AND (${where})`, all);
  const key = sampleKey(table, cols).filter((k) => cols.has(k));
  const sample =
    num(count?.['n']) > 0 && key.length > 0
      ? await tx.all(
          `SELECT ${key.map(quoteIdent).join(', ')} FROM ${t} WHERE pipeline = ${tx.ph(1)} AND (${where}) ORDER BY ${key.map(quoteIdent).join(', ')} LIMIT ${SAMPLE_SIZE}`,
          all,
        )
      : [];
  return { n: num(count?.['n']), keys: sample.map(plainRow) };
}

async function totalRows(tx: Tx, table: string, pipeline: string): Promise<number> {
  const [r] = await tx.all(`SELECT count(*) AS n FROM ${quoteIdent(table)} WHERE pipeline = ${tx.ph(1)}`, [pipeline]);
  return num(r?.['n']);
}

/** The check's type evaluates it (checks/registry.ts) with what CheckEnv lends it of the destination. */
async function evaluateOne(db: Database, c: CheckSpec, o: EvaluateOptions): Promise<CheckResult> {
  const pipeline = o.pipeline;
  const tables = (tx: Tx): CheckTables => ({
    tx,
    quote: quoteIdent,
    columns: (table) => tableColumns(tx, table),
    columnsOrThrow: (table, wanted) => columnsOrThrow(tx, table, wanted),
    failing: (table, cols, where, params) => failing(tx, table, cols, where, params, pipeline),
    totalRows: (table) => totalRows(tx, table, pipeline),
  });
  const env: CheckEnv = {
    pipeline,
    workflowId: o.workflowId,
    rowsLoaded: o.rowsLoaded,
    now: o.now ?? new Date(),
    sampleSize: SAMPLE_SIZE,
    read: (fn) => withReadTransaction(db, (tx) => fn(tables(tx))),
    readOnlyQuery: async (sql, limit) =>
      (await runReadOnlyQuery(db, sql, { limit, timeoutMs: o.sqlTimeoutMs ?? 30_000 })).rows,
    previousObserved: (checkName) => previousObserved(db, pipeline, checkName, o.workflowId),
  };
  const { status, ...outcome } = await checkDefinitionOf(c).evaluate(c, env);
  return result(c, status, outcome);
}

/** What the same check observed in the last run that succeeded before this one (row_count's max_drop). */
export async function previousObserved(
  db: Database,
  pipeline: string,
  checkName: string,
  notWorkflowId: string,
): Promise<number | undefined> {
  return withReadTransaction(db, async (tx) => {
    const [r] = await tx.all(
      `SELECT c.observed_value AS v FROM check_results c JOIN pipeline_runs r ON r.workflow_id = c.workflow_id
        WHERE c.pipeline = ${tx.ph(1)} AND c.check_name = ${tx.ph(2)} AND c.workflow_id <> ${tx.ph(3)} AND r.status = 'succeeded' AND c.observed_value IS NOT NULL
        ORDER BY r.finished_at DESC, c.id DESC LIMIT 1`,
      [pipeline, checkName, notWorkflowId],
    );
    return r ? num(r['v']) : undefined;
  });
}

/** Records results for (workflow id, check); an evaluation repeated by a retried activity replaces its rows. */
export async function recordCheckResults(
  db: Database,
  pipeline: string,
  workflowId: string,
  results: readonly CheckResult[],
  at: Date = new Date(),
): Promise<void> {
  if (results.length === 0) return;
  await withTransaction(db, async (tx) => {
    for (const r of results) {
      const p = Array.from({ length: 12 }, (_, i) => tx.ph(i + 1));
      await tx.run(
        `INSERT INTO check_results (pipeline, workflow_id, check_name, check_type, severity, status, observed, observed_value, threshold, failing_keys, message, checked_at)
         VALUES (${p.join(', ')})
         ON CONFLICT (workflow_id, check_name) DO UPDATE SET check_type = excluded.check_type, severity = excluded.severity, status = excluded.status,
           observed = excluded.observed, observed_value = excluded.observed_value, threshold = excluded.threshold, failing_keys = excluded.failing_keys,
           message = excluded.message, checked_at = excluded.checked_at`,
        [
          pipeline,
          workflowId,
          r.name,
          r.type,
          r.severity,
          r.status,
          r.observed,
          r.observedValue,
          r.threshold,
          r.failingKeys ? JSON.stringify(r.failingKeys) : null,
          r.message.slice(0, 4000),
          at.toISOString(),
        ],
      );
    }
  });
}

export interface StoredCheckResult extends CheckResult {
  workflowId: string;
  checkedAt: string;
}

/** Check results of a run, or the newest of a pipeline (status, history, the console). */
export async function listCheckResults(
  db: Database,
  q: { workflowId?: string; pipeline?: string; limit?: number },
): Promise<StoredCheckResult[]> {
  return withReadTransaction(db, async (tx) => {
    const where: string[] = [];
    const params: Param[] = [];
    if (q.workflowId !== undefined) where.push(`workflow_id = ${tx.ph(params.push(q.workflowId))}`);
    if (q.pipeline !== undefined) where.push(`pipeline = ${tx.ph(params.push(q.pipeline))}`);
    const rows = await tx.all(
      `SELECT * FROM check_results ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY checked_at DESC, id DESC LIMIT ${Math.max(1, q.limit ?? 100)}`,
      params,
    );
    return rows.map((r) => ({
      name: String(r['check_name']),
      type: String(r['check_type']) as CheckSpec['type'],
      severity: String(r['severity']) as CheckSpec['severity'],
      status: String(r['status']) as CheckStatus,
      observed: r['observed'] === null ? null : String(r['observed']),
      observedValue: r['observed_value'] === null ? null : Number(r['observed_value']),
      threshold: r['threshold'] === null ? null : String(r['threshold']),
      failingKeys:
        r['failing_keys'] === null ? null : (JSON.parse(String(r['failing_keys'])) as Array<Record<string, unknown>>),
      message: String(r['message'] ?? ''),
      workflowId: String(r['workflow_id']),
      checkedAt: r['checked_at'] instanceof Date ? r['checked_at'].toISOString() : String(r['checked_at']),
    }));
  });
}

/** One line per failing check, for the run's error text and the check_failed alert. */
export function describeFailures(results: readonly CheckResult[]): string {
  return results
    .filter((r) => r.status === 'fail' || r.status === 'error')
    .map(
      (r) =>
        `${r.severity} check ${r.name} ${r.status === 'error' ? 'errored' : 'failed'}: ${r.message}${r.observed ? ` (observed ${r.observed}${r.threshold ? `, expected ${r.threshold}` : ''})` : ''}`,
    )
    .join('\n');
}

/** Per run: how many checks it evaluated and which failed (or errored); runs without checks are absent. */
export async function checksOfRuns(
  db: Database,
  workflowIds: readonly string[],
): Promise<Map<string, { total: number; failed: string[] }>> {
  return withReadTransaction(db, (tx) => selectChecksOfRuns(tx, workflowIds));
}
