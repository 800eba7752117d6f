// Fault injection: rates drawn from a seeded stream (reproducible for the same request sequence), per-run
// fates keyed by run id, and a scripted queue for exact tests. Faults never touch `/_sim/*`.
import { Rng, hash32, keyOf, unitFor } from './random.js';
import type { RunFate } from './state.js';

export interface FaultConfig {
  /** Delay before every /api response, in ms. */
  latencyMs: number;
  /** Share of /api requests answered 500/502/503 (not processed). */
  errorRate: number;
  /** Share of /api requests answered 429 with Retry-After (not processed). */
  rateLimitRate: number;
  /** Retry-After seconds sent with a 429. */
  retryAfterSeconds: number;
  /** Share of /api 200 responses whose JSON violates the schema (processed; a required field removed or mistyped). */
  malformedRate: number;
  /** Share of /api 200 responses whose body is cut short (processed; Content-Length matches the cut body). */
  truncatedRate: number;
  /**
   * Share of /api 200 responses whose connection drops mid-body (processed; Content-Length announces the whole
   * body, half of it is sent, then the socket is destroyed): a transfer truncated by the network rather than by
   * the server. Decided by the same draw as truncatedRate (the slice after it) and cut without a draw, so
   * enabling it does not shift the seeded stream of the other faults; with truncatedRate + droppedRate above 1,
   * dropped gets what is left.
   */
  droppedRate: number;
  /** Share of new scraping runs that end in 'failed' (no results). */
  runFailureRate: number;
  /** Share of new scraping runs that stay 'running' forever. */
  runHangRate: number;
}

export const DEFAULT_FAULTS: FaultConfig = {
  latencyMs: 0,
  errorRate: 0,
  rateLimitRate: 0,
  retryAfterSeconds: 1,
  malformedRate: 0,
  truncatedRate: 0,
  droppedRate: 0,
  runFailureRate: 0,
  runHangRate: 0,
};

const RATE_KEYS = [
  'errorRate',
  'rateLimitRate',
  'malformedRate',
  'truncatedRate',
  'droppedRate',
  'runFailureRate',
  'runHangRate',
] as const;

/** Checks a partial config (from code, a flag or POST /_sim/faults); returns error messages keyed by field. */
export function checkFaults(
  partial: unknown,
): { ok: true; value: Partial<FaultConfig> } | { ok: false; errors: Record<string, string[]> } {
  if (typeof partial !== 'object' || partial === null || Array.isArray(partial)) {
    return { ok: false, errors: { faults: ['must be a JSON object of fault settings'] } };
  }
  const errors: Record<string, string[]> = {};
  const value: Partial<FaultConfig> = {};
  for (const [key, raw] of Object.entries(partial)) {
    if (!(key in DEFAULT_FAULTS)) {
      errors[key] = [`unknown fault setting; expected one of ${Object.keys(DEFAULT_FAULTS).join(', ')}`];
      continue;
    }
    if (typeof raw !== 'number' || !Number.isFinite(raw)) {
      errors[key] = ['must be a finite number'];
      continue;
    }
    if ((RATE_KEYS as readonly string[]).includes(key) && (raw < 0 || raw > 1))
      errors[key] = ['must be between 0 and 1'];
    else if (raw < 0) errors[key] = ['must be 0 or more'];
    else value[key as keyof FaultConfig] = raw;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value };
}

export type ScriptedFault =
  | { status: number; retryAfterSeconds?: number; body?: unknown }
  | { kind: 'truncated' | 'dropped' | 'malformed' | 'reset' }
  | { kind: 'delay'; ms: number };

export interface ScriptedMatch {
  /** Exact pathname, or a prefix ending at a '/' boundary (`/api/scraping-runs` matches `/api/scraping-runs/7`). */
  path?: string;
  method?: string;
}

/** What to do with one request; `delayMs` is added to the configured latency. */
export interface FaultDecision {
  status?: { code: number; retryAfterSeconds?: number; body?: unknown };
  body?: 'truncated' | 'dropped' | 'malformed';
  reset?: boolean;
  delayMs: number;
  source: 'none' | 'scripted' | 'random';
}

