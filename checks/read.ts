// The checks of listed runs, read on whatever connection the caller holds (a read-only SQLite reader for `status`
// and `history`, or a transaction): a module of its own so those commands load no check evaluation code.
import type { Param } from '../db/sql.js';

interface ReadTx {
  ph(n: number): string;
  all(sql: string, params: readonly Param[]): Promise<Array<Record<string, unknown>>>;
}

/** Per workflow id: how many checks ran and the names of those that failed or could not be evaluated. */
export async function selectChecksOfRuns(tx: ReadTx, workflowIds: readonly string[]): Promise<Map<string, { total: number; failed: string[] }>> {
  const out = new Map<string, { total: number; failed: string[] }>();
  if (workflowIds.length === 0) return out;
  const rows = await tx.all(
    `SELECT workflow_id, check_name, status FROM check_results WHERE workflow_id IN (${workflowIds.map((_, i) => tx.ph(i + 1)).join(', ')}) ORDER BY check_name`,
    [...workflowIds],
  );
  for (const r of rows) {
    const id = String(r['workflow_id']);
    const e = out.get(id) ?? { total: 0, failed: [] };
    e.total++;
    if (r['status'] === 'fail' || r['status'] === 'error') e.failed.push(String(r['check_name']));
    out.set(id, e);
  }
  return out;
}
