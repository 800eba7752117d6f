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

/**
 * A run's data rows in one phrase: seen (its responses held them, changed or not) beside changed (inserted or
 * updated). A run that fetched two unchanged products saw 2 and changed 0; it did not load "0 rows". Runs recorded
 * before rows seen were counted say rows changed only.
 */
export function rowsSeenChangedText(changed: number, seen: number | null | undefined): string {
  if (seen === null || seen === undefined) return `${changed} row${changed === 1 ? '' : 's'} changed`;
  return `${seen} row${seen === 1 ? '' : 's'} seen, ${changed} changed`;
}
