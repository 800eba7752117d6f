// pipeline_runs rows left `running` by a process that is gone: a `load` killed by Ctrl-C or out of disk before it
// could finish its row. A load's row names its process (`cli-load--<time>--<hex>--<pid>@<host>`), so the next load
// into the same database sees that the process is gone and finalises the row as `interrupted`, instead of the row
// claiming for ever that a load is running.
import os from 'node:os';
import type { Database } from '../../destinations/contract.js';
import { finishPipelineRun } from './pipeline-runs.js';
import { withReadTransaction } from './sql.js';
import { isProcessAlive } from '../../lib/process-alive.js';

/** The workflow id of a `load` command's row: names this process so that a later load can tell it is gone. */
export function loadRunId(now = new Date(), random: string): string {
  return `cli-load--${now.toISOString()}--${random}--${process.pid}@${os.hostname()}`;
}

const OWNER = /--(\d+)@([^@]+)$/;

/**
 * The pid of the process of this host that wrote a `running` load row and is gone, or undefined (another
 * host's, a live one, or not a load's row). What finaliseOrphanedLoads finalises and `status` shows as interrupted.
 */
export function goneLoadOwner(workflowId: string, status: string): number | undefined {
  if (status !== 'running' || !workflowId.startsWith('cli-load--')) return undefined;
  const m = OWNER.exec(workflowId);
  if (!m || m[2] !== os.hostname()) return undefined;
  const pid = Number(m[1]);
  return pid === process.pid || isProcessAlive(pid) ? undefined : pid;
}

/** The error an interrupted load's row is given. */
export function interruptedLoadError(pid: number): string {
  return `the load process (pid ${pid}) ended without finishing this run (stopped, killed, or out of disk); files it loaded before stay loaded`;
}

/** Finalises the `running` load rows of processes of this host that are gone; returns their workflow ids. */
export async function finaliseOrphanedLoads(db: Database): Promise<string[]> {
  const rows = await withReadTransaction(db, (tx) =>
    tx.all(`SELECT workflow_id FROM pipeline_runs WHERE status = 'running' AND workflow_id LIKE 'cli-load--%'`, []),
  );
  const done: string[] = [];
  for (const row of rows) {
    const id = String(row['workflow_id']);
    const pid = goneLoadOwner(id, 'running');
    if (pid === undefined) continue;
    await finishPipelineRun(db, { workflowId: id, status: 'interrupted', error: interruptedLoadError(pid) });
    done.push(id);
  }
  return done;
}

/** A disk-full error as one line naming where, or undefined for any other error. */
export function diskFullMessage(err: unknown, where: string): string | undefined {
  const e = err as { message?: unknown; code?: unknown } | undefined;
  const text = `${String(e?.code ?? '')} ${String(e?.message ?? '')}`;
  if (
    !/SQLITE_FULL|disk is full|ENOSPC|No space left|could not extend file|\b53100\b|Could not write|out of disk/i.test(
      text,
    )
  )
    return undefined;
  const first = String(e?.message ?? e?.code).split('\n')[0];
  return `${where}: the disk is full (${first}); free space there and run the command again (the file being loaded was rolled back, the ones before it stay loaded)`;
}
