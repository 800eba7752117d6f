// How fast a process that runs pipeline activities lets its JavaScript heap grow. A worker's live heap stays small
// and flat (responses are loaded as they arrive), but it makes garbage fast: every response is parsed, validated,
// flattened and hashed. V8 then grows the heap up to 4x the live size between full collections, so a `run` peaks
// at several times its live heap. A smaller growth factor makes V8 collect sooner instead: a lower peak RSS for a
// little more CPU (bench/run-overhead.ts prints the figures; docs/measurements.md has those behind this). Unlike
// --max-old-space-size this is no ceiling: a run that truly needs more heap still gets it, one step at a time.
import v8 from 'node:v8';

export const HEAP_GROWTH_ENV = 'SCRAPE_ETL_HEAP_GROWTH_PERCENT';
/** V8's factor becomes 1 + percent/100; 0 leaves V8's own heuristic (up to 4x). */
export const DEFAULT_HEAP_GROWTH_PERCENT = 30;

/** The growth percent this environment asks for; a malformed value is an error that names the variable. */
export function heapGrowthPercent(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[HEAP_GROWTH_ENV]?.trim();
  if (!raw) return DEFAULT_HEAP_GROWTH_PERCENT;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 300) {
    throw new Error(`${HEAP_GROWTH_ENV}='${raw}' must be a whole number of percent from 0 (V8's default growth) to 300`);
  }
  return n;
}

let applied: number | undefined;

/**
 * Sets this process's heap growth (process-wide: V8 reads the flag at every full collection, so setting it after
 * start-up takes effect from the next one). The first caller's value stays: two workers in one process (tests)
 * must not flip it back and forth.
 */
export function limitHeapGrowth(env: NodeJS.ProcessEnv = process.env): void {
  if (applied !== undefined) return;
  const percent = heapGrowthPercent(env);
  applied = percent;
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