function pathMatches(pattern: string, pathname: string): boolean {
  if (pathname === pattern) return true;
  const prefix = pattern.endsWith('/') ? pattern : `${pattern}/`;
  return pathname.startsWith(prefix);
}

export class FaultEngine {
  private config: FaultConfig;
  private readonly stream: Rng;
  private queue: Array<{ fault: ScriptedFault; match: ScriptedMatch }> = [];

  constructor(
    private readonly seed: number,
    initial: Partial<FaultConfig> = {},
  ) {
    this.config = { ...DEFAULT_FAULTS, ...initial };
    this.stream = new Rng(hash32(keyOf(seed, ['fault-stream'])));
  }

  get current(): FaultConfig {
    return { ...this.config };
  }

  set(partial: Partial<FaultConfig>): void {
    const checked = checkFaults(partial);
    if (!checked.ok) {
      const detail = Object.entries(checked.errors)
        .map(([k, v]) => `${k}: ${v.join('; ')}`)
        .join(', ');
      throw new Error(`invalid fault settings: ${detail}`);
    }
    this.config = { ...this.config, ...checked.value };
  }

  /** Back to no faults and an empty queue. */
  clear(): void {
    this.config = { ...DEFAULT_FAULTS };
    this.queue = [];
  }

  enqueue(faults: ScriptedFault[], match: ScriptedMatch = {}): void {
    for (const fault of faults) {
      if ('status' in fault && (!Number.isInteger(fault.status) || fault.status < 100 || fault.status > 599)) {
        throw new Error(`scripted fault status must be an HTTP status code (100-599), got ${String(fault.status)}`);
      }
      if (!('status' in fault) && !['truncated', 'dropped', 'malformed', 'reset', 'delay'].includes(fault.kind)) {
        throw new Error(
          `scripted fault kind must be truncated, dropped, malformed, reset or delay, got ${String(fault.kind)}`,
        );
      }
      this.queue.push({ fault, match: { ...match } });
    }
  }

  pendingScripted(): number {
    return this.queue.length;
  }

  /** Decides the fate of one /api request: the first matching scripted fault, else the seeded rates. */
  decide(method: string, pathname: string): FaultDecision {
    const latency = this.config.latencyMs;
    const idx = this.queue.findIndex(
      (q) =>
        (q.match.path === undefined || pathMatches(q.match.path, pathname)) &&
        (q.match.method === undefined || q.match.method.toUpperCase() === method),
    );
    if (idx >= 0) {
      const { fault } = this.queue.splice(idx, 1)[0] as { fault: ScriptedFault };
      if ('status' in fault) {
        const status: NonNullable<FaultDecision['status']> = { code: fault.status };
        if (fault.retryAfterSeconds !== undefined) status.retryAfterSeconds = fault.retryAfterSeconds;
        else if (fault.status === 429) status.retryAfterSeconds = this.config.retryAfterSeconds;
        if (fault.body !== undefined) status.body = fault.body;
        return { status, delayMs: latency, source: 'scripted' };
      }
      if (fault.kind === 'delay') return { delayMs: latency + fault.ms, source: 'scripted' };
      if (fault.kind === 'reset') return { reset: true, delayMs: latency, source: 'scripted' };
      return { body: fault.kind, delayMs: latency, source: 'scripted' };
    }
    // One draw per knob per request keeps the stream aligned whatever the rates are.
    const [e, r, m, t, pick] = [
      this.stream.next(),
      this.stream.next(),
      this.stream.next(),
      this.stream.next(),
      this.stream.next(),
    ];
    const c = this.config;
    if (e < c.errorRate)
      return { status: { code: [500, 502, 503][Math.floor(pick * 3)] ?? 503 }, delayMs: latency, source: 'random' };
    if (r < c.rateLimitRate)
      return { status: { code: 429, retryAfterSeconds: c.retryAfterSeconds }, delayMs: latency, source: 'random' };
    if (m < c.malformedRate) return { body: 'malformed', delayMs: latency, source: 'random' };
    if (t < c.truncatedRate) return { body: 'truncated', delayMs: latency, source: 'random' };
    if (t < c.truncatedRate + c.droppedRate) return { body: 'dropped', delayMs: latency, source: 'random' };
    return { delayMs: latency, source: 'none' };
  }

