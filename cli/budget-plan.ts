// `run`'s look at a pipeline's budgets before anything starts (budget/plan.ts: the forecast from its own history
// against what each limit has counted), printed by `run --plan`, and the refusal of a run that would exceed one (exit
// EXIT.budget, one sentence). Reads the destination only; one that does not exist yet has no history.
import fs from 'node:fs';
import type { PipelineSpec } from '../pipelines/spec.js';
import { limitWhere, unitsText } from '../budget/limits.js';
import { forecastBasisText } from '../budget/forecast.js';
import { planBudget as planOf, type BudgetPlan } from '../budget/plan.js';
import { kindOf } from '../kinds/index.js';
import { urlsOf } from '../pipelines/spec.js';
import { databaseFile, readDestination } from './read-destination.js';

export type { BudgetPlan } from '../budget/plan.js';

export async function planBudget(spec: PipelineSpec, pipelineFile?: string, now = new Date()): Promise<BudgetPlan> {
  const run = { mode: kindOf(spec.kind).mode, urlCount: urlsOf(spec).length };
  const file = databaseFile(spec.destination.database);
  if (file !== undefined && !fs.existsSync(file)) return planOf(undefined, spec, run, pipelineFile, now);
  return readDestination(spec.destination.database, (r) => planOf(r, spec, run, pipelineFile, now));
}

/** What `run --plan` prints: the forecast, then each limit with what it counted and what the run would add. */
export function planLines(spec: PipelineSpec, plan: BudgetPlan, pipelineFile?: string): string[] {
  const f = plan.forecast;
  const lines = [
    `pipeline ${spec.name}: forecast of this run`,
    `  service calls  ${f.calls}   ${forecastBasisText(f, 'calls')}`,
    `  scrapers       ${f.scrapers}`,
    `  tokens         ${f.tokens === null ? 'unknown' : f.tokens}   ${f.tokens === null ? '(no earlier call of this pipeline reported tokenUsage: tokens are not forecast, and a token limit stops the run once its answers spent it)' : forecastBasisText(f, 'tokens')}`,
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
