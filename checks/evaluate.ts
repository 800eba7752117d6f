// Evaluates a pipeline's `checks:` against its destination and records each outcome in check_results. Every
// query reads only the pipeline's own rows (`pipeline = ?`); table and column names come from the file, are
// checked against the destination's columns first, and reach SQL only quoted as identifiers; values are bound.
import type { Database } from '../db/connect.js';
import { quoteIdent, withReadTransaction, withTransaction, type Param, type Tx } from '../db/sql.js';
import { parseDurationMs } from '../pipelines/duration.js';
import type { CheckSpec, RowCountCheck } from '../pipelines/spec.js';
import { columnsOf, parseExpression, toSql } from './expression.js';
import { sampleKey, tableColumns } from './columns.js';
import { runReadOnlyQuery } from './sql-readonly.js';
import { MAX_ALERT_FAILING_KEYS, selectChecksOfRuns } from './read.js';

export type CheckStatus = 'pass' | 'fail' | 'error' | 'skipped';

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

function result(c: CheckSpec, status: CheckStatus, r: Partial<Omit<CheckResult, 'name' | 'type' | 'severity' | 'status'>> & { message: string }): CheckResult {
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

const pct = (s: string) => Number(s.replace('%', ''));
const fmtPct = (n: number) => `${Math.round(n * 100) / 100}%`;

function num(v: unknown): number {
  return typeof v === 'bigint' ? Number(v) : Number(v ?? 0);
}

function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (v instanceof Date) return v.toISOString();
  return v;
}

function plainRow(r: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, plain(v)]));
}

async function columnsOrThrow(tx: Tx, table: string, wanted: readonly string[]): Promise<Map<string, string>> {
  const cols = await tableColumns(tx, table);
  if (cols.size === 0) throw new Error(`table '${table}' does not exist in the destination (yet)`);
  const missing = wanted.filter((c) => !cols.has(c));
  if (missing.length > 0) throw new Error(`table '${table}' has no column ${missing.map((m) => `'${m}'`).join(', ')}`);
  return cols;
}

/** Counts rows of the pipeline in `table` matching `where` (SQL over quoted identifiers and bound values), and samples their keys. */
async function failing(tx: Tx, table: string, cols: Map<string, string>, where: string, params: Param[], pipeline: string) {
  const t = quoteIdent(table);
  // The pipeline is parameter 1; `where` numbers its own parameters from 2.
  const all = [pipeline, ...params];
  const [count] = await tx.all(`SELECT count(*) AS n FROM ${t} WHERE pipeline = ${tx.ph(1)} AND (${where})`, all);
  const key = sampleKey(table, cols).filter((k) => cols.has(k));
  const sample =
    num(count?.['n']) > 0 && key.length > 0
      ? await tx.all(`SELECT ${key.map(quoteIdent).join(', ')} FROM ${t} WHERE pipeline = ${tx.ph(1)} AND (${where}) ORDER BY ${key.map(quoteIdent).join(', ')} LIMIT ${SAMPLE_SIZE}`, all)
      : [];
  return { n: num(count?.['n']), keys: sample.map(plainRow) };
}

async function totalRows(tx: Tx, table: string, pipeline: string): Promise<number> {
  const [r] = await tx.all(`SELECT count(*) AS n FROM ${quoteIdent(table)} WHERE pipeline = ${tx.ph(1)}`, [pipeline]);
  return num(r?.['n']);
}

