import { EventEmitter } from 'node:events';
import { z } from 'zod';
import {
  ApiAmbiguousError,
  ApiConfigError,
  ApiHttpError,
  ApiMalformedBodyError,
  ApiNetworkError,
  ApiPagingError,
  ApiRedirectError,
  ApiResponseTooLargeError,
  ApiScrapeFailedError,
  ApiTimeoutError,
  ApiUnauthorizedError,
  ScraperApiError,
  bodyExcerptOf,
  redactToken,
} from './errors.js';
import { parse as losslessParse } from 'lossless-json';
import { JsonDepthError, parseJson, stringifyJson } from '../lib/json.js';
import {
  createAndRunResponseSchema,
  int64,
  jobBoardRequestSchema,
  jobBoardResponseSchema,
  jobRecordSchemaFor,
  leadsSearchEngineRequestSchema,
  leadsSocialRequestSchema,
  marketplaceResponseSchema,
  marketplaceSyncRequestSchema,
  pdfCreateRequestSchema,
  resultsListResponseSchema,
  scrapersListResponseSchema,
  scrapingRunResponseSchema,
  type CreateAndRunResponse,
  type Int64,
  type JobBoardRequest,
  type JobBoardResponse,
  type LeadsSearchEngineRequest,
  type LeadsSocialRequest,
  type ListScraper,
  type MarketplaceResponse,
  type MarketplaceSyncRequest,
  type PdfCreateRequest,
  type ResultRecord,
  type ResultsListResponse,
  type ScrapersListResponse,
  type ScrapingRunResponse,
} from './schemas.js';
import { validateWith } from './validate.js';
import type { Dispatcher } from 'undici';
import { settingsFor } from '../settings/process.js';
import { SettingError, type Settings } from '../settings/settings.js';
import {
  ContentDecodingError,
  acceptEncodingFor,
  collectBody,
  decodeContent,
  discardBody,
  utf8Text,
  type ResponseBody,
} from './response-body.js';

export interface ApiResult<T> {
  data: T;
  /** Response body text as received (the token, should a server ever echo it, is redacted). */
  raw: string;
  /** `METHOD /path`, e.g. `GET /api/scraping-runs/12`. */
  endpoint: string;
  status: number;
  receivedAt: Date;
}

export interface RetryInfo {
  endpoint: string;
  /** The attempt that failed (1-based); the next one is attempt + 1. */
  attempt: number;
  status?: number;
  delayMs: number;
  reason: string;
}

export interface AttemptInfo {
  endpoint: string;
  attempt: number;
  status: number | null;
  durationMs: number;
}

