// `scrape-etl console`: a local web app over one or more destination databases, read-only. Hono routes the
// requests (a small router with a Node adapter; no template engine: pages are server-rendered strings from
// pages.ts, with a little client code for the charts). Only GET and HEAD are answered: nothing here starts,
// signals or changes a workflow, and every database is opened read-only (source.ts).
//
// Exposure: it listens on 127.0.0.1 unless told otherwise. Any other address needs --host and an access token,
// which the printed URL carries once; the browser keeps it in an HttpOnly cookie. Every response carries a
// Content-Security-Policy that allows nothing but this origin, and is refused unless its Host header names the
// console's own address (host-check.ts): a web page whose name an attacker re-points at 127.0.0.1 (DNS rebinding)
// is the same origin as the console to the browser, so only the Host header tells the two apart.
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Env, Settings } from '../settings/settings.js';
import { hostChecker } from './host-check.js';
import { Hono, type Context } from 'hono';
import { serve, type ServerType } from '@hono/node-server';
import { STYLE, html, type Html } from './html.js';
import { consolePage, loadAssets } from './layout.js';
import {
  costView,
  dataIndexView,
  dataTableView,
  leadsView,
  pipelineNav,
  pipelinesView,
  pipelineView,
  pricesView,
  rawView,
  runView,
  type Links,
  type NextRunForecast,
  type PipelineRow,
} from './pages.js';
import { openReadOnly, type ReadOnlySource } from './source.js';
import { temporalView, type TemporalView } from './temporal.js';
import { COUNT_CAP, dataPage, rawResponse, ViewError } from './data.js';
import { tableDocs, tableExists, tablesOfPipeline } from './catalog.js';
import { costOfRuns, pipelineNames, pipelineSummary, runDetail, runsOfPipeline } from './runs.js';
import { movesOfRun, productHistory, productsOf, stockChangesOfRun } from './prices.js';
import { leadsPage } from './leads.js';
import { quoteIdent } from '../db/store/sql.js';
import { num } from './values.js';
import type { BudgetedSpec } from '../budget/limits.js';
import { budgetRows, type BudgetRow } from '../budget/status.js';
import { planBudget, type PlannedRun } from '../budget/plan.js';

export interface ConsoleDatabase {
  url: string;
  /** Only these pipelines (from pipeline files); all pipelines of the database when absent. */
  pipelines?: string[];
  /** The budgets of those pipelines (their files' and their projects' budget: sections), for the Cost page. */
  budgets?: BudgetedPipeline[];
}

/** A pipeline's budgets, and what the forecast of its next run needs (from its file). */
export interface BudgetedPipeline extends BudgetedSpec {
  run?: PlannedRun;
}

export interface ConsoleOptions {
  databases: ConsoleDatabase[];
  /** 0 or absent: a free port. */
  port?: number;
  /** Default 127.0.0.1. Another address requires `token` (generated when absent). */
  host?: string;
  token?: string;
  /** Ask a running Temporal for schedules (default true). */
  temporal?: boolean;
  temporalUiUrl?: string;
  /** The settings Temporal's are taken from (TEMPORAL_ADDRESS, SCRAPE_ETL_DATA_DIR, ...); default this process's. */
  settings?: Settings;
  /** An environment to read them from instead (tests). */
  temporalEnv?: Env;
  /** More names the Host header may carry (any port), e.g. a reverse proxy's; host-check.ts lists the others. */
  allowHosts?: readonly string[];
  /** Where the details of a failed page go, with the id the page shows; default stderr. */
  logError?: (line: string) => void;
}

export interface RunningConsole {
  /** The URL to open (with the access token when one is required). */
  url: string;
  host: string;
  port: number;
  /** The access token when the console listens beyond loopback. */
  token: string | undefined;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);
const RAW_BODY_CHARS = 256 * 1024;
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host);
}

