// Webhook deliveries the receiver accepted, one row per (workflow id, first run id, event, target). The notify
// activity checks here before it sends and records here after a 2xx, so an activity retried after a worker
// crash does not send a delivery it already made. What this cannot cover: a crash after the receiver answered
// 2xx and before this row committed; that delivery is sent again, with the same Idempotency-Key header.
import type { Database } from '../../destinations/contract.js';
import { withTransaction } from './sql.js';

export interface DeliveryKey {
  workflowId: string;
  runId: string;
  event: string;
  target: string;
}

export async function wasDelivered(db: Database, k: DeliveryKey): Promise<boolean> {
  const rows = await withTransaction(db, (tx) =>
    tx.all(
      `SELECT 1 AS one FROM notify_deliveries WHERE workflow_id = ${tx.ph(1)} AND run_id = ${tx.ph(2)} AND event = ${tx.ph(3)} AND target = ${tx.ph(4)}`,
      [k.workflowId, k.runId, k.event, k.target],
    ),
  );
  return rows.length > 0;
}

export async function recordDelivery(
  db: Database,
  k: DeliveryKey & { httpStatus: number; sentAt?: Date },
): Promise<void> {
  await withTransaction(db, (tx) =>
    tx.run(
      `INSERT INTO notify_deliveries (workflow_id, run_id, event, target, http_status, sent_at) VALUES (${[1, 2, 3, 4, 5, 6].map((n) => tx.ph(n)).join(', ')})
       ON CONFLICT (workflow_id, run_id, event, target) DO NOTHING`,
      [k.workflowId, k.runId, k.event, k.target, k.httpStatus, (k.sentAt ?? new Date()).toISOString()],
    ),
  );
}

/** Deliveries of one workflow (for `status` and tests). */
export async function listDeliveries(
  db: Database,
  workflowId: string,
): Promise<Array<DeliveryKey & { httpStatus: number; sentAt: string }>> {
  const rows = await withTransaction(db, (tx) =>
    tx.all(
      `SELECT workflow_id, run_id, event, target, http_status, sent_at FROM notify_deliveries WHERE workflow_id = ${tx.ph(1)} ORDER BY sent_at`,
      [workflowId],
    ),
  );
  return rows.map((r) => ({
    workflowId: String(r['workflow_id']),
    runId: String(r['run_id']),
    event: String(r['event']),
    target: String(r['target']),
    httpStatus: Number(r['http_status']),
    sentAt: r['sent_at'] instanceof Date ? r['sent_at'].toISOString() : String(r['sent_at']),
  }));
}