export interface ScraperClientOptions {
  /** Default env SCRAPER_BASE_URL; https required unless the host is loopback. */
  baseUrl?: string;
  /** Default env SCRAPER_API_TOKEN. */
  token?: string;
  /** Per attempt, covering connection, headers and the whole body (a slow-drip body times out too). Default 30 000. */
  timeoutMs?: number;
  /**
   * Largest response body accepted, in bytes; the body is streamed and reading stops past it
   * (ApiResponseTooLargeError). Default env SCRAPER_MAX_RESPONSE_BYTES, else 64 MiB.
   */
  maxResponseBytes?: number;
  retry?: {
    /** Total attempts including the first (per call; CallOptions.maxAttempts overrides it). Default 5. */
    maxAttempts?: number;
    /** First backoff step. Default 500. */
    baseDelayMs?: number;
    /** Cap of the exponential backoff. Default 30 000. */
    maxDelayMs?: number;
    /** Cap applied to a server's Retry-After. Default 60 000. */
    maxRetryAfterMs?: number;
  };
  /** pino-compatible. Receives endpoint/status/timing objects only, never headers or the token. */
  logger?: { debug(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  onRetry?: (info: RetryInfo) => void;
  /** Called once per HTTP attempt that ended (status null: no status arrived, e.g. a timeout or dropped connection); for metrics. */
  onAttempt?: (info: AttemptInfo) => void;
  /**
   * The undici Dispatcher every request goes through (an Agent, a ProxyAgent, a Pool with TLS `connect` options,
   * a MockAgent). Default: a keep-alive Pool of this client's own for the base URL's origin, opened at the first
   * request. A dispatcher given here is the caller's: close() leaves it open.
   */
  dispatcher?: Dispatcher;
  /** The settings SCRAPER_BASE_URL, SCRAPER_API_TOKEN and SCRAPER_MAX_RESPONSE_BYTES come from; default this process's. */
  settings?: Settings;
  /** An environment to read those settings from instead (tests). */
  env?: Record<string, string | undefined>;
}

export interface CallOptions {
  signal?: AbortSignal;
  /**
   * Total attempts of this call, overriding `retry.maxAttempts` (e.g. 2 from an activity that has its own
   * retry policy). Create-and-run calls are never re-sent after an ambiguous attempt whatever this says.
   */
  maxAttempts?: number;
  /**
   * Awaited before each HTTP attempt of the call, with the attempt's number (1-based): where a caller records a
   * billable request before it is sent (budget/meter.ts). What it throws ends the call with that error, unsent.
   */
  beforeAttempt?: (attempt: number) => Promise<void>;
}

export interface FindScraperOptions {
  signal?: AbortSignal;
  /** Items per page of the scan. Default 100. */
  perPage?: number;
  /** Attempts per page request (see CallOptions.maxAttempts). */
  maxAttempts?: number;
}

export interface PageQuery {
  page?: number;
  per_page?: number;
}

export interface PagesOptions {
  startPage?: number;
  /** Items per page; a page with fewer items is the last one. Default 100. */
  perPage?: number;
  signal?: AbortSignal;
  /** Attempts per page request (see CallOptions.maxAttempts). */
  maxAttempts?: number;
}

export interface Page<T> {
  page: number;
  items: T[];
  raw: string;
}

const DEFAULTS = {
  timeoutMs: 30_000,
  maxAttempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000,
  perPage: 100,
};

/**
 * Network error codes that mean the request cannot have reached the service: nothing was sent, so even a
 * create-and-run can be sent again. Every other network failure (reset, socket closed, TLS torn down) may have
 * happened after the service read the request, and is ambiguous for a create.
 */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EAI_FAIL',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host === '::1') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Validates the base URL: https, or http only to a loopback host (the simulator). */
export function checkBaseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiConfigError(
      `SCRAPER_BASE_URL is not an absolute URL: '${raw}' (expected e.g. https://api.example.com)`,
    );
  }
  if (url.username || url.password) {
    throw new ApiConfigError('SCRAPER_BASE_URL must not carry credentials; the token goes in SCRAPER_API_TOKEN');
  }
  if (url.search || url.hash) {
    throw new ApiConfigError(`SCRAPER_BASE_URL must not have a query or fragment: '${url.origin}${url.pathname}…'`);
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url;
  if (url.protocol === 'http:') {
    throw new ApiConfigError(
      `SCRAPER_BASE_URL must use https (got '${url.origin}'): the API token would travel in clear text. ` +
        'Plain http is allowed only for loopback hosts (127.0.0.0/8, ::1, localhost).',
    );
  }
  throw new ApiConfigError(`SCRAPER_BASE_URL must be an https URL (got protocol '${url.protocol}')`);
}

function parseRetryAfter(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function causeCode(err: unknown): string | undefined {
  for (
    let e: unknown = err, depth = 0;
    e instanceof Error && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/**
 * The abort of one attempt. undici takes an EventEmitter with `aborted` and `reason` as a signal just as it takes
 * an AbortSignal; this one costs a fraction of an AbortController (an EventTarget), made on every request.
 */
class AttemptAbort extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}

/**
 * dispatcher.request, settled by an abort at once even while the request still waits for a connection: undici
 * itself only cancels a queued request when it reaches a socket (a busy pool, a slow connect), which would hold
 * a timeout or a cancelled activity until then. A response that arrives after the abort is dropped.
 */
function requestUntilAborted(
  dispatcher: Dispatcher,
  options: Dispatcher.RequestOptions,
  signal: AttemptAbort,
): Promise<Dispatcher.ResponseData> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const onAbort = (): void => {
      settled = true;
      reject(signal.reason);
    };
    signal.once('abort', onAbort);
    dispatcher.request({ ...options, signal }, (err, data) => {
      signal.off('abort', onAbort);
      if (settled) {
        if (err === null) discardBody(data.body);
        return;
      }
      settled = true;
      if (err !== null) reject(err);
      else resolve(data);
    });
  });
}

/** A response header as fetch's Headers.get gave it: repeated fields joined with ', ', null when absent. */
function headerOf(headers: Dispatcher.ResponseData['headers'], name: string): string | null {
  const value = headers[name];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

function causeText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return `${err.message} (${typeof code === 'string' ? `${code}: ` : ''}${cause.message})`;
  }
  // undici's own errors (UND_ERR_SOCKET 'other side closed') do not say their code, which fetch's 'fetch failed
  // (CODE: …)' did: the code stays in the message, where `run`'s waiting line (cli/waiting.ts) finds it.
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
}

/** Pulls the human part out of an error body: Laravel-style `{message, errors: {field: [..]}}` or plain text. */
function serverMessage(body: string, token: string): string {
  const redacted = redactToken(body, token);
  try {
    const parsed = parseJson(redacted) as { message?: unknown; errors?: unknown; error?: unknown };
    const parts: string[] = [];
    if (typeof parsed?.message === 'string') parts.push(parsed.message);
    else if (typeof parsed?.error === 'string') parts.push(parsed.error);
    if (parsed?.errors && typeof parsed.errors === 'object') {
      for (const [field, msgs] of Object.entries(parsed.errors as Record<string, unknown>)) {
        parts.push(`${field}: ${Array.isArray(msgs) ? msgs.join('; ') : String(msgs)}`);
      }
    }
    if (parts.length > 0) return bodyExcerptOf(parts.join(' | '), token, 500);
  } catch {
    // not JSON: fall through to the raw excerpt
  }
  return bodyExcerptOf(redacted, token, 300) || '(empty body)';
}

