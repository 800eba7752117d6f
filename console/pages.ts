// The console's pages as HTML, from what the query modules read. The same functions render the live console
// (links between pages) and the report (one file: links become anchors inside it, or plain text).
import { keptOutText, UNKNOWN_TOKENS } from '../lib/run-figures.js';
import { chart, cell, html, link, raw, sparkline, statusBadge, table, type Html } from './html.js';
import type { DataPage } from './data.js';
import type { LeadsPage } from './leads.js';
import type { PriceMove, ProductHistory, ProductRef, StockChange } from './prices.js';
import type { CostPoint, PipelineSummary, RunDetail, RunInfo } from './runs.js';
import type { BudgetRow } from '../budget/status.js';
import type { BudgetPlan } from '../budget/plan.js';
import { forecastBasisText } from '../budget/forecast.js';
import { LINEAGE_COLUMNS } from '../db/model/tables.js';
import { CONTENT_CHILD_DOCS, CONTENT_ROOT_DOCS } from '../db/model/schema/descriptions.js';
import type { CatalogTable } from '../db/model/schema/catalog.js';
import type { NextRun } from './temporal.js';
import { ageText, durationText, intText, timeMs } from './values.js';
import { isMissedFire } from '../db/store/pipeline-runs.js';
import { runStateOf } from '../lib/run-states.js';

export interface Links {
  home(): string | null;
  pipeline(db: number, pipeline: string): string | null;
  run(db: number, workflowId: string): string | null;
  data(db: number, pipeline: string, table?: string, q?: Record<string, string | undefined>): string | null;
  download(
    db: number,
    pipeline: string,
    table: string,
    format: 'csv' | 'parquet',
    q: Record<string, string | undefined>,
  ): string | null;
  raw(db: number, loadId: string): string | null;
  prices(db: number, pipeline: string, product?: { shopId: string; itemId: string }): string | null;
  leads(db: number, pipeline: string, after?: string): string | null;
  cost(): string | null;
  /** The run's page in the Temporal Web UI, when its address is known. */
  temporal(workflowId: string): string | null;
}

export interface PipelineRow {
  db: number;
  dbLabel: string;
  summary: PipelineSummary;
  /** Next time its Temporal Schedule fires; null when it has none; a string saying why when not known. */
  next: NextRun;
}

const MARKETPLACE = 'marketplace';
const LEADS = new Set(['leads-search-engine', 'leads-social']);

function when(iso: string | null): Html {
  return iso
    ? html`<time datetime="${iso}">${iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time>`
    : html`<span class="muted">—</span>`;
}

/** A missed fire's fire time (its scheduled_at): it started nothing and took no time. */
function fireTime(run: RunInfo): string | null {
  return run.scheduledAt ?? run.startedAt;
}

/** Tokens as every surface says them (lib/run-figures.ts): `unknown` when the service reported none, else the number. */
function tokensCell(n: number | null): string {
  return n === null ? UNKNOWN_TOKENS : intText(n);
}

/** A run's tokens; a missed fire ran nothing. */
function runTokens(run: RunInfo): string {
  return isMissedFire(run.status) ? '—' : tokensCell(run.tokens);
}

function runDuration(run: RunInfo): string {
  if (isMissedFire(run.status)) return durationText(null);
  const a = timeMs(run.startedAt);
  const b = timeMs(run.finishedAt);
  return durationText(a !== null && b !== null ? b - a : null);
}

/** When a pipeline's schedule fires next, as Temporal says (console/temporal.ts), or why it is not known. */
function nextRunCell(next: NextRun): Html {
  return 'unknown' in next
    ? html`<span class="muted" title="${next.unknown}">unknown</span>`
    : 'paused' in next
      ? html`<span class="muted">paused</span>`
      : next.at
        ? html`<span class="next-run">${when(next.at)}</span>`
        : html`<span class="muted">not scheduled</span>`;
}

