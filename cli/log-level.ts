// The level of the command's logs (cli/logger.ts), apart from pino: a command that logs nothing at that level
// (status, schedule list without -v) need not load the logger at all (bench/startup.ts).
import { settingsFor } from '../settings/process.js';
import type { Env } from '../settings/settings.js';

const LEVELS: Record<string, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Infinity,
};

/** -v shows debug; else SCRAPE_ETL_LOG_LEVEL; else warnings and errors only. */
export function logLevel(opts: { verbose?: boolean; env?: Env } = {}): string {
  return opts.verbose ? 'debug' : settingsFor(opts.env).logLevel;
}

/** Whether lines of `level` are written at the command's level (an unknown configured level: yes, pino decides). */
export function logsAt(
  level: 'trace' | 'debug' | 'info' | 'warn' | 'error',
  opts: { verbose?: boolean; env?: Env } = {},
): boolean {
  const configured = LEVELS[logLevel(opts)];
  return configured === undefined || LEVELS[level]! >= configured;
}
