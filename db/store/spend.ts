// Spend records (the spend_calls table): every billable request, written before it is sent in the transaction that
// checked the budgets, and the figures budgets, forecasts, alerts, the console and metrics read from them. One
// definition of "what was spent" for every surface (budget/).
import type { BudgetLimit } from '../../budget/limits.js';
import { periodStart } from '../../budget/limits.js';
import type { Database } from '../../destinations/contract.js';
import { hexDigest } from '../model/hash.js';
import { withReadTransaction, withTransaction, type Param, type Tx } from './sql.js';

/** What the reading functions need: placeholders and queries (a transaction, or a read-only reader). */
export interface SpendReader {
  ph(n: number): string;
  all(sql: string, params: readonly Param[]): Promise<Array<Record<string, unknown>>>;
}

export interface SpendCall {
  callKey: string;
  pipeline: string;
  /** The budgeted project this call also counts for, if any. */
  project: string | null;
  workflowId: string;
  endpoint: string;
  /** The URL of a synchronous call, 'create-and-run' for a create. */
  requestKey: string;
  createsScraper: boolean;
  calledAt: Date;
}

export interface SpendTotals {
  calls: number;
  scrapers: number;
  /** The service's tokenUsage summed over the calls whose answers reported it. */
  tokens: number;
}

/** Whose spend and over which time: a pipeline or a project, one run or since a period's start. */
export interface SpendWhere {
  pipeline?: string;
  project?: string;
  workflowId?: string;
  since?: Date;
}

/**
 * The key of one request: the parts that make it unique (workflow, activity, its attempt, the execution of that
 * attempt, what is asked for, the client's attempt within the call), hashed to a fixed length (a URL can be long).
 * The execution matters: a local activity whose worker died before its workflow task completed runs again with the
 * same activity id and attempt (nothing of it was recorded in history), and sends its requests again.
 */
export function spendCallKey(parts: {
  workflowId: string;
  activityId: string;
  activityAttempt: number;
  execution?: string;
  requestKey: string;
  clientAttempt: number;
}): string {
  return hexDigest(
    'sha256',
    [
      parts.workflowId,
      parts.activityId,
      parts.activityAttempt,
      parts.execution ?? '',
      parts.requestKey,
      parts.clientAttempt,
    ].join('\u0001'),
  ).slice(0, 40);
}

function num(v: unknown): number {
  return v === null || v === undefined ? 0 : Number(v);
}

export async function spendTotals(r: SpendReader, where: SpendWhere): Promise<SpendTotals> {
  const cond: string[] = [];
  const params: Param[] = [];
  const add = (sql: (ph: string) => string, value: Param) => {
    params.push(value);
    cond.push(sql(r.ph(params.length)));
  };
  if (where.pipeline !== undefined) add((ph) => `pipeline = ${ph}`, where.pipeline);
  if (where.project !== undefined) add((ph) => `project = ${ph}`, where.project);
  if (where.workflowId !== undefined) add((ph) => `workflow_id = ${ph}`, where.workflowId);
  if (where.since !== undefined) add((ph) => `called_at >= ${ph}`, where.since.toISOString());
  const [row] = await r.all(
    `SELECT count(*) AS calls, sum(CASE WHEN creates_scraper THEN 1 ELSE 0 END) AS scrapers, sum(tokens) AS tokens FROM spend_calls${cond.length > 0 ? ` WHERE ${cond.join(' AND ')}` : ''}`,
    params,
  );
  return { calls: num(row?.['calls']), scrapers: num(row?.['scrapers']), tokens: num(row?.['tokens']) };
}

/** Whose spend a limit counts in the run `workflowId` of `pipeline`, at `now`. */
export function spendWhereOf(l: BudgetLimit, pipeline: string, workflowId: string, now: Date): SpendWhere {
  const who: SpendWhere = l.scope === 'project' ? { project: l.project ?? '' } : { pipeline };
  if (l.period === 'run') return { ...who, workflowId };
  return { ...who, since: periodStart(l.period, now)! };
}

/** What a limit has counted so far, in its resource's unit. */
export function spentOf(l: BudgetLimit, totals: SpendTotals): number {
  return totals[l.resource];
}

export interface Refusal {
  limit: BudgetLimit;
  /** Spent in the limit's period before this call. */
  spent: number;
}

/** Whether one more call (creating a scraper or not) stays within `l`, given what it counted so far. */
export function callFits(l: BudgetLimit, spent: number, createsScraper: boolean): boolean {
  if (l.resource === 'calls') return spent + 1 <= l.limit;
  if (l.resource === 'scrapers') return !createsScraper || spent + 1 <= l.limit;
  // A call's tokens are known only from its answer: a call may start while any are left.
  return spent < l.limit;
}

