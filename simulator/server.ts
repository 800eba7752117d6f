// The local stand-in for the scraping service: node:http, eight /api endpoints of the spec, bearer auth,
// deterministic data per seed, fault injection, and admin endpoints under /_sim (same token, never faulted).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import {
  FaultEngine,
  ERROR_BODIES,
  checkFaults,
  malform,
  type FaultConfig,
  type ScriptedFault,
  type ScriptedMatch,
} from './faults.js';
import { generateJobRecords, jobTokenUsage } from './generate/jobs.js';
import { generateProduct } from './generate/marketplace.js';
import { DEFAULT_DRIFT, driftProduct, vanished, type DriftSettings } from './generate/drift.js';
import { leadsSearchEngineResult, pdfResult, socialResult, type JsonObject } from './generate/results.js';
import { QUEUED_MESSAGE, listScraper, runDetail, runRecord, shortScraper } from './generate/scrapers.js';
import { unitFor } from './random.js';
import { SimState, type ResultRecord, type RunFate, type RunState, type RunStatus, type ScraperKind } from './state.js';
import {
  parseProductUrl,
  validateJobBoard,
  validateLeadsSearchEngine,
  validateLeadsSocial,
  validateMarketplace,
  validatePageQuery,
  validatePdf,
  validationErrorBody,
  type FieldErrors,
  type JobSchemaProperty,
  type Validated,
} from './validate.js';

export type { FaultConfig, ScriptedFault, ScriptedMatch } from './faults.js';
export type { ResultRecord } from './state.js';

import { DEFAULT_RUN_DURATION_MS, DEFAULT_SEED, DEV_TOKEN } from './defaults.js';
export { DEFAULT_RUN_DURATION_MS, DEFAULT_SEED, DEV_TOKEN };
const MAX_BODY_BYTES = 5 * 1024 * 1024;

export interface SimulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Listen address; default 127.0.0.1. */
  host?: string;
  /** Bearer token every request must carry. */
  token: string;
  seed?: number;
  /** How long a scraping run stays 'running' after creation. */
  runDurationMs?: number;
  /** Cap on the results embedded in GET /api/scraping-runs/{id} (all when unset). */
  runDetailResultsLimit?: number;
  faults?: Partial<FaultConfig>;
  /** Time source in epoch ms for timestamps and run lifecycle; default Date.now. */
  clock?: () => number;
  /**
   * Marketplace prices and stock change between epochs (simulator/generate/drift.ts). The epoch is advanced by
   * `advanceEpoch()` / `POST /_sim/drift {"advance": true}`, or by the clock every `everyMs` when given.
   */
  priceDrift?: boolean | { everyMs?: number };
}

export interface SimStats {
  /** /api requests received (including ones answered 401 or with a fault). */
  total: number;
  /** Keyed by route, e.g. `POST /api/job-board-scrape`, `GET /api/scraping-runs/:id`. */
  byEndpoint: Record<string, number>;
  /** Keyed by the status answered (`reset` for dropped connections). */
  byStatus: Record<string, number>;
}

export interface RunTruth {
  id: number;
  record_id: number;
  scraper_id: number;
  scraper_name: string;
  kind: ScraperKind;
  scraped_url: string;
  status: RunStatus;
  fate: RunFate;
  result_count: number;
  first_result_id: number;
}

export interface SimTruth {
  /** The body the marketplace endpoint answers for this URL (at the current epoch, or `epoch`); null: vanished (404). */
  product(url: string): JsonObject;
  productAt(url: string, epoch: number): JsonObject | null;
  /** The current drift epoch. */
  epoch(): number;
  /** The records the job-board endpoint answers for one listing URL with this schema and bounds. */
  jobs(url: string, schema: unknown, min: number, max: number): JsonObject[];
  /** All result records of a run (ids reserved at creation); [] for a run that fails or hangs. */
  runResults(runId: number): ResultRecord[];
  runs(): RunTruth[];
  /** Results currently listed by /api/results, newest first. */
  allResults(): ResultRecord[];
  scrapers(): JsonObject[];
}

