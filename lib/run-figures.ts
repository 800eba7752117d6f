// How a run's figures are said wherever they are shown as text (status, history, Slack messages).
// Pure, with no imports.

/**
 * A run's tokens: the service's tokenUsage summed over its responses, or `unknown` when none reported one
 * (pipeline_runs.token_usage NULL). Never 0 for unknown: a run that cost nothing and a run whose cost was not
 * reported are different facts.
 */
export const UNKNOWN_TOKENS = 'unknown';

export function tokensText(n: number | null | undefined): string {
  return n === null || n === undefined ? UNKNOWN_TOKENS : String(n);
}

/** Tokens over several runs: the known sum, and how many runs reported none (said beside it, not counted as 0). */
export function tokensTotalText(values: ReadonlyArray<number | null | undefined>): string {
  const known = values.filter((v): v is number => v !== null && v !== undefined);
  const unknown = values.length - known.length;
  if (values.length > 0 && known.length === 0) return `tokens ${UNKNOWN_TOKENS}`;
  const sum = `${known.reduce((a, b) => a + b, 0)} tokens`;
  return unknown === 0 ? sum : `${sum} (${unknown} run${unknown === 1 ? '' : 's'} with tokens ${UNKNOWN_TOKENS})`;
}
