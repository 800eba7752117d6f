// A run's budget plan before it starts: the forecast from the pipeline's own history (budget/forecast.ts) against
// what each limit has counted in its period (db/store/spend.ts). One definition for both places a run is held to its
// budget before any call: `run` and `run --plan` on the command line (cli/budget-plan.ts), and the workflow's first
// step for every run a command did not start, a schedule's fire above all (activities/plan.ts).
import { spendHistory, spendTotals, spendWhereOf, spentOf, type SpendReader } from '../db/store/spend.js';
import { budgetLimitsOf, type BudgetedSpec, type BudgetLimit } from './limits.js';
import {
  checkLimits,
  forecastRun,
  refusalOfForecast,
  type Forecast,
  type LimitCheck,
  type RunMode,
} from './forecast.js';

export interface BudgetPlan {
  forecast: Forecast;
  checks: LimitCheck[];
  /** The sentence refusing the run, for the first limit its forecast exceeds; undefined when it fits. */
  refusal?: string;
  /** That limit's key ('budget.calls.day'). */
  refusedBy?: string;
}

/** What a run is: how it calls the service (its kind's mode) and how many URLs it has. */
export interface PlannedRun {
  mode: RunMode;
  urlCount: number;
}

/**
 * The plan of a run of `spec` at `now`, read through `r` (a read transaction, or a read-only reader); `r` undefined:
 * a destination with nothing recorded yet (no history, nothing spent).
 */
export async function planBudget(
  r: SpendReader | undefined,
  spec: BudgetedSpec,
  run: PlannedRun,
  pipelineFile?: string,
  now = new Date(),
): Promise<BudgetPlan> {
  const limits = budgetLimitsOf(spec);
  const spent = new Map<string, number>();
  if (r)
    for (const l of limits)
      if (l.period !== 'run')
        spent.set(keyOf(l), spentOf(l, await spendTotals(r, spendWhereOf(l, spec.name, '', now))));
  const history = r
    ? await spendHistory(r, spec.name)
    : { runs: 0, units: 0, calls: 0, scrapers: 0, tokens: 0, unitsWithTokens: 0 };
  const forecast = forecastRun(run.mode, run.urlCount, history);
  const checks = checkLimits(limits, (l) => spent.get(keyOf(l)) ?? 0, forecast);
  const over = checks.find((c) => c.exceeds);
  return {
    forecast,
    checks,
    ...(over ? { refusal: refusalOfForecast(over, spec.name, pipelineFile), refusedBy: over.limit.key } : {}),
  };
}

function keyOf(l: BudgetLimit): string {
  return `${l.scope}:${l.key}`;
}
