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

/**
 * Values a run kept out of their columns (lib/kept-out.ts), in one phrase: `3 values kept out`. Empty for none and for
 * runs recorded before they were counted, so a run's line says it only when it happened.
 */
export function keptOutText(n: number | null | undefined): string {
  if (n === null || n === undefined || n === 0) return '';
  return `${n} value${n === 1 ? '' : 's'} kept out`;
}

/** A run's status with what it kept out beside it: `succeeded, 3 values kept out`; the status alone when none. */
export function statusWithKeptOut(status: string, n: number | null | undefined): string {
  const kept = keptOutText(n);
  return kept === '' ? status : `${status}, ${kept}`;
}

/**
 * One kept-out value, for a person to find its row: `leads_results.created_at (id 3): "yesterday at noon" (raw
 * response 12)`. The value is JSON-quoted, so its quotes and control characters cannot pass for the line's own.
 */
export function keptOutValueText(v: {
  table: string;
  column: string;
  key: Record<string, unknown>;
  value: string;
  rawResponseId?: number;
}): string {
  const key = Object.entries(v.key)
    // Key values are the service's too: strings JSON-quoted, so no control character reaches a terminal or a log.
    .map(([k, x]) => `${k} ${typeof x === 'string' ? JSON.stringify(x) : String(x)}`)
    .join(', ');
  const raw = v.rawResponseId === undefined ? '' : ` (raw response ${v.rawResponseId})`;
  return `${v.table}.${v.column}${key ? ` (${key})` : ''}: ${JSON.stringify(v.value)}${raw}`;
}
