// The bodies of watch events (price_drop, back_in_stock, new_rows, ...): scrape-etl's JSON with the triggering
// rows, and a Slack message listing the top N with links. Pure functions, so tests check them exactly.

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
  return {
    source: 'scrape-etl',
    event: f.event,
    watch: f.watch,
    pipeline: f.pipeline,
    kind: f.kind,
    workflow_id: f.workflowId,
    run_id: f.runId,
    row_count: f.rowCount,
    rows: f.rows,
    rows_truncated: f.rows.length < f.rowCount,
    idempotency_key: f.idempotencyKey,
  };
}

const HEADLINE: Record<string, string> = {
  price_drop: ':chart_with_downwards_trend: price drops',
  price_rise: ':chart_with_upwards_trend: price rises',
  back_in_stock: ':package: back in stock',
  out_of_stock: ':no_entry_sign: out of stock',
  new_rows: ':sparkles: new rows',
};

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function label(r: Record<string, unknown>): string {
  const title = r['title'] ?? r['name'] ?? r['model_name'];
  if (typeof title === 'string' && title !== '') return title.slice(0, 120);
  const ids = ['shop_id', 'item_id', 'model_id'].filter((k) => r[k] !== undefined && r[k] !== null).map((k) => String(r[k]));
  if (ids.length > 0) return ids.join('/');
  return JSON.stringify(r).slice(0, 120);
}

function line(event: string, r: Record<string, unknown>): string {
  const name = esc(label(r));
  const link = typeof r['link'] === 'string' ? `<${r['link']}|${name}>` : name;
  if (event === 'price_drop' || event === 'price_rise') {
    const cur = r['currency'] ? ` ${esc(String(r['currency']))}` : '';
    return `• ${link}: ${String(r['previous_price_major'])} → ${String(r['price_major'])}${cur} (${event === 'price_drop' ? '-' : '+'}${String(r['change_percent'])}%)`;
  }
  if (event === 'back_in_stock' || event === 'out_of_stock') return `• ${link}: stock ${String(r['stock'])}`;
  return `• ${link}`;
}

export function watchSlackMessage(f: WatchFacts): Record<string, unknown> {
  const title = `Pipeline *${esc(f.pipeline)}*: ${HEADLINE[f.event] ?? f.event} (${f.rowCount}, watch ${esc(f.watch)})`;
  const shown = f.rows.slice(0, f.top);
  const more = f.rowCount - shown.length;
  const lines = [...shown.map((r) => line(f.event, r)), ...(more > 0 ? [`and ${more} more`] : [])];
  return {
    text: `${f.pipeline}: ${f.rowCount} ${f.event.replace(/_/g, ' ')}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `${title}\n${lines.join('\n')}`.slice(0, 2900) } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `${esc(f.kind)} · ${esc(f.workflowId)}` }] },
    ],
  };
}
