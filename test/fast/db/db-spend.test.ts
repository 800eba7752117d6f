// Spend control's parts on real files (issue #40): the budget section's errors (file, path, fix) in a pipeline file
// and the project file, the forecast's arithmetic, and spend_calls on real SQLite and DuckDB files: a limit refuses the
// call that would pass it, concurrent calls of one budget are counted one after another, a record repeated with the
// same key is one row, periods and alert keys follow the UTC calendar.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../destinations/open.js';
import type { Database } from '../../../destinations/contract.js';
import {
  recordCallTokens,
  reserveCall,
  spendCallKey,
  spendHistory,
  spendTotals,
  type SpendCall,
} from '../../../db/store/spend.js';
import { withReadTransaction } from '../../../db/store/sql.js';
import { budgetLimitsOf, periodStart } from '../../../budget/limits.js';
import { checkLimits, forecastRun, refusalOfForecast } from '../../../budget/forecast.js';
import { budgetAlertKey } from '../../../budget/alerts.js';
import { spendMeter, BudgetExhaustedError } from '../../../budget/meter.js';
import { PipelineFileError } from '../../../pipelines/errors.js';
import { parsePipelineText } from '../../../pipelines/loader.js';
import { parseProjectText } from '../../../cli/project-schema.js';

const PIPELINE = (budget: string) =>
  `name: shop\nkind: marketplace\nrequest: { urls: ['https://s.example/api?itemid=1&shopid=2'] }\n${budget}`;

function errorsOf(f: () => unknown): string[] {
  try {
    f();
  } catch (err) {
    if (err instanceof PipelineFileError) return err.message.split('\n');
    throw err;
  }
  throw new Error('expected the file to be rejected');
}

describe('budget section', () => {
  it('reads limits per resource and period, warn_at as a share, from the pipeline file', () => {
    const spec = parsePipelineText(
      PIPELINE("budget:\n  calls: { run: 10, day: 100 }\n  tokens: { month: 5000 }\n  warn_at: '90%'\n"),
      'p.yaml',
      { env: {} },
    );
    expect(spec.budget).toEqual({ calls: { run: 10, day: 100 }, tokens: { month: 5000 }, warn_at: '90%' });
    expect(budgetLimitsOf(spec).map((l) => `${l.key}=${l.limit}@${l.warnAt}`)).toEqual([
      'budget.calls.run=10@0.9',
      'budget.calls.day=100@0.9',
      'budget.tokens.month=5000@0.9',
    ]);
  });

  it('names the file, the path and the fix of a wrong budget', () => {
    const errors = errorsOf(() =>
      parsePipelineText(
        PIPELINE('budget:\n  calls: { run: -1, week: 3 }\n  tokens: { day: 2.5 }\n  warn_at: 80\n'),
        'p.yaml',
        { env: {} },
      ),
    );
    expect(
      errors.some((e) =>
        /^p\.yaml:5:\d+: budget\.calls\.run: expected 0 or more service calls; leave the key out for no limit$/.test(e),
      ),
      errors.join('\n'),
    ).toBe(true);
    expect(
      errors.some((e) => /^p\.yaml:5:\d+: budget\.calls\.week: unknown key/.test(e)),
      errors.join('\n'),
    ).toBe(true);
    expect(
      errors.some((e) => /^p\.yaml:6:\d+: budget\.tokens\.day: expected a whole number of tokens/.test(e)),
      errors.join('\n'),
    ).toBe(true);
    expect(
      errors.some((e) => /^p\.yaml:7:\d+: budget\.warn_at: /.test(e)),
      errors.join('\n'),
    ).toBe(true);
  });

  it('the project file takes the same section, and says where a mistake is', () => {
    const project = parseProjectText('budget:\n  scrapers: { day: 3 }\n', '/p/scrape-etl.yaml', {});
    expect(project.file).toBe('/p/scrape-etl.yaml');
    const errors = errorsOf(() =>
      parseProjectText("budget:\n  scrapers: { day: many }\n  warn_at: '150%'\n", '/p/scrape-etl.yaml', {}),
    );
    expect(errors).toContain(
      '/p/scrape-etl.yaml:2:20: budget.scrapers.day: expected a whole number of scrapers (e.g. 100); leave the key out for no limit',
    );
    expect(errors).toContain(
      "/p/scrape-etl.yaml:3:12: budget.warn_at: expected a share of the limit such as '80%' (from 1% to 100%)",
    );
  });
});

