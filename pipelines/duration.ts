// Durations in pipeline files use Temporal's own string form ('500ms', '5s', '10m', '6h', '1d'), so a value can
// be handed to Temporal options unchanged and still be compared here (e.g. initial_interval <= max_interval).
export const DURATION_PATTERN = '^[0-9]+(ms|s|m|h|d)$';
const DURATION_RE = new RegExp(DURATION_PATTERN);
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export function isDuration(text: string): boolean {
  return DURATION_RE.test(text);
}

/** Milliseconds of a duration string; throws on anything that is not `<integer><ms|s|m|h|d>`. */
export function parseDurationMs(text: string): number {
  const m = /^([0-9]+)(ms|s|m|h|d)$/.exec(text);
  if (!m)
    throw new Error(
      `invalid duration '${text}': expected a whole number followed by ms, s, m, h or d (e.g. '5s', '10m')`,
    );
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}