export function makeLinks(temporal: Pick<TemporalView, 'workflowUrl'>): Links {
  const q = (params: Record<string, string | undefined> | undefined) => {
    const entries = Object.entries(params ?? {}).filter(
      (e): e is [string, string] => e[1] !== undefined && e[1] !== '',
    );
    return entries.length === 0 ? '' : `?${new URLSearchParams(entries).toString()}`;
  };
  const p = (db: number, pipeline: string) => `/db/${db}/p/${encodeURIComponent(pipeline)}`;
  return {
    home: () => '/',
    pipeline: (db, pipeline) => p(db, pipeline),
    run: (db, wf) => `/db/${db}/run/${encodeURIComponent(wf)}`,
    data: (db, pipeline, table, params) =>
      `${p(db, pipeline)}/data${table ? `/${encodeURIComponent(table)}` : ''}${q(params)}`,
    download: (db, pipeline, table, format, params) =>
      `${p(db, pipeline)}/data/${encodeURIComponent(table)}/download.${format}${q(params)}`,
    raw: (db, id) => `/db/${db}/raw/${encodeURIComponent(id)}`,
    prices: (db, pipeline, product) =>
      `${p(db, pipeline)}/prices${product ? q({ item: `${product.shopId}:${product.itemId}` }) : ''}`,
    leads: (db, pipeline, after) => `${p(db, pipeline)}/leads${q({ after })}`,
    cost: () => '/cost',
    temporal: (wf) => temporal.workflowUrl(wf),
  };
}

class NotFound extends Error {}

