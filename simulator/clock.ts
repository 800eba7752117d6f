import { unitFor } from './random.js';

/**
 * The service's timestamp format: ISO 8601 with microseconds and `Z` (`2026-11-23T10:00:00.123456Z`).
 * JavaScript clocks stop at milliseconds, so the last three digits come from a hash of what is being
 * stamped: stable for the same record, and not always `000` (which would hide parsers that drop them).
 */
export function formatTimestamp(ms: number, seed: number, ...what: Array<string | number>): string {
  const iso = new Date(ms).toISOString(); // 2026-11-23T10:00:00.123Z
  const micros = Math.floor(unitFor(seed, 'micros', ...what) * 1000)
    .toString()
    .padStart(3, '0');
  return `${iso.slice(0, -1)}${micros}Z`;
}
