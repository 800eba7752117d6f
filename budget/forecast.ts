// A run's forecast spend, from the pipeline's own history (db/store/spend.ts spendHistory: calls and tokens per URL of
// its last runs, or per create-and-run), and the limits it would exceed. Pure: the caller reads the history and what
// each limit has counted so far (cli/budget-plan.ts for `run` and `run --plan`).
import type { SpendHistory } from '../db/store/spend.js';
import { limitWhere, unitsText, type BudgetLimit } from './limits.js';
import type { BudgetResource } from './types.js';

export type ForecastBasis = 'history' | 'default';

export interface Forecast {
  /** What the run calls the service for: its URLs, or its one create-and-run; 0 for a results sync (reads only). */
  units: number;
  unit: 'URL' | 'create-and-run' | 'none';
  calls: number;
  scrapers: number;
  /** null: unknown (no earlier call of the pipeline reported tokens; the asynchronous kinds' answers carry none). */
  tokens: number | null;
  callsPerUnit: number;
  tokensPerUnit: number | null;
  /** 'history': rates of the pipeline's last runs; 'default': no history, one call per unit. */
  basis: ForecastBasis;
  /** Runs of the history the rates come from. */
  runs: number;
}

export type RunMode = 'create-and-wait' | 'url-list' | 'results-sync';

export function forecastRun(mode: RunMode, urlCount: number, history: SpendHistory): Forecast {
  const unit = mode === 'url-list' ? 'URL' : mode === 'create-and-wait' ? 'create-and-run' : 'none';
  const units = mode === 'url-list' ? urlCount : mode === 'create-and-wait' ? 1 : 0;
  const known = history.units > 0;
  // Retried calls (a 5xx, a dropped answer) cost again: the history's rate carries them.
  const callsPerUnit = known ? history.calls / history.units : 1;
  const tokensPerUnit = history.unitsWithTokens > 0 ? history.tokens / history.unitsWithTokens : null;
  const calls = Math.ceil(units * callsPerUnit);
  return {
    units,
    unit,
    calls,
    scrapers: mode === 'create-and-wait' ? calls : 0,
    tokens: tokensPerUnit === null ? null : Math.ceil(units * tokensPerUnit),
    callsPerUnit,
    tokensPerUnit,
    basis: known ? 'history' : 'default',
    runs: history.runs,
  };
}

export interface LimitCheck {
  limit: BudgetLimit;
  /** Spent in the limit's period so far (0 for a run's own limit: the run has not started). */
  spent: number;
  /** What the forecast adds; null when unknown (tokens without history). */
  adds: number | null;
  exceeds: boolean;
}

export function checkLimits(
  limits: readonly BudgetLimit[],
  spentOf: (l: BudgetLimit) => number,
  f: Forecast,
): LimitCheck[] {
  return limits.map((limit) => {
    const spent = limit.period === 'run' ? 0 : spentOf(limit);
    const adds = forecastOf(f, limit.resource);
    // A run that adds nothing (a results sync) is not refused, whatever was spent.
    return { limit, spent, adds, exceeds: adds !== null && adds > 0 && spent + adds > limit.limit };
  });
}

function forecastOf(f: Forecast, r: BudgetResource): number | null {
  return r === 'calls' ? f.calls : r === 'scrapers' ? f.scrapers : f.tokens;
}

/** How the forecast was made, for the plan and the refusal: '6 URLs x 1.5 calls per URL (last 3 runs)'. */
export function forecastBasisText(f: Forecast, r: BudgetResource): string {
  if (f.unit === 'none') return 'a results sync makes no billable call';
  const per = r === 'tokens' ? f.tokensPerUnit : f.callsPerUnit;
  const rate = per === null ? 'unknown' : Number.isInteger(per) ? String(per) : per.toFixed(2);
  const what = r === 'tokens' ? 'tokens' : r === 'scrapers' ? 'scrapers' : 'calls';
  const from =
    f.basis === 'history'
      ? `the pipeline's last ${f.runs} run${f.runs === 1 ? '' : 's'}`
      : 'no history yet: one call each';
  return `${f.units} ${f.unit}${f.units === 1 || f.unit !== 'URL' ? '' : 's'} x ${rate} ${what} per ${f.unit} (${from})`;
}

/** The one sentence of a run refused by its forecast: the limit, the forecast, the fix. */
export function refusalOfForecast(c: LimitCheck, pipeline: string, pipelineFile?: string): string {
  const l = c.limit;
  const period = l.period === 'run' ? 'this run' : l.period === 'day' ? 'today (UTC)' : 'this month (UTC)';
  const spent = l.period === 'run' ? '' : ` on top of ${unitsText(l.resource, c.spent)} spent ${period}`;
  const fix =
    l.period === 'run'
      ? `raise ${l.key} or give the run fewer URLs`
      : `raise ${l.key}, give the run fewer URLs, or wait for the next ${l.period === 'day' ? 'day' : 'month'}`;
  return `pipeline ${pipeline} was not started: its forecast of ${unitsText(l.resource, c.adds ?? 0)}${spent} exceeds ${limitWhere(l, pipeline, pipelineFile)}, ${l.limit}; ${fix}`;
}
