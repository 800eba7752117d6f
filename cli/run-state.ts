// The run key of a pipeline's unfinished run, kept in the data folder (data/runs/<pipeline>.json) so that the same
// `run` command after an interruption (Ctrl-C, crash, reboot) attaches to that workflow instead of starting over.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { writeJsonAtomic } from '../lib/state-file.js';

export interface RememberedRun {
  pipeline: string;
  runKey: string;
  workflowId: string;
  file: string;
  startedAt: string;
}

function stateFile(dataDir: string, pipeline: string): string {
  return path.join(dataDir, 'runs', `${pipeline}.json`);
}

export function recallRun(dataDir: string, pipeline: string): RememberedRun | undefined {
  const file = stateFile(dataDir, pipeline);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  // A file we cannot understand is reported, not ignored: ignoring it would silently start (and pay for) a second run.
  let parsed: Partial<RememberedRun> | undefined;
  try {
    parsed = JSON.parse(text) as Partial<RememberedRun>;
  } catch {
    parsed = undefined;
  }
  if (typeof parsed?.runKey !== 'string' || typeof parsed.workflowId !== 'string') {
    throw new Error(`${file}: not a remembered run (expected JSON with runKey and workflowId); delete it, or run with --new to start a fresh run`);
  }
  return parsed as RememberedRun;
}

export function rememberRun(dataDir: string, run: RememberedRun): void {
  const file = stateFile(dataDir, run.pipeline);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Write-then-rename: a crash mid-write must not leave a half file that hides the unfinished run.
  writeJsonAtomic(file, run);
}

export function forgetRun(dataDir: string, pipeline: string): void {
  fs.rmSync(stateFile(dataDir, pipeline), { force: true });
}

/** Sortable and unique: UTC time to the second plus random hex (two runs in one second still differ). */
export function newRunKey(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}
