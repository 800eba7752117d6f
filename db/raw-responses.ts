// Reads of the raw landing (raw_responses) that activities need besides loading: a response recorded by an
// earlier attempt of the same workflow step, so a retried step reuses it instead of calling the service again.
import type { Database } from './connect.js';
import { withTransaction } from './sql.js';

/** Body of the first response landed for (workflow id, request key), or undefined when there is none. */
export async function findRecordedBody(db: Database, ref: { workflowId: string; requestKey: string }): Promise<string | undefined> {
  const rows = await withTransaction(db, (tx) =>
    tx.all(
      `SELECT body FROM raw_responses WHERE workflow_id = ${tx.ph(1)} AND request_key = ${tx.ph(2)} ORDER BY id LIMIT 1`,
      [ref.workflowId, ref.requestKey],
    ),
  );
  const body = rows[0]?.['body'];
  return typeof body === 'string' ? body : undefined;
}
