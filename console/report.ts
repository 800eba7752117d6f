// `scrape-etl report`: a pipeline's page, each of its runs' pages and (marketplace) its price history, as ONE HTML
// file that needs no network to open: uPlot and the chart code are inlined, the data is embedded, and the page's
// Content-Security-Policy forbids every request. Made for mailing; read from the database read-only.
import fs from 'node:fs';
import path from 'node:path';
import { html, type Html } from './html.js';
import { reportPage } from './layout.js';
import { pipelineView, pricesView, runView, type Links } from './pages.js';
import { movesOfRun, productHistory, productsOf, stockChangesOfRun, type ProductHistory } from './prices.js';
import { pipelineNames, pipelineSummary, runDetail, runsOfPipeline, type RunDetail } from './runs.js';
import { openReadOnly } from './source.js';

export interface ReportOptions {
  databaseUrl: string;
  pipeline: string;
  out: string;
  since?: Date;
  /** Runs shown at most (newest first). */
  maxRuns?: number;
}

/** Product charts at most in one report (each embeds its points). */
const MAX_PRODUCTS = 50;

function anchor(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]/g, '_');
}

const reportLinks: Links = {
  home: () => null,
  pipeline: () => '#pipeline',
  run: (_db, wf) => `#run-${anchor(wf)}`,
  data: () => null,
  download: () => null,
  raw: () => null,
  prices: () => null,
  leads: () => null,
  cost: () => null,
  temporal: () => null,
};

export async function writeReport(o: ReportOptions): Promise<{ file: string; runs: number; bytes: number }> {
  const source = await openReadOnly(o.databaseUrl);
  let body: Html;
  let runCount = 0;
  const now = Date.now();
  try {
    body = await source.read(async (r) => {
      const s = await pipelineSummary(r, o.pipeline);
      if (!s) {
        const known = await pipelineNames(r);
        throw Object.assign(
          new Error(
            `no run of pipeline '${o.pipeline}' in ${source.url} (pipelines there: ${known.join(', ') || 'none'})`,
          ),
          { exitCode: 1 },
        );
      }
      const runs = await runsOfPipeline(r, o.pipeline, {
        limit: o.maxRuns ?? 50,
        ...(o.since ? { since: o.since } : {}),
      });
      runCount = runs.length;
      const details: RunDetail[] = [];
      for (const run of runs) {
        const d = await runDetail(r, run.workflowId);
        if (d) details.push(d);
      }
      let prices: Html = html``;
      if (s.kind === 'marketplace') {
        const products = await productsOf(r, o.pipeline, MAX_PRODUCTS);
        const histories: ProductHistory[] = [];
        for (const p of products) {
          const h = await productHistory(r, o.pipeline, p.shopId, p.itemId);
          if (h) histories.push(h);
        }
        const v = {
          products,
          history: undefined,
          moves: await movesOfRun(r, o.pipeline, s.lastRun.workflowId),
          stock: await stockChangesOfRun(r, o.pipeline, s.lastRun.workflowId),
          lastRun: s.lastRun,
        };
        prices = html`<section id="prices">${pricesView(0, o.pipeline, v, reportLinks, html``, true, histories)}</section>`;
      }
      return html`<section id="pipeline">${pipelineView(0, s, runs, reportLinks, now, html``)}</section>
${prices}
${details.map((d) => html`<section class="run" id="run-${anchor(d.run.workflowId)}">${runView(0, d, reportLinks, html``)}</section>`)}`;
    });
  } finally {
    await source.close();
  }
  const text = reportPage(
    `${o.pipeline}${o.since ? ` since ${o.since.toISOString().slice(0, 10)}` : ''}`,
    body,
    `made ${new Date(now).toISOString()} from ${source.url} by scrape-etl report`,
  );
  const file = path.resolve(o.out);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
  return { file, runs: runCount, bytes: Buffer.byteLength(text) };
}
