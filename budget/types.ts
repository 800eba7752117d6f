// What a `budget:` section holds (pipeline file and project file alike) and the names of its parts. Pure, with no
// imports: the workflow bundle reads these types and words too.

/** What a budget limits: billable service calls, scrapers created (create-and-run calls), the service's tokens. */
export const BUDGET_RESOURCES = ['calls', 'scrapers', 'tokens'] as const;
export type BudgetResource = (typeof BUDGET_RESOURCES)[number];

/** Over what a limit counts: one run (its workflow id), the UTC day, the UTC month. */
export const BUDGET_PERIODS = ['run', 'day', 'month'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

/** Whose spend a limit counts: the pipeline's own, or every pipeline of the project's (same destination). */
export type BudgetScope = 'pipeline' | 'project';

export type BudgetLimits = Partial<Record<BudgetPeriod, number>>;

/** The `budget:` section as the file's schema yields it. */
export interface BudgetSpec {
  calls?: BudgetLimits;
  scrapers?: BudgetLimits;
  tokens?: BudgetLimits;
  /** Share of a limit at which budget_warning goes out, as written ('80%'); default DEFAULT_WARN_AT. */
  warn_at?: string;
}

/** The project file's budget, carried in each of its pipelines' specs by the loader (pipelines/loader.ts). */
export interface ProjectBudgetSpec extends BudgetSpec {
  /** The project's identity in spend records: its scrape-etl.yaml's absolute path. */
  project: string;
}

export const DEFAULT_WARN_AT = '80%';

/** The alert events of budgets (docs/budgets.md), sent once per limit and period. */
export const BUDGET_EVENTS = ['budget_warning', 'budget_exhausted'] as const;
export type BudgetEvent = (typeof BUDGET_EVENTS)[number];

/** The failure type of a call a budget refused (activities) and of a run refused before it started. */
export const BUDGET_EXHAUSTED = 'BudgetExhausted';
export const BUDGET_FORECAST_EXCEEDED = 'BudgetForecastExceeded';

/** A budget alert as the JSON body carries it (`budget`): what alerts/notify-messages.ts writes. */
export interface BudgetAlertData {
  limit: string;
  scope: BudgetScope;
  period: BudgetPeriod;
  period_id: string;
  value: number;
  spent: number;
  warn_at: number;
}
