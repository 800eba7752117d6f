// The bodies of watch events (price_drop, back_in_stock, new_rows, ...): scrape-etl's JSON with the triggering
// rows, and a Slack message listing the top N with links. Pure functions, so tests check them exactly. The rows
// are scraped content: every value passes through alert-content.ts (escaped, links only to http(s), body capped).
import { cappedJsonBody, slackLines, slackLink, slackText as esc } from './alert-content.js';

export interface WatchFacts {
  pipeline: string;
  kind: string;
  workflowId: string;
  runId: string;
  watch: string;
  event: string;
  rowCount: number;
  rows: Array<Record<string, unknown>>;
  top: number;
  idempotencyKey: string;
}

export function watchJsonMessage(f: WatchFacts): Record<string, unknown> {
  return cappedJsonBody(
    {
      source: 'scrape-etl',
      event: f.event,
      watch: f.watch,
      pipeline: f.pipeline,
      kind: f.kind,
      workflow_id: f.workflowId,
      run_id: f.runId,
      row_count: f.rowCount,
      rows: f.rows,
      idempotency_key: f.idempotencyKey,
    },
    { key: 'rows', totalRows: f.rowCount },
  );
}

const HEADLINE: Record<string, string> = {
  price_drop: ':chart_with_downwards_trend: price drops',
  price_rise: ':chart_with_upwards_trend: price rises',
  back_in_stock: ':package: back in stock',
  out_of_stock: ':no_entry_sign: out of stock',
  new_rows: ':sparkles: new rows',
};

function label(r: Record<string, unknown>): string {
  const title = r['title'] ?? r['name'] ?? r['model_name'];
  if (typeof title === 'string' && title !== '') return title;
  const ids = ['shop_id', 'item_id', 'model_id']
    .filter((k) => r[k] !== undefined && r[k] !== null)
    .map((k) => String(r[k]));
  if (ids.length > 0) return ids.join('/');
  return JSON.stringify(r).slice(0, 120);
}

function line(event: string, r: Record<string, unknown>): string {
  const link = slackLink(r['link'], label(r));
  const v = (k: string) => esc(r[k], 40);
  if (event === 'price_drop' || event === 'price_rise') {
    const cur = r['currency'] ? ` ${v('currency')}` : '';
    return `• ${link}: ${v('previous_price_major')} → ${v('price_major')}${cur} (${event === 'price_drop' ? '-' : '+'}${v('change_percent')}%)`;
  }
  if (event === 'back_in_stock' || event === 'out_of_stock') return `• ${link}: stock ${v('stock')}`;
  return `• ${link}`;
}

export function watchSlackMessage(f: WatchFacts): Record<string, unknown> {
  const title = `Pipeline *${esc(f.pipeline)}*: ${HEADLINE[f.event] ?? esc(f.event)} (${f.rowCount}, watch ${esc(f.watch)})`;
  const shown = f.rows.slice(0, f.top);
  // Slack takes 3000 characters in a section: whole lines up to that, then how many more there are.
  const body = slackLines(
    shown.map((r) => line(f.event, r)),
    2900 - title.length - 1,
    f.rowCount - shown.length,
  );
  return {
    text: `${esc(f.pipeline)}: ${f.rowCount} ${esc(f.event.replace(/_/g, ' '))}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `${title}\n${body}` } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `${esc(f.kind)} · ${esc(f.workflowId)}` }] },
    ],
  };
}