describe('forecast', () => {
  const none = { runs: 0, units: 0, calls: 0, scrapers: 0, tokens: 0, unitsWithTokens: 0 };
  it('without history: one call per URL, tokens unknown; a create-and-run pipeline one scraper; a results sync nothing', () => {
    expect(forecastRun('url-list', 7, none)).toMatchObject({ calls: 7, scrapers: 0, tokens: null, basis: 'default' });
    expect(forecastRun('create-and-wait', 0, none)).toMatchObject({ calls: 1, scrapers: 1, tokens: null });
    expect(forecastRun('results-sync', 0, none)).toMatchObject({ calls: 0, scrapers: 0 });
  });

  it("from history: the rates of the pipeline's runs, retries included", () => {
    const f = forecastRun('url-list', 10, {
      runs: 2,
      units: 8,
      calls: 10,
      scrapers: 0,
      tokens: 4000,
      unitsWithTokens: 4,
    });
    expect(f).toMatchObject({ calls: 13, tokens: 10_000, callsPerUnit: 1.25, tokensPerUnit: 1000, basis: 'history' });
  });

  it('refuses over a limit, counting what the period spent; never a run that adds nothing', () => {
    const limits = budgetLimitsOf({ name: 'shop', budget: { calls: { run: 12, day: 20 } } });
    const f = forecastRun('url-list', 10, none);
    const checks = checkLimits(limits, () => 11, f);
    expect(checks.map((c) => c.exceeds)).toEqual([false, true]);
    expect(refusalOfForecast(checks[1]!, 'shop', 'shop.yaml')).toBe(
      'pipeline shop was not started: its forecast of 10 service calls on top of 11 service calls spent today (UTC) exceeds budget.calls.day of pipeline shop (shop.yaml), 20; raise budget.calls.day, give the run fewer URLs, or wait for the next day',
    );
    expect(checkLimits(limits, () => 500, forecastRun('results-sync', 0, none)).some((c) => c.exceeds)).toBe(false);
  });

  it('periods and alert keys follow the UTC calendar: a new day or month is a new key', () => {
    const [run, day, month] = budgetLimitsOf({ name: 'shop', budget: { calls: { run: 1, day: 1, month: 1 } } });
    const late = new Date('2026-11-30T23:59:59Z');
    const next = new Date('2026-12-01T00:00:01Z');
    expect(periodStart('day', late)?.toISOString()).toBe('2026-11-30T00:00:00.000Z');
    expect(periodStart('month', next)?.toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(budgetAlertKey(day!, 'shop', 'wf', late)).toBe('budget:pipeline:shop:budget.calls.day:2026-11-30');
    expect(budgetAlertKey(day!, 'shop', 'wf', next)).toBe('budget:pipeline:shop:budget.calls.day:2026-12-01');
    expect(budgetAlertKey(month!, 'shop', 'wf', late)).not.toBe(budgetAlertKey(month!, 'shop', 'wf', next));
    expect(budgetAlertKey(run!, 'shop', 'wf-1', late)).toBe('budget:pipeline:shop:budget.calls.run:wf-1');
  });
});

for (const engine of ['sqlite', 'duckdb'] as const) {
  describe(`spend_calls on ${engine}`, () => {
    let dir: string;
    let db: Database;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), `db-spend-${engine}-`));
      db = await openDatabase(`${engine}:${join(dir, `spend.${engine}`)}`);
    });
    afterAll(async () => {
      await db?.close();
      await rm(dir, { recursive: true, force: true });
    });

    const call = (n: number, o: Partial<SpendCall> = {}): SpendCall => ({
      callKey: spendCallKey({
        workflowId: o.workflowId ?? 'wf-1',
        activityId: '1',
        activityAttempt: 1,
        requestKey: `u${n}`,
        clientAttempt: 1,
      }),
      pipeline: 'shop',
      project: null,
      workflowId: 'wf-1',
      endpoint: 'POST /api/marketplace/sync',
      requestKey: `u${n}`,
      createsScraper: false,
      calledAt: new Date(),
      ...o,
    });

    it('records calls until a limit, refuses the one that would pass it, and counts a repeated key once', async () => {
      const limits = budgetLimitsOf({ name: 'shop', budget: { calls: { run: 3 } } });
      expect(await reserveCall(db, call(1), limits)).toBeUndefined();
      expect(await reserveCall(db, call(1), limits)).toBeUndefined();
      expect(await reserveCall(db, call(2), limits)).toBeUndefined();
      expect(await reserveCall(db, call(3), limits)).toBeUndefined();
      const refused = await reserveCall(db, call(4), limits);
      expect(refused).toMatchObject({ spent: 3, limit: { key: 'budget.calls.run', limit: 3 } });
      expect(await withReadTransaction(db, (tx) => spendTotals(tx, { workflowId: 'wf-1' }))).toEqual({
        calls: 3,
        scrapers: 0,
        tokens: 0,
      });
      // Another run has its own run limit.
      expect(await reserveCall(db, call(4, { workflowId: 'wf-2' }), limits)).toBeUndefined();
    });

    it('a token limit lets calls start while tokens are left, and stops them once spent', async () => {
      const limits = budgetLimitsOf({ name: 'jobs', budget: { tokens: { day: 1000 } } });
      const meter = spendMeter({
        db,
        spec: { name: 'jobs', budget: { tokens: { day: 1000 } } },
        workflowId: 'wf-3',
        activityId: '7',
        activityAttempt: 1,
      });
      const first = meter.call('POST /api/job-board-scrape', 'https://j.example/1', false);
      await first.options.beforeAttempt!(1);
      await first.answered(999);
      const second = meter.call('POST /api/job-board-scrape', 'https://j.example/2', false);
      await second.options.beforeAttempt!(1);
      await second.answered(5);
      const third = meter.call('POST /api/job-board-scrape', 'https://j.example/3', false);
      await expect(third.options.beforeAttempt!(1)).rejects.toThrow(BudgetExhaustedError);
      await expect(third.options.beforeAttempt!(1)).rejects.toThrow(
        'budget.tokens.day of pipeline jobs is 1000 tokens and 1004 tokens were spent today (UTC): no further service calls were started; raise budget.tokens.day or wait for the next period',
      );
      expect(limits).toHaveLength(1);
      const history = await withReadTransaction(db, (tx) => spendHistory(tx, 'jobs'));
      expect(history).toEqual({ runs: 1, units: 2, calls: 2, scrapers: 0, tokens: 1004, unitsWithTokens: 2 });
    });

    it('concurrent calls of one budget are counted one after another: never more than the limit', async () => {
      const limits = budgetLimitsOf({ name: 'race', budget: { calls: { day: 5 } } });
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          reserveCall(db, call(i, { pipeline: 'race', workflowId: `race-${i % 4}` }), limits),
        ),
      );
      expect(outcomes.filter((o) => o === undefined)).toHaveLength(5);
      expect(await withReadTransaction(db, (tx) => spendTotals(tx, { pipeline: 'race' }))).toMatchObject({ calls: 5 });
      await recordCallTokens(db, call(0, { pipeline: 'race', workflowId: 'race-0' }).callKey, 7);
    });
  });
}
