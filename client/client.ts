import { z } from 'zod';
import {
  ApiConfigError,
  ApiHttpError,
  ApiMalformedBodyError,
  ApiNetworkError,
  ApiScrapeFailedError,
  ApiTimeoutError,
  ApiUnauthorizedError,
  ScraperApiError,
  bodyExcerptOf,
  redactToken,
} from './errors.js';
import { parse as losslessParse } from 'lossless-json';
import { parseJson, stringifyJson } from './json.js';
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

export interface ScraperClientOptions {
  /** Default env SCRAPER_BASE_URL; https required unless the host is loopback. */
  baseUrl?: string;
  /** Default env SCRAPER_API_TOKEN. */
  token?: string;
  /** Per attempt, covering connection, headers and body. Default 30 000. */
  timeoutMs?: number;
  retry?: {
    /** Total attempts including the first. Default 5. */
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
  /** For tests and custom agents; default globalThis.fetch (undici, keep-alive). */
  fetch?: typeof fetch;
  /** Default process.env. */
  env?: Record<string, string | undefined>;
}

export interface CallOptions {
  signal?: AbortSignal;
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
    throw new ApiConfigError(`SCRAPER_BASE_URL is not an absolute URL: '${raw}' (expected e.g. https://api.example.com)`);
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

function causeText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return `${err.message} (${typeof code === 'string' ? `${code}: ` : ''}${cause.message})`;
  }
  return err.message;
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
  readonly retry: Required<NonNullable<ScraperClientOptions['retry']>>;
  // A true private field: not enumerable, not in JSON.stringify, not shown by util.inspect.
  readonly #token: string;
  readonly #logger: ScraperClientOptions['logger'];
  readonly #onRetry: ScraperClientOptions['onRetry'];
  readonly #fetch: typeof fetch;

  constructor(opts: ScraperClientOptions = {}) {
    const env = opts.env ?? process.env;
    const base = opts.baseUrl ?? env.SCRAPER_BASE_URL;
    if (!base) {
      throw new ApiConfigError('no scraping-service base URL: set SCRAPER_BASE_URL (e.g. https://api.example.com) or pass baseUrl');
    }
    const url = checkBaseUrl(base);
    this.baseUrl = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;

    const token = opts.token ?? env.SCRAPER_API_TOKEN;
    if (token === undefined || token.trim() === '') {
      throw new ApiConfigError(
        'no API token: set SCRAPER_API_TOKEN (copy it from the API Tokens section of the console profile page) or pass token',
      );
    }
    if (/[\s\x00-\x1f\x7f]/.test(token)) {
      throw new ApiConfigError('SCRAPER_API_TOKEN contains whitespace or control characters; copy the token again without them');
    }
    this.#token = token;

    this.timeoutMs = opts.timeoutMs ?? DEFAULTS.timeoutMs;
    this.retry = {
      maxAttempts: opts.retry?.maxAttempts ?? DEFAULTS.maxAttempts,
      baseDelayMs: opts.retry?.baseDelayMs ?? DEFAULTS.baseDelayMs,
      maxDelayMs: opts.retry?.maxDelayMs ?? DEFAULTS.maxDelayMs,
      maxRetryAfterMs: opts.retry?.maxRetryAfterMs ?? DEFAULTS.maxRetryAfterMs,
    };
    for (const [name, value] of Object.entries({ timeoutMs: this.timeoutMs, ...this.retry })) {
      if (!Number.isFinite(value) || value < 0 || (name === 'maxAttempts' && (value < 1 || !Number.isInteger(value)))) {
        throw new ApiConfigError(`client option ${name} must be a ${name === 'maxAttempts' ? 'positive integer' : 'non-negative number'}, got ${value}`);
      }
    }
    this.#logger = opts.logger;
    this.#onRetry = opts.onRetry;
    this.#fetch = opts.fetch ?? globalThis.fetch;
  }

  // Keeps util.inspect / console.log output free of private state, and explicit about it.
  toJSON(): object {
    return { baseUrl: this.baseUrl, timeoutMs: this.timeoutMs, retry: this.retry };
  }

  // ----------------------------------------------------------------------------------------------- endpoints

