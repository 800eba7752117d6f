// Each budget limit beside what it has counted in its current period: the one definition of a budget's status that
// every surface reads. The alerts (budget/alerts.ts: budget_warning at `warning`, budget_exhausted at `reached`), the
// metrics set as a run ends (activities/control.ts) and the console's Cost page (one row per pipeline and limit) all
// count through `budgetStatus`, with the figures budgets are held to (db/store/spend.ts).
import type { Database } from '../destinations/contract.js';
import { spendTotals, spentOf, spendWhereOf, type SpendReader } from '../db/store/spend.js';
import { withReadTransaction } from '../db/store/sql.js';
import { budgetLimitsOf, periodId, type BudgetedSpec, type BudgetLimit } from './limits.js';

/** Where a limit stands: under its warn_at share, at or above it, or at or above the limit itself. */
export type BudgetLevel = 'ok' | 'warning' | 'reached';

export interface BudgetStatus {
  limit: BudgetLimit;
  /** Counted in the limit's current period (the run's own for a run limit), in its resource's unit. */
  spent: number;
  /** The period's name: the workflow id for a run limit, '2026-11-29', '2026-11'. */
  periodId: string;
  level: BudgetLevel;
}

export function budgetLevel(l: BudgetLimit, spent: number): BudgetLevel {
  return spent >= l.limit ? 'reached' : spent >= l.warnAt * l.limit ? 'warning' : 'ok';
}

/** Each limit of `spec` with what it has counted at `now`; a run limit counts the run `workflowId` ('' : none yet). */
export async function budgetStatus(
  r: SpendReader,
  spec: BudgetedSpec,
  workflowId: string,
  now = new Date(),
): Promise<BudgetStatus[]> {
  const out: BudgetStatus[] = [];
  for (const l of budgetLimitsOf(spec)) {
    const spent =
      l.period === 'run' && !workflowId
        ? 0
        : spentOf(l, await spendTotals(r, spendWhereOf(l, spec.name, workflowId, now)));
    out.push({ limit: l, spent, periodId: periodId(l.period, now, workflowId), level: budgetLevel(l, spent) });
  }
  return out;
}

/** budgetStatus in a read transaction of `db`: what the alerts and the metrics read as a run ends. */
export async function budgetStatusOf(
  db: Database,
  spec: BudgetedSpec,
  workflowId: string,
  now = new Date(),
): Promise<BudgetStatus[]> {
  if (budgetLimitsOf(spec).length === 0) return [];
  return withReadTransaction(db, (tx) => budgetStatus(tx, spec, workflowId, now));
}

export interface BudgetRow extends BudgetStatus {
  pipeline: string;
  /** 'last run <workflow id>', 'no run yet', '2026-11-29', '2026-11'. */
  period: string;
}

/** For the Cost page: a run limit is shown against the pipeline's newest run that called the service. */
export async function budgetRows(
  r: SpendReader,
  specs: readonly BudgetedSpec[],
  now = new Date(),
): Promise<BudgetRow[]> {
  const out: BudgetRow[] = [];
  for (const spec of specs) {
    if (budgetLimitsOf(spec).length === 0) continue;
    const [last] = await r.all(
      `SELECT workflow_id FROM spend_calls WHERE pipeline = ${r.ph(1)} ORDER BY called_at DESC LIMIT 1`,
      [spec.name],
    );
    const workflowId = last ? String(last['workflow_id']) : '';
    for (const s of await budgetStatus(r, spec, workflowId, now)) {
      out.push({
        ...s,
        pipeline: spec.name,
        period: s.limit.period === 'run' ? (workflowId ? `last run ${workflowId}` : 'no run yet') : s.periodId,
      });
    }
  }
  return out;
}