export function pipelinesView(rows: PipelineRow[], links: Links, now: number, problems: string[]): Html {
  const multi = new Set(rows.map((r) => r.db)).size > 1;
  return html`<h1>Pipelines</h1>
    ${problems.map((p) => html`<p class="warn">${p}</p>`)}
    ${rows.length === 0 ? html`<p class="muted">No pipeline has run into this database yet.</p>` : ''}
    ${table(
      [
        'Pipeline',
        ...(multi ? ['Database'] : []),
        'Kind',
        'Last run',
        'Data',
        'Checks',
        'Fresh (last success)',
        'Next scheduled',
        'Rows seen',
        'Rows changed',
        'Tokens',
        'Rows per run',
      ],
      rows.map(({ db, dbLabel, summary: s, next }) => [
        link(links.pipeline(db, s.pipeline), s.pipeline),
        ...(multi ? [dbLabel] : []),
        s.kind,
        link(
          links.run(db, s.lastRun.workflowId),
          isMissedFire(s.lastRun.status) ? html`missed fire ${when(fireTime(s.lastRun))}` : when(s.lastRun.startedAt),
        ),
        statusBadge(s.lastRun.status),
        // A run with no check results has passed nothing: "no checks", never a green pill.
        s.checks && s.checks.passed + s.checks.failed + s.checks.other > 0
          ? html`${s.checks.failed > 0 ? statusBadge('failed') : statusBadge('passed')}
              <span class="muted">${s.checks.passed} passed, ${s.checks.failed} failed</span>`
          : html`<span class="muted no-checks">no checks</span>`,
        s.lastSuccessAt
          ? html`<span title="${s.lastSuccessAt}">${ageText(timeMs(s.lastSuccessAt), now)} ago</span>`
          : html`<span class="bad">never</span>`,
        nextRunCell(next),
        intText(s.lastRun.rowsSeen),
        intText(s.lastRun.rows),
        runTokens(s.lastRun),
        sparkline(
          [...s.recent].reverse().map((r) => r.rows),
          `rows per run, last ${s.recent.length} runs`,
        ),
      ]),
      { cls: 'pipelines', id: 'pipelines' },
    )}`;
}

export function pipelineView(
  db: number,
  s: PipelineSummary,
  runs: RunInfo[],
  links: Links,
  now: number,
  nav: Html,
): Html {
  const ordered = [...runs].reverse();
  return html`<h1>${s.pipeline} <span class="muted">${s.kind}</span></h1>
${nav}
<p>Last run ${statusBadge(s.lastRun.status)} ${when(s.lastRun.startedAt)}; last success ${s.lastSuccessAt ? `${ageText(timeMs(s.lastSuccessAt), now)} ago` : 'never'}.</p>
${chart(
  `rows-per-run-${s.pipeline}`,
  {
    kind: 'bars',
    time: false,
    data: [ordered.map((_, i) => i), ordered.map((r) => r.rows)],
    series: ['rows'],
    yLabel: 'rows',
    xLabels: ordered.map((r) => (r.startedAt ?? '').slice(5, 16).replace('T', ' ')),
  },
  'Rows per run',
)}
<h2>Runs</h2>
${runsTable(db, runs, links)}`;
}

export function pipelineNav(db: number, pipeline: string, kind: string, links: Links): Html {
  const items: Array<[string | null, string]> = [
    [links.pipeline(db, pipeline), 'Runs'],
    [links.data(db, pipeline), 'Data'],
    ...(kind === MARKETPLACE ? [[links.prices(db, pipeline), 'Price history'] as [string | null, string]] : []),
    ...(LEADS.has(kind) ? [[links.leads(db, pipeline), 'Leads'] as [string | null, string]] : []),
  ];
  const shown = items.filter(([href]) => href !== null);
  return shown.length > 1 ? html`<p class="tabs">${shown.map(([href, label]) => link(href, label))}</p>` : raw('');
}

/** What a run kept out of its columns, beside its status badge (lib/run-figures.ts words it). */
function keptOutNote(r: RunInfo): Html {
  const text = keptOutText(r.keptOut);
  return text ? html` <span class="warn kept-out">${text}</span>` : raw('');
}

export function runsTable(db: number, runs: RunInfo[], links: Links): Html {
  return table(
    ['Started', 'Status', 'Rows seen', 'Rows changed', 'Duration', 'Tokens', 'Export', 'Workflow', 'Error'],
    runs.map((r) => [
      isMissedFire(r.status) ? html`missed fire ${when(fireTime(r))}` : when(r.startedAt),
      html`${statusBadge(r.status)}${keptOutNote(r)}`,
      intText(r.rowsSeen),
      intText(r.rows),
      runDuration(r),
      runTokens(r),
      r.exportStatus ?? '—',
      link(links.run(db, r.workflowId), r.workflowId),
      r.error ? cell(r.error, 100) : '',
    ]),
    { cls: 'runs' },
  );
}