  async jobBoardScrape(req: JobBoardRequest, o: CallOptions = {}): Promise<ApiResult<JobBoardResponse>> {
    const endpoint = 'POST /api/job-board-scrape';
    const body = validateWith(jobBoardRequestSchema, req, { endpoint, side: 'request' });
    // The records follow the data schema this call sent, so they are checked against it, not a fixed shape.
    const schema = jobBoardResponseSchema.extend({ result: z.array(jobRecordSchemaFor(body.schema)) });
    return this.#call({ method: 'POST', path: '/api/job-board-scrape', body, schema }, o) as Promise<ApiResult<JobBoardResponse>>;
  }

  async createPdfScraper(req: PdfCreateRequest, o: CallOptions = {}): Promise<ApiResult<CreateAndRunResponse>> {
    const path = '/api/scrapers/pdf/create-and-run';
    const body = validateWith(pdfCreateRequestSchema, req, { endpoint: `POST ${path}`, side: 'request' });
    return this.#call({ method: 'POST', path, body, schema: createAndRunResponseSchema }, o);
  }

  async createLeadsSearchEngineScraper(
    req: LeadsSearchEngineRequest,
    o: CallOptions = {},
  ): Promise<ApiResult<CreateAndRunResponse>> {
    const path = '/api/scrapers/leads-generator/search-engine/create-and-run';
    const body = validateWith(leadsSearchEngineRequestSchema, req, { endpoint: `POST ${path}`, side: 'request' });
    return this.#call({ method: 'POST', path, body, schema: createAndRunResponseSchema }, o);
  }

  async createLeadsSocialScraper(req: LeadsSocialRequest, o: CallOptions = {}): Promise<ApiResult<CreateAndRunResponse>> {
    const path = '/api/scrapers/leads-generator/social/create-and-run';
    const body = validateWith(leadsSocialRequestSchema, req, { endpoint: `POST ${path}`, side: 'request' });
    return this.#call({ method: 'POST', path, body, schema: createAndRunResponseSchema }, o);
  }

