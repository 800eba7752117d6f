// `run`'s look at a pipeline's budgets before anything starts: the forecast from its own history (budget/forecast.ts)
// against what each limit has counted (db/store/spend.ts), printed by `run --plan`, and the refusal of a run that would
// exceed one (exit EXIT.budget, one sentence). Reads the destination only; one that does not exist yet has no history.
import fs from 'node:fs';
import type { PipelineSpec } from '../pipelines/spec.js';
import { budgetLimitsOf, limitWhere, unitsText } from '../budget/limits.js';
import {
  checkLimits,
  forecastBasisText,
  forecastRun,
  refusalOfForecast,
  type Forecast,
  type LimitCheck,
} from '../budget/forecast.js';
import {
  spendHistory,
  spendTotals,
  spendWhereOf,
  spentOf,
  type SpendHistory,
  type SpendTotals,
} from '../db/store/spend.js';
import { kindOf } from '../kinds/index.js';
import { urlsOf } from '../pipelines/spec.js';
import { databaseFile, readDestination } from './read-destination.js';

export interface BudgetPlan {
  forecast: Forecast;
  checks: LimitCheck[];
  /** The sentence refusing the run, for the first limit its forecast exceeds; undefined when it fits. */
  refusal?: string;
}

const EMPTY_HISTORY: SpendHistory = { runs: 0, units: 0, calls: 0, scrapers: 0, tokens: 0, unitsWithTokens: 0 };

export async function planBudget(spec: PipelineSpec, pipelineFile?: string, now = new Date()): Promise<BudgetPlan> {
  const limits = budgetLimitsOf(spec);
  const file = databaseFile(spec.destination.database);
  const fresh = file !== undefined && !fs.existsSync(file);
  const { history, spent } = fresh
    ? { history: EMPTY_HISTORY, spent: new Map<string, SpendTotals>() }
    : await readDestination(spec.destination.database, async (r) => {
        const spent = new Map<string, SpendTotals>();
        for (const l of limits)
          if (l.period !== 'run') spent.set(keyOf(l), await spendTotals(r, spendWhereOf(l, spec.name, '', now)));
        return { history: await spendHistory(r, spec.name), spent };
      });
  const forecast = forecastRun(kindOf(spec.kind).mode, urlsOf(spec).length, history);
  const checks = checkLimits(
    limits,
    (l) => spentOf(l, spent.get(keyOf(l)) ?? { calls: 0, scrapers: 0, tokens: 0 }),
    forecast,
  );
  const over = checks.find((c) => c.exceeds);
  return { forecast, checks, ...(over ? { refusal: refusalOfForecast(over, spec.name, pipelineFile) } : {}) };
}

function keyOf(l: { scope: string; key: string }): string {
  return `${l.scope}:${l.key}`;
}

/** What `run --plan` prints: the forecast, then each limit with what it counted and what the run would add. */
export function planLines(spec: PipelineSpec, plan: BudgetPlan, pipelineFile?: string): string[] {
  const f = plan.forecast;
  const lines = [
    `pipeline ${spec.name}: forecast of this run`,
    `  service calls  ${f.calls}   ${forecastBasisText(f, 'calls')}`,
    `  scrapers       ${f.scrapers}`,
    `  tokens         ${f.tokens === null ? 'unknown' : f.tokens}   ${f.tokens === null ? '(no earlier call of this pipeline reported tokenUsage)' : forecastBasisText(f, 'tokens')}`,
  ];
  if (plan.checks.length === 0)
    lines.push('budget: none (add budget: to the pipeline or the project file; docs/budgets.md)');
  else {
    lines.push('budget:');
    for (const c of plan.checks) {
      const period =
        c.limit.period === 'run' ? 'this run' : c.limit.period === 'day' ? 'today (UTC)' : 'this month (UTC)';
      const adds = c.adds === null ? 'unknown' : unitsText(c.limit.resource, c.adds);
      lines.push(
        `  ${c.exceeds ? 'OVER' : 'ok  '} ${limitWhere(c.limit, spec.name, pipelineFile)}: ${c.limit.limit}; spent ${period} ${c.spent}, this run adds ${adds}`,
      );
    }
  }
  if (plan.refusal) lines.push(plan.refusal);
  return lines;
}
