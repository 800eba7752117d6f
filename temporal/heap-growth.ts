// How fast a process that runs pipeline activities lets its JavaScript heap grow. A worker's live heap stays small
// and flat (responses are loaded as they arrive), but it makes garbage fast: every response is parsed, validated,
// flattened and hashed. V8 then grows the heap up to 4x the live size between full collections, so a `run` of
// 2,000 URLs peaked at 310-410 MB of RSS although its live heap after a collection was 20-60 MB. A smaller growth
// factor makes V8 collect sooner instead: measured on a 600-URL `run`, peak RSS 322 MB -> 234-254 MB with growth
// capped at 30-60%, for 0-10% more CPU (the machine was noisy; bench/run-overhead.ts prints the figures). Unlike
// --max-old-space-size this is no ceiling: a run that truly needs more heap still gets it, one step at a time.
import v8 from 'node:v8';
import { settingsFor } from '../settings/process.js';
import { isSettings, type Env, type Settings } from '../settings/settings.js';

/**
 * The growth percent of these settings (default: this process's): V8's factor becomes 1 + percent/100; 0 leaves
 * V8's own heuristic (up to 4x). A malformed value is an error that names the variable (SettingError).
 */
export function heapGrowthPercent(from?: Settings | Env): number {
  return (from !== undefined && isSettings(from) ? from : settingsFor(from)).heapGrowthPercent;
}

let applied: number | undefined;

/**
 * Sets this process's heap growth (process-wide: V8 reads the flag at every full collection, so setting it after
 * start-up takes effect from the next one). The first caller's value stays: two workers in one process (tests)
 * must not flip it back and forth.
 */
export function limitHeapGrowth(from?: Settings | Env): void {
  if (applied !== undefined) return;
  const percent = heapGrowthPercent(from);
  applied = percent;
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
