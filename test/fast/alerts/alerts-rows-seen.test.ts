// Rows seen beside rows changed in alerts (issue 36): a scheduled run that fetched two unchanged products changed
// 0 rows but saw 2; its webhook said `rows_total: 0` and nothing else. The JSON body now carries both, read back by
// Python's json; Slack's line says both; a run recorded before rows seen were counted says rows changed only.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { jsonMessage, slackMessage, type RunFacts } from '../../../alerts/notify-messages.js';

const facts = (seenByTable: Record<string, number> | null): RunFacts => ({
  event: 'succeeded',
  detail: null,
  pipeline: 'shop',
  kind: 'marketplace',
  workflowId: 'shop--k',
  runId: 'r',
  status: 'succeeded',
  error: null,
  exportStatus: null,
  exportError: null,
  rowsByTable: {},
  seenByTable,
  startedAt: '2026-01-01T00:00:00.000Z',
  finishedAt: '2026-01-01T00:01:00.000Z',
  durationMs: 60_000,
  tokenUsage: null,
  webUiUrl: null,
  idempotencyKey: 'k',
});

const py = (body: string, expr: string) =>
  execFileSync('python3', ['-c', `import json,sys; d=json.load(sys.stdin); print(json.dumps(${expr}))`], {
    input: body,
  })
    .toString()
    .trim();

describe('rows seen beside rows changed in alerts', () => {
  it('the JSON body: rows_total 0 (changed), rows_seen_total 2 and rows_seen_by_table', () => {
    const body = JSON.stringify(jsonMessage(facts({ marketplace_products: 2 })));
    expect(py(body, '[d["rows_total"], d["rows_seen_total"], d["rows_seen_by_table"]]')).toBe(
      '[0, 2, {"marketplace_products": 2}]',
    );
  });

  it('unknown rows seen are null, not 0', () => {
    const body = JSON.stringify(jsonMessage(facts(null)));
    expect(py(body, '[d["rows_seen_total"], d["rows_seen_by_table"]]')).toBe('[null, null]');
  });

  it("Slack's line says both, or rows changed only when seen is unknown", () => {
    expect(JSON.stringify(slackMessage(facts({ marketplace_products: 2 }))['blocks'])).toContain(
      '· 2 rows seen, 0 changed',
    );
    expect(JSON.stringify(slackMessage(facts(null))['blocks'])).toContain('· 0 rows changed');
  });
});
