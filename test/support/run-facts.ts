// What an alert is built from (alerts/notify-messages.ts RunFacts) for tests of the message bodies: a finished
// succeeded run of one minute with nothing else to say, which each test changes where its case differs.
import { execFileSync } from 'node:child_process';
import type { RunFacts } from '../../alerts/notify-messages.js';

export function runFacts(overrides: Partial<RunFacts> = {}): RunFacts {
  return {
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
    seenByTable: null,
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:01:00.000Z',
    durationMs: 60_000,
    tokenUsage: null,
    webUiUrl: null,
    idempotencyKey: 'k',
    ...overrides,
  };
}

/** `expr` over a JSON body as Python's json module reads it (`d`), printed back as JSON text. */
export function pythonJsonExpr(body: string, expr: string): string {
  return execFileSync('python3', ['-c', `import json,sys; d=json.load(sys.stdin); print(json.dumps(${expr}))`], {
    input: body,
  })
    .toString()
    .trim();
}
