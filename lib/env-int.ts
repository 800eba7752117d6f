// A positive integer setting from the environment, with a default when unset or blank: the worker's tuning
// (temporal/tuning.ts) and the export's threads (export/csv-parallel.ts) read theirs this way.
export function positiveIntFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const v = env[name]?.trim();
  if (!v) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name}='${v}' must be a positive integer`);
  return n;
}