async function evaluateOne(db: Database, c: CheckSpec, o: EvaluateOptions): Promise<CheckResult> {
  const now = o.now ?? new Date();
  const pipeline = o.pipeline;
  switch (c.type) {
    case 'row_count':
      return rowCount(db, c, o);
    case 'sql': {
      const { rows } = await runReadOnlyQuery(db, c.sql, { limit: SAMPLE_SIZE + 1, timeoutMs: o.sqlTimeoutMs ?? 30_000 });
      const n = rows.length;
      const shown = n > SAMPLE_SIZE ? `more than ${SAMPLE_SIZE} rows` : `${n} row${n === 1 ? '' : 's'}`;
      return result(c, n === 0 ? 'pass' : 'fail', {
        observed: shown,
        observedValue: n,
        threshold: '0 rows',
        failingKeys: n > 0 ? rows.slice(0, SAMPLE_SIZE).map(plainRow) : null,
        message: n === 0 ? 'the query returned no rows' : `the query returned ${shown}`,
      });
    }
    case 'freshness':
      // Evaluated after a run's load, "the last successful run" is this one: what it guards is runs that stop.
      if (c.table === undefined && o.rowsLoaded) return result(c, 'pass', { observed: 'this run', observedValue: 0, threshold: `<= ${c.max_age}`, message: 'the pipeline is running now' });
      return freshness(db, c, pipeline, now);
    default:
      break;
  }
  return withReadTransaction(db, async (tx) => {
    switch (c.type) {
      case 'not_null': {
        const cols = await columnsOrThrow(tx, c.table, c.columns);
        const where = c.columns.map((col) => `${quoteIdent(col)} IS NULL`).join(' OR ');
        const { n, keys } = await failing(tx, c.table, cols, where, [], pipeline);
        return result(c, n === 0 ? 'pass' : 'fail', {
          observed: `${n} row${n === 1 ? '' : 's'} with NULL`,
          observedValue: n,
          threshold: '0 rows',
          failingKeys: n > 0 ? keys : null,
          message: n === 0 ? `no NULL in ${c.columns.join(', ')}` : `${n} rows of ${c.table} have NULL in ${c.columns.join(' or ')}`,
        });
      }
      case 'null_rate': {
        const cols = await columnsOrThrow(tx, c.table, [c.column]);
        const total = await totalRows(tx, c.table, pipeline);
        const { n, keys } = await failing(tx, c.table, cols, `${quoteIdent(c.column)} IS NULL`, [], pipeline);
        const rate = total === 0 ? 0 : (n / total) * 100;
        const ok = rate <= pct(c.max);
        return result(c, ok ? 'pass' : 'fail', {
          observed: `${fmtPct(rate)} (${n} of ${total} rows)`,
          observedValue: rate,
          threshold: `<= ${c.max}`,
          failingKeys: ok ? null : keys,
          message: `${c.table}.${c.column} is NULL in ${fmtPct(rate)} of rows (${n} of ${total}); at most ${c.max} allowed`,
        });
      }
      case 'unique': {
        await columnsOrThrow(tx, c.table, c.columns);
        const list = c.columns.map(quoteIdent).join(', ');
        const t = quoteIdent(c.table);
        const [dup] = await tx.all(
          `SELECT count(*) AS n FROM (SELECT ${list} FROM ${t} WHERE pipeline = ${tx.ph(1)} GROUP BY ${list} HAVING count(*) > 1) AS d`,
          [pipeline],
        );
        const n = num(dup?.['n']);
        const sample = n > 0 ? await tx.all(`SELECT ${list}, count(*) AS copies FROM ${t} WHERE pipeline = ${tx.ph(1)} GROUP BY ${list} HAVING count(*) > 1 ORDER BY ${list} LIMIT ${SAMPLE_SIZE}`, [pipeline]) : [];
        return result(c, n === 0 ? 'pass' : 'fail', {
          observed: `${n} duplicated value${n === 1 ? '' : 's'}`,
          observedValue: n,
          threshold: '0',
          failingKeys: n > 0 ? sample.map(plainRow) : null,
          message: n === 0 ? `${c.columns.join(', ')} unique` : `${n} values of (${c.columns.join(', ')}) occur more than once in ${c.table}`,
        });
      }
      case 'accepted_values': {
        const cols = await columnsOrThrow(tx, c.table, [c.column]);
        const where = `${quoteIdent(c.column)} IS NOT NULL AND ${quoteIdent(c.column)} NOT IN (${c.values.map((_, i) => tx.ph(i + 2)).join(', ')})`;
        const { n, keys } = await failing(tx, c.table, cols, where, c.values as Param[], pipeline);
        return result(c, n === 0 ? 'pass' : 'fail', {
          observed: `${n} row${n === 1 ? '' : 's'} with other values`,
          observedValue: n,
          threshold: `one of ${c.values.map(String).join(', ')}`,
          failingKeys: n > 0 ? keys : null,
          message: n === 0 ? `${c.column} takes accepted values only` : `${n} rows of ${c.table} have a ${c.column} not in (${c.values.map(String).join(', ')})`,
        });
      }
      case 'range': {
        const expr = parseExpression(c.expression);
        const cols = await columnsOrThrow(tx, c.table, columnsOf(expr));
        const params: Param[] = [];
        const cond = toSql(expr, quoteIdent, (v) => {
          params.push(v);
          return tx.ph(params.length + 1);
        });
        // NULL where the expression needs a value is a failure: "every row satisfies" means true, not unknown.
        const { n, keys } = await failing(tx, c.table, cols, `(${cond}) IS NOT TRUE`, params, pipeline);
        const total = await totalRows(tx, c.table, pipeline);
        return result(c, n === 0 ? 'pass' : 'fail', {
          observed: `${n} of ${total} rows outside`,
          observedValue: n,
          threshold: c.expression,
          failingKeys: n > 0 ? keys : null,
          message: n === 0 ? `every row satisfies ${c.expression}` : `${n} of ${total} rows of ${c.table} do not satisfy ${c.expression}`,
        });
      }
      case 'schema': {
        const cols = await tableColumns(tx, c.table);
        if (cols.size === 0) return result(c, 'fail', { observed: 'no such table', threshold: JSON.stringify(c.columns), message: `table '${c.table}' does not exist in the destination` });
        const problems: string[] = [];
        for (const [col, want] of Object.entries(c.columns)) {
          const got = cols.get(col);
          if (got === undefined) problems.push(`${col} is missing`);
          else if (want !== 'any' && got !== want) problems.push(`${col} is ${got}, expected ${want}`);
        }
        return result(c, problems.length === 0 ? 'pass' : 'fail', {
          observed: problems.length === 0 ? 'as expected' : problems.join('; '),
          observedValue: problems.length,
          threshold: Object.entries(c.columns).map(([k, v]) => `${k}: ${v}`).join(', '),
          message: problems.length === 0 ? `${c.table} has every expected column` : `${c.table}: ${problems.join('; ')}`,
        });
      }
    }
    throw new Error(`unknown check type '${(c as { type: string }).type}'`);
  });
}