/**
 * A schedule's fire with no run: an event with its fire time, why no run started and its alert, never a run's
 * duration, timeline or Temporal link (no workflow exists for it).
 */
function missedFireView(db: number, d: RunDetail, links: Links, nav: Html): Html {
  const r = d.run;
  return html`<h1>Missed fire of ${r.pipeline}</h1>
${nav}
<table class="kv"><tbody>
<tr><th>Pipeline</th><td>${link(links.pipeline(db, r.pipeline), r.pipeline)} <span class="muted">${r.kind}</span></td></tr>
<tr><th>Status</th><td>${statusBadge(r.status)} <span class="muted">the schedule fired and no run started</span></td></tr>
<tr><th>Fire time</th><td class="fire-time">${when(fireTime(r))}</td></tr>
<tr><th>Noticed</th><td>${when(r.finishedAt)} <span class="muted">by scrape-etl up</span></td></tr>
<tr><th>Why</th><td class="why">${r.error ?? html`<span class="muted">not known</span>`}</td></tr>
</tbody></table>
<h2>Timeline</h2>
${table(
  ['Step', 'At', ''],
  d.timeline.map((t) => [t.step, when(t.at), t.note ?? '']),
  { cls: 'timeline' },
)}
<h2>Alerts</h2>
${
  d.alerts.length === 0
    ? html`<p class="muted">No did_not_run alert was delivered.</p>`
    : table(
        ['Event', 'Webhook (hash)', 'HTTP status', 'Delivered at'],
        d.alerts.map((a) => [a['event'], a['target'], a['http_status'], cell(a['sent_at'])]),
        { cls: 'alerts' },
      )
}`;
}

/**
 * The values a run kept out of their columns: stored NULL because they were not what the column holds (a timestamp
 * that is not one). The first few, each with its row's key and the raw response that holds it as the service sent it.
 */
function keptOutSection(db: number, r: RunInfo, links: Links): Html {
  if (!r.keptOut) return raw('');
  const more = r.keptOut - r.keptOutSample.length;
  return html`<h2>Values kept out</h2>
<p class="warn kept-out">${keptOutText(r.keptOut)}: stored NULL, the rest of each row loaded; each raw response keeps the value as sent.</p>
${table(
  ['Table', 'Column', 'Row key', 'Value as sent', 'Raw response'],
  r.keptOutSample.map((v) => [
    v.table,
    v.column,
    Object.entries(v.key)
      .map(([k, x]) => `${k}=${x === null ? 'null' : String(x)}`)
      .join(', '),
    v.value,
    v.rawResponseId === undefined ? '' : link(links.raw(db, String(v.rawResponseId)), String(v.rawResponseId)),
  ]),
  { cls: 'kept-out' },
)}${more > 0 ? html`<p class="muted">and ${intText(more)} more</p>` : ''}`;
}

