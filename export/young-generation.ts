// A CSV export allocates fast and keeps almost nothing (each batch's rows and text are garbage once written), yet
// V8 grows a thread's young generation under such a load until its semi-spaces reach their maximum, a large share of
// the export's peak memory for no gain (the scavenges of a small young generation find next to nothing alive;
// docs/measurements.md). The maximum can only be set when the process starts
// (`--max-semi-space-size`), but the growth factor is read each time the young generation grows, so an export
// holds it at 1 (no growth) while it runs: less peak memory at the same CPU (bench/csv-export.ts). Exports on threads (destinations/sqlite/csv-threads.ts) hold it too, since their calling thread encodes a share
// of the pages. Starting a worker thread sets V8's flags back to the process's (Node 20: a growth factor set to 1,
// then a Worker started, and the young generation grew again under the same load), so every hold sets
// the flag again, and a threaded export takes its hold once its threads are up. The flag is process-wide; it goes
// back to V8's default (2) when the last export holding it ends, so a worker's loads between exports grow their
// young generation as usual.
import v8 from 'node:v8';

const DEFAULT_GROWTH_FACTOR = 2;
let holders = 0;

/**
 * Keeps the young generation from growing until the returned function is called (idempotent). Sets the flag even
 * when another export holds it already: a worker thread started since may have set it back.
 */
export function holdYoungGeneration(): () => void {
  holders++;
  v8.setFlagsFromString('--semi-space-growth-factor=1');
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--holders === 0) v8.setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
  };
}