  /** A run's fate is keyed by its id, so the same sequence of creations gives the same fates. */
  runFate(runId: number): RunFate {
    const u = unitFor(this.seed, 'run-fate', runId);
    if (u < this.config.runHangRate) return 'hang';
    if (u < this.config.runHangRate + this.config.runFailureRate) return 'fail';
    return 'succeed';
  }

  /** Where to cut a truncated body: 20%..80% of its length, at least one byte short. */
  cutPoint(length: number): number {
    const at = Math.floor(length * (0.2 + this.stream.next() * 0.6));
    return Math.max(0, Math.min(at, length - 1));
  }

  pick(n: number): number {
    return Math.floor(this.stream.next() * n);
  }
}

export const ERROR_BODIES: Record<number, { message: string }> = {
  429: { message: 'Too Many Attempts.' },
  500: { message: 'Server Error' },
  502: { message: 'Bad Gateway' },
  503: { message: 'Service Unavailable' },
};

type Mutable = Record<string, unknown>;

/**
 * Breaks a response so that it is still valid JSON but violates the contract: removes a required field or
 * gives it a wrong type. Candidates are fields every client must rely on (ids, statuses, lists), never
 * observed-null ones, so the violation is always detectable. Returns a description for the X-Sim-Fault header.
 */
export function malform(body: unknown, choose: (n: number) => number): string {
  const candidates: Array<{ path: string; apply: () => void }> = [];
  const add = (obj: unknown, key: string, path: string): void => {
    if (typeof obj !== 'object' || obj === null || !(key in obj)) return;
    const o = obj as Mutable;
    candidates.push({ path: `delete ${path}`, apply: () => void delete o[key] });
    candidates.push({
      path: `mistype ${path}`,
      apply: () => {
        const v = o[key];
        o[key] =
          typeof v === 'string'
            ? 12345
            : typeof v === 'number' || typeof v === 'boolean'
              ? `not-a-${typeof v}`
              : Array.isArray(v)
                ? { not: 'an array' }
                : 'not-an-object';
      },
    });
  };
  const b = body as Mutable;
  if (typeof b !== 'object' || b === null) return 'none';
  if ('result' in b) {
    add(b, 'result', 'result');
    add(b, 'tokenUsage', 'tokenUsage');
  } else if ('scraper' in b && 'results' in b) {
    add(b, 'scraper', 'scraper');
    add(b['scraper'], 'id', 'scraper.id');
    add(b, 'results', 'results');
    const first = (b['results'] as unknown[])[0];
    add(first, 'scraping_run_id', 'results.0.scraping_run_id');
  } else if ('success' in b) {
    add(b, 'success', 'success');
    const item = ((b['data'] as Mutable | undefined)?.['data'] as Mutable | undefined)?.['item'] as Mutable | undefined;
    add(item, 'item_id', 'data.data.item.item_id');
    add(item, 'models', 'data.data.item.models');
    add(item, 'price', 'data.data.item.price');
  } else if (Array.isArray(b['data'])) {
    add(b, 'data', 'data');
    const first = (b['data'] as unknown[])[0];
    add(first, 'id', 'data.0.id');
    add(first, 'created_at', 'data.0.created_at');
  } else if (typeof b['data'] === 'object') {
    add(b['data'], 'id', 'data.id');
    add(b['data'], 'status', 'data.status');
    add(b['data'], 'results', 'data.results');
  }
  if (candidates.length === 0) return 'none';
  const c = candidates[choose(candidates.length)] as { path: string; apply: () => void };
  c.apply();
  return c.path;
}