  async marketplaceSync(req: MarketplaceSyncRequest, o: CallOptions = {}): Promise<ApiResult<MarketplaceResponse>> {
    const path = '/api/marketplace/sync';
    const body = validateWith(marketplaceSyncRequestSchema, req, { endpoint: `POST ${path}`, side: 'request' });
    const token = this.#token;
    return this.#call(
      {
        method: 'POST',
        path,
        body,
        schema: marketplaceResponseSchema,
        inspect: (parsed, endpoint) => {
          // A reported failure carries no product; say so instead of listing every missing product field.
          const p = parsed as { success?: unknown; message?: unknown; data?: { error_msg?: unknown; error?: unknown } | null };
          if (p && typeof p === 'object' && p.success === false) {
            const said = [p.message, p.data?.error_msg, p.data?.error].filter((x) => typeof x === 'string' && x !== '').join(' / ');
            const serviceMessage = redactToken(said || '(no message)', token);
            throw new ApiScrapeFailedError(
              `${endpoint}: the service could not scrape ${req.url}: ${serviceMessage}. Check that the URL is the marketplace's product-detail API with itemid and shopid.`,
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
    return this.#call({ method: 'GET', path: '/api/results', query, schema: resultsListResponseSchema }, o);
  }

  async listScrapers(q: PageQuery = {}, o: CallOptions = {}): Promise<ApiResult<ScrapersListResponse>> {
    const query = this.#pageQuery('GET /api/scrapers', q);
    return this.#call({ method: 'GET', path: '/api/scrapers', query, schema: scrapersListResponseSchema }, o);
  }

  async getScrapingRun(id: Int64, o: CallOptions = {}): Promise<ApiResult<ScrapingRunResponse>> {
    const runId = validateWith(int64.refine((v) => v > 0, 'must be a positive integer'), id, {
      endpoint: 'GET /api/scraping-runs/{scraping_run_id}',
      side: 'request',
    });
    return this.#call({ method: 'GET', path: `/api/scraping-runs/${runId.toString()}`, schema: scrapingRunResponseSchema }, o);
  }

  // ----------------------------------------------------------------------------------------------- paging

  /**
   * Pages of a list, from `startPage`, with the page number so a caller can resume. Stops after a short page
   * (fewer than perPage items) and on an empty page (which is not yielded).
   */
  pages(list: 'results', o?: PagesOptions): AsyncGenerator<Page<ResultRecord>>;
  pages(list: 'scrapers', o?: PagesOptions): AsyncGenerator<Page<ListScraper>>;
  pages(list: 'results' | 'scrapers', o?: PagesOptions): AsyncGenerator<Page<ResultRecord> | Page<ListScraper>>;
  async *pages(list: 'results' | 'scrapers', o: PagesOptions = {}): AsyncGenerator<Page<ResultRecord> | Page<ListScraper>> {
    const perPage = o.perPage ?? DEFAULTS.perPage;
    let page = o.startPage ?? 1;
    const call = o.signal ? { signal: o.signal } : {};
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
      Authorization: `Bearer ${this.#token}`,
      Accept: 'application/json',
    };
    let payload: string | undefined;
    if (spec.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      payload = stringifyJson(spec.body);
    }
    const callerSignal = o.signal;

    for (let attempt = 1; ; attempt++) {
      if (callerSignal?.aborted) throw callerSignal.reason;
      const started = Date.now();
      const timeout = AbortSignal.timeout(this.timeoutMs);
      const signal = callerSignal ? AbortSignal.any([callerSignal, timeout]) : timeout;

      let failure: ScraperApiError;
      let retryAfterMs: number | undefined;
      try {
        let status: number;
        let text: string;
        let retryAfterHeader: string | null;
        try {
          const res = await this.#fetch(url, { method: spec.method, headers, body: payload ?? null, signal });
          status = res.status;
          retryAfterHeader = res.headers.get('retry-after');
          // Always read the body to the end: an unread body pins the keep-alive socket.
          text = await res.text();
        } catch (err) {
          if (callerSignal?.aborted) throw callerSignal.reason;
          if (timeout.aborted) {
            throw new ApiTimeoutError(`${endpoint}: no complete response within ${this.timeoutMs} ms`, {
              endpoint,
              retryable: true,
              timeoutMs: this.timeoutMs,
            });
          }
          throw new ApiNetworkError(`${endpoint}: network error: ${redactToken(causeText(err), this.#token)}`, {
            endpoint,
            retryable: true,
            cause: err,
          });
        }
        this.#logger?.debug({ endpoint, attempt, status, durationMs: Date.now() - started, bytes: text.length }, 'scraper api response');
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
      if (attempt >= this.retry.maxAttempts) {
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

  #accept<S extends z.ZodType>(spec: RequestSpec<S>, endpoint: string, status: number, text: string): ApiResult<z.output<S>> {
    const raw = redactToken(text, this.#token);
    let parsed: unknown;
    try {
      parsed = parseJson(raw);
    } catch {
      // A 2xx body that is not JSON is, in practice, a body cut short by the transport (or a proxy's page):
      // retrying is cheap and usually works. A trailing comma (seen in the service's own docs) lands here
      // too rather than being silently repaired.
      throw new ApiMalformedBodyError(
        `${endpoint}: response body is not valid JSON (${raw.length === 0 ? 'empty body' : jsonSyntaxProblem(raw)}); ` +
          `starts with: ${bodyExcerptOf(raw, this.#token, 120)}`,
        { endpoint, status, retryable: true, bodyExcerpt: bodyExcerptOf(raw, this.#token) },
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
function jsonSyntaxProblem(text: string): string {
  try {
    losslessParse(text);
  } catch (err) {
    const pos = /position (\d+)/.exec((err as Error).message);
    const at = pos ? Number(pos[1]) : undefined;
    const what = (err as Error).message.replace(/\s+/g, ' ').slice(0, 120);
    if (at === undefined) return what;
    const before = text.slice(0, at);
    const line = before.split('\n').length;
    const column = at - before.lastIndexOf('\n');
    return `${what} (line ${line}, column ${column}${at >= text.length ? ', body ends early: truncated?' : ''})`;
  }
  return 'unexpected parse failure';
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