export function runView(db: number, d: RunDetail, links: Links, nav: Html): Html {
  if (isMissedFire(d.run.status)) return missedFireView(db, d, links, nav);
  const r = d.run;
  const temporal = links.temporal(r.workflowId);
  return html`<h1>Run ${r.workflowId}</h1>
${nav}
<table class="kv"><tbody>
<tr><th>Pipeline</th><td>${link(links.pipeline(db, r.pipeline), r.pipeline)} <span class="muted">${r.kind}</span></td></tr>
<tr><th>Data status</th><td>${statusBadge(runStateOf(r.status))}${r.status === 'partial' && d.failed.count !== null ? html` <span class="warn">${d.failed.count} of ${d.failed.total} URLs failed; the others loaded</span>` : ''}${keptOutNote(r)}</td></tr>
<tr><th>Rows seen</th><td class="rows-seen">${intText(r.rowsSeen)} <span class="muted">fetched, changed or not</span></td></tr>
<tr><th>Rows changed</th><td class="rows-changed">${intText(r.rows)} <span class="muted">inserted or updated</span></td></tr>
<tr><th>Duration</th><td>${runDuration(r)}</td></tr>
<tr><th>Tokens</th><td class="tokens">${runTokens(r)}</td></tr>
<tr><th>Exports</th><td>${r.exportStatus ?? '—'}${r.exportError ? html` <span class="bad">${r.exportError}</span>` : ''}</td></tr>
<tr><th>Temporal</th><td>${temporal ? html`<a href="${temporal}" rel="noreferrer">open in the Temporal Web UI</a>` : html`<span class="muted">Web UI address not known (set TEMPORAL_UI_URL)</span>`}</td></tr>
</tbody></table>
${r.error && r.status !== 'partial' ? html`<h2>Error</h2><pre class="body bad">${r.error}</pre>` : ''}
${keptOutSection(db, r, links)}
<h2>Timeline</h2>
${table(
  ['Step', 'At', ''],
  d.timeline.map((t) => [t.step, when(t.at), t.note ?? '']),
  { cls: 'timeline' },
)}
<h2>Rows per table</h2>
${
  d.tables.length === 0
    ? html`<p class="muted">No rows.</p>`
    : table(
        ['Table', 'Rows', ''],
        d.tables.map((t) => [
          link(links.data(db, r.pipeline, t.table), t.table),
          intText(t.rows),
          t.content ? 'content' : '',
        ]),
        { cls: 'run-tables' },
      )
}
${
  d.failed.listed.length > 0 || r.status === 'partial'
    ? html`<h2>Failed URLs</h2>${table(
        ['URL', 'Reason'],
        d.failed.listed.map((f) => [f.url, f.reason]),
        { cls: 'failed-urls', id: 'failed-urls' },
      )}${d.failed.count !== null && d.failed.count > d.failed.listed.length ? html`<p class="muted">${d.failed.count - d.failed.listed.length} more not listed (the list is cut at 4,000 characters).</p>` : ''}`
    : ''
}
<h2>Tokens</h2>
${
  d.tokensByEndpoint.length === 0
    ? html`<p class="muted">No responses recorded.</p>`
    : table(
        ['Endpoint', 'Responses', 'Tokens'],
        d.tokensByEndpoint.map((t) => [t.endpoint, intText(t.responses), tokensCell(t.tokens)]),
      )
}
<h2>Alerts</h2>
${
  d.alerts.length === 0
    ? html`<p class="muted">No alert was delivered for this run.</p>`
    : table(
        ['Event', 'Webhook (hash)', 'HTTP status', 'Delivered at'],
        d.alerts.map((a) => [a['event'], a['target'], a['http_status'], cell(a['sent_at'])]),
        { cls: 'alerts' },
      )
}
<h2>Schema changes</h2>
${
  d.schemaChanges.length === 0
    ? html`<p class="muted">None.</p>`
    : table(
        ['Table', 'Column', 'Type', 'Change', 'Variant of', 'At'],
        d.schemaChanges.map((c) => [
          c['table_name'],
          c['column_name'],
          c['data_type'],
          c['change'],
          cell(c['variant_of']),
          cell(c['changed_at']),
        ]),
        { cls: 'schema-changes' },
      )
}
<h2>Exported files</h2>
${
  d.exports.length === 0
    ? html`<p class="muted">None recorded for this run (export_watermarks keeps the last file per table).</p>`
    : table(
        ['Table', 'File', 'Rows', 'At'],
        d.exports.map((e) => [
          e['table_name'],
          cell(e['last_file'], 200),
          cell(e['last_rows']),
          cell(e['exported_at']),
        ]),
        { cls: 'exports' },
      )
}
${
  d.checks
    ? html`<h2>Checks</h2>${
        d.checks.rows.length === 0
          ? html`<p class="muted">No checks ran for this run.</p>`
          : table(
              d.checks.columns.map(columnHeader),
              d.checks.rows.map((x) =>
                d.checks!.columns.map((c) => (c === 'status' ? statusBadge(String(x[c])) : cell(x[c]))),
              ),
              { cls: 'checks' },
            )
      }`
    : ''
}`;
}

export function dataIndexView(
  db: number,
  pipeline: string,
  tables: Array<{ table: string; count: number; capped: boolean }>,
  links: Links,
  nav: Html,
): Html {
  return html`<h1>Data of ${pipeline}</h1>${nav}
${table(
  ['Table', 'Rows of this pipeline'],
  tables.map((t) => [link(links.data(db, pipeline, t.table), t.table), `${intText(t.count)}${t.capped ? '+' : ''}`]),
  { cls: 'tables' },
)}`;
}

