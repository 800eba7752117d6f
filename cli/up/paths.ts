// Where `scrape-etl up` keeps its files in the data folder: a state file naming the process that runs (so a second
// `up` of the same data folder is refused and `down` finds it), and for `up --detach` the log it writes. Light
// (node built-ins only): `down` reads them without loading anything else.
import path from 'node:path';
import { assertOwned, assertOwnedDataDir } from '../../lib/owned-path.js';
import { isProcessAlive } from '../../lib/process-alive.js';
import { readJsonFile } from '../../lib/state-file.js';

export interface UpPaths {
  /** JSON: pid, started, address, task queue, workers, metrics URL (written as `up` starts; `ready` once its banner is out). */
  stateFile: string;
  /** The pid alone, one line (for systemd's PIDFile= and shell scripts); written with the state file. */
  pidFile: string;
  /** Where a detached `up` writes its output (appended to). */
  logFile: string;
}

export function upPaths(dataDir: string): UpPaths {
  return {
    stateFile: path.join(dataDir, 'up.json'),
    pidFile: path.join(dataDir, 'up.pid'),
    logFile: path.join(dataDir, 'up.log'),
  };
}

export interface UpState {
  pid: number;
  startedAt: string;
  cwd: string;
  address: string;
  embedded: boolean;
  uiUrl: string | null;
  namespace: string;
  taskQueue: string;
  workers: number;
  metricsUrl: string | null;
  /** false while it starts (the embedded server, the workers), true once its workers poll. */
  ready: boolean;
}

/** The `up` of this data folder that runs now, if any (a state file left by a killed one is ignored). */
export function liveUp(dataDir: string): UpState | undefined {
  // A state file another user could write would let them name the process `down` signals (lib/owned-path.ts).
  assertOwnedDataDir(path.resolve(dataDir));
  const paths = upPaths(dataDir);
  for (const f of [paths.stateFile, paths.pidFile, paths.logFile]) assertOwned(f, { what: "scrape-etl up's file" });
  const state = readJsonFile<UpState>(upPaths(dataDir).stateFile);
  return state && Number.isInteger(state.pid) && isProcessAlive(state.pid) ? state : undefined;
}
