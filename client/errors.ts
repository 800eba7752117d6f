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

/** A 2xx response whose body is not JSON at all (truncated, HTML error page, trailing comma, ...). */
export class ApiMalformedBodyError extends ScraperApiError {
  readonly bodyExcerpt: string;
  constructor(message: string, opts: ScraperApiErrorOptions & { bodyExcerpt: string }) {
    super(message, opts);
    this.bodyExcerpt = opts.bodyExcerpt;
  }
}

/** Connection refused/reset, DNS failure, socket closed mid-body. */
export class ApiNetworkError extends ScraperApiError {}

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
