// `scrape-etl server status|stop` and the background worker: status says whether one runs, stop stops it with the
// embedded server it works for (a worker without its server could serve nothing).
import { isProcessAlive, stopProcess } from '../../lib/process-alive.js';
import { backgroundWorkerPaths, readBackgroundWorkerState, type BackgroundWorkerState } from './settings.js';

/** The live background worker of this data folder, if any. */
export function liveBackgroundWorker(dataDir: string): (BackgroundWorkerState & { logFile: string }) | undefined {
  const state = readBackgroundWorkerState(dataDir);
  if (!state || !isProcessAlive(state.pid)) return undefined;
  return { ...state, logFile: backgroundWorkerPaths(dataDir).logFile };
}

/**
 * Stops the background worker of this data folder: SIGTERM makes it stop waiting for the runs it serves (they go on
 * in Temporal, their commands say how to resume them) and drain its worker. Returns its pid, or undefined if none ran.
 */
export async function stopBackgroundWorker(dataDir: string): Promise<number | undefined> {
  const live = liveBackgroundWorker(dataDir);
  if (!live) return undefined;
  // SIGTERM: it retires (its worker drains for 3 s); SIGKILL after 15 s.
  await stopProcess(live.pid, { graceMs: 15_000 });
  return live.pid;
}
