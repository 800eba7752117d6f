/**
 * Typed errors of the scraping-service client. Every error carries the endpoint (`METHOD /path`), the HTTP
 * status when there was a response, and whether retrying can help. None of them holds the request, its
 * headers or the token: messages are built from redacted text only.
 */

export interface ScraperApiErrorOptions {
  endpoint: string;
  status?: number;
  retryable: boolean;
  cause?: unknown;
}

export class ScraperApiError extends Error {
  readonly endpoint: string;
  readonly status?: number;
  readonly retryable: boolean;
  /**
   * True only on ApiAmbiguousError: a non-idempotent request (create-and-run) may have been processed although
   * no usable answer came back. A caller must look the result up before sending the request again.
   */
  readonly ambiguous: boolean = false;

  constructor(message: string, opts: ScraperApiErrorOptions) {
    // `cause` is installed as a non-enumerable property by Error itself, so JSON.stringify never walks it.
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.endpoint = opts.endpoint;
    if (opts.status !== undefined) this.status = opts.status;
    this.retryable = opts.retryable;
  }
}

/** A non-2xx response not covered by a more specific class (403, 404, 409, 422, 429, 5xx, ...). */
export class ApiHttpError extends ScraperApiError {
  /** Short excerpt of the response body, with the token redacted. */
  readonly bodyExcerpt: string;
  constructor(message: string, opts: ScraperApiErrorOptions & { status: number; bodyExcerpt: string }) {
    super(message, opts);
    this.bodyExcerpt = opts.bodyExcerpt;
  }
}

/** 401: the token is missing, wrong or revoked. Never retried. */
export class ApiUnauthorizedError extends ApiHttpError {}

export interface ValidationIssue {
  /** JSON path in the body, e.g. `data.data.item.models[3].price` (empty string for the root). */
  path: string;
  message: string;
}

/** A request or response body that does not follow the contract (missing field, wrong type, broken rule). */
export class ApiValidationError extends ScraperApiError {
  /** Path of the first issue. */
  readonly path: string;
  readonly issues: ValidationIssue[];
  readonly side: 'request' | 'response';
  constructor(
    message: string,
    opts: ScraperApiErrorOptions & { path: string; issues: ValidationIssue[]; side: 'request' | 'response' },
  ) {
    super(message, opts);
    this.path = opts.path;
    this.issues = opts.issues;
    this.side = opts.side;
  }
}

/**
 * What is wrong with a body that is not usable JSON: `empty` (no bytes at all), `truncated` (valid JSON up to
 * where it stops), `syntax` (broken elsewhere: HTML page, trailing comma), `too-deep` (nested beyond the parse
 * limit, see MAX_JSON_DEPTH). Lets a caller tell a malformed answer from a run that is still running.
 */
export type MalformedBodyProblem = 'empty' | 'truncated' | 'syntax' | 'too-deep';

/** A 2xx response whose body is not JSON at all (truncated, empty, HTML error page, trailing comma, too deep). */
export class ApiMalformedBodyError extends ScraperApiError {
  readonly bodyExcerpt: string;
  readonly problem: MalformedBodyProblem;
  constructor(message: string, opts: ScraperApiErrorOptions & { bodyExcerpt: string; problem: MalformedBodyProblem }) {
    super(message, opts);
    this.bodyExcerpt = opts.bodyExcerpt;
    this.problem = opts.problem;
  }
}

/** Connection refused/reset, DNS failure, socket closed mid-body. */
export class ApiNetworkError extends ScraperApiError {
  /** The system or undici error code, e.g. ECONNREFUSED, ECONNRESET, UND_ERR_SOCKET, when there is one. */
  readonly code?: string;
  /**
   * True when the failure happened before any byte of the request can have reached the service (connection
   * refused, DNS failure, connect timeout): re-sending even a create is then safe.
   */
  readonly beforeRequestSent: boolean;
  constructor(message: string, opts: ScraperApiErrorOptions & { code?: string; beforeRequestSent: boolean }) {
    super(message, opts);
    if (opts.code !== undefined) this.code = opts.code;
    this.beforeRequestSent = opts.beforeRequestSent;
  }
}

/**
 * A 3xx answer. Redirects are never followed: following one would send the request (and for a same-origin
 * hop the token) somewhere the configuration did not name, and fetch turns a redirected POST into a GET whose
 * answer says nothing about the create. Never retried. Only the Location's origin is kept, never its path or
 * query (which could carry anything, the token included).
 */