export interface RunningSimulator {
  baseUrl: string;
  port: number;
  seed: number;
  close(): Promise<void>;
  setFaults(f: Partial<FaultConfig>): void;
  faults(): FaultConfig;
  /** Applies the given faults, in order, to the next requests matching `match` (any /api request by default). */
  queueFaults(faults: ScriptedFault[], match?: ScriptedMatch): void;
  /** No faults and an empty scripted queue. */
  clearFaults(): void;
  setRunDurationMs(ms: number): void;
  /** Fields set on the content of every result of runs created from now on (null: none); see SimState.contentDrift. */
  setContentDrift(fields: JsonObject | null): void;
  /** Fields set on every result record of runs created from now on (null: none); see SimState.resultFields. */
  setResultFields(fields: JsonObject | null): void;
  /** Marketplace drift: price/stock drift on or off, vanished and null shares, the epoch (see DriftSettings). */
  setDrift(d: Partial<DriftSettings>): DriftSettings;
  /** Moves to the next epoch: prices and stock change as drift says. Returns the new epoch. */
  advanceEpoch(): number;
  stats(): SimStats;
  resetStats(): void;
  truth: SimTruth;
}

interface Reply {
  status: number;
  body: unknown;
  /** Endpoints 7 and 8 declare text/plain although the body is JSON. */
  textPlain?: boolean;
  headers?: Record<string, string>;
}

const JSON_TYPE = 'application/json';
const TEXT_TYPE = 'text/plain; charset=UTF-8';

function validationReply<T>(v: Validated<T>): Reply | undefined {
  return v.ok ? undefined : { status: 422, body: validationErrorBody(v.errors) };
}

function routeKey(method: string, path: string): string {
  if (/^\/api\/scraping-runs\/[^/]+$/.test(path)) return `${method} /api/scraping-runs/:id`;
  return `${method} ${path}`;
}

const ROUTES: Record<string, string> = {
  '/api/job-board-scrape': 'POST',
  '/api/scrapers/pdf/create-and-run': 'POST',
  '/api/scrapers/leads-generator/search-engine/create-and-run': 'POST',
  '/api/scrapers/leads-generator/social/create-and-run': 'POST',
  '/api/marketplace/sync': 'POST',
  '/api/results': 'GET',
  '/api/scrapers': 'GET',
};

