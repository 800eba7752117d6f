// HTML building blocks. Everything that comes from a database (titles, URLs, error texts, raw bodies, table and
// column names) is hostile until escaped: `esc` for text and attributes, `jsonForScript` for data handed to the
// page's scripts inside <script type="application/json">.

export type Html = { readonly __html: string };

export function raw(s: string): Html {
  return { __html: s };
}

export function esc(v: unknown): string {
  return String(v ?? '').replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Tagged template: interpolated values are escaped unless they are Html (or arrays of Html). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return raw(out);
}

function render(v: unknown): string {
  if (v === null || v === undefined || v === false) return '';
  if (Array.isArray(v)) return v.map(render).join('');
  if (typeof v === 'object' && '__html' in (v as object)) return (v as Html).__html;
  return esc(v);
}

/** JSON inside a <script> element: `<`, U+2028 and U+2029 escaped so no text can close the element or break JS. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x))
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export interface ChartSpec {
  /** `steps`: a value that holds until the next observation (a price), drawn as a step, never a slope. */
  kind: 'line' | 'bars' | 'steps';
  /** x values (seconds since the epoch for time axes, else 0..n-1), then one array per series. */
  data: Array<Array<number | null>>;
  series: string[];
  yLabel: string;
  /** Labels of categorical x values (bars per run), shown instead of numbers. */
  xLabels?: string[];
  time: boolean;
}

let chartCounter = 0;

/** A chart drawn by uPlot in the browser from data embedded in the page (read back by the tests as plotted). */
export function chart(id: string, spec: ChartSpec, title: string): Html {
  // One x value (one run, one observation) makes no chart, only a lone bar or dot: its value is said plainly.
  if ((spec.data[0]?.length ?? 0) === 1) {
    const label =
      spec.xLabels?.[0] ??
      (spec.time ? new Date((spec.data[0]![0] ?? 0) * 1000).toISOString().replace('T', ' ').slice(0, 19) + 'Z' : '');
    const values = spec.series.map((name, i) => ({ name, v: spec.data[i + 1]?.[0] }));
    return html`<figure class="chart single-value" data-chart-name="${id}"><figcaption>${title}</figcaption><p>${values
      .filter((x) => x.v !== null && x.v !== undefined)
      .map(
        (x, i) =>
          html`${i > 0 ? '; ' : ''}${spec.series.length > 1 ? `${x.name}: ` : ''}<strong>${Number(x.v).toLocaleString('en-US')}</strong> ${spec.yLabel}`,
      )}${label ? html` <span class="muted">(${label}; one ${spec.time ? 'observation' : 'run'} so far)</span>` : ''}</p></figure>`;
  }
  const elId = `chart-${id.replace(/[^a-zA-Z0-9_-]/g, '_')}-${++chartCounter}`;
  return html`<figure class="chart"><figcaption>${title}</figcaption><div class="chart-box" data-chart="${elId}" data-chart-name="${id}"></div><script type="application/json" id="${elId}">${raw(jsonForScript(spec))}</script></figure>`;
}

/** A small inline SVG line of values (no script needed): rows per run on the pipelines list. */
export function sparkline(values: Array<number | null>, title: string): Html {
  const vs = values.map((v) => v ?? 0);
  if (vs.length === 0) return raw('');
  const w = 120;
  const h = 24;
  const max = Math.max(1, ...vs);
  const step = vs.length > 1 ? w / (vs.length - 1) : 0;
  const pts = vs.map((v, i) => `${(i * step).toFixed(1)},${(h - 2 - (v / max) * (h - 4)).toFixed(1)}`).join(' ');
  return html`<svg class="spark" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" aria-label="${title}" data-values="${vs.join(',')}"><title>${title}</title><polyline fill="none" stroke="currentColor" stroke-width="1.5" points="${pts}"/></svg>`;
}

export function statusBadge(status: string | null | undefined): Html {
  const s = status ?? 'unknown';
  return html`<span class="status status-${s.replace(/[^a-z_]/g, '')}" data-status="${s}">${s}</span>`;
}

export function table(
  head: Array<string | Html>,
  rows: Array<Array<unknown>>,
  attrs: { cls?: string; id?: string } = {},
): Html {
  return html`<table${attrs.cls ? raw(` class="${esc(attrs.cls)}"`) : ''}${attrs.id ? raw(` id="${esc(attrs.id)}"`) : ''}><thead><tr>${head.map((h) => html`<th>${h}</th>`)}</tr></thead><tbody>${rows.map(
    (r) => html`<tr>${r.map((c) => html`<td>${c}</td>`)}</tr>`,
  )}</tbody></table>`;
}

export function link(href: string | null | undefined, body: unknown): Html {
  return href ? html`<a href="${href}">${body}</a>` : html`${body}`;
}

/** A cell's text for a table of data: long values cut, the whole value in the title. */
export function cell(v: unknown, max = 120): Html {
  if (v === null || v === undefined) return raw('<span class="null">NULL</span>');
  const s =
    typeof v === 'bigint'
      ? v.toString()
      : v instanceof Date
        ? v.toISOString()
        : typeof v === 'object'
          ? JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x))
          : String(v);
  return s.length > max ? html`<span title="${s.slice(0, 2000)}">${s.slice(0, max)}…</span>` : html`${s}`;
}

export const STYLE = `
:root{--fg:#1d2330;--muted:#667085;--line:#e4e7ec;--bg:#fff;--accent:#2e5bff;--ok:#067647;--warn:#b54708;--bad:#b42318}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header.top{display:flex;gap:18px;align-items:center;padding:10px 20px;border-bottom:1px solid var(--line);background:#f8f9fc}
header.top .brand{font-weight:700}header.top a{color:var(--fg);text-decoration:none}header.top a:hover{color:var(--accent)}
main{padding:16px 20px;max-width:1400px}h1{font-size:20px;margin:4px 0 12px}h2{font-size:16px;margin:22px 0 8px}
table{border-collapse:collapse;width:100%;margin:6px 0 12px}th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600;color:var(--muted);white-space:nowrap;font-size:12px;text-transform:none}td{font-variant-numeric:tabular-nums}
.data td{max-width:360px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}.null{color:#98a2b3;font-style:italic}
.status{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;background:#eef2f6}
.status-succeeded,.status-passed{background:#dcfae6;color:var(--ok)}.status-partial,.status-running{background:#fef0c7;color:var(--warn)}
.status-failed,.status-cancelled{background:#fee4e2;color:var(--bad)}.muted{color:var(--muted)}.spark{color:var(--accent);vertical-align:middle}
.chart{margin:8px 0 16px}.chart figcaption{font-weight:600;margin-bottom:4px}.chart-box{min-height:260px}
.tabs a{margin-right:14px}.warn{color:var(--warn)}.bad{color:var(--bad)}code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
pre.body{background:#f8f9fc;border:1px solid var(--line);padding:10px;overflow:auto;max-height:70vh;white-space:pre-wrap;word-break:break-all}
.kv th{width:180px}.pager a{margin-right:12px}.col-type{display:block;font-weight:400;color:#98a2b3;font-size:11px}
section.run{border-top:2px solid var(--line);margin-top:24px}
`;
