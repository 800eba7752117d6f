// Timestamps compared as instants. The service's timestamps are typed columns (timestamptz in Postgres and DuckDB,
// ISO 8601 UTC text in SQLite): a destination gives them back as a Date, in its own text (`2026-11-23
// 10:00:00.123456+00`) or in the loader's form, while the simulator's truth spells them as the service sent them
// (`2026-11-23T10:00:00.123456Z`). Tests that hold a destination against that truth read and compare both sides
// through this module, so "the same value" keeps meaning the same instant to the microsecond.
import { canonicalTimestamp } from '../../lib/iso-timestamp.js';
import { quoteIdent } from '../../lib/quote-ident.js';

/**
 * A select expression reading timestamp column `column` as text at full precision on every destination: Postgres
 * and DuckDB print microseconds and the session's offset (a Date would stop at milliseconds); SQLite has the text.
 */
export function instantSql(column: string): string {
  return `CAST(${quoteIdent(column)} AS TEXT)`;
}

/**
 * Any spelling of an instant in one form (lib/iso-timestamp.ts's: UTC, microseconds when there are any): two values
 * are the same instant exactly when these are equal. A text that is not an instant is returned marked as such, so
 * it never equals one (the loader stores NULL for it: compare with `instantOf(truth) ?? null`).
 */
export function instantOf(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return canonicalTimestamp(v.toISOString());
  const text = String(v);
  return canonicalTimestamp(text) ?? `not an instant: ${text}`;
}

/** What the loader stores for a timestamp the service sent (NULL for a text that is not an instant), as instantOf. */
export function storedInstantOf(sent: unknown): string | null {
  return typeof sent === 'string' ? canonicalTimestamp(sent) : null;
}
