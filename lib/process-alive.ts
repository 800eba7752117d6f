// Whether a process id is alive on this machine: signal 0 checks without signalling. EPERM means the process
// exists but belongs to another user, which is alive too. Used by the dev-server state, the DuckDB file lock and
// the export folder's temp-file sweep.
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