interface RequestSpec<S extends z.ZodType> {
  method: 'GET' | 'POST';
  /**
   * False for the create-and-run POSTs: each call creates a scraper, and the API has no idempotency key. Such a
   * request is re-sent by the client only when the failed attempt cannot have been processed (see #call).
   */
  idempotent: boolean;
  path: string;
  query?: Record<string, number | undefined>;
  body?: unknown;
  schema: S;
  /** Hook for checks that need the parsed body before schema validation (marketplace success flag). */
  inspect?: (body: unknown, endpoint: string) => void;
}

export class ScraperClient {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly retry: Required<NonNullable<ScraperClientOptions['retry']>>;
  // A true private field: not enumerable, not in JSON.stringify, not shown by util.inspect.
  readonly #token: string;
  readonly #logger: ScraperClientOptions['logger'];
  readonly #onRetry: ScraperClientOptions['onRetry'];
  readonly #onAttempt: ScraperClientOptions['onAttempt'];
  /** The caller's dispatcher, or this client's own Pool once the first request opened it. */
  #dispatcher: Dispatcher | undefined;
  readonly #ownsDispatcher: boolean;
  readonly #acceptEncoding: string;

  constructor(opts: ScraperClientOptions = {}) {
    const settings = opts.settings ?? settingsFor(opts.env);
    const setting = <T>(get: () => T): T => {
      try {
        return get();
      } catch (err) {
        // A malformed setting is configuration, as a missing one: no retry fixes it.
        if (err instanceof SettingError) throw new ApiConfigError(err.message);
        throw err;
      }
    };
    const base = opts.baseUrl ?? setting(() => settings.scraperBaseUrl);
    if (!base) {
      throw new ApiConfigError(
        'no scraping-service base URL: set SCRAPER_BASE_URL (e.g. https://api.example.com) or pass baseUrl',
      );
    }
    const url = checkBaseUrl(base);
    this.baseUrl = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;

    const token = opts.token ?? settings.scraperApiToken;
    if (token === undefined || token.trim() === '') {
      throw new ApiConfigError(
        'no API token: set SCRAPER_API_TOKEN (copy it from the API Tokens section of the console profile page) or pass token',
      );
    }
    if (/[\s\x00-\x1f\x7f]/.test(token)) {
      throw new ApiConfigError(
        'SCRAPER_API_TOKEN contains whitespace or control characters; copy the token again without them',
      );
    }
    this.#token = token;

    this.timeoutMs = opts.timeoutMs ?? DEFAULTS.timeoutMs;
    this.maxResponseBytes = opts.maxResponseBytes ?? setting(() => settings.scraperMaxResponseBytes);
    if (!Number.isSafeInteger(this.maxResponseBytes) || this.maxResponseBytes < 1) {
      throw new ApiConfigError(
        `client option maxResponseBytes must be a positive integer (bytes), got ${this.maxResponseBytes}`,
      );
    }
    this.retry = {
      maxAttempts: opts.retry?.maxAttempts ?? DEFAULTS.maxAttempts,
      baseDelayMs: opts.retry?.baseDelayMs ?? DEFAULTS.baseDelayMs,
      maxDelayMs: opts.retry?.maxDelayMs ?? DEFAULTS.maxDelayMs,
      maxRetryAfterMs: opts.retry?.maxRetryAfterMs ?? DEFAULTS.maxRetryAfterMs,
    };
    for (const [name, value] of Object.entries({ timeoutMs: this.timeoutMs, ...this.retry })) {
      if (!Number.isFinite(value) || value < 0 || (name === 'maxAttempts' && (value < 1 || !Number.isInteger(value)))) {
        throw new ApiConfigError(
          `client option ${name} must be a ${name === 'maxAttempts' ? 'positive integer' : 'non-negative number'}, got ${value}`,
        );
      }
    }
    this.#logger = opts.logger;
    this.#onRetry = opts.onRetry;
    this.#onAttempt = opts.onAttempt;
    this.#dispatcher = opts.dispatcher;
    this.#ownsDispatcher = opts.dispatcher === undefined;
    this.#acceptEncoding = acceptEncodingFor(url.protocol);
  }