export function dataTableView(
  db: number,
  pipeline: string,
  page: DataPage,
  q: { sort?: string | undefined; desc?: boolean; after?: string | undefined; limit?: number | undefined },
  links: Links,
  nav: Html,
  docs?: CatalogTable,
): Html {
  const t = page.meta.name;
  const hasLoad = page.meta.columns.some((c) => c.name === 'load_id');
  // The data first: lineage (which pipeline, load and hash a row came with) is read after it, so it comes last.
  const lineage = LINEAGE_COLUMNS as readonly string[];
  const columns = [
    ...page.meta.columns.filter((c) => !lineage.includes(c.name)),
    ...page.meta.columns.filter((c) => lineage.includes(c.name)),
  ];
  const sortLink = (col: string) => {
    const desc = page.sort === col || (page.sort === undefined && col === page.key[0]) ? !page.desc : false;
    return links.data(db, pipeline, t, { sort: col, ...(desc ? { desc: '1' } : {}), ...limitQ });
  };
  const limitQ = q.limit !== undefined ? { limit: String(q.limit) } : {};
  const viewQ = { sort: page.sort, ...(page.desc ? { desc: '1' } : {}) };
  const pageQ = { ...viewQ, ...limitQ };
  const docOf = (name: string) => docs?.columns.find((c) => c.name === name);
  return html`<h1>${t} <span class="muted">of ${pipeline}</span></h1>
    ${nav} ${docs ? html`<p class="table-doc">${tableKindText(docs)}. ${docs.description}</p>` : ''}
    <p>
      ${intText(page.count)}${page.capped ? '+' : ''} rows; sorted by ${page.sort ?? page.key.join(', ')}
      ${page.desc ? 'descending' : 'ascending'}. Download this view:
      ${link(links.download(db, pipeline, t, 'csv', viewQ), 'CSV')} ·
      ${link(links.download(db, pipeline, t, 'parquet', viewQ), 'Parquet')}
    </p>
    <table class="data" id="data-table">
      <thead>
        <tr>
          ${columns.map(
            (c) =>
              html`<th title="${docOf(c.name)?.description ?? ''}">
                <a href="${sortLink(c.name) ?? '#'}" data-column="${c.name}"
                  >${c.name}${page.sort === c.name ? (page.desc ? ' ▼' : ' ▲') : ''}</a
                ><span class="col-type">${c.type}</span>
              </th>`,
          )}${hasLoad ? html`<th>raw</th>` : ''}
        </tr>
      </thead>
      <tbody>
        ${page.rows.map(
          (row) =>
            html`<tr>
              ${columns.map((c) => html`<td>${cell(row[c.name])}</td>`)}${hasLoad ? html`<td>${row['load_id'] === null || row['load_id'] === undefined ? '' : link(links.raw(db, String(row['load_id'])), 'response')}</td>` : ''}
            </tr>`,
        )}
      </tbody>
    </table>
    <p class="pager">
      ${q.after ? link(links.data(db, pipeline, t, pageQ), '« first page') : ''}${page.next ? html`<a data-next href="${links.data(db, pipeline, t, { ...pageQ, after: page.next }) ?? '#'}">next page »</a>` : html`<span class="muted">last page</span>`}
    </p>
    <h2>Columns</h2>
    ${table(
      ['Column', 'Type', 'Kind', 'Key', 'Description'],
      columns.map((c) => {
        const d = docOf(c.name);
        return [
          c.name,
          c.type,
          d ? (d.evolved && !isSystemColumn(docs!, c.name) ? 'inferred' : 'fixed') : '',
          d?.naturalKey ? 'natural key' : d?.lineage ? 'lineage' : '',
          d?.description ?? '',
        ];
      }),
      { cls: 'columns' },
    )}`;
}

/** What kind of table it is, said before its description: the key rows are upserted on included. */
function tableKindText(t: CatalogTable): string {
  const key = t.naturalKey.length > 0 ? `natural key ${t.naturalKey.join(', ')}` : 'no natural key';
  if (t.kind === 'model') return `Model table (fixed columns; ${key})`;
  if (t.kind === 'view') return `View (${key})`;
  return `Inferred table, created by loads from the result content (${key})`;
}

