// check_failed bodies carry the failed checks as data (issue 36) within the JSON body's cap: many checks with large
// failing keys are cut to what fits, the rest counted in rows_omitted, and the body stays valid JSON (Python reads it).
import { describe, expect, it } from 'vitest';
import { MAX_WEBHOOK_JSON_BYTES } from '../../../alerts/alert-content.js';
import { jsonMessage, type RunFacts } from '../../../alerts/notify-messages.js';
import type { FailedCheckData } from '../../../checks/read.js';
import { pythonJsonExpr, runFacts } from '../../support/run-facts.js';

const check = (i: number): FailedCheckData => ({
  name: `not_null:t.c${i}`,
  type: 'not_null',
  severity: 'error',
  status: 'fail',
  observed: `${i} rows`,
  threshold: '0 rows',
  failing_keys: Array.from({ length: 20 }, (_, k) => ({ row_key: `${i}-${k}-${'x'.repeat(180)}` })),
  message: `${i} rows have no c${i}`,
});

const facts = (checks: FailedCheckData[]): RunFacts =>
  runFacts({
    event: 'check_failed',
    detail: 'checks failed',
    pipeline: 'p',
    workflowId: 'p--k',
    status: 'failed_checks',
    finishedAt: '2026-01-01T00:00:01.000Z',
    durationMs: 1000,
    failedChecks: checks,
  });
const py = pythonJsonExpr;

describe('check_failed data', () => {
  it('carries each failed check with name, type, severity, observed, threshold and failing keys', () => {
    const body = JSON.stringify(jsonMessage(facts([check(1), check(2)])));
    expect(
      JSON.parse(
        py(
          body,
          "[[c['name'], c['type'], c['severity'], c['observed'], c['threshold'], len(c['failing_keys'])] for c in d['failed_checks']]",
        ),
      ),
    ).toEqual([
      ['not_null:t.c1', 'not_null', 'error', '1 rows', '0 rows', 20],
      ['not_null:t.c2', 'not_null', 'error', '2 rows', '0 rows', 20],
    ]);
    expect(py(body, "d['detail']")).toBe('"checks failed"');
  });

  it('stays within the body cap with hundreds of checks, counting the ones left out', () => {
    const many = Array.from({ length: 400 }, (_, i) => check(i));
    const body = JSON.stringify(jsonMessage(facts(many)));
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_WEBHOOK_JSON_BYTES);
    const [kept, omitted, truncated] = JSON.parse(
      py(body, "[len(d['failed_checks']), d['rows_omitted'], d['truncated']]"),
    ) as [number, number, boolean];
    expect(kept).toBeGreaterThan(0);
    expect(kept + omitted).toBe(400);
    expect(truncated).toBe(true);
  });
});