  /**
   * Closes the client's own connection pool once its requests in flight are done (a dispatcher passed in the
   * options is left open). Idle pooled sockets do not keep a process alive, so this is for owners that end
   * cleanly (worker shutdown, tests); a call after close() opens a new pool.
   */
  async close(): Promise<void> {
    if (!this.#ownsDispatcher) return;
    const pool = this.#dispatcher;
    this.#dispatcher = undefined;
    await pool?.close();
  }

  // Keeps util.inspect / console.log output free of private state, and explicit about it.
  toJSON(): object {
    return {
      baseUrl: this.baseUrl,
      timeoutMs: this.timeoutMs,
      maxResponseBytes: this.maxResponseBytes,
      retry: this.retry,
    };
  }

  // ----------------------------------------------------------------------------------------------- endpoints

  async jobBoardScrape(req: JobBoardRequest, o: CallOptions = {}): Promise<ApiResult<JobBoardResponse>> {
    const endpoint = 'POST /api/job-board-scrape';
    const body = validateWith(jobBoardRequestSchema, req, { endpoint, side: 'request' });
    // The records follow the data schema this call sent, so they are checked against it, not a fixed shape.
    const schema = jobBoardResponseSchema.extend({ result: z.array(jobRecordSchemaFor(body.schema)) });
    // Synchronous: it creates nothing that a second call would duplicate, so it is retried like a read.
    return this.#call({ method: 'POST', idempotent: true, path: '/api/job-board-scrape', body, schema }, o) as Promise<
      ApiResult<JobBoardResponse>
    >;
  }

  async createPdfScraper(req: PdfCreateRequest, o: CallOptions = {}): Promise<ApiResult<CreateAndRunResponse>> {
    const path = '/api/scrapers/pdf/create-and-run';
    const body = validateWith(pdfCreateRequestSchema, req, { endpoint: `POST ${path}`, side: 'request' });
    return this.#call({ method: 'POST', idempotent: false, path, body, schema: createAndRunResponseSchema }, o);
  }

  async createLeadsSearchEngineScraper(
    req: LeadsSearchEngineRequest,
    o: CallOptions = {},
  ): Promise<ApiResult<CreateAndRunResponse>> {
    const path = '/api/scrapers/leads-generator/search-engine/create-and-run';
    const body = validateWith(leadsSearchEngineRequestSchema, req, { endpoint: `POST ${path}`, side: 'request' });
    return this.#call({ method: 'POST', idempotent: false, path, body, schema: createAndRunResponseSchema }, o);
  }

  async createLeadsSocialScraper(
    req: LeadsSocialRequest,
    o: CallOptions = {},
  ): Promise<ApiResult<CreateAndRunResponse>> {
    const path = '/api/scrapers/leads-generator/social/create-and-run';
    const body = validateWith(leadsSocialRequestSchema, req, { endpoint: `POST ${path}`, side: 'request' });
    return this.#call({ method: 'POST', idempotent: false, path, body, schema: createAndRunResponseSchema }, o);
  }

  async marketplaceSync(req: MarketplaceSyncRequest, o: CallOptions = {}): Promise<ApiResult<MarketplaceResponse>> {
    const path = '/api/marketplace/sync';
    const body = validateWith(marketplaceSyncRequestSchema, req, { endpoint: `POST ${path}`, side: 'request' });
    const token = this.#token;
    return this.#call(
      {
        method: 'POST',
        // Synchronous scrape of one product: repeating it returns the same product and creates nothing.
        idempotent: true,
        path,
        body,
        schema: marketplaceResponseSchema,
        inspect: (parsed, endpoint) => {
          // A reported failure carries no product; say so instead of listing every missing product field.
          const p = parsed as {
            success?: unknown;
            message?: unknown;
            data?: { error_msg?: unknown; error?: unknown } | null;
          };
          if (p && typeof p === 'object' && p.success === false) {
            const said = [p.message, p.data?.error_msg, p.data?.error]
              .filter((x) => typeof x === 'string' && x !== '')
              .join(' / ');
            const serviceMessage = redactToken(said || '(no message)', token);
            throw new ApiScrapeFailedError(
              `${endpoint}: the service could not scrape ${req.url}: ${serviceMessage}. Check that the URL is the marketplace's product-detail API with itemid and shopid (or item_id and shop_id).`,
              { endpoint, status: 200, retryable: false, serviceMessage },
            );
          }
        },
      },
      o,
    );
  }

