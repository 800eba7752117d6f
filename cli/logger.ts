/**
 * Structured logs (pino, to stderr so stdout stays for command output and --json). Quiet by default: warnings
 * and errors only; `verbose` shows debug. The API token is redacted twice: by path (fields named like a
 * secret) and by value (any string that contains the current token, wherever it sits, message included).
 */
import { pino } from 'pino';
import type { Logger } from 'pino';
import { logLevel } from './log-level.js';
import { settingsFor } from '../settings/process.js';
import type { Env } from '../settings/settings.js';

export type { Logger };

const SECRET_PATHS = [
  'token',
  'apiToken',
  'api_token',
  'authorization',
  'Authorization',
  'headers.authorization',
  'headers.Authorization',
  '*.token',
  '*.apiToken',
  '*.authorization',
  '*.headers.authorization',
  '*.headers.Authorization',
];

export const REDACTED = '[redacted]';

/** The secrets of these settings (read at each line: `demo` replaces the token after the logger exists). */
function secretValues(env: Env | undefined): string[] {
  const token = settingsFor(env).scraperApiToken;
  return token !== undefined && token.length >= 4 ? [token] : [];
}

/** Copy of `value` with every occurrence of a secret replaced; objects are walked (cycles kept as is). */
export function redactValue(value: unknown, secrets: readonly string[], seen = new WeakSet<object>()): unknown {
  if (secrets.length === 0) return value;
  if (typeof value === 'string') return secrets.reduce((s, secret) => s.split(secret).join(REDACTED), value);
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return value;
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, secrets, seen));
  if (value instanceof Error) {
    return {
      type: value.name,
      message: redactValue(value.message, secrets, seen),
      stack: redactValue(value.stack, secrets, seen),
    };
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactValue(v, secrets, seen)]));
}

export interface LoggerOptions {
  verbose?: boolean;
  env?: Env;
  /** Where lines go; default stderr. */
  destination?: NodeJS.WritableStream;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const env = opts.env;
  const level = logLevel(opts.verbose ? { verbose: true, env } : { env });
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: SECRET_PATHS, censor: REDACTED },
      formatters: { log: (obj) => redactValue(obj, secretValues(env)) as Record<string, unknown> },
      hooks: {
        logMethod(args, method) {
          const secrets = secretValues(env);
          method.apply(this, args.map((a) => redactValue(a, secrets)) as Parameters<typeof method>);
        },
      },
    },
    (opts.destination as pino.DestinationStream | undefined) ?? pino.destination(2),
  );
}
