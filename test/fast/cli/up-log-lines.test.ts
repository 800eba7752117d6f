// `up`'s log lines (cli/up/up-log.ts): an SDK entry with its activity context becomes one sentence without the task
// token; a run's end says its outcome, rows and duration; the next fire named is one still to come.
import { describe, expect, it } from 'vitest';
import { runEventLine, sdkLogLine } from '../../../cli/up/up-log.js';
import { nextFireAfter } from '../../../monitor/schedule-watch.js';

describe("up's log lines", () => {
  it('an SDK warning with its activity context: one line, the facts and where, never the task token', () => {
    const line = sdkLogLine('WARN', 'checks failed', {
      sdkComponent: 'activity',
      taskQueue: 'scrape-etl',
      isLocal: false,
      attempt: 2,
      namespace: 'default',
      taskToken: 'CiQwMWEyMjVhNC01ZTFj',
      activityId: '3',
      activityType: 'evaluateRunChecks',
      workflowId: 'shop--k',
      workflowRunId: 'r',
      workflowType: 'pipelineWorkflow',
      pipeline: 'shop',
      detail: 'error check row_count failed:\n  1 rows, fewer than 100',
      error: new Error('first\nsecond'),
    });
    expect(line).toBe(
      'warning: checks failed: error check row_count failed: 1 rows, fewer than 100; first second (pipeline shop, run shop--k, activity evaluateRunChecks attempt 2)',
    );
    expect(line).not.toMatch(/CiQw|token/i);
  });

  it('a run that ended: outcome, rows seen beside rows changed (bookkeeping apart), duration', () => {
    expect(
      runEventLine({
        event: 'ended',
        pipeline: 'shop',
        workflowId: 'shop--k',
        status: 'succeeded',
        rowsByTable: { marketplace_products: 2, scrapers: 1 },
        durationMs: 3140,
        error: null,
      }),
    ).toBe('run ended: shop run shop--k succeeded, 2 rows changed, 3.1s');
    // Two unchanged products fetched again: seen 2, changed 0, never "0 rows".
    const unchanged = {
      event: 'ended',
      pipeline: 'shop',
      workflowId: 'shop--k',
      status: 'succeeded',
      rowsByTable: {},
      seenByTable: { marketplace_products: 2, scrapers: 1 },
      durationMs: 3140,
      error: null,
    } as const;
    expect(runEventLine(unchanged)).toBe('run ended: shop run shop--k succeeded, 2 rows seen, 0 changed, 3.1s');
    // Values its loads kept out of their columns are said beside the status, as status and history say them.
    expect(runEventLine({ ...unchanged, keptOut: 3 })).toBe(
      'run ended: shop run shop--k succeeded, 3 values kept out, 2 rows seen, 0 changed, 3.1s',
    );
    expect(runEventLine({ event: 'started', pipeline: 'shop', workflowId: 'shop--k' })).toBe(
      'run started: shop run shop--k',
    );
  });

  it('the next fire is the first announced time still to come', () => {
    const now = Date.parse('2026-11-26T12:00:30Z');
    const times = ['2026-11-26T12:00:00Z', '2026-11-26T12:01:00Z'].map((t) => new Date(t));
    expect(nextFireAfter(times, now)?.toISOString()).toBe('2026-11-26T12:01:00.000Z');
    expect(nextFireAfter(times.slice(0, 1), now)).toBeUndefined();
  });
});
