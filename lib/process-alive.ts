// Whether a process id is alive on this machine: signal 0 checks without signalling. EPERM means the process
// exists but belongs to another user, which is alive too. Used by the dev-server state, the DuckDB file lock and
// the export folder's temp-file sweep. And stopping one: the embedded server, and a detached `scrape-etl up` (`down`).
import os from 'node:os';

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether a Temporal worker identity (`<pid>@<hostname>`, the SDK's default, and what scrape-etl's start with) names a process of this machine that
 * no longer exists: a poller that is gone (temporal/pollers.ts), an activity whose worker died (cli/waiting.ts).
 */
export function isDeadLocalWorker(identity: string, hostname = os.hostname()): boolean {
  // scrape-etl's workers add their role after a space (`<pid>@<hostname> scrape-etl:run`, temporal/pollers.ts).
  const m = /^(\d+)@(\S+)(?: .*)?$/.exec(identity);
  if (!m || m[2] !== hostname) return false;
  return !isProcessAlive(Number(m[1]));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends `signal` (SIGTERM), waits up to `graceMs` for the process to exit, then SIGKILLs it; resolves once it is gone. */
export async function stopProcess(
  pid: number,
  opts: { signal?: NodeJS.Signals; graceMs?: number } = {},
): Promise<void> {
  try {
    process.kill(pid, opts.signal ?? 'SIGTERM');
  } catch {
    return; // exited already
  }
  const deadline = Date.now() + (opts.graceMs ?? 10_000);
  while (isProcessAlive(pid) && Date.now() < deadline) await sleep(50);
  if (isProcessAlive(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // exited in between
    }
  }
  while (isProcessAlive(pid)) await sleep(20);
}