/** An inferred table's own columns (its keys, parent links, lineage: db/model/flatten/content.ts) are fixed; its content's are inferred. */
function isSystemColumn(t: CatalogTable, column: string): boolean {
  return t.kind === 'inferred' && (column in CONTENT_ROOT_DOCS || column in CONTENT_CHILD_DOCS);
}

export function rawView(
  db: number,
  raw: { row: Record<string, unknown>; body: string; bodyChars: number; truncated: boolean },
  bodyHref: string | null,
  links: Links,
): Html {
  const r = raw.row;
  let pretty = raw.body;
  if (!raw.truncated) {
    try {
      pretty = JSON.stringify(JSON.parse(raw.body), null, 2);
    } catch {
      // not JSON (or not whole): shown as stored
    }
  }
  return html`<h1>Raw response ${String(r['id'])}</h1>
<table class="kv"><tbody>${Object.entries(r).map(([k, v]) => html`<tr><th>${k}</th><td>${k === 'workflow_id' && v ? link(links.run(db, String(v)), String(v)) : cell(v, 400)}</td></tr>`)}</tbody></table>
<h2>Body ${raw.truncated ? html`<span class="muted">(first ${intText(raw.body.length)} of ${intText(raw.bodyChars)} characters)</span>` : ''} ${bodyHref ? link(bodyHref, 'whole body as text') : ''}</h2>
<pre class="body" id="raw-body">${pretty}</pre>`;
}

function money(v: number | null, currency: string | null): string {
  return v === null
    ? '—'
    : `${v.toLocaleString('en-US', { maximumFractionDigits: 2 })}${currency ? ` ${currency}` : ''}`;
}

