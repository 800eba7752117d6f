// The limits a run is held to: its pipeline's `budget:` and its project's, one entry per resource and period, and
// the period each counts over. Pure, with no imports but the budget's own types: the workflow bundle uses it too.
import {
  BUDGET_PERIODS,
  BUDGET_RESOURCES,
  DEFAULT_WARN_AT,
  type BudgetPeriod,
  type BudgetResource,
  type BudgetScope,
  type BudgetSpec,
  type ProjectBudgetSpec,
} from './types.js';

export interface BudgetLimit {
  scope: BudgetScope;
  resource: BudgetResource;
  period: BudgetPeriod;
  limit: number;
  /** Share of the limit at which budget_warning goes out (0-1]. */
  warnAt: number;
  /** What the limit is called where it is written: 'budget.calls.day'. */
  key: string;
  /** The project's identity (its scrape-etl.yaml) for a project limit. */
  project?: string;
}

/** What a run's budgets hold: the pipeline's own section and the one its project file carries. */
export interface BudgetedSpec {
  name: string;
  budget?: BudgetSpec;
  project_budget?: ProjectBudgetSpec;
}

/** '80%' as 0.8; undefined for text that is not a percentage from 1 to 100. */
export function shareOf(text: string): number | undefined {
  const m = /^([0-9]+(?:\.[0-9]+)?)%$/.exec(text.trim());
  if (!m) return undefined;
  const n = Number(m[1]) / 100;
  return n > 0 && n <= 1 ? n : undefined;
}

function limitsOfSection(section: BudgetSpec | undefined, scope: BudgetScope, project?: string): BudgetLimit[] {
  if (!section) return [];
  const warnAt = shareOf(section.warn_at ?? DEFAULT_WARN_AT) ?? 0.8;
  const out: BudgetLimit[] = [];
  for (const resource of BUDGET_RESOURCES) {
    for (const period of BUDGET_PERIODS) {
      const limit = section[resource]?.[period];
      if (limit === undefined) continue;
      out.push({
        scope,
        resource,
        period,
        limit,
        warnAt,
        key: `budget.${resource}.${period}`,
        ...(project !== undefined ? { project } : {}),
      });
    }
  }
  return out;
}

/** Every limit of the spec: the pipeline's first, then the project's. */
export function budgetLimitsOf(spec: BudgetedSpec): BudgetLimit[] {
  return [
    ...limitsOfSection(spec.budget, 'pipeline'),
    ...limitsOfSection(spec.project_budget, 'project', spec.project_budget?.project),
  ];
}

export function hasBudget(spec: BudgetedSpec): boolean {
  return budgetLimitsOf(spec).length > 0;
}

/** Where a limit is written, for messages: 'budget.calls.run of pipeline shop' or '… of the project (/p/scrape-etl.yaml)'. */
export function limitWhere(l: BudgetLimit, pipeline: string, pipelineFile?: string): string {
  return l.scope === 'project'
    ? `${l.key} in ${l.project}`
    : `${l.key} of pipeline ${pipeline}${pipelineFile ? ` (${pipelineFile})` : ''}`;
}

/** The first instant of the period that `at` falls in (UTC), or undefined for 'run' (counted by workflow id). */
export function periodStart(period: BudgetPeriod, at: Date): Date | undefined {
  if (period === 'day') return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  if (period === 'month') return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  return undefined;
}

/** The period's name in alert keys and on the Cost page: 'run <workflow id>', '2026-11-29', '2026-11'. */
export function periodId(period: BudgetPeriod, at: Date, workflowId: string): string {
  const iso = at.toISOString();
  if (period === 'day') return iso.slice(0, 10);
  if (period === 'month') return iso.slice(0, 7);
  return workflowId;
}

/** The unit a resource is counted in, for sentences. */
export function unitsText(resource: BudgetResource, n: number): string {
  const word = resource === 'calls' ? 'service call' : resource === 'scrapers' ? 'scraper' : 'token';
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
