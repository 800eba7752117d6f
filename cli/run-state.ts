// The run key of a pipeline's unfinished run, kept in the data folder so that the same `run` command after an
// interruption (Ctrl-C, crash, reboot) attaches to that workflow instead of starting over. A run is remembered under
// its pipeline's name AND destination AND file (data/runs/<pipeline>--<hash>.json): two files that share a `name:`
// but write elsewhere are two pipelines, and one must never "resume" (and report as succeeded) the other's run.
import { EXIT } from '../lib/exit-codes.js';
import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { assertOwned, assertOwnedDataDir } from '../lib/owned-path.js';
import { writeJsonAtomic } from '../lib/state-file.js';
import { withFileLock } from '../lib/file-lock.js';

export interface RememberedRun {
  pipeline: string;
  runKey: string;
  workflowId: string;
  file: string;
  startedAt: string;
}

/** What makes two `run`s the same pipeline: its name, its destination (as resolved) and its file (absolute). */
export interface RunIdentity {
  pipeline: string;
  destination: string;
  file: string;
}

export function runIdentity(spec: { name: string; destination: { database: string } }, file: string): RunIdentity {
  return { pipeline: spec.name, destination: spec.destination.database, file };
}

/**
 * The destination is hashed, never written: it may hold a password. The file is made absolute so that the same file
 * named from two folders is one pipeline.
 */
function identityHash(id: RunIdentity): string {
  return createHash('sha256')
    .update(JSON.stringify([id.pipeline, id.destination, path.resolve(id.file)]))
    .digest('hex')
    .slice(0, 16);
}

export function runStateFile(dataDir: string, id: RunIdentity): string {
  return path.join(dataDir, 'runs', `${id.pipeline}--${identityHash(id)}.json`);
}

/** Where versions before the identity kept a pipeline's run: by name alone (still read, for its own file only). */
function legacyStateFile(dataDir: string, pipeline: string): string {
  return path.join(dataDir, 'runs', `${pipeline}.json`);
}

/**
 * A remembered run names the workflow a `run` attaches to and reports on: its folders and file are this user's
 * alone (lib/owned-path.ts), or another user could make `run` report their workflow as this pipeline's.
 */
function assertOwnedRunFile(file: string): void {
  const runs = path.dirname(path.resolve(file));
  assertOwnedDataDir(path.dirname(runs));
  assertOwned(runs, { what: 'the folder of remembered runs' });
  assertOwned(file, { what: 'the remembered run' });
}

function readRemembered(file: string): RememberedRun | undefined {
  assertOwnedRunFile(file);
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
    throw new Error(
      `${file}: not a remembered run (expected JSON with runKey and workflowId); delete it, or run with --new to start a fresh run`,
    );
  }
  return parsed as RememberedRun;
}

export function recallRun(dataDir: string, id: RunIdentity): RememberedRun | undefined {
  const own = readRemembered(runStateFile(dataDir, id));
  if (own) return own;
  // A run remembered by an older version under the name alone is this pipeline's only when it names the same file
  // (its destination was not recorded; the same file is the best evidence there is).
  const legacy = readRemembered(legacyStateFile(dataDir, id.pipeline));
  if (legacy && typeof legacy.file === 'string' && path.resolve(legacy.file) === path.resolve(id.file)) return legacy;
  return undefined;
}

export function rememberRun(dataDir: string, id: RunIdentity, run: RememberedRun): void {
  const file = runStateFile(dataDir, id);
  assertOwnedRunFile(file);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // Write-then-rename: a crash mid-write must not leave a half file that hides the unfinished run.
  writeJsonAtomic(file, { ...run, file: path.resolve(run.file) });
  dropLegacy(dataDir, id);
}

export function forgetRun(dataDir: string, id: RunIdentity): void {
  fs.rmSync(runStateFile(dataDir, id), { force: true });
  dropLegacy(dataDir, id);
}

/**
 * Forgets whichever of the pipeline's remembered runs is this workflow (a run's settlement knows its workflow id, and
 * the id is unique per run, so it needs neither the destination nor the file).
 */
export function forgetRunByWorkflowId(dataDir: string, pipeline: string, workflowId: string): void {
  const dir = path.join(dataDir, 'runs');
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!(name === `${pipeline}.json` || (name.startsWith(`${pipeline}--`) && name.endsWith('.json')))) continue;
    const file = path.join(dir, name);
    try {
      if (readRemembered(file)?.workflowId === workflowId) fs.rmSync(file, { force: true });
    } catch {
      // a damaged file is reported by the `run` that needs it
    }
  }
}

function dropLegacy(dataDir: string, id: RunIdentity): void {
  const legacy = legacyStateFile(dataDir, id.pipeline);
  let run: RememberedRun | undefined;
  try {
    run = readRemembered(legacy);
  } catch {
    return; // not ours to judge: recallRun reports it when its pipeline's file asks
  }
  if (run && typeof run.file === 'string' && path.resolve(run.file) === path.resolve(id.file))
    fs.rmSync(legacy, { force: true });
}

/**
 * Serialises "recall the remembered run, else remember and start a new one" between processes: two `run`s of one
 * pipeline started together (cold, within the same second) otherwise both found nothing remembered and started
 * (and paid for) two workflows. The second waits here, then finds the first one's run and attaches to it.
 */
export async function withRunStartLock<T>(
  dataDir: string,
  id: RunIdentity,
  fn: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const file = runStateFile(dataDir, id);
  assertOwnedRunFile(file);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    return await withFileLock(
      `${file.slice(0, -'.json'.length)}.start.lock`,
      `the start of pipeline ${id.pipeline}`,
      fn,
      { signal, timeoutMs: 10 * 60_000 },
    );
  } catch (err) {
    // Stopped while another command held the start: this one started nothing, and says so.
    if (signal?.aborted && (err as Error).name === 'AbortError') {
      throw Object.assign(
        new Error(
          `interrupted while another \`run\` of pipeline ${id.pipeline} was starting its run: no run was started by this command`,
        ),
        { exitCode: EXIT.sigint },
      );
    }
    throw err;
  }
}

/** Sortable and unique: UTC time to the second plus random hex (two runs in one second still differ). */
export function newRunKey(now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}
