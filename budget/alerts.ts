// budget_warning and budget_exhausted: after a run, each limit of its budgets is compared with what it has counted
// in its period; a limit at its owner's share (warn_at, 80% by default) gives budget_warning, one reached gives
// budget_exhausted. Each goes out once per limit and period: the notify activity records its delivery in
// notify_deliveries under the key below instead of the run's (activities/notify.ts), as did_not_run is per fire.
import type { Database } from '../destinations/contract.js';
import { spendTotals, spendWhereOf, spentOf } from '../db/store/spend.js';
import { withReadTransaction } from '../db/store/sql.js';
import { budgetLimitsOf, limitWhere, periodId, unitsText, type BudgetedSpec, type BudgetLimit } from './limits.js';
import type { BudgetEvent } from './types.js';

export type { BudgetAlertData } from './types.js';
import type { BudgetAlertData } from './types.js';

export interface BudgetAlert {
  event: BudgetEvent;
  detail: string;
  /** What the delivery is recorded under: one per limit and period, whichever run saw it first. */
  once: string;
  budget: BudgetAlertData;
}

/** The key a budget alert is delivered once under, for a limit in the period `at` falls in. */
export function budgetAlertKey(l: BudgetLimit, pipeline: string, workflowId: string, at: Date): string {
  const owner = l.scope === 'project' ? `project:${l.project ?? ''}` : `pipeline:${pipeline}`;
  return `budget:${owner}:${l.key}:${periodId(l.period, at, workflowId)}`;
}

/** Each limit of the spec with what it has counted in its period at `now` (the run's own for a run limit). */
export async function budgetStatusOf(
  db: Database,
  spec: BudgetedSpec,
  workflowId: string,
  now = new Date(),
): Promise<Array<{ limit: BudgetLimit; spent: number }>> {
  const limits = budgetLimitsOf(spec);
  if (limits.length === 0) return [];
  return withReadTransaction(db, async (tx) => {
    const out: Array<{ limit: BudgetLimit; spent: number }> = [];
    for (const l of limits)
      out.push({ limit: l, spent: spentOf(l, await spendTotals(tx, spendWhereOf(l, spec.name, workflowId, now))) });
    return out;
  });
}

export async function budgetAlertsOf(
  db: Database,
  spec: BudgetedSpec,
  workflowId: string,
  now = new Date(),
): Promise<BudgetAlert[]> {
  const status = await budgetStatusOf(db, spec, workflowId, now);
  const out: BudgetAlert[] = [];
  for (const { limit: l, spent } of status) {
    const event: BudgetEvent | undefined =
      spent >= l.limit ? 'budget_exhausted' : spent >= l.warnAt * l.limit ? 'budget_warning' : undefined;
    if (!event) continue;
    const period =
      l.period === 'run'
        ? `in run ${workflowId}`
        : l.period === 'day'
          ? `on ${periodId('day', now, workflowId)} (UTC)`
          : `in ${periodId('month', now, workflowId)} (UTC)`;
    const share = l.limit > 0 ? Math.round((spent / l.limit) * 100) : 100;
    const detail =
      event === 'budget_exhausted'
        ? `${limitWhere(l, spec.name)} reached: ${unitsText(l.resource, spent)} of ${l.limit} spent ${period}; runs start no further service calls until the next period or a raised ${l.key}`
        : `${limitWhere(l, spec.name)}: ${unitsText(l.resource, spent)} of ${l.limit} spent ${period} (${share}%, warn_at ${Math.round(l.warnAt * 100)}%)`;
    out.push({
      event,
      detail,
      once: budgetAlertKey(l, spec.name, workflowId, now),
      budget: {
        limit: l.key,
        scope: l.scope,
        period: l.period,
        period_id: periodId(l.period, now, workflowId),
        value: l.limit,
        spent,
        warn_at: l.warnAt,
      },
    });
  }
  return out;
}
