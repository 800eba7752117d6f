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
import vm from 'node:vm';

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

/**
 * CSV bytes an export writes between two full collections of the calling thread's heap. The garbage that survives a
 * scavenge of the held (small) young generation is promoted, and V8 let the old space fill with it for millions of
 * rows before its first full collection, so the export's peak RSS grew with its rows (docs/measurements.md). A full
 * collection of that small heap every COLLECT_BYTES keeps it flat for little CPU (bench/csv-export.ts).
 */
export const COLLECT_BYTES = 64 << 20;
let fullCollection: ((options?: { type: 'minor' | 'major' }) => void) | undefined;

/**
 * A counter of the bytes an export writes that runs a full collection of this thread's heap every `every` bytes.
 * V8 exposes its collector to JavaScript only through --expose-gc, which Node reads at start-up; set later, it gives
 * new contexts a `gc` function, taken once. The flag is set only when the first collection is due: a changed flag
 * makes V8 reject code caches made without it, and `npm run build` writes the export command's cache after a small
 * export (scripts/cli-bundle.ts), which must leave the flags as a new process has them.
 */
export function collectAsWritten(every = COLLECT_BYTES): (bytes: number) => void {
  return counted(every, () => collector()());
}

/**
 * Bytes of SQLite's CSV records (destinations/sqlite/csv-records.ts) a thread reads between two scavenges. Each
 * batch of records arrives as a Buffer outside V8's heap, garbage once copied, while the thread allocates next to
 * nothing on the heap, so no scavenge came to free them: they piled up until V8's limit for memory outside its heap
 * made it collect, most of the export's peak (docs/measurements.md). A scavenge of the held young generation
 * frees them for little CPU.
 */
export const SCAVENGE_BYTES = 256 << 10;

/** A counter of bytes read outside the heap that scavenges this thread's young generation every `every` bytes. */
export function scavengeAsRead(every = SCAVENGE_BYTES): (bytes: number) => void {
  return counted(every, () => collector()({ type: 'minor' }));
}

function counted(every: number, collect: () => void): (bytes: number) => void {
  let since = 0;
  return (bytes) => {
    since += bytes;
    if (since < every) return;
    since = 0;
    collect();
  };
}

/** V8's collector, exposed when first needed (see collectAsWritten). */
function collector(): (options?: { type: 'minor' | 'major' }) => void {
  if (fullCollection === undefined) {
    v8.setFlagsFromString('--expose-gc');
    fullCollection = vm.runInNewContext('gc') as () => void;
  }
  return fullCollection;
}