/**
 * Records the call before it is sent, unless a limit refuses it: both in one transaction, so concurrent calls of
 * one budget (a chunk's parallel URLs, other workers, other pipelines of the project) are counted one after another
 * (SQLite and DuckDB have one writer; Postgres takes an advisory lock per pipeline and project). A call recorded
 * already (the same key) is let through and counted once.
 */
export async function reserveCall(
  db: Database,
  call: SpendCall,
  limits: readonly BudgetLimit[],
): Promise<Refusal | undefined> {
  return withTransaction(db, async (tx) => {
    // A no-op where writers are serialised anyway (SQLite, DuckDB); Postgres's advisory locks.
    await db.adapter.lockKeys(tx, [
      lockKey(`pipeline\u0001${call.pipeline}`),
      ...(call.project ? [lockKey(`project\u0001${call.project}`)] : []),
    ]);
    const [seen] = await tx.all(`SELECT 1 AS one FROM spend_calls WHERE call_key = ${tx.ph(1)}`, [call.callKey]);
    if (seen) return undefined;
    for (const l of limits) {
      const spent = spentOf(l, await spendTotals(tx, spendWhereOf(l, call.pipeline, call.workflowId, call.calledAt)));
      if (!callFits(l, spent, call.createsScraper)) return { limit: l, spent };
    }
    await insertCall(tx, call);
    return undefined;
  });
}

/**
 * When the latest call of a workflow's request was recorded (epoch ms), or undefined when none was. Calls are recorded
 * just before they are sent, so a create recorded here without a landed answer may have reached the service.
 */
export async function lastCallAt(db: Database, workflowId: string, requestKey: string): Promise<number | undefined> {
  const [row] = await withReadTransaction(db, (tx) =>
    tx.all(
      `SELECT max(called_at) AS at FROM spend_calls WHERE workflow_id = ${tx.ph(1)} AND request_key = ${tx.ph(2)}`,
      [workflowId, requestKey],
    ),
  );
  const at = row?.['at'];
  if (at === null || at === undefined) return undefined;
  const ms = at instanceof Date ? at.getTime() : Date.parse(String(at));
  return Number.isFinite(ms) ? ms : undefined;
}

async function insertCall(tx: Tx, call: SpendCall): Promise<void> {
  const values = [
    call.callKey,
    call.pipeline,
    call.project,
    call.workflowId,
    call.endpoint,
    call.requestKey,
    call.createsScraper,
    call.calledAt.toISOString(),
  ];
  await tx.run(
    `INSERT INTO spend_calls (call_key, pipeline, project, workflow_id, endpoint, request_key, creates_scraper, called_at)
     VALUES (${values.map((_, i) => tx.ph(i + 1)).join(', ')}) ON CONFLICT (call_key) DO NOTHING`,
    values,
  );
}

/** The service's tokenUsage for a recorded call, from its answer. */
export async function recordCallTokens(db: Database, callKey: string, tokens: number): Promise<void> {
  await withTransaction(db, (tx) =>
    tx.run(`UPDATE spend_calls SET tokens = ${tx.ph(1)} WHERE call_key = ${tx.ph(2)}`, [tokens, callKey]),
  );
}

function lockKey(text: string): bigint {
  return BigInt.asIntN(64, BigInt(`0x${hexDigest('sha1', `spend\u0002${text}`).slice(0, 16)}`));
}

/** What a pipeline's recent runs spent, per unit of work (a URL, or a create), for the forecast (budget/forecast.ts). */
export interface SpendHistory {
  /** Runs looked at (the newest that recorded spend). */
  runs: number;
  /** Distinct URLs (or creates) those runs called for. */
  units: number;
  calls: number;
  scrapers: number;
  tokens: number;
  /** Units whose calls reported tokens: tokens per unit are known only from these. */
  unitsWithTokens: number;
}

export async function spendHistory(r: SpendReader, pipeline: string, lastRuns = 5): Promise<SpendHistory> {
  const rows = await r.all(
    `SELECT workflow_id, count(DISTINCT request_key) AS units, count(*) AS calls, sum(CASE WHEN creates_scraper THEN 1 ELSE 0 END) AS scrapers,
            sum(tokens) AS tokens, count(DISTINCT CASE WHEN tokens IS NOT NULL THEN request_key END) AS units_with_tokens, max(called_at) AS last_at
     FROM spend_calls WHERE pipeline = ${r.ph(1)} GROUP BY workflow_id ORDER BY last_at DESC LIMIT ${r.ph(2)}`,
    [pipeline, lastRuns],
  );
  const sum = (k: string) => rows.reduce((a, row) => a + num(row[k]), 0);
  return {
    runs: rows.length,
    units: sum('units'),
    calls: sum('calls'),
    scrapers: sum('scrapers'),
    tokens: sum('tokens'),
    unitsWithTokens: sum('units_with_tokens'),
  };
}