function pct(x: number): string {
  return `${x > 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
}

export function pricesView(
  db: number,
  pipeline: string,
  v: {
    products: ProductRef[];
    history: ProductHistory | undefined;
    moves: { drops: PriceMove[]; rises: PriceMove[] };
    stock: StockChange[];
    lastRun: RunInfo | undefined;
  },
  links: Links,
  nav: Html,
  allCharts = false,
  histories: ProductHistory[] = [],
): Html {
  const moveRows = (ms: PriceMove[]) =>
    ms.map((m) => [
      link(links.prices(db, pipeline, m), m.title ?? `${m.shopId}/${m.itemId}`),
      m.model ?? (m.modelId === null ? 'product' : m.modelId),
      money(m.previousMajor, m.currency),
      money(m.priceMajor, m.currency),
      pct(m.change),
    ]);
  const historyBlock = (h: ProductHistory) =>
    html`${chart(
      `price-${h.product.shopId}-${h.product.itemId}`,
      { kind: 'steps', time: true, data: h.chart, series: h.series.map((s) => s.label), yLabel: h.currency ?? 'price' },
      `${h.product.title ?? `${h.product.shopId}/${h.product.itemId}`} — price${h.currency ? ` in ${h.currency}` : ''}`,
    )}${table(
      ['Series', 'Loaded at', `Price${h.currency ? ` (${h.currency})` : ''}`],
      h.series.flatMap((s) => s.points.map((p) => [s.label, when(p.loadedAt), money(p.priceMajor, null)])),
      { cls: 'price-points' },
    )}`;
  return html`<h1>Price history of ${pipeline}</h1>${nav}
<h2>Since the previous run ${v.lastRun ? html`<span class="muted">(${link(links.run(db, v.lastRun.workflowId), v.lastRun.workflowId)})</span>` : ''}</h2>
<h2>Biggest drops</h2>
${v.moves.drops.length === 0 ? html`<p class="muted">No price dropped in the last run.</p>` : table(['Product', 'Model', 'Before', 'Now', 'Change'], moveRows(v.moves.drops), { cls: 'drops' })}
<h2>Biggest rises</h2>
${v.moves.rises.length === 0 ? html`<p class="muted">No price rose in the last run.</p>` : table(['Product', 'Model', 'Before', 'Now', 'Change'], moveRows(v.moves.rises), { cls: 'rises' })}
<h2>Stock changes</h2>
${
  v.stock.length === 0
    ? html`<p class="muted">No product or model went out of stock or came back in the last run.</p>`
    : table(
        ['Product', 'Model', 'Before', 'Now', 'Change'],
        v.stock.map((s) => [
          s.title ?? s.requestKey,
          s.model ?? s.modelId ?? 'product',
          intText(s.previous),
          intText(s.current),
          html`<span class="${s.change === 'out of stock' ? 'bad' : ''}">${s.change}</span>`,
        ]),
        { cls: 'stock-changes' },
      )
}
<h2>Products</h2>
${
  allCharts
    ? histories.map(historyBlock)
    : html`${table(
        ['Product', 'Currency'],
        v.products.map((p) => [
          link(links.prices(db, pipeline, p), p.title ?? `${p.shopId}/${p.itemId}`),
          p.currency ?? '',
        ]),
        { cls: 'products' },
      )}${v.history ? historyBlock(v.history) : ''}`
}`;
}

export function leadsView(
  db: number,
  pipeline: string,
  l: LeadsPage,
  after: string | undefined,
  links: Links,
  nav: Html,
): Html {
  const childCell = (rows: Array<Record<string, unknown>> | undefined, fields: string[]) =>
    rows && rows.length > 0
      ? html`<ul class="children">${rows.map(
          (x) =>
            html`<li>${fields
              .map((f) => x[f])
              .filter((v) => v !== null && v !== undefined)
              .map(String)
              .join(' · ')}</li>`,
        )}</ul>`
      : html`<span class="muted">—</span>`;
  return html`<h1>Leads of ${pipeline}</h1>${nav}
${chart(
  `leads-per-run-${pipeline}`,
  {
    kind: 'bars',
    time: false,
    data: [l.perRun.map((_, i) => i), l.perRun.map((x) => x.leads)],
    series: ['leads added or changed'],
    yLabel: 'leads',
    xLabels: l.perRun.map((x) => (x.startedAt ?? '').slice(5, 16).replace('T', ' ')),
  },
  'New or changed leads per run',
)}
<p>${intText(l.page.count)}${l.page.capped ? '+' : ''} leads in ${link(links.data(db, pipeline, l.table), l.table)}${l.children.length > 0 ? html` with ${l.children.map((c) => c.table).join(', ')}` : ''}.</p>
<table class="data leads" id="leads-table"><thead><tr>${l.fields.map((f) => html`<th>${f}</th>`)}${l.children.map((c) => html`<th>${c.label}</th>`)}<th>raw</th></tr></thead><tbody>${l.page.rows.map(
    (row) =>
      html`<tr data-row-key="${String(row['row_key'] ?? '')}">${l.fields.map((f) => html`<td>${cell(row[f])}</td>`)}${l.children.map((c) => html`<td>${childCell(c.byParent.get(String(row['row_key'])), c.fields)}</td>`)}<td>${row['load_id'] === null || row['load_id'] === undefined ? '' : link(links.raw(db, String(row['load_id'])), 'response')}</td></tr>`,
  )}</tbody></table>
<p class="pager">${after ? link(links.leads(db, pipeline), '« first page') : ''}${l.page.next ? link(links.leads(db, pipeline, l.page.next), 'next page »') : ''}</p>`;
}

/** Headers a person reads for the bookkeeping columns the console shows (a data table keeps its own names). */
const COLUMN_HEADERS: Record<string, string> = {
  check_name: 'Check',
  check_type: 'Type',
  severity: 'Severity',
  status: 'Status',
  observed: 'Observed',
  threshold: 'Threshold',
  message: 'Message',
  checked_at: 'Checked at',
};

function columnHeader(name: string): string {
  return COLUMN_HEADERS[name] ?? name.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
}

/** Each budget limit against its current period's spend (budget/status.ts): the owner's brake, before the history. */
function budgetsSection(rows: readonly BudgetRow[]): Html {
  if (rows.length === 0) return html``;
  const unit = (r: BudgetRow) => (r.limit.resource === 'calls' ? 'service calls' : r.limit.resource);
  return html`<h2>Budgets</h2>
    <p class="muted">
      Spend against each limit of the pipelines' and projects' budget sections in its current period (UTC days and
      months). A run that would pass a limit is refused before any call; a run reaching one stops starting calls.
    </p>
    ${table(
      ['Pipeline', 'Budget', 'Period', 'Spent', 'Limit', 'Used'],
      rows.map((r) => [
        r.pipeline,
        `${r.limit.scope === 'project' ? 'project ' : ''}${unit(r)} per ${r.limit.period}`,
        r.period,
        intText(r.spent),
        intText(r.limit.limit),
        `${r.limit.limit > 0 ? Math.round((r.spent / r.limit.limit) * 100) : 100}%${r.level === 'ok' ? '' : ` (${r.level})`}`,
      ]),
      { cls: 'cost-budgets' },
    )}`;
}

/** A budgeted pipeline's next run: when its schedule fires, and what that run's forecast is against its limits. */
export interface NextRunForecast {
  pipeline: string;
  next: NextRun;
  plan: BudgetPlan;
}

/**
 * The forecast of each budgeted pipeline's next run (budget/plan.ts, the one plan `run --plan` prints and the worker
 * holds a scheduled run to), beside the budgets: whether that run would be refused, and by which limit.
 */
function forecastSection(rows: readonly NextRunForecast[]): Html {
  if (rows.length === 0) return html``;
  return html`<h2>Next runs against the budgets</h2>
    <p class="muted">
      The forecast of each pipeline's next run from its own history (its last runs' calls and tokens per URL or per
      create-and-run; without history one call each, tokens unknown), against what each limit has spent in its period. A
      scheduled run whose forecast exceeds a limit is refused before its first call.
    </p>
    ${table(
      ['Pipeline', 'Next run', 'Service calls', 'Scrapers', 'Tokens', 'Forecast from', 'Budget'],
      rows.map((r) => {
        const f = r.plan.forecast;
        return [
          r.pipeline,
          nextRunCell(r.next),
          intText(f.calls),
          intText(f.scrapers),
          f.tokens === null ? 'unknown' : intText(f.tokens),
          forecastBasisText(f, 'calls'),
          r.plan.refusal
            ? html`<span class="bad" title="${r.plan.refusal}">refused by ${r.plan.refusedBy ?? 'a limit'}</span>`
            : 'within every limit',
        ];
      }),
      { cls: 'cost-forecast' },
    )}`;
}

export function costView(
  points: Array<CostPoint & { db: number }>,
  links: Links,
  budgets: readonly BudgetRow[] = [],
  forecasts: readonly NextRunForecast[] = [],
): Html {
  const pipelines = [...new Set(points.map((p) => p.pipeline))].sort();
  // One bar series per pipeline over the runs in time order: a run's tokens in its pipeline's series.
  const data: Array<Array<number | null>> = [
    points.map((_, i) => i),
    ...pipelines.map((name) => points.map((p) => (p.pipeline === name ? p.tokens : null))),
  ];
  const byDay = new Map<string, Map<string, number>>();
  for (const p of points) {
    const day = (p.startedAt ?? '').slice(0, 10);
    const m = byDay.get(day) ?? new Map<string, number>();
    m.set(p.pipeline, (m.get(p.pipeline) ?? 0) + p.tokens);
    byDay.set(day, m);
  }
  const days = [...byDay.keys()].sort().reverse();
  if (points.length === 0) {
    return html`<h1>Cost</h1>
      ${budgetsSection(budgets)} ${forecastSection(forecasts)}
      <p class="no-spend">
        No spend recorded yet: no run has reported service tokens. Each run's tokens show here once the scraping service
        reports them.
      </p>`;
  }
  return html`<h1>Cost</h1>
    ${budgetsSection(budgets)} ${forecastSection(forecasts)}
    <p class="muted">
      Service tokens per run: the sum of the tokens the scraping service reported for the run's responses. Runs whose
      responses reported none are left out.
    </p>
    ${chart('tokens-per-run', { kind: 'bars', time: false, data, series: pipelines, yLabel: 'tokens', xLabels: points.map((p) => (p.startedAt ?? '').slice(5, 16).replace('T', ' ')) }, 'Tokens per run')}
    <h2>Tokens per pipeline and day</h2>
    ${table(
      ['Day', ...pipelines, 'Total'],
      days.map((d) => [
        d,
        ...pipelines.map((p) => intText(byDay.get(d)!.get(p) ?? 0)),
        intText([...byDay.get(d)!.values()].reduce((a, b) => a + b, 0)),
      ]),
      { cls: 'cost-days' },
    )}
    <h2>Runs</h2>
    ${table(
      ['Started', 'Pipeline', 'Run', 'Tokens'],
      [...points]
        .reverse()
        .map((p) => [
          when(p.startedAt),
          p.pipeline,
          link(links.run(p.db, p.workflowId), p.workflowId),
          intText(p.tokens),
        ]),
      { cls: 'cost-runs' },
    )}`;
}