export async function startConsole(opts: ConsoleOptions): Promise<RunningConsole> {
  if (opts.databases.length === 0)
    throw new Error('console: no database to show (pass --database URL or pipeline files)');
  const host = opts.host ?? '127.0.0.1';
  const token = isLoopback(host) ? undefined : (opts.token ?? crypto.randomBytes(18).toString('base64url'));
  const sources: ReadOnlySource[] = [];
  try {
    for (const d of opts.databases) sources.push(await openReadOnly(d.url));
  } catch (err) {
    await Promise.all(sources.map((s) => s.close().catch(() => {})));
    throw err;
  }
  const temporal = await temporalView({
    enabled: opts.temporal !== false,
    uiUrl: opts.temporalUiUrl,
    settings: opts.settings,
    env: opts.temporalEnv,
  });
  const links = makeLinks(temporal);
  const assets = loadAssets();
  const app = new Hono();

  const cookieName = 'scrape_etl_console';
  // On every answer, refusals and error pages included: this middleware runs first and sets them last.
  app.use('*', async (c, next) => {
    await next();
    c.header('Content-Security-Policy', CSP);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('X-Frame-Options', 'DENY');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Cache-Control', 'no-store');
  });
  // Set once the server listens (the port is known then); no request arrives before.
  let hostAllowed: (host: string | undefined) => boolean = () => false;
  let ownUrl = '';
  app.use('*', async (c, next) => {
    if (!hostAllowed(c.req.header('host'))) {
      return c.text(
        `this console answers only at its own address (open ${ownUrl}); the request named another host\n`,
        421,
      );
    }
    await next();
  });
  app.use('*', async (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      return c.text('the console is read-only: only GET and HEAD are answered\n', 405, { Allow: 'GET, HEAD' });
    }
    if (token !== undefined) {
      const given = c.req.query('token');
      const cookie = /(?:^|;\s*)scrape_etl_console=([^;]+)/.exec(c.req.header('cookie') ?? '')?.[1];
      const ok = (v: string | undefined) =>
        v !== undefined && v.length === token.length && crypto.timingSafeEqual(Buffer.from(v), Buffer.from(token));
      if (ok(given)) {
        // Moved into a cookie so the token does not stay in the address bar, the history or Referer headers.
        const url = new URL(c.req.url);
        url.searchParams.delete('token');
        c.header('Set-Cookie', `${cookieName}=${token}; HttpOnly; SameSite=Strict; Path=/`);
        return c.redirect(`${url.pathname}${url.search}`, 303);
      }
      if (!ok(cookie)) return c.text('this console needs its access token: open the URL it printed (…?token=…)\n', 401);
    }
    await next();
  });

  app.get('/assets/uplot.js', (c) => c.body(assets.uplotJs, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));
  app.get('/assets/console.js', (c) =>
    c.body(assets.consoleJs, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }),
  );
  app.get('/assets/uplot.css', (c) => c.body(assets.uplotCss, 200, { 'Content-Type': 'text/css; charset=utf-8' }));
  app.get('/assets/console.css', (c) => c.body(STYLE, 200, { 'Content-Type': 'text/css; charset=utf-8' }));

  const nav = [
    { href: '/', label: 'Pipelines' },
    { href: '/cost', label: 'Cost' },
  ];
  const footer = `${sources.map((s) => s.url).join(' · ')} · opened read-only`;
  const page = (c: Context, title: string, body: Html, status: 200 | 404 | 400 = 200) =>
    c.html(consolePage(title, body, nav, footer), status);

  const sourceOf = (c: Context): { db: number; source: ReadOnlySource; allowed: (p: string) => boolean } => {
    const db = Number(c.req.param('db'));
    const source = Number.isInteger(db) ? sources[db] : undefined;
    if (!source) throw new NotFound(`no database ${c.req.param('db')}`);
    const only = opts.databases[db]!.pipelines;
    return { db, source, allowed: (p) => !only || only.includes(p) };
  };
  const pipelineOf = (c: Context) => {
    const s = sourceOf(c);
    const pipeline = c.req.param('pipeline') ?? '';
    if (!s.allowed(pipeline)) throw new NotFound(`pipeline '${pipeline}' is not shown by this console`);
    return { ...s, pipeline };
  };
  const summaryOrNotFound = async (source: ReadOnlySource, pipeline: string) => {
    const s = await source.read((r) => pipelineSummary(r, pipeline));
    if (!s) throw new NotFound(`no run of pipeline '${pipeline}' in ${source.url}`);
    return s;
  };

  app.get('/', async (c) => {
    const rows: PipelineRow[] = [];
    const problems: string[] = [];
    for (const [db, source] of sources.entries()) {
      const only = opts.databases[db]!.pipelines;
      const names = await source.read((r) => pipelineNames(r));
      for (const p of only ?? [])
        if (!names.includes(p)) problems.push(`pipeline '${p}' has no run in ${source.url} yet`);
      const shown = names.filter((n) => !only || only.includes(n));
      const summaries = await source.read(async (r) => {
        const out = [];
        for (const n of shown) {
          const s = await pipelineSummary(r, n);
          if (s) out.push(s);
        }
        return out;
      });
      const next = await temporal.nextRuns(
        summaries.map((s) => s.pipeline),
        opts.databases[db]!.url,
      );
      for (const s of summaries)
        rows.push({ db, dbLabel: source.url, summary: s, next: next.get(s.pipeline) ?? { unknown: 'not asked' } });
    }
    return page(c, 'Pipelines', pipelinesView(rows, links, Date.now(), problems));
  });

  app.get('/cost', async (c) => {
    const points = [];
    const budgets: BudgetRow[] = [];
    const forecasts: NextRunForecast[] = [];
    for (const [db, source] of sources.entries()) {
      const only = opts.databases[db]!.pipelines;
      const pts = await source.read((r) => costOfRuns(r, { limit: 200 }));
      points.push(...pts.filter((p) => !only || only.includes(p.pipeline)).map((p) => ({ ...p, db })));
      const specs = opts.databases[db]!.budgets ?? [];
      if (specs.length === 0) continue;
      const planned = specs.filter((s): s is BudgetedPipeline & { run: PlannedRun } => s.run !== undefined);
      const next = await temporal.nextRuns(
        planned.map((s) => s.name),
        opts.databases[db]!.url,
      );
      await source.read(async (r) => {
        // A destination from before spend was recorded has none: no history, nothing spent.
        const spend = (await tableExists(r, 'spend_calls')) ? r : undefined;
        if (spend) budgets.push(...(await budgetRows(spend, specs)));
        for (const s of planned)
          forecasts.push({
            pipeline: s.name,
            next: next.get(s.name) ?? { unknown: 'not asked' },
            plan: await planBudget(spend, s, s.run),
          });
      });
    }
    points.sort((a, b) => (a.startedAt ?? '').localeCompare(b.startedAt ?? ''));
    return page(c, 'Cost', costView(points, links, budgets, forecasts));
  });

  app.get('/db/:db/p/:pipeline', async (c) => {
    const { db, source, pipeline } = pipelineOf(c);
    const s = await summaryOrNotFound(source, pipeline);
    const runs = await source.read((r) => runsOfPipeline(r, pipeline, { limit: 100 }));
    return page(c, pipeline, pipelineView(db, s, runs, links, Date.now(), pipelineNav(db, pipeline, s.kind, links)));
  });

  app.get('/db/:db/run/:wf', async (c) => {
    const { db, source, allowed } = sourceOf(c);
    const wf = c.req.param('wf');
    const d = await source.read((r) => runDetail(r, wf));
    if (!d || !allowed(d.run.pipeline)) throw new NotFound(`no run '${wf}' in ${source.url}`);
    return page(c, `Run ${wf}`, runView(db, d, links, pipelineNav(db, d.run.pipeline, d.run.kind, links)));
  });

  app.get('/db/:db/p/:pipeline/data', async (c) => {
    const { db, source, pipeline } = pipelineOf(c);
    const s = await summaryOrNotFound(source, pipeline);
    const tables = await source.read(async (r) => {
      const out = [];
      for (const t of await tablesOfPipeline(r, pipeline)) {
        const [x] = await r.all(
          `SELECT count(*) AS n FROM (SELECT 1 AS one FROM ${quoteIdent(t)} WHERE pipeline = ${r.ph(1)} LIMIT ${COUNT_CAP + 1}) capped`,
          [pipeline],
        );
        const n = num(x?.['n']) ?? 0;
        out.push({ table: t, count: Math.min(n, COUNT_CAP), capped: n > COUNT_CAP });
      }
      return out;
    });
    return page(
      c,
      `Data of ${pipeline}`,
      dataIndexView(db, pipeline, tables, links, pipelineNav(db, pipeline, s.kind, links)),
    );
  });

  const viewOf = (c: Context, pipeline: string) => ({
    table: c.req.param('table') ?? '',
    pipeline,
    sort: c.req.query('sort') || undefined,
    desc: c.req.query('desc') === '1',
    after: c.req.query('after') || undefined,
    limit: c.req.query('limit') ? Number(c.req.query('limit')) : undefined,
  });

  app.get('/db/:db/p/:pipeline/data/:table', async (c) => {
    const { db, source, pipeline } = pipelineOf(c);
    const v = viewOf(c, pipeline);
    const [s, p, docs] = await source.read(
      async (r) =>
        [await pipelineSummary(r, pipeline), await dataPage(r, v), await tableDocs(r, pipeline, v.table)] as const,
    );
    return page(
      c,
      `${v.table} of ${pipeline}`,
      dataTableView(db, pipeline, p, v, links, s ? pipelineNav(db, pipeline, s.kind, links) : html``, docs),
    );
  });

  for (const format of ['csv', 'parquet'] as const) {
    app.get(`/db/:db/p/:pipeline/data/:table/download.${format}`, async (c) => {
      const { source, pipeline } = pipelineOf(c);
      const { after: _after, limit: _limit, ...v } = viewOf(c, pipeline);
      const { downloadView } = await import('./download.js');
      const d = await downloadView(source, v, format);
      return c.body(d.stream, 200, {
        'Content-Type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/vnd.apache.parquet',
        'Content-Length': String(d.bytes),
        'Content-Disposition': `attachment; filename="${d.fileName}"`,
      });
    });
  }

  app.get('/db/:db/raw/:id', async (c) => {
    const { db, source, allowed } = sourceOf(c);
    const id = Number(c.req.param('id'));
    if (!Number.isSafeInteger(id)) throw new ViewError(`'${c.req.param('id')}' is not a load id`);
    const raw = await source.read((r) => rawResponse(r, id, RAW_BODY_CHARS));
    if (!raw || !allowed(String(raw.row['pipeline']))) throw new NotFound(`no raw response ${id}`);
    return page(c, `Raw response ${id}`, rawView(db, raw, `/db/${db}/raw/${id}/body`, links));
  });

  app.get('/db/:db/raw/:id/body', async (c) => {
    const { source, allowed } = sourceOf(c);
    const id = Number(c.req.param('id'));
    if (!Number.isSafeInteger(id)) throw new ViewError(`'${c.req.param('id')}' is not a load id`);
    const raw = await source.read((r) => rawResponse(r, id, 512 * 1024 * 1024));
    if (!raw || !allowed(String(raw.row['pipeline']))) throw new NotFound(`no raw response ${id}`);
    // text/plain with nosniff: a body holding HTML or script is shown as text, never run.
    return c.body(raw.body, 200, { 'Content-Type': 'text/plain; charset=utf-8' });
  });

  app.get('/db/:db/p/:pipeline/prices', async (c) => {
    const { db, source, pipeline } = pipelineOf(c);
    const s = await summaryOrNotFound(source, pipeline);
    const item = c.req.query('item');
    const v = await source.read(async (r) => {
      const products = await productsOf(r, pipeline);
      const pick = item ? item.split(':') : products[0] ? [products[0].shopId, products[0].itemId] : undefined;
      const history = pick && pick.length === 2 ? await productHistory(r, pipeline, pick[0]!, pick[1]!) : undefined;
      return {
        products,
        history,
        moves: await movesOfRun(r, pipeline, s.lastRun.workflowId),
        stock: await stockChangesOfRun(r, pipeline, s.lastRun.workflowId),
        lastRun: s.lastRun,
      };
    });
    if (item && !v.history) throw new NotFound(`no product '${item}' in pipeline '${pipeline}'`);
    return page(
      c,
      `Prices of ${pipeline}`,
      pricesView(db, pipeline, v, links, pipelineNav(db, pipeline, s.kind, links)),
    );
  });

  app.get('/db/:db/p/:pipeline/leads', async (c) => {
    const { db, source, pipeline } = pipelineOf(c);
    const s = await summaryOrNotFound(source, pipeline);
    const after = c.req.query('after') || undefined;
    const l = await source.read((r) => leadsPage(r, pipeline, { after }));
    if (!l) throw new NotFound(`pipeline '${pipeline}' has no leads table`);
    return page(
      c,
      `Leads of ${pipeline}`,
      leadsView(db, pipeline, l, after, links, pipelineNav(db, pipeline, s.kind, links)),
    );
  });

  app.notFound((c) => page(c, 'Not found', html`<h1>Not found</h1><p>${c.req.path}</p>`, 404));
  app.onError((err, c) => {
    if (err instanceof NotFound) return page(c, 'Not found', html`<h1>Not found</h1><p>${err.message}</p>`, 404);
    if (err instanceof ViewError) return page(c, 'Bad request', html`<h1>Bad request</h1><p>${err.message}</p>`, 400);
    // The page says that it failed and under which id; what failed (messages, stacks, paths) is for the owner's
    // terminal only, as the page may be read by whoever can reach the console.
    const id = crypto.randomBytes(6).toString('hex');
    (opts.logError ?? ((l: string) => process.stderr.write(`${l}\n`)))(
      `console: error ${id}: ${c.req.method} ${c.req.path}: ${err.stack ?? err.message}`,
    );
    return c.html(
      consolePage(
        'Error',
        html`<h1>Error</h1><p class="bad">This page could not be shown (error id ${id}; the console's output has the details).</p>`,
        nav,
        footer,
      ),
      500,
    );
  });

  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: opts.port ?? 0, hostname: host }, () => resolve(s));
    s.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  hostAllowed = hostChecker({ listen: host, port, allowHosts: opts.allowHosts ?? [] });
  ownUrl = `http://${shownHost}:${port}/`;
  const url = `${ownUrl}${token ? `?token=${token}` : ''}`;
  let closed = false;
  return {
    url,
    host,
    port,
    token,
    async close() {
      if (closed) return;
      closed = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await temporal.close();
      await Promise.all(sources.map((s) => s.close()));
    },
  };
}
