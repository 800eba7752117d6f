// The bodies a webhook receives: scrape-etl's own JSON (every figure as a field, for scripts and alert routers)
// and a Slack incoming-webhook message (text plus blocks, which Slack-compatible receivers such as Mattermost and
// Discord's /slack endpoint also accept). Pure functions of the run's facts, so tests can check them exactly.
import type { NotifyEventName } from '../pipelines/spec.js';
import { cappedJsonBody, slackLink, slackText as esc } from './alert-content.js';
import type { DataOutcome } from '../lib/run-states.js';
import { keptOutText, keptOutValueText, rowsSeenChangedText, tokensText } from '../lib/run-figures.js';
import type { KeptOutValue } from '../lib/kept-out.js';
import { runRowTotals } from '../db/model/table-names.js';
import type { FailedCheckData } from '../checks/read.js';
import type { BudgetAlertData } from '../budget/types.js';

export interface RunFacts {
  event: NotifyEventName;
  /** Free text an event may carry (e.g. which tables' schemas changed). */
  detail: string | null;
  pipeline: string;
  kind: string;
  workflowId: string;
  runId: string;
  status: DataOutcome | 'did_not_run';
  error: string | null;
  exportStatus: string | null;
  exportError: string | null;
  /** Rows the run changed (inserted or updated), by table. */
  rowsByTable: Record<string, number>;
  /** Rows its responses held (fetched, changed or not), by table; null when not counted (runs before issue 36). */
  seenByTable: Record<string, number> | null;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** Sum of the service's tokenUsage for the run; null when unknown. */
  tokenUsage: number | null;
  /** Values its loads kept out of their columns (pipeline_runs.kept_out); null when not counted. */
  keptOut?: number | null;
  /** The first few of them (pipeline_runs.kept_out_sample). */
  keptOutSample?: KeptOutValue[];
  webUiUrl: string | null;
  idempotencyKey: string;
  /** check_failed: the failed checks as data (name, type, severity, observed, threshold, failing keys). */
  failedChecks?: FailedCheckData[];
  /** budget_warning / budget_exhausted: the limit, its period and what it counted (budget/alerts.ts). */
  budget?: BudgetAlertData;
}

/** scrape-etl's generic JSON body (field names are the documented contract: README "Alerts"). */
export function jsonMessage(f: RunFacts): Record<string, unknown> {
  const totals = runRowTotals(f.rowsByTable, f.seenByTable);
  const body = {
    source: 'scrape-etl',
    event: f.event,
    detail: f.detail,
    pipeline: f.pipeline,
    kind: f.kind,
    workflow_id: f.workflowId,
    run_id: f.runId,
    status: f.status,
    error: f.error,
    export_status: f.exportStatus,
    export_error: f.exportError,
    rows_by_table: f.rowsByTable,
    // Data rows, as `status` counts them: an unchanged re-fetch reads rows_total 0 and rows_seen_total 2; the
    // run's bookkeeping rows (scrapers, run records) are counted apart and listed in rows_by_table.
    rows_total: totals.changed,
    rows_seen_by_table: f.seenByTable,
    rows_seen_total: totals.seen,
    bookkeeping_rows_total: totals.bookkeeping,
    started_at: f.startedAt,
    finished_at: f.finishedAt,
    duration_ms: f.durationMs,
    token_usage: f.tokenUsage,
    // Values stored NULL because they were not what their column holds (the run still succeeded): how many, and the
    // first few with the table, column, row key and raw_responses id to find them by.
    values_kept_out: f.keptOut ?? null,
    values_kept_out_sample: f.keptOutSample ?? [],
    web_ui_url: f.webUiUrl,
    idempotency_key: f.idempotencyKey,
    ...(f.budget ? { budget: f.budget } : {}),
  };
  // The failed checks as data beside the sentence in `detail`; as many as fit in the body's cap, the others counted
  // in rows_omitted (a check's failing keys are already bounded where they are stored).
  if (f.failedChecks)
    return cappedJsonBody(
      { ...body, failed_checks: f.failedChecks },
      { key: 'failed_checks', totalRows: f.failedChecks.length },
    );
  return cappedJsonBody(body);
}

const HEADLINE: Record<NotifyEventName, string> = {
  failed: ':red_circle: failed',
  partial: ':large_orange_circle: partly failed',
  succeeded: ':large_green_circle: succeeded',
  duration_over: ':hourglass: ran longer than its limit',
  schema_changed: ':jigsaw: schema changed',
  export_failed: ':warning: exports not written',
  check_failed: ':warning: data checks failed',
  did_not_run: ':alarm_clock: did not run at its scheduled time',
  budget_warning: ':money_with_wings: is close to a spend limit',
  budget_exhausted: ':no_entry: reached a spend limit',
  price_drop: ':chart_with_downwards_trend: prices dropped',
  price_rise: ':chart_with_upwards_trend: prices rose',
  back_in_stock: ':package: back in stock',
  out_of_stock: ':no_entry_sign: out of stock',
  new_rows: ':sparkles: new rows',
};

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

/** A Slack incoming-webhook message: `text` is the notification's fallback, `blocks` the formatted body. */
export function slackMessage(f: RunFacts): Record<string, unknown> {
  const title = `Pipeline *${esc(f.pipeline)}* ${HEADLINE[f.event]}`;
  const rows = Object.entries(f.rowsByTable);
  const totals = runRowTotals(f.rowsByTable, f.seenByTable);
  const lines = [
    `status: *${f.status}* · duration ${formatDuration(f.durationMs)} · ${rowsSeenChangedText(totals.changed, totals.seen)}` +
      ` · tokens ${tokensText(f.tokenUsage)}` +
      (keptOutText(f.keptOut) ? ` · ${keptOutText(f.keptOut)}` : ''),
    // The service's text is content: escaped and bounded like every other value an alert repeats.
    ...(f.keptOutSample && f.keptOutSample.length > 0
      ? [`kept out: ${esc(f.keptOutSample.map(keptOutValueText).join(' | '), 600)}`]
      : []),
    ...(rows.length > 0 ? [esc(rows.map(([t, n]) => `${t}=${n}`).join(', '), 400)] : []),
    ...(f.error ? [`error: \`${esc(f.error, 900)}\``] : []),
    ...(f.exportError ? [`export error: \`${esc(f.exportError, 400)}\``] : []),
    ...(f.detail ? [esc(f.detail, 900)] : []),
  ];
  const link = slackLink(f.webUiUrl, f.workflowId);
  return {
    text: `${title}: ${esc(f.status)}${f.error ? ` (${esc(f.error, 200)})` : ''}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `${title}\n${lines.join('\n')}` } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `${esc(f.kind)} · ${link} · ${esc(f.finishedAt)}` }] },
    ],
  };
}