  async listResults(q: PageQuery = {}, o: CallOptions = {}): Promise<ApiResult<ResultsListResponse>> {
    const query = this.#pageQuery('GET /api/results', q);
    return this.#call(
      { method: 'GET', idempotent: true, path: '/api/results', query, schema: resultsListResponseSchema },
      o,
    );
  }

  async listScrapers(q: PageQuery = {}, o: CallOptions = {}): Promise<ApiResult<ScrapersListResponse>> {
    const query = this.#pageQuery('GET /api/scrapers', q);
    return this.#call(
      { method: 'GET', idempotent: true, path: '/api/scrapers', query, schema: scrapersListResponseSchema },
      o,
    );
  }

  async getScrapingRun(id: Int64, o: CallOptions = {}): Promise<ApiResult<ScrapingRunResponse>> {
    const runId = validateWith(
      int64.refine((v) => v > 0, 'must be a positive integer'),
      id,
      {
        endpoint: 'GET /api/scraping-runs/{scraping_run_id}',
        side: 'request',
      },
    );
    return this.#call(
      {
        method: 'GET',
        idempotent: true,
        path: `/api/scraping-runs/${runId.toString()}`,
        schema: scrapingRunResponseSchema,
      },
      o,
    );
  }

  // ----------------------------------------------------------------------------------------------- paging

  /**
   * Pages of a list, from `startPage`, with the page number so a caller can resume. Stops after a short page
   * (fewer than perPage items) and on an empty page (which is not yielded).
   */
  pages(list: 'results', o?: PagesOptions): AsyncGenerator<Page<ResultRecord>>;
  pages(list: 'scrapers', o?: PagesOptions): AsyncGenerator<Page<ListScraper>>;
  pages(list: 'results' | 'scrapers', o?: PagesOptions): AsyncGenerator<Page<ResultRecord> | Page<ListScraper>>;
  async *pages(
    list: 'results' | 'scrapers',
    o: PagesOptions = {},
  ): AsyncGenerator<Page<ResultRecord> | Page<ListScraper>> {
    const perPage = o.perPage ?? DEFAULTS.perPage;
    let page = o.startPage ?? 1;
    const call: CallOptions = {
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.maxAttempts !== undefined ? { maxAttempts: o.maxAttempts } : {}),
    };
    for (;;) {
      const res =
        list === 'results'
          ? await this.listResults({ page, per_page: perPage }, call)
          : await this.listScrapers({ page, per_page: perPage }, call);
      const items = res.data.data;
      if (items.length === 0) return;
      yield { page, items, raw: res.raw } as Page<ResultRecord> | Page<ListScraper>;
      if (items.length < perPage) return;
      page += 1;
    }
  }

  /**
   * Each result once. The list is newest first, so results that arrive while paging push older ones onto
   * later pages; ids already yielded are skipped rather than repeated.
   */
  async *iterateResults(o: PagesOptions = {}): AsyncGenerator<ResultRecord> {
    yield* uniqueById(this.pages('results', o));
  }

  async *iterateScrapers(o: PagesOptions = {}): AsyncGenerator<ListScraper> {
    yield* uniqueById(this.pages('scrapers', o));
  }

  /**
   * The newest scraper whose `name` is exactly `name`, or undefined: how a caller finds the scraper an
   * ambiguous create-and-run (ApiAmbiguousError) may have made, before creating it again. The spec states
   * no order for `GET /api/scrapers` (the documented example and the simulator list oldest first), so every
   * page is read; "newest" is the latest `created_at`, then the highest id. A page that adds no scraper not
   * seen before means the list does not advance: ApiPagingError rather than an endless scan.
   */
  async findScraperByName(name: string, o: FindScraperOptions = {}): Promise<ListScraper | undefined> {
    const endpoint = 'GET /api/scrapers';
    validateWith(z.string().min(1, 'must be a non-empty string'), name, {
      endpoint: `${endpoint} (findScraperByName name)`,
      side: 'request',
    });
    const perPage = o.perPage ?? DEFAULTS.perPage;
    const seen = new Set<string>();
    let newest: ListScraper | undefined;
    const pageOptions: PagesOptions = {
      perPage,
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.maxAttempts !== undefined ? { maxAttempts: o.maxAttempts } : {}),
    };
    for await (const page of this.pages('scrapers', pageOptions)) {
      let fresh = 0;
      for (const s of page.items) {
        const key = String(s.id);
        if (seen.has(key)) continue;
        seen.add(key);
        fresh++;
        if (s.name === name && (newest === undefined || isNewer(s, newest))) newest = s;
      }
      if (fresh === 0) {
        throw new ApiPagingError(
          `${endpoint}: page ${page.page} (per_page ${perPage}) holds only scrapers already listed on earlier pages; ` +
            `the list does not advance, so the search for a scraper named '${name}' cannot finish`,
          { endpoint, status: 200, retryable: false, page: page.page },
        );
      }
    }
    return newest;
  }

  // ----------------------------------------------------------------------------------------------- transport

  #pageQuery(endpoint: string, q: PageQuery): Record<string, number | undefined> {
    const positive = z.int().positive().optional();
    return validateWith(z.strictObject({ page: positive, per_page: positive }), q, { endpoint, side: 'request' });
  }

  #backoff(attempt: number): number {
    const ceiling = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
    // "Equal jitter": at least half the step, so clients that failed together do not come back together.
    return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
  }

  async #call<S extends z.ZodType>(spec: RequestSpec<S>, o: CallOptions): Promise<ApiResult<z.output<S>>> {
    const endpoint = `${spec.method} ${spec.path}`;
    const url = new URL(this.baseUrl + spec.path);
    for (const [k, v] of Object.entries(spec.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#token}`,
      accept: 'application/json',
      'accept-encoding': this.#acceptEncoding,
      // fetch sent `user-agent: node`; `request` sends none, and some gateways refuse a request without one.
      'user-agent': 'scrape-etl',
    };
    let payload: string | undefined;
    if (spec.body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = stringifyJson(spec.body);
    }
    const callerSignal = o.signal;
    const maxAttempts = o.maxAttempts ?? this.retry.maxAttempts;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
      throw new ApiConfigError(`call option maxAttempts must be a positive integer, got ${maxAttempts}`);
    }
    const dispatcher = this.#dispatcher ?? (await this.#openPool());
    const requestOptions: Dispatcher.RequestOptions = {
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: spec.method,
      headers,
      body: payload ?? null,
    };

    for (let attempt = 1; ; attempt++) {
      if (callerSignal?.aborted) throw callerSignal.reason;
      if (o.beforeAttempt) await o.beforeAttempt(attempt);
      const started = Date.now();
      // One abort per attempt, fired by its own timer or by the caller's signal (cheaper than AbortSignal.timeout
      // + AbortSignal.any); undici destroys the request (or its body, once the headers are in) with the reason, so a
      // cancelled activity's request ends at once.
      const abort = new AttemptAbort();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        abort.abort(new Error(`attempt timeout of ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      const relayCancel = (): void => abort.abort(callerSignal?.reason);
      callerSignal?.addEventListener('abort', relayCancel, { once: true });

      let failure: ScraperApiError;
      let retryAfterMs: number | undefined;
      // How far the attempt got, for the error: a failure after the headers arrived happened after the
      // service processed the request.
      const progress = { headers: false, bytes: 0 };
      try {
        let status: number;
        let text: string;
        let retryAfterHeader: string | null;
        let body: ResponseBody | undefined;
        try {
          // `request` never follows redirects (no redirect interceptor): a 3xx comes back as it is.
          const res = await requestUntilAborted(dispatcher, requestOptions, abort);
          body = res.body;
          progress.headers = true;
          status = res.statusCode;
          if (status >= 300 && status < 400) {
            // The body of a redirect is of no use; dropping it closes the socket rather than reading an unbounded body.
            discardBody(res.body);
            throw this.#redirectError(endpoint, status, headerOf(res.headers, 'location'), url);
          }
          retryAfterHeader = headerOf(res.headers, 'retry-after');
          // Always read the body to the end (an unread body pins the keep-alive socket), but never past the cap.
          text = await this.#readBody(res, endpoint, status, progress);
        } catch (err) {
          // Whatever ended the attempt, a body not read to its end is destroyed: undici would keep its socket.
          if (body !== undefined && !body.readableEnded) discardBody(body);
          this.#onAttempt?.({
            endpoint,
            attempt,
            status: progress.headers && err instanceof ScraperApiError ? (err.status ?? null) : null,
            durationMs: Date.now() - started,
          });
          if (err instanceof ScraperApiError) throw err;
          if (callerSignal?.aborted) throw callerSignal.reason;
          if (timedOut) {
            const where = progress.headers
              ? ` (headers received, ${progress.bytes} body bytes so far: the body arrived too slowly)`
              : '';
            throw new ApiTimeoutError(`${endpoint}: no complete response within ${this.timeoutMs} ms${where}`, {
              endpoint,
              retryable: true,
              timeoutMs: this.timeoutMs,
            });
          }
          const code = causeCode(err);
          // The address is named: a wrong one is the usual cause, and the waiting line says where it looked (cli/waiting.ts).
          throw new ApiNetworkError(
            `${endpoint}: network error: ${redactToken(causeText(err), this.#token)} (service at ${this.baseUrl}, SCRAPER_BASE_URL)`,
            {
              endpoint,
              retryable: true,
              cause: err,
              ...(code !== undefined ? { code } : {}),
              beforeRequestSent: !progress.headers && code !== undefined && NOT_SENT_CODES.has(code),
            },
          );
        } finally {
          clearTimeout(timer);
          callerSignal?.removeEventListener('abort', relayCancel);
        }
        this.#logger?.debug(
          { endpoint, attempt, status, durationMs: Date.now() - started, bytes: progress.bytes },
          'scraper api response',
        );
        this.#onAttempt?.({ endpoint, attempt, status, durationMs: Date.now() - started });
        if (status >= 200 && status < 300) {
          return this.#accept(spec, endpoint, status, text);
        }
        retryAfterMs = parseRetryAfter(retryAfterHeader, Date.now());
        throw this.#httpError(endpoint, status, text, url);
      } catch (err) {
        if (!(err instanceof ScraperApiError)) throw err;
        failure = err;
      }

      if (!failure.retryable) throw failure;
      if (!spec.idempotent && mayHaveBeenProcessed(failure)) {
        throw new ApiAmbiguousError(
          `${endpoint}: outcome unknown, the service may have created the scraper (attempt ${attempt}: ${failure.message}). ` +
            'Not re-sent automatically, because every call creates a scraper: look it up by its name ' +
            '(findScraperByName) and adopt it, or send the create again if there is none.',
          {
            endpoint,
            ...(failure.status !== undefined ? { status: failure.status } : {}),
            attempts: attempt,
            cause: failure,
          },
        );
      }
      if (attempt >= maxAttempts) {
        failure.message += ` (gave up after ${attempt} attempt${attempt > 1 ? 's' : ''})`;
        throw failure;
      }
      const delayMs =
        retryAfterMs !== undefined ? Math.min(retryAfterMs, this.retry.maxRetryAfterMs) : this.#backoff(attempt);
      const info: RetryInfo = {
        endpoint,
        attempt,
        ...(failure.status !== undefined ? { status: failure.status } : {}),
        delayMs,
        reason: failure.message,
      };
      this.#logger?.warn(info, 'retrying scraper api call');
      this.#onRetry?.(info);
      await sleep(delayMs, callerSignal);
    }
  }

  /**
   * The client's own keep-alive Pool for the base URL's origin. undici is imported here, at the first request,
   * not with this module: commands that only build a client to check its settings (`validate`, `run`'s preflight)
   * do not load it.
   */
  async #openPool(): Promise<Dispatcher> {
    const { Pool } = await import('undici');
    // headersTimeout/bodyTimeout off: the per-attempt timer above covers headers and the whole body (undici's
    // own are idle timers, 300 s, which would cut a longer timeoutMs short and cost a timer per request).
    this.#dispatcher ??= new Pool(new URL(this.baseUrl).origin, { headersTimeout: 0, bodyTimeout: 0 });
    return this.#dispatcher;
  }

  /**
   * Reads the body, streaming, and stops reading as soon as it passes maxResponseBytes; undoes its
   * Content-Encoding (the decoded size is capped too), then decodes it as UTF-8.
   */
  async #readBody(
    res: Dispatcher.ResponseData,
    endpoint: string,
    status: number,
    progress: { bytes: number },
  ): Promise<string> {
    const limit = this.maxResponseBytes;
    const declaredText = headerOf(res.headers, 'content-length');
    const declared =
      declaredText !== null && /^\d+$/.test(declaredText.trim()) ? Number(declaredText.trim()) : undefined;
    const tooLarge = (received: number, declaredBytes: number | undefined, what = 'response body') =>
      new ApiResponseTooLargeError(
        `${endpoint}: ${what} ${declaredBytes !== undefined && received === declaredBytes ? 'declared as' : 'is more than'} ` +
          `${received} bytes, over the limit of ${limit} bytes (status ${status}); not read further. Raise maxResponseBytes ` +
          '(SCRAPER_MAX_RESPONSE_BYTES) if such bodies are expected, or ask for smaller pages.',
        {
          endpoint,
          status,
          retryable: false,
          limitBytes: limit,
          receivedBytes: received,
          ...(declaredBytes !== undefined ? { declaredBytes } : {}),
        },
      );
    if (declared !== undefined && declared > limit) {
      discardBody(res.body);
      throw tooLarge(declared, declared);
    }
    const bytes = await collectBody(res.body, limit, progress, (received) => tooLarge(received, declared));
    const encoding = headerOf(res.headers, 'content-encoding') ?? undefined;
    try {
      return utf8Text(await decodeContent(bytes, encoding, limit));
    } catch (err) {
      if (!(err instanceof ContentDecodingError)) throw err;
      if (err.problem === 'too-large')
        throw tooLarge(limit + 1, undefined, `response body decoded from ${err.encoding}`);
      // An error status keeps its own meaning (a 503 is still retried); only its text is lost.
      if (status < 200 || status >= 300) return `(body not readable: ${err.message})`;
      const excerpt = `${bytes.length} bytes with Content-Encoding: ${encoding}`;
      throw new ApiMalformedBodyError(`${endpoint}: response body is not usable: ${err.message}`, {
        endpoint,
        status,
        // A body cut short or mangled in transit may come whole next time; an encoding the client cannot undo will not.
        retryable: err.problem !== 'unsupported',
        problem: err.problem === 'truncated' ? 'truncated' : 'syntax',
        bodyExcerpt: excerpt,
      });
    }
  }

  #redirectError(endpoint: string, status: number, location: string | null, requestUrl: URL): ApiRedirectError {
    let target: URL | undefined;
    try {
      target = location === null || location.trim() === '' ? undefined : new URL(location, requestUrl);
    } catch {
      target = undefined;
    }
    const origin = target && (target.protocol === 'http:' || target.protocol === 'https:') ? target.origin : undefined;
    if (origin === undefined) {
      return new ApiRedirectError(
        `${endpoint}: ${status} redirect (${location === null ? 'no Location header' : 'unusable Location header'}); redirects are ` +
          `not followed. Check that SCRAPER_BASE_URL (${this.baseUrl}) is the scraping service's own address.`,
        { endpoint, status, retryable: false },
      );
    }
    const crossOrigin = origin !== requestUrl.origin;
    return new ApiRedirectError(
      `${endpoint}: ${status} redirect to ${origin} (${crossOrigin ? 'another origin' : 'same origin'}); redirects are not followed, ` +
        `so the request was sent once and nowhere else. Check that SCRAPER_BASE_URL (${this.baseUrl}) is the scraping ` +
        "service's own address (e.g. https, no proxy in between that moves it).",
      { endpoint, status, retryable: false, locationOrigin: origin, crossOrigin },
    );
  }

  #accept<S extends z.ZodType>(
    spec: RequestSpec<S>,
    endpoint: string,
    status: number,
    text: string,
  ): ApiResult<z.output<S>> {
    const raw = redactToken(text, this.#token);
    let parsed: unknown;
    try {
      parsed = parseJson(raw);
    } catch (err) {
      if (err instanceof JsonDepthError) {
        // Deterministic garbage, not a transfer accident: asking again gets the same body.
        throw new ApiMalformedBodyError(`${endpoint}: response body is not usable JSON: ${err.message}`, {
          endpoint,
          status,
          retryable: false,
          problem: 'too-deep',
          bodyExcerpt: bodyExcerptOf(raw, this.#token),
        });
      }
      // A 2xx body that is not JSON is, in practice, a body cut short by the transport (or a proxy's page):
      // retrying a read is cheap and usually works. A trailing comma (seen in the service's own docs) lands here
      // too rather than being silently repaired.
      const syntax = raw.length === 0 ? undefined : jsonSyntaxProblem(raw);
      throw new ApiMalformedBodyError(
        `${endpoint}: response body is not valid JSON (${syntax === undefined ? `empty body with status ${status}` : syntax.text}); ` +
          `starts with: ${bodyExcerptOf(raw, this.#token, 120)}`,
        {
          endpoint,
          status,
          retryable: true,
          problem: syntax === undefined ? 'empty' : syntax.truncated ? 'truncated' : 'syntax',
          bodyExcerpt: bodyExcerptOf(raw, this.#token),
        },
      );
    }
    spec.inspect?.(parsed, endpoint);
    const data = validateWith(spec.schema, parsed, { endpoint, side: 'response', status, token: this.#token });
    return { data, raw, endpoint, status, receivedAt: new Date() };
  }

  #httpError(endpoint: string, status: number, body: string, url: URL): ScraperApiError {
    const said = serverMessage(body, this.#token);
    const bodyExcerpt = bodyExcerptOf(body, this.#token);
    const base = { endpoint, status, bodyExcerpt };
    switch (status) {
      case 401:
        return new ApiUnauthorizedError(
          `${endpoint}: 401 Unauthorized (server said: ${said}). The API token was missing or rejected: check ` +
            'SCRAPER_API_TOKEN, and create or copy a valid token in the API Tokens section of the console profile page.',
          { ...base, retryable: false },
        );
      case 403:
        return new ApiHttpError(
          `${endpoint}: 403 Forbidden (server said: ${said}). The token is valid but not allowed to do this: ` +
            "check the account's access in the console, or use a token of the account that owns the resource.",
          { ...base, retryable: false },
        );
      case 404:
        return new ApiHttpError(
          `${endpoint}: 404 Not Found (server said: ${said}). Check the path and id (${url.pathname}) and that ` +
            `SCRAPER_BASE_URL (${this.baseUrl}) points at the scraping service.`,
          { ...base, retryable: false },
        );
      case 400:
      case 422:
        return new ApiHttpError(
          `${endpoint}: ${status} ${status === 400 ? 'Bad Request' : 'Unprocessable Content'}: the service rejected ` +
            `the request: ${said}. Fix the request fields named there.`,
          { ...base, retryable: false },
        );
      default: {
        const retryable = status === 408 || status === 429 || status >= 500;
        const label = status === 429 ? 'rate limited' : status >= 500 ? 'server error' : 'unexpected status';
        return new ApiHttpError(`${endpoint}: ${status} ${label} (server said: ${said})`, { ...base, retryable });
      }
    }
  }
}

/**
 * Where and what the syntax error is, the same on every Node version (V8's JSON.parse message quotes chunks
 * of the body and changed wording between releases). lossless-json reports `... at position N`.
 */
function jsonSyntaxProblem(text: string): { text: string; truncated: boolean } {
  try {
    losslessParse(text);
  } catch (err) {
    const pos = /position (\d+)/.exec((err as Error).message);
    const at = pos ? Number(pos[1]) : undefined;
    const what = (err as Error).message.replace(/\s+/g, ' ').slice(0, 120);
    if (at === undefined) return { text: what, truncated: false };
    const before = text.slice(0, at);
    const line = before.split('\n').length;
    const column = at - before.lastIndexOf('\n');
    const truncated = at >= text.length;
    return {
      text: `${what} (line ${line}, column ${column}${truncated ? ', body ends early: truncated?' : ''})`,
      truncated,
    };
  }
  return { text: 'unexpected parse failure', truncated: false };
}

/**
 * Whether a retryable failure may have come after the service processed the request. The spec names no
 * failure statuses at all, so HTTP's own meanings decide: 408 (the server gave up waiting for the request) and
 * 429 (rate limited, RFC 6585) reject a request before it is processed; a 5xx may come from a server or gateway
 * that failed after creating the scraper (RFC 9110 promises nothing either way), so it is ambiguous. A network
 * error is unambiguous only when nothing can have been sent (connection refused, DNS). Timeouts, resets, and
 * empty, truncated or unparsable 2xx bodies (the request was processed, the answer lost) are ambiguous.
 */
function mayHaveBeenProcessed(failure: ScraperApiError): boolean {
  if (failure instanceof ApiNetworkError) return !failure.beforeRequestSent;
  if (failure instanceof ApiHttpError) return !(failure.status === 408 || failure.status === 429);
  return true;
}

/** Newer = later created_at (as an instant), then the higher id when the instants are equal or unreadable. */
function isNewer(a: ListScraper, b: ListScraper): boolean {
  const ta = Date.parse(a.created_at);
  const tb = Date.parse(b.created_at);
  if (!Number.isNaN(ta) && !Number.isNaN(tb) && ta !== tb) return ta > tb;
  return BigInt(a.id) > BigInt(b.id);
}

async function* uniqueById<T extends { id: Int64 }>(pages: AsyncGenerator<Page<T>>): AsyncGenerator<T> {
  const seen = new Set<string>();
  for await (const page of pages) {
    for (const item of page.items) {
      const key = String(item.id);
      if (seen.has(key)) continue;
      seen.add(key);
      yield item;
    }
  }
}