async function rowCount(db: Database, c: RowCountCheck, o: EvaluateOptions): Promise<CheckResult> {
  let observed: number;
  if (c.scope === 'run') {
    if (!o.rowsLoaded) return result(c, 'skipped', { message: 'counts the rows of a run: evaluated after each run, not on demand' });
    observed = o.rowsLoaded[c.table] ?? 0;
  } else {
    observed = await withReadTransaction(db, async (tx) => {
      await columnsOrThrow(tx, c.table, []);
      return totalRows(tx, c.table, o.pipeline);
    });
  }
  const problems: string[] = [];
  const limits: string[] = [];
  if (c.min !== undefined) {
    limits.push(`>= ${c.min}`);
    if (observed < c.min) problems.push(`${observed} rows, fewer than ${c.min}`);
  }
  if (c.max !== undefined) {
    limits.push(`<= ${c.max}`);
    if (observed > c.max) problems.push(`${observed} rows, more than ${c.max}`);
  }
  let shown = `${observed} rows`;
  if (c.max_drop !== undefined) {
    limits.push(`drop <= ${c.max_drop}`);
    const prev = await previousObserved(db, o.pipeline, c.name, o.workflowId);
    if (prev !== undefined && prev > 0) {
      const drop = ((prev - observed) / prev) * 100;
      shown += ` (previous successful run ${prev}, ${drop >= 0 ? `-${fmtPct(drop)}` : `+${fmtPct(-drop)}`})`;
      if (drop > pct(c.max_drop)) problems.push(`dropped ${fmtPct(drop)} from ${prev} to ${observed}, more than ${c.max_drop}`);
    }
  }
  return result(c, problems.length === 0 ? 'pass' : 'fail', {
    observed: shown,
    observedValue: observed,
    threshold: limits.join(', ') || null,
    message: problems.length === 0 ? `${c.table}: ${shown}` : `${c.table}: ${problems.join('; ')}`,
  });
}

