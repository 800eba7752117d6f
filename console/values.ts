// Values as the three drivers return them (SQLite: bigint and text; Postgres: the server's text; DuckDB: JS values,
// bigint, Date-like objects), turned into what pages show and charts plot.

export function num(v: unknown): number | null {
  if (v === null || v === undefined || v === '') return null;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  const n = Number(String(v));
  return Number.isFinite(n) ? n : null;
}

/** Exact text of a value: ids beyond 2^53 stay as written. */
export function text(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') {
    if (v instanceof Uint8Array) return `\\x${Buffer.from(v).toString('hex')}`;
    return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
  }
  return String(v);
}

/**
 * A time as ISO 8601 UTC, from SQLite's ISO text, Postgres's `2026-01-02 03:04:05.678+00` or a DuckDB value;
 * null when it is none of these.
 */
export function isoTime(v: unknown): string | null {
  const ms = timeMs(v);
  return ms === null ? null : new Date(ms).toISOString();
}

export function timeMs(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.getTime();
  const s = String(v).trim();
  if (s === '') return null;
  // Postgres text: space instead of T and a zone like +00 or +05:30.
  const normal = s.replace(/^(\d{4}-\d\d-\d\d) /, '$1T').replace(/([+-]\d\d)$/, '$1:00');
  const ms = Date.parse(normal);
  return Number.isNaN(ms) ? null : ms;
}

/** "3 min", "2 h", "5 d": the age of a time, for freshness. */
export function ageText(ms: number | null, now = Date.now()): string {
  if (ms === null) return '—';
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 90) return `${s} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  if (s < 36 * 3600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}

export function durationText(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 60_000)} min`;
}

export function intText(n: number | null): string {
  return n === null ? '—' : n.toLocaleString('en-US');
}
