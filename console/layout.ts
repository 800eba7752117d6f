// The page frame, and the scripts it loads: uPlot (read from its npm package at run time: no CDN, nothing
// downloaded) and console/assets/console.js, which draws the charts. The live console links them; the report
// inlines them, so the report file opens with no network at all.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { html, raw, STYLE, type Html } from './html.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

export interface Assets {
  uplotJs: string;
  uplotCss: string;
  consoleJs: string;
}

let cached: Assets | undefined;

export function loadAssets(): Assets {
  if (cached) return cached;
  const uplotDir = path.dirname(require.resolve('uplot/package.json'));
  cached = {
    uplotJs: fs.readFileSync(path.join(uplotDir, 'dist', 'uPlot.iife.min.js'), 'utf8'),
    uplotCss: fs.readFileSync(path.join(uplotDir, 'dist', 'uPlot.min.css'), 'utf8'),
    consoleJs: fs.readFileSync(path.join(here, 'assets', 'console.js'), 'utf8'),
  };
  return cached;
}

export interface NavLink {
  href: string;
  label: string;
}

/** A page of the live console: assets by URL under /assets/ (same origin: the CSP allows nothing else). */
export function consolePage(title: string, body: Html, nav: NavLink[], footer: string): string {
  return `<!doctype html>${
    html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · scrape-etl console</title><link rel="stylesheet" href="/assets/uplot.css"><link rel="stylesheet" href="/assets/console.css"></head>
<body><header class="top"><span class="brand">scrape-etl console</span>${nav.map((n) => html`<a href="${n.href}">${n.label}</a>`)}<span class="muted">read-only</span></header>
<main>${body}</main><footer class="muted" style="padding:8px 20px">${footer}</footer>
<script src="/assets/uplot.js"></script><script src="/assets/console.js"></script></body></html>`.__html
  }`;
}

/** Markup inside an inline <script>: `</script` and `<!--` would end or confuse the element. */
function inlineScript(js: string): string {
  return js.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

function inlineStyle(css: string): string {
  return css.replace(/<\/(style)/gi, '<\\/$1');
}

/**
 * The report: one file with every script and style inline. Its Content-Security-Policy allows no network request
 * of any kind (default-src 'none'), so opening it can fetch nothing even if some text in it tried.
 */
export function reportPage(title: string, body: Html, footer: string): string {
  const a = loadAssets();
  return `<!doctype html>${
    html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>${title}</title><style>${raw(inlineStyle(a.uplotCss))}</style><style>${raw(inlineStyle(STYLE))}</style></head>
<body><header class="top"><span class="brand">scrape-etl report</span><span>${title}</span></header>
<main>${body}</main><footer class="muted" style="padding:8px 20px">${footer}</footer>
<script>${raw(inlineScript(a.uplotJs))}</script><script>${raw(inlineScript(a.consoleJs))}</script></body></html>`.__html
  }`;
}
