// The one text form of an instant that every destination stores and exports alike. Postgres and DuckDB keep a
// `timestamptz` as microseconds and print it back in their own form, which the exports turn into ISO 8601 with at
// least milliseconds and no trailing zeros beyond them (export/cells.ts); SQLite keeps the text it is given. So the
// service's timestamps are written in that same form before any destination sees them: then SQLite's text, the
// other two's instants and every export of them are the same, and SQLite's text sorts as the instants do.

// A date and a time with seconds, `T` or a space between them, a fraction of any length, and a zone (Z, ±HH,
// ±HHMM, ±HH:MM). No zone is not an instant (a wall-clock time): it is not taken as one.
const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(Z|z|[+-]\d{2}(?::?\d{2})?)$/;

/** The earliest and latest instants all three destinations and JavaScript hold: years 0001 to 9999, in UTC. */
const MIN_MS = new Date(0).setUTCFullYear(1, 0, 1);
const MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * `text` as an ISO 8601 UTC instant in the stored form (`2022-11-20T11:54:52.000Z`, `…52.123456Z`: the fraction
 * to microseconds, at least three digits, no trailing zeros beyond them), or null when it is not a valid instant
 * (a day that does not exist, no zone, no seconds, not a date at all). Digits beyond microseconds are dropped, as
 * the databases' microsecond precision would.
 */
export function canonicalTimestamp(text: string): string | null {
  const m = ISO_INSTANT.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac = '', zone = 'Z'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (year < 1 || month < 1 || month > 12 || day < 1) return null;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null;
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear does not.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCDate() !== day) return null;
  date.setUTCHours(Number(h), Number(mi), Number(s), 0);
  let ms = date.getTime();
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const hours = Number(digits.slice(0, 2));
    const minutes = Number(digits.slice(2) || '0');
    if (hours > 23 || minutes > 59) return null;
    ms -= sign * (hours * 60 + minutes) * 60_000;
  }
  if (ms < MIN_MS || ms > MAX_MS) return null;
  const seconds = new Date(ms).toISOString().slice(0, 19);
  let fraction = frac.slice(0, 6).replace(/0+$/, '');
  if (fraction.length < 3) fraction = fraction.padEnd(3, '0');
  return `${seconds}.${fraction}Z`;
}