export async function startSimulator(opts: SimulatorOptions): Promise<RunningSimulator> {
  if (typeof opts.token !== 'string' || opts.token.length === 0)
    throw new Error('startSimulator: token must be a non-empty string');
  const seed = opts.seed ?? DEFAULT_SEED;
  if (!Number.isSafeInteger(seed)) throw new Error(`startSimulator: seed must be an integer, got ${String(seed)}`);
  let runDurationMs = checkNonNegative('runDurationMs', opts.runDurationMs ?? DEFAULT_RUN_DURATION_MS);
  const detailLimit =
    opts.runDetailResultsLimit === undefined
      ? undefined
      : checkNonNegative('runDetailResultsLimit', opts.runDetailResultsLimit);
  const clock = opts.clock ?? Date.now;
  const expectedAuth = Buffer.from(`Bearer ${opts.token}`);
  const faults = new FaultEngine(seed, {});
  if (opts.faults) faults.set(opts.faults);
  const state = new SimState(seed);
  // The account's user id is part of the ground truth, so it follows the seed too.
  const userId = 10_000 + Math.floor(unitFor(seed, 'user-id') * 90_000);
  let stats: SimStats = { total: 0, byEndpoint: {}, byStatus: {} };

  const countStatus = (s: string): void => {
    stats.byStatus[s] = (stats.byStatus[s] ?? 0) + 1;
  };

  function authorized(req: IncomingMessage): boolean {
    const got = Buffer.from(req.headers.authorization ?? '');
    return got.length === expectedAuth.length && timingSafeEqual(got, expectedAuth);
  }

  // ---- /api handlers -------------------------------------------------------------------------------

  function jobBoard(body: unknown): Reply {
    const v = validateJobBoard(body);
    if (!v.ok) return validationReply(v) as Reply;
    const { urls, min, max, properties } = v.value;
    const result: JsonObject[] = [];
    const counts: number[] = [];
    for (const url of urls) {
      const recs = generateJobRecords(seed, url, properties, min, max);
      counts.push(recs.length);
      for (const r of recs) result.push(r);
    }
    return { status: 200, body: { result, tokenUsage: jobTokenUsage(seed, urls, counts), totalDone: result.length } };
  }

  function createdReply(scraperRuns: RunState[]): Reply {
    const scraper = scraperRuns[0]?.scraper;
    if (!scraper) throw new Error('internal: create-and-run produced no run');
    return {
      status: 200,
      body: {
        message: QUEUED_MESSAGE,
        scraper: shortScraper(seed, scraper),
        results: scraperRuns.map((r) => runRecord(seed, r, userId)),
      },
    };
  }

  function pdf(body: unknown): Reply {
    const v = validatePdf(body);
    if (!v.ok) return validationReply(v) as Reply;
    const { name, keywords, expected_pdf } = v.value;
    const now = clock();
    const scraper = state.createScraper('pdf', name, ['Default'], now, keywords);
    // expected_pdf split over the keywords: the first (expected mod k) keywords get one more.
    const base = Math.floor(expected_pdf / keywords.length);
    const extra = expected_pdf % keywords.length;
    const runs = keywords.map((k, i) =>
      state.createRun(
        scraper,
        k.keyword,
        base + (i < extra ? 1 : 0),
        (idx) => pdfResult(seed, name, k.keyword, k.prompt, idx),
        now,
        runDurationMs,
        (id) => faults.runFate(id),
      ),
    );
    return createdReply(runs);
  }

  function leadsSearchEngine(body: unknown): Reply {
    const v = validateLeadsSearchEngine(body);
    if (!v.ok) return validationReply(v) as Reply;
    const input = v.value;
    const now = clock();
    const query = input.search_type === 'url' ? { url: input.url as string } : { keywords: input.keywords as string };
    const scraper = state.createScraper(
      'leads-search-engine',
      input.name,
      input.search_type === 'url' ? [input.url as string] : ['Default'],
      now,
    );
    const run = state.createRun(
      scraper,
      'Default',
      input.limit_pages * 10,
      (idx) => leadsSearchEngineResult(seed, query, idx),
      now,
      runDurationMs,
      (id) => faults.runFate(id),
    );
    return createdReply([run]);
  }

  function leadsSocial(body: unknown): Reply {
    const v = validateLeadsSocial(body);
    if (!v.ok) return validationReply(v) as Reply;
    const input = v.value;
    const now = clock();
    const scraper = state.createScraper('leads-social', input.name, ['Default'], now);
    const run = state.createRun(
      scraper,
      'Default',
      input.expected_data,
      (idx) => socialResult(seed, input.name, input.keywords, input.sentiment_type, idx),
      now,
      runDurationMs,
      (id) => faults.runFate(id),
    );
    return createdReply([run]);
  }

  // Drift: with `everyMs`, the clock adds epochs on top of the ones advanced by hand.
  const driftEveryMs = typeof opts.priceDrift === 'object' ? opts.priceDrift.everyMs : undefined;
  const driftStart = (opts.clock ?? Date.now)();
  let drift: DriftSettings = {
    ...DEFAULT_DRIFT,
    priceDrift: opts.priceDrift !== undefined && opts.priceDrift !== false,
  };
  const currentEpoch = () =>
    drift.epoch + (driftEveryMs ? Math.floor(((opts.clock ?? Date.now)() - driftStart) / driftEveryMs) : 0);

  function productAt(
    input: { itemId: number; shopId: number; url: string; models?: number },
    epoch: number,
  ): JsonObject | null {
    if (vanished(seed, input.shopId, input.itemId, drift, epoch)) return null;
    return driftProduct(generateProduct(seed, input), seed, input.shopId, input.itemId, drift, epoch);
  }

  function marketplace(body: unknown): Reply {
    const v = validateMarketplace(body);
    if (!v.ok) return validationReply(v) as Reply;
    const product = productAt(v.value, currentEpoch());
    if (product === null) return { status: 404, body: { success: false, message: 'Product not found', data: null } };
    return { status: 200, body: product };
  }

  function setDrift(d: Partial<DriftSettings>): DriftSettings {
    const next = { ...drift, ...d };
    if (!Number.isInteger(next.epoch) || next.epoch < 0)
      throw new Error(`drift epoch must be an integer >= 0, got ${String(next.epoch)}`);
    for (const k of ['vanishRate', 'nullRate'] as const) {
      if (!Number.isFinite(next[k]) || next[k] < 0 || next[k] > 1)
        throw new Error(`drift ${k} must be a number from 0 to 1, got ${String(next[k])}`);
    }
    if (!Array.isArray(next.nullFields) || !next.nullFields.every((f) => typeof f === 'string'))
      throw new Error('drift nullFields must be a list of item field names');
    drift = next;
    return { ...drift, epoch: currentEpoch() };
  }

  function results(query: URLSearchParams): Reply {
    const v = validatePageQuery(query);
    if (!v.ok) return validationReply(v) as Reply;
    state.refresh(clock());
    return { status: 200, body: { data: state.resultsPage(v.value.page, v.value.perPage) } };
  }

  function scrapers(query: URLSearchParams): Reply {
    const v = validatePageQuery(query);
    if (!v.ok) return validationReply(v) as Reply;
    return {
      status: 200,
      textPlain: true,
      body: { data: state.scrapersPage(v.value.page, v.value.perPage).map((s) => listScraper(seed, s)) },
    };
  }

  function scrapingRun(idText: string): Reply {
    const run = /^\d{1,15}$/.test(idText) ? state.runs.get(Number(idText)) : undefined;
    if (!run) return { status: 404, body: { message: `Scraping run ${idText} not found.` } };
    const now = clock();
    state.refresh(now);
    const status = state.status(run, now);
    let recs = status === 'succeeded' ? state.materialize(run) : [];
    if (detailLimit !== undefined && recs.length > detailLimit) recs = recs.slice(0, detailLimit);
    return { status: 200, textPlain: true, body: { data: runDetail(seed, run, status, recs) } };
  }

  function route(method: string, path: string, query: URLSearchParams, body: unknown): Reply {
    const runMatch = /^\/api\/scraping-runs\/([^/]+)$/.exec(path);
    const allowed = runMatch ? 'GET' : ROUTES[path];
    if (allowed === undefined)
      return { status: 404, body: { message: `The route ${path.slice(1)} could not be found.` } };
    if (method !== allowed) {
      return {
        status: 405,
        headers: { Allow: allowed },
        body: {
          message: `The ${method} method is not supported for route ${path.slice(1)}. Supported methods: ${allowed}.`,
        },
      };
    }
    if (runMatch) return scrapingRun(decodeURIComponent(runMatch[1] as string));
    switch (path) {
      case '/api/job-board-scrape':
        return jobBoard(body);
      case '/api/scrapers/pdf/create-and-run':
        return pdf(body);
      case '/api/scrapers/leads-generator/search-engine/create-and-run':
        return leadsSearchEngine(body);
      case '/api/scrapers/leads-generator/social/create-and-run':
        return leadsSocial(body);
      case '/api/marketplace/sync':
        return marketplace(body);
      case '/api/results':
        return results(query);
      default:
        return scrapers(query);
    }
  }

  // ---- /_sim admin ---------------------------------------------------------------------------------

  function truthRuns(): RunTruth[] {
    const now = clock();
    state.refresh(now);
    return [...state.runs.values()].map((r) => ({
      id: r.id,
      record_id: r.recordId,
      scraper_id: r.scraper.id,
      scraper_name: r.scraper.name,
      kind: r.scraper.kind,
      scraped_url: r.scrapedUrl,
      status: state.status(r, now),
      fate: r.fate,
      result_count: r.fate === 'succeed' ? r.resultCount : 0,
      first_result_id: r.firstResultId,
    }));
  }

  function admin(method: string, path: string, body: unknown): Reply {
    if (path === '/_sim/faults' && method === 'GET')
      return { status: 200, body: { faults: faults.current, scripted_pending: faults.pendingScripted() } };
    if (path === '/_sim/faults' && method === 'POST') {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        return { status: 422, body: validationErrorBody({ body: ['expected a JSON object of fault settings'] }) };
      }
      const { queue, match, clear, ...settings } = body as Record<string, unknown>;
      const checked = checkFaults(settings);
      if (!checked.ok) return { status: 422, body: validationErrorBody(checked.errors) };
      if (queue !== undefined && !Array.isArray(queue))
        return { status: 422, body: validationErrorBody({ queue: ['must be an array of scripted faults'] }) };
      if (clear === true) faults.clear();
      faults.set(checked.value);
      if (Array.isArray(queue)) {
        try {
          faults.enqueue(queue as ScriptedFault[], (match ?? {}) as ScriptedMatch);
        } catch (err) {
          return { status: 422, body: validationErrorBody({ queue: [(err as Error).message] }) };
        }
      }
      return { status: 200, body: { faults: faults.current, scripted_pending: faults.pendingScripted() } };
    }
    if (path === '/_sim/state' && method === 'GET') {
      const runs = truthRuns();
      return {
        status: 200,
        body: {
          seed,
          run_duration_ms: runDurationMs,
          run_detail_results_limit: detailLimit ?? null,
          faults: faults.current,
          scripted_pending: faults.pendingScripted(),
          stats,
          next_ids: state.counters(),
          scrapers: state.scrapers.length,
          results_listed: state.allResults().length,
          runs,
        },
      };
    }
    if (path === '/_sim/drift' && method === 'GET') return { status: 200, body: { ...drift, epoch: currentEpoch() } };
    if (path === '/_sim/drift' && method === 'POST') {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        return {
          status: 422,
          body: validationErrorBody({
            body: [
              'expected a JSON object: {"advance": true} or drift settings (price_drift, epoch, vanish_rate, null_rate, null_fields)',
            ],
          }),
        };
      }
      const b = body as Record<string, unknown>;
      const known = ['advance', 'price_drift', 'epoch', 'vanish_rate', 'null_rate', 'null_fields'];
      const unknown = Object.keys(b).filter((k) => !known.includes(k));
      if (unknown.length > 0)
        return {
          status: 422,
          body: validationErrorBody({
            body: [`unknown drift settings: ${unknown.join(', ')} (known: ${known.join(', ')})`],
          }),
        };
      try {
        const d: Partial<DriftSettings> = {};
        if (b['price_drift'] !== undefined) d.priceDrift = b['price_drift'] === true;
        if (b['epoch'] !== undefined) d.epoch = Number(b['epoch']);
        if (b['vanish_rate'] !== undefined) d.vanishRate = Number(b['vanish_rate']);
        if (b['null_rate'] !== undefined) d.nullRate = Number(b['null_rate']);
        if (b['null_fields'] !== undefined) d.nullFields = b['null_fields'] as string[];
        if (b['advance'] === true) d.epoch = (d.epoch ?? drift.epoch) + 1;
        const now = setDrift(d);
        return {
          status: 200,
          body: {
            price_drift: now.priceDrift,
            epoch: now.epoch,
            vanish_rate: now.vanishRate,
            null_rate: now.nullRate,
            null_fields: now.nullFields,
          },
        };
      } catch (err) {
        return { status: 422, body: validationErrorBody({ body: [(err as Error).message] }) };
      }
    }
    if (path === '/_sim/stats' && method === 'GET') return { status: 200, body: stats };
    if (path === '/_sim/stats' && method === 'DELETE') {
      stats = { total: 0, byEndpoint: {}, byStatus: {} };
      return { status: 200, body: stats };
    }
    return { status: 404, body: { message: `The route ${path.slice(1)} could not be found.` } };
  }

  // ---- HTTP plumbing -------------------------------------------------------------------------------

  function write(res: ServerResponse, reply: Reply, fault?: { kind: 'truncated' | 'dropped' | 'malformed' }): void {
    let body = reply.body;
    const headers: Record<string, string> = { ...(reply.headers ?? {}) };
    if (fault?.kind === 'malformed') headers['X-Sim-Fault'] = `malformed: ${malform(body, (n) => faults.pick(n))}`;
    let buf = Buffer.from(JSON.stringify(body), 'utf8');
    if (fault?.kind === 'truncated') {
      buf = buf.subarray(0, faults.cutPoint(buf.length));
      headers['X-Sim-Fault'] = 'truncated';
    }
    body = undefined;
    if (fault?.kind === 'dropped') headers['X-Sim-Fault'] = 'dropped';
    res.writeHead(reply.status, {
      ...headers,
      'Content-Type': reply.textPlain ? TEXT_TYPE : JSON_TYPE,
      'Content-Length': String(buf.length),
      'Cache-Control': 'no-cache, private',
    });
    if (fault?.kind === 'dropped') {
      // The announced length never arrives: the client sees the connection close mid-body. Cut at half the body,
      // not at a drawn point, so this fault takes nothing from the seeded stream the other faults draw from.
      const cut = buf.subarray(0, Math.floor(buf.length / 2));
      res.write(cut, () => res.destroy());
      return;
    }
    res.end(buf);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    const raw = await readBody(req);
    const isAdmin = path === '/_sim' || path.startsWith('/_sim/');
    if (!isAdmin) {
      stats.total++;
      const key = routeKey(method, path);
      stats.byEndpoint[key] = (stats.byEndpoint[key] ?? 0) + 1;
    }
    const reply = (r: Reply, fault?: { kind: 'truncated' | 'dropped' | 'malformed' }): void => {
      if (!isAdmin) countStatus(String(r.status));
      write(res, r, fault);
    };
    if (raw === 'too-large')
      return reply({ status: 413, body: { message: `Request body larger than ${MAX_BODY_BYTES} bytes.` } });
    if (!authorized(req)) return reply({ status: 401, body: { message: 'Unauthenticated.' } });

    let body: unknown;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch (err) {
        return reply({
          status: 400,
          body: { message: `The request body is not valid JSON: ${(err as Error).message}` },
        });
      }
    }
    if (isAdmin) return reply(admin(method, path, body));

    const decision = faults.decide(method, path);
    if (decision.delayMs > 0) await sleep(decision.delayMs);
    if (decision.reset) {
      countStatus('reset');
      req.socket.destroy();
      return;
    }
    if (decision.status) {
      const { code, retryAfterSeconds } = decision.status;
      const headers: Record<string, string> = { 'X-Sim-Fault': `status ${code}` };
      if (retryAfterSeconds !== undefined) headers['Retry-After'] = String(retryAfterSeconds);
      return reply({
        status: code,
        headers,
        body: decision.status.body ?? ERROR_BODIES[code] ?? { message: `Simulated status ${code}` },
      });
    }
    const r = route(method, path, url.searchParams, body);
    // Body faults hit successful answers only: the request was processed (a run may exist) but the answer is broken.
    return reply(r, decision.body && r.status === 200 ? { kind: decision.body } : undefined);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      // A bug in the simulator must not look like a fault the client should retry silently: say what broke.
      if (!res.headersSent) {
        const msg = err instanceof Error ? err.message : String(err);
        res.writeHead(500, { 'Content-Type': JSON_TYPE, 'X-Sim-Fault': 'internal' });
        res.end(JSON.stringify({ message: `Simulator internal error: ${msg}` }));
      } else res.destroy();
    });
  });
  server.keepAliveTimeout = 5000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const hostForUrl = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;

  let closing: Promise<void> | undefined;
  const truth: SimTruth = {
    product(url) {
      const v = parseProductUrl(url);
      if (!v.ok) throw new Error(`truth.product: ${describe(v.errors)}`);
      const p = productAt(v.value, currentEpoch());
      if (p === null) throw new Error(`truth.product: ${url} has vanished at epoch ${currentEpoch()}`);
      return p;
    },
    productAt(url, epoch) {
      const v = parseProductUrl(url);
      if (!v.ok) throw new Error(`truth.productAt: ${describe(v.errors)}`);
      return productAt(v.value, epoch);
    },
    epoch: currentEpoch,
    jobs(url, schema, min, max) {
      const v = validateJobBoard({ urls: [url], schema, min, max });
      if (!v.ok) throw new Error(`truth.jobs: ${describe(v.errors)}`);
      return generateJobRecords(seed, url, v.value.properties as Record<string, JobSchemaProperty>, min, max);
    },
    runResults(runId) {
      const run = state.runs.get(runId);
      if (!run) throw new Error(`truth.runResults: no scraping run ${runId}`);
      return state.materialize(run);
    },
    runs: truthRuns,
    allResults() {
      state.refresh(clock());
      return state.allResults();
    },
    scrapers() {
      return state.scrapers.map((s) => listScraper(seed, s));
    },
  };

  return {
    baseUrl: `http://${hostForUrl}:${addr.port}`,
    port: addr.port,
    seed,
    truth,
    // Idempotent, so a test's own close and a shared afterAll can both call it.
    close: () =>
      (closing ??= new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      })),
    setFaults: (f) => faults.set(f),
    faults: () => faults.current,
    queueFaults: (list, match) => faults.enqueue(list, match),
    clearFaults: () => faults.clear(),
    setContentDrift: (fields) => {
      state.contentDrift = fields === null ? null : structuredClone(fields);
    },
    setResultFields: (fields) => {
      state.resultFields = fields === null ? null : structuredClone(fields);
    },
    setDrift,
    advanceEpoch: () => setDrift({ epoch: drift.epoch + 1 }).epoch,
    setRunDurationMs: (ms) => {
      runDurationMs = checkNonNegative('runDurationMs', ms);
    },
    stats: () => structuredClone(stats),
    resetStats: () => {
      stats = { total: 0, byEndpoint: {}, byStatus: {} };
    },
  };
}

function checkNonNegative(name: string, v: number): number {
  if (!Number.isFinite(v) || v < 0) throw new Error(`startSimulator: ${name} must be a number >= 0, got ${String(v)}`);
  return v;
}

function describe(errors: FieldErrors): string {
  return Object.entries(errors)
    .map(([k, v]) => `${k}: ${v.join(' ')}`)
    .join('; ');
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve(tooLarge ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