/** What the same check observed in the last run that succeeded before this one (row_count's max_drop). */
export async function previousObserved(db: Database, pipeline: string, checkName: string, notWorkflowId: string): Promise<number | undefined> {
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

function toDate(v: unknown): Date | undefined {
  if (v === null || v === undefined) return undefined;
  if (v instanceof Date) return v;
  const d = new Date(typeof v === 'bigint' ? Number(v) * 1000 : typeof v === 'number' ? v * 1000 : String(v));
  return Number.isNaN(d.getTime()) ? undefined : d;
}

export function formatAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m}m`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h}h ${m % 60}m` : `${Math.floor(h / 24)}d ${h % 24}h`;
}

async function freshness(db: Database, c: Extract<CheckSpec, { type: 'freshness' }>, pipeline: string, now: Date): Promise<CheckResult> {
  const limitMs = parseDurationMs(c.max_age);
  const newest = await withReadTransaction(db, async (tx) => {
    if (c.table === undefined) {
      const [r] = await tx.all(`SELECT max(finished_at) AS t FROM pipeline_runs WHERE pipeline = ${tx.ph(1)} AND status = 'succeeded'`, [pipeline]);
      return toDate(r?.['t']);
    }
    const column = c.column ?? 'loaded_at';
    await columnsOrThrow(tx, c.table, [column]);
    const [r] = await tx.all(`SELECT max(${quoteIdent(column)}) AS t FROM ${quoteIdent(c.table)} WHERE pipeline = ${tx.ph(1)}`, [pipeline]);
    return toDate(r?.['t']);
  });
  const what = c.table === undefined ? 'the last successful run' : `the newest row of ${c.table}`;
  if (!newest) return result(c, 'fail', { observed: 'never', threshold: `<= ${c.max_age}`, message: `${what}: none yet` });
  const age = now.getTime() - newest.getTime();
  const ok = age <= limitMs;
  return result(c, ok ? 'pass' : 'fail', {
    observed: `${formatAge(age)} old (${newest.toISOString()})`,
    observedValue: Math.round(age / 1000),
    threshold: `<= ${c.max_age}`,
    message: `${what} is ${formatAge(age)} old${ok ? '' : `, older than ${c.max_age}`}`,
  });
}

/** Records results for (workflow id, check); an evaluation repeated by a retried activity replaces its rows. */
export async function recordCheckResults(db: Database, pipeline: string, workflowId: string, results: readonly CheckResult[], at: Date = new Date()): Promise<void> {
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
export async function listCheckResults(db: Database, q: { workflowId?: string; pipeline?: string; limit?: number }): Promise<StoredCheckResult[]> {
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
      failingKeys: r['failing_keys'] === null ? null : (JSON.parse(String(r['failing_keys'])) as Array<Record<string, unknown>>),
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
    .map((r) => `${r.severity} check ${r.name} ${r.status === 'error' ? 'errored' : 'failed'}: ${r.message}${r.observed ? ` (observed ${r.observed}${r.threshold ? `, expected ${r.threshold}` : ''})` : ''}`)
    .join('\n');
}

/** Per run: how many checks it evaluated and which failed (or errored); runs without checks are absent. */
export async function checksOfRuns(db: Database, workflowIds: readonly string[]): Promise<Map<string, { total: number; failed: string[] }>> {
  return withReadTransaction(db, (tx) => selectChecksOfRuns(tx, workflowIds));
}
