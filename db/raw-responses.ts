// Reads of the raw landing (raw_responses) that activities need besides loading: a response recorded by an
// earlier attempt of the same workflow step, so a retried step reuses it instead of calling the service again.
import crypto from 'node:crypto';
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

/**
 * Lands a response that has no rows of its own (an adopted scraper's list entry): the raw record that lets a
 * retried step find what an earlier attempt learned.
 */
export async function landRawResponse(
  db: Database,
  r: { pipeline: string; kind: string; endpoint: string; requestKey: string; workflowId: string; body: string },
): Promise<void> {
  const now = new Date().toISOString();
  await withTransaction(db, (tx) =>
    tx.run(
      `INSERT INTO raw_responses (pipeline, kind, endpoint, request_key, workflow_id, scraping_run_id, received_at, loaded_at, body_sha256, body_bytes, body)
       VALUES (${Array.from({ length: 11 }, (_, i) => tx.ph(i + 1)).join(', ')})`,
      [r.pipeline, r.kind, r.endpoint, r.requestKey, r.workflowId, null, now, now, crypto.createHash('sha256').update(r.body).digest('hex'), Buffer.byteLength(r.body), r.body],
    ),
  );
}