export class ApiRedirectError extends ScraperApiError {
  /** Origin (scheme://host:port) of the Location header; undefined when there was no usable Location. */
  readonly locationOrigin?: string;
  /** Whether the Location points at another origin than the request; undefined without a usable Location. */
  readonly crossOrigin?: boolean;
  constructor(
    message: string,
    opts: ScraperApiErrorOptions & { status: number; locationOrigin?: string; crossOrigin?: boolean },
  ) {
    super(message, opts);
    if (opts.locationOrigin !== undefined) this.locationOrigin = opts.locationOrigin;
    if (opts.crossOrigin !== undefined) this.crossOrigin = opts.crossOrigin;
  }
}

/** A response body larger than the client's cap (`maxResponseBytes` / SCRAPER_MAX_RESPONSE_BYTES). Never retried. */
export class ApiResponseTooLargeError extends ScraperApiError {
  readonly limitBytes: number;
  /** Bytes read before stopping (more than the limit), or the declared Content-Length when that was already over. */
  readonly receivedBytes: number;
  /** The Content-Length the server declared, if any. */
  readonly declaredBytes?: number;
  constructor(
    message: string,
    opts: ScraperApiErrorOptions & { limitBytes: number; receivedBytes: number; declaredBytes?: number },
  ) {
    super(message, opts);
    this.limitBytes = opts.limitBytes;
    this.receivedBytes = opts.receivedBytes;
    if (opts.declaredBytes !== undefined) this.declaredBytes = opts.declaredBytes;
  }
}

/**
 * A non-idempotent request (one of the three create-and-run POSTs) failed in a way that leaves its outcome
 * unknown: per-attempt timeout, connection reset, a 5xx, an empty, truncated or unparsable 2xx. The service
 * may have created the scraper. The client does not re-send it by itself: the caller looks the scraper up by
 * its name (`ScraperClient.findScraperByName`) and adopts it, or sends the create again when none exists.
 * `retryable` is true (the operation can be completed), `ambiguous` is true; `underlying` is the error of the
 * attempt (also `cause`).
 */
export class ApiAmbiguousError extends ScraperApiError {
  override readonly ambiguous = true;
  /** Attempts made by this call, the ambiguous one included. */
  readonly attempts: number;
  constructor(
    message: string,
    opts: Omit<ScraperApiErrorOptions, 'retryable' | 'cause'> & { attempts: number; cause: ScraperApiError },
  ) {
    super(message, { ...opts, retryable: true });
    this.attempts = opts.attempts;
  }
  /** The failure of the ambiguous attempt (a getter, so JSON.stringify does not walk it, like `cause`). */
  get underlying(): ScraperApiError {
    return this.cause as ScraperApiError;
  }
}

/** A list whose pages do not advance (a page holding only items already seen), so a full scan cannot end. Never retried. */
export class ApiPagingError extends ScraperApiError {
  readonly page: number;
  constructor(message: string, opts: ScraperApiErrorOptions & { page: number }) {
    super(message, opts);
    this.page = opts.page;
  }
}

/** The per-request timeout elapsed (not the caller's own cancellation, which rethrows the caller's reason). */
export class ApiTimeoutError extends ScraperApiError {
  readonly timeoutMs: number;
  constructor(message: string, opts: ScraperApiErrorOptions & { timeoutMs: number }) {
    super(message, opts);
    this.timeoutMs = opts.timeoutMs;
  }
}

/** Bad client configuration: missing token, non-https base URL, invalid option. */
export class ApiConfigError extends ScraperApiError {
  constructor(message: string) {
    super(message, { endpoint: 'config', retryable: false });
  }
}

const REDACTED = '[REDACTED]';

/** Replaces every occurrence of the token (and its Bearer form) in text. Tokens shorter than 4 chars are not searched. */
export function redactToken(text: string, token: string | undefined): string {
  if (!token || token.length < 4) return text;
  return text.split(token).join(REDACTED);
}

/** First `max` characters of a body, redacted, with control characters made visible, for messages. */
export function bodyExcerptOf(body: string, token: string | undefined, max = 300): string {
  const redacted = redactToken(body, token);
  const cut = redacted.length > max ? `${redacted.slice(0, max)}…(${redacted.length} chars)` : redacted;
  return cut.replace(/[\r\n\t]+/g, ' ');
}

/** A 200 marketplace response with `success: false`: the service could not scrape the product URL. */
export class ApiScrapeFailedError extends ScraperApiError {
  readonly serviceMessage: string;
  constructor(message: string, opts: ScraperApiErrorOptions & { serviceMessage: string }) {
    super(message, opts);
    this.serviceMessage = opts.serviceMessage;
  }
}
