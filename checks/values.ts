// Database values as checks and watches show them: plain JSON values (bigints that fit as numbers, dates as ISO
// text), percentages and ages as people read them.
export function num(v: unknown): number {
  return typeof v === 'bigint' ? Number(v) : Number(v ?? 0);
}

export function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (v instanceof Date) return v.toISOString();
  return v;
}

export function plainRow(r: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, plain(v)]));
}

/** '12.5%' → 12.5 */
export const pct = (s: string): number => Number(s.replace('%', ''));
export const fmtPct = (n: number): string => `${Math.round(n * 100) / 100}%`;

export function toDate(v: unknown): Date | undefined {
  if (v === null || v === undefined) return undefined;
  if (v instanceof Date) return v;
  const d = new Date(typeof v === 'bigint' ? Number(v) * 1000 : typeof v === 'number' ? v * 1000 : String(v));
  return Number.isNaN(d.getTime()) ? undefined : d;
}

export function formatAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m}m`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h}h ${m % 60}m` : `${Math.floor(h / 24)}d ${h % 24}h`;
}
