// Each budget limit beside what it has counted in its current period, for the console's Cost page: one row per
// pipeline and limit, read from spend_calls with the figures budgets are held to (db/store/spend.ts).
import { spendTotals, spentOf, spendWhereOf, type SpendReader } from '../db/store/spend.js';
import { budgetLimitsOf, periodId, type BudgetedSpec, type BudgetLimit } from './limits.js';

export interface BudgetRow {
  pipeline: string;
  limit: BudgetLimit;
  /** 'this run: <workflow id>', '2026-11-29', '2026-11'. */
  period: string;
  spent: number;
}

/** A run limit is shown against the pipeline's newest run that called the service (none: nothing spent). */
export async function budgetRows(
  r: SpendReader,
  specs: readonly BudgetedSpec[],
  now = new Date(),
): Promise<BudgetRow[]> {
  const out: BudgetRow[] = [];
  for (const spec of specs) {
    const limits = budgetLimitsOf(spec);
    if (limits.length === 0) continue;
    const [last] = await r.all(
      `SELECT workflow_id FROM spend_calls WHERE pipeline = ${r.ph(1)} ORDER BY called_at DESC LIMIT 1`,
      [spec.name],
    );
    const workflowId = last ? String(last['workflow_id']) : '';
    for (const l of limits) {
      const spent =
        l.period === 'run' && !workflowId
          ? 0
          : spentOf(l, await spendTotals(r, spendWhereOf(l, spec.name, workflowId, now)));
      out.push({
        pipeline: spec.name,
        limit: l,
        period:
          l.period === 'run'
            ? workflowId
              ? `last run ${workflowId}`
              : 'no run yet'
            : periodId(l.period, now, workflowId),
        spent,
      });
    }
  }
  return out;
}
