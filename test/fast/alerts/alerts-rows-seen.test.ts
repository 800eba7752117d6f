// Rows seen beside rows changed in alerts (issue 36): a scheduled run that fetched two unchanged products changed
// 0 rows but saw 2; its webhook said `rows_total: 0` and nothing else. The JSON body now carries both, read back by
// Python's json; Slack's line says both; a run recorded before rows seen were counted says rows changed only.
import { describe, expect, it } from 'vitest';
import { jsonMessage, slackMessage, type RunFacts } from '../../../alerts/notify-messages.js';
import { runEventLine } from '../../../cli/up/up-log.js';
import { pythonJsonExpr, runFacts } from '../../support/run-facts.js';

const facts = (seenByTable: Record<string, number> | null): RunFacts => runFacts({ seenByTable });
const py = pythonJsonExpr;

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

// A run's rows as every surface counts them: data rows, the bookkeeping rows (scrapers, run records, the run's own
// records) apart. The webhooks summed both while `run`, `status`, the console and up's log counted data rows only,
// so one run read "2 rows changed" in the CLI and `rows_total: 5` in its webhook.
describe('the same row totals as the CLI, the console and up', () => {
  const run = {
    ...facts({ marketplace_products: 2, marketplace_models: 4, scrapers: 1, scraping_runs: 1 }),
    rowsByTable: { marketplace_products: 2, scrapers: 1, scraping_runs: 1 },
  };

  it('the JSON body counts data rows in rows_total and rows_seen_total, bookkeeping rows apart', () => {
    const body = JSON.stringify(jsonMessage(run));
    expect(py(body, '[d["rows_total"], d["rows_seen_total"], d["bookkeeping_rows_total"]]')).toBe('[2, 6, 2]');
    expect(py(body, 'd["rows_by_table"]')).toBe('{"marketplace_products": 2, "scrapers": 1, "scraping_runs": 1}');
  });

  it("Slack's line and up's log line say the same figures", () => {
    expect(JSON.stringify(slackMessage(run)['blocks'])).toContain('· 6 rows seen, 2 changed');
    const line = runEventLine({
      event: 'ended',
      pipeline: 'shop',
      workflowId: 'shop--k',
      status: 'succeeded',
      error: null,
      durationMs: 60_000,
      rowsByTable: run.rowsByTable,
      seenByTable: { marketplace_products: 2, marketplace_models: 4, scrapers: 1, scraping_runs: 1 },
    });
    expect(line).toContain('6 rows seen, 2 changed');
  });
});
