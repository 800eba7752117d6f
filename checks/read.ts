// The checks of listed runs, read on whatever connection the caller holds (a read-only SQLite reader for `status`
// and `history`, or a transaction): a module of its own so those commands load no check evaluation code.
import type { Param } from '../db/store/sql.js';

interface ReadTx {
  ph(n: number): string;
  all(sql: string, params: readonly Param[]): Promise<Array<Record<string, unknown>>>;
}

/** Per workflow id: how many checks ran and the names of those that failed or could not be evaluated. */
export async function selectChecksOfRuns(
  tx: ReadTx,
  workflowIds: readonly string[],
): Promise<Map<string, { total: number; failed: string[] }>> {
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

/**
 * The failing rows' keys a check stores (check_results.failing_keys, evaluate.ts) and a check_failed alert carries
 * per check: one figure, so the alert never promises more than was kept.
 */
export const MAX_ALERT_FAILING_KEYS = 20;

/** One failed (or not evaluable) check as a check_failed webhook carries it: data, beside the sentence. */
export interface FailedCheckData {
  name: string;
  type: string;
  severity: string;
  /** 'fail', or 'error' when the check could not be evaluated. */
  status: string;
  observed: string | null;
  threshold: string | null;
  /** A sample of the failing rows' keys (at most MAX_ALERT_FAILING_KEYS), null when the check has none. */
  failing_keys: Array<Record<string, unknown>> | null;
  message: string | null;
}

/** The failed checks of one run (or evaluation), in check order, from check_results. */
export async function selectFailedChecks(tx: ReadTx, workflowId: string): Promise<FailedCheckData[]> {
  const rows = await tx.all(
    `SELECT check_name, check_type, severity, status, observed, threshold, failing_keys, message FROM check_results
     WHERE workflow_id = ${tx.ph(1)} AND status IN ('fail', 'error') ORDER BY id`,
    [workflowId],
  );
  const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
  return rows.map((r) => {
    const raw = r['failing_keys'];
    const keys =
      raw === null || raw === undefined
        ? null
        : ((typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<Record<string, unknown>>);
    return {
      name: String(r['check_name']),
      type: String(r['check_type']),
      severity: String(r['severity']),
      status: String(r['status']),
      observed: text(r['observed']),
      threshold: text(r['threshold']),
      failing_keys: Array.isArray(keys) ? keys.slice(0, MAX_ALERT_FAILING_KEYS) : null,
      message: text(r['message']),
    };
  });
}
