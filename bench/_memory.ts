// Shared by the benchmarks (not a benchmark itself): peak memory measured in a child process of its own, so that a
// figure is the load's alone, not the parent's nor an earlier measurement's.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Runs the benchmark module at `moduleUrl` again as `--memory <n>` in a child process (with --expose-gc) and
 * returns the JSON object it prints last (see printPeaks).
 */
export function memoryInChild<T>(moduleUrl: string, n: number): T {
  const res = spawnSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', fileURLToPath(moduleUrl), '--memory', String(n)],
    { encoding: 'utf8', maxBuffer: 1 << 20 },
  );
  if (res.status !== 0) throw new Error(`memory run failed: ${res.stderr}`);
  return JSON.parse(res.stdout.trim().split('\n').pop() ?? '{}') as T;
}

/**
 * In the child: prints the figures with the process's peak RSS and the live heap after a full collection (which
 * shows whether anything is retained per batch); `peakHeap` is what the caller sampled while loading.
 */
export function printPeaks(figures: Record<string, number>, peakHeap: number): void {
  (globalThis as { gc?: () => void }).gc?.();
  const liveHeapMb = process.memoryUsage().heapUsed / 1048576;
  process.stdout.write(
    JSON.stringify({
      ...figures,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
      peakHeapMb: peakHeap / 1048576,
      liveHeapMb,
    }),
  );
}
