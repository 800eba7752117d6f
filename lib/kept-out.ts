// Values a load kept out of their columns (issue #40): a service timestamp that is not one is stored NULL, the load
// goes on, and the run counts it. One definition of what is counted, how a sample is kept and how both are read back
// from their JSON cells, for the store that records them and every surface that shows them. Pure, with no imports.

/** One value kept out: where it would have gone, which row (its natural key), and the value as sent (truncated). */
export interface KeptOutValue {
  table: string;
  column: string;
  /** The row's natural key (the table's key columns but `pipeline`), ids as text when beyond 2^53. */
  key: Record<string, string | number | boolean | null>;
  /** The value as the service sent it, as text, cut at KEPT_OUT_VALUE_CHARS. */
  value: string;
  /** The raw_responses row that holds the response as sent (set when a run's values are summed). */
  rawResponseId?: number;
}

/** How many values a response or a run kept out, exactly, and the first few of them. */
export interface KeptOut {
  count: number;
  sample: KeptOutValue[];
}

/** Values named per response and per run: enough to find the rows, few enough to show in a status line or alert. */
export const KEPT_OUT_SAMPLE = 5;

/** A kept-out value is shown up to this many characters: it is the service's text, of any length. */
export const KEPT_OUT_VALUE_CHARS = 60;

export function emptyKeptOut(): KeptOut {
  return { count: 0, sample: [] };
}

/** Adds `add` into `total`: counts summed, the sample filled in order up to KEPT_OUT_SAMPLE. */
export function addKeptOut(total: KeptOut, add: KeptOut, rawResponseId?: number): KeptOut {
  total.count += add.count;
  for (const v of add.sample) {
    if (total.sample.length >= KEPT_OUT_SAMPLE) break;
    total.sample.push(rawResponseId === undefined ? v : { ...v, rawResponseId });
  }
  return total;
}

function isKeptOutValue(v: unknown): v is KeptOutValue {
  if (!v || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  return (
    typeof o['table'] === 'string' &&
    typeof o['column'] === 'string' &&
    typeof o['value'] === 'string' &&
    !!o['key'] &&
    typeof o['key'] === 'object'
  );
}

/**
 * A sample cell (raw_responses.kept_out's `sample`, pipeline_runs.kept_out_sample) as stored: its values, or an
 * empty list when absent or not a list. Postgres and DuckDB may hand a JSON column back parsed or as text.
 */
export function keptOutSampleCell(cell: unknown): KeptOutValue[] {
  if (cell === null || cell === undefined || cell === '') return [];
  let parsed: unknown = cell;
  if (typeof cell === 'string') {
    try {
      parsed = JSON.parse(cell) as unknown;
    } catch {
      return [];
    }
  }
  return Array.isArray(parsed) ? parsed.filter(isKeptOutValue).slice(0, KEPT_OUT_SAMPLE) : [];
}

/** A raw_responses.kept_out cell: `{"count": n, "sample": [...]}`, or null when absent or unreadable. */
export function keptOutCell(cell: unknown): KeptOut | null {
  if (cell === null || cell === undefined || cell === '') return null;
  let parsed: unknown = cell;
  if (typeof cell === 'string') {
    try {
      parsed = JSON.parse(cell) as unknown;
    } catch {
      return null;
    }
  }
  if (!parsed || typeof parsed !== 'object') return null;
  const count = (parsed as Record<string, unknown>)['count'];
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) return null;
  return { count, sample: keptOutSampleCell((parsed as Record<string, unknown>)['sample']) };
}
