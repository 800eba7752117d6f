// The raw landing (raw_responses): every data-carrying response, as received, with its lineage; its id is the load
// id of the rows it produced. A body identical to one already stored (same SHA-256: a product that did not change,
// a page served again) is stored once: the new row keeps its own lineage and points at the row holding the bytes.
import { hexDigest } from '../model/hash.js';
import type { Database } from '../../destinations/contract.js';
import { withReadTransaction, withTransaction, type Tx } from './sql.js';
import type { KeptOut } from '../../lib/kept-out.js';

export interface RawResponse {
  pipeline: string;
  /** What the body is (a LoadKind, or 'adopted-scraper'). */
  kind: string;
  /** `METHOD /path` of the call that returned it. */
  endpoint: string;
  requestKey: string | null;
  workflowId: string | null;
  scrapingRunId: number | bigint | null;
  receivedAt: Date;
  loadedAt: string;
  body: string;
  /** The body's SHA-256 (sha256Of), when it was taken ahead of the transaction (prepareBatch); else taken on landing. */
  bodySha256?: string;
  /** Rows the response held, by table (changed or not); recorded with it so a run's rows seen are counted once. */
  rowsSeen?: Readonly<Partial<Record<string, number>>> | null;
  /**
   * Values the load kept out of their columns (lib/kept-out.ts), NULL when none: recorded with the response, in its
   * load's transaction, so a run counts each once whatever retries and crashes do (pipeline_runs.kept_out).
   */
  keptOut?: KeptOut | null;
}

/**
 * The `tokenUsage` a response reports for its call, or null. The spec documents it on job-board answers only, so
 * only those bodies (small: one listing page each) are read for it; recorded here, in the landing's own
 * transaction, so a landed call's cost is never lost or counted apart from the body it came with.
 */
export function tokenUsageOf(kind: string, body: string): number | null {
  if (kind !== 'job-board' || !body.includes('"tokenUsage"')) return null;
  try {
    const usage = (JSON.parse(body) as { tokenUsage?: unknown }).tokenUsage;
    return typeof usage === 'number' && Number.isSafeInteger(usage) && usage >= 0 ? usage : null;
  } catch {
    return null;
  }
}

export const RAW_COLUMNS = [
  'pipeline',
  'kind',
  'endpoint',
  'request_key',
  'workflow_id',
  'scraping_run_id',
  'received_at',
  'loaded_at',
  'body_sha256',
  'body_bytes',
  'body',
  'body_ref',
  'token_usage',
  'rows_seen',
  'kept_out',
] as const;

function rawValues(r: RawResponse, sha256: string, bodyRef: number | null) {
  return [
    r.pipeline,
    r.kind,
    r.endpoint,
    r.requestKey,
    r.workflowId,
    r.scrapingRunId,
    r.receivedAt.toISOString(),
    r.loadedAt,
    sha256,
    Buffer.byteLength(r.body),
    bodyRef === null ? r.body : '',
    bodyRef,
    tokenUsageOf(r.kind, r.body),
    r.rowsSeen ? JSON.stringify(r.rowsSeen) : null,
    r.keptOut && r.keptOut.count > 0 ? JSON.stringify(r.keptOut) : null,
  ];
}

export const sha256Of = (body: string) => hexDigest('sha256', body);

/** The SHA-256 a landing records for `r`'s body. */
export const bodySha256Of = (r: RawResponse) => r.bodySha256 ?? sha256Of(r.body);

/** Lands one response inside the caller's transaction; returns its id (the load id). */
export async function insertRawResponse(tx: Tx, r: RawResponse): Promise<number> {
  const sha256 = bodySha256Of(r);
  const [same] = await tx.all(
    `SELECT id FROM raw_responses WHERE body_sha256 = ${tx.ph(1)} AND body_ref IS NULL ORDER BY id LIMIT 1`,
    [sha256],
  );
  const bodyRef = same ? Number(same['id']) : null;
  const [landed] = await tx.all(
    `INSERT INTO raw_responses (${RAW_COLUMNS.join(', ')}) VALUES (${RAW_COLUMNS.map((_, i) => tx.ph(i + 1)).join(', ')}) RETURNING id`,
    rawValues(r, sha256, bodyRef),
  );
  return Number(landed?.['id']);
}

/**
 * The raw_responses rows of several responses, as inserting them one by one in order would write them: ids taken in
 * order from those `allotted`, and a body stored already (`found`: its first id by digest) or earlier in the list
 * kept once, the later rows referring to it.
 */
export function rawRowsInOrder(
  list: readonly RawResponse[],
  shas: readonly string[],
  found: ReadonlyArray<Record<string, unknown>>,
  allotted: ReadonlyArray<Record<string, unknown>>,
) {
  const stored = new Map<string, number>();
  for (const f of found) stored.set(String(f['body_sha256']), Number(f['id']));
  const ids = allotted.map((a) => Number(a['id'])).sort((a, b) => a - b);
  const rows = list.map((r, i) => {
    const sha = shas[i]!;
    const bodyRef = stored.get(sha) ?? null;
    if (bodyRef === null) stored.set(sha, ids[i]!);
    return [ids[i]!, ...rawValues(r, sha, bodyRef)];
  });
  return { ids, rows };
}

/** The body of a landed row, following its reference when it shares an earlier row's bytes. */
const BODY = `CASE WHEN r.body_ref IS NULL THEN r.body ELSE b.body END`;

/**
 * The whole body of the raw_responses row named `row` in a query that does not join the referenced row (a plain
 * `SELECT … FROM raw_responses`, as exports read it): its own body, or the one it references.
 */
export function wholeBodySql(row: string): string {
  return `coalesce((SELECT stored.body FROM raw_responses stored WHERE stored.id = ${row}.body_ref), ${row}.body)`;
}
const WITH_BODY = `raw_responses r LEFT JOIN raw_responses b ON b.id = r.body_ref`;

/**
 * Body of the first response landed for (workflow id, request key), or undefined when there is none: a response
 * recorded by an earlier attempt of the same workflow step, so a retried step reuses it instead of calling again.
 */
export async function findRecordedBody(
  db: Database,
  ref: { workflowId: string; requestKey: string },
): Promise<string | undefined> {
  const rows = await withTransaction(db, (tx) =>
    tx.all(
      `SELECT ${BODY} AS body FROM ${WITH_BODY} WHERE r.workflow_id = ${tx.ph(1)} AND r.request_key = ${tx.ph(2)} ORDER BY r.id LIMIT 1`,
      [ref.workflowId, ref.requestKey],
    ),
  );
  const body = rows[0]?.['body'];
  return typeof body === 'string' ? body : undefined;
}

/**
 * Which of `requestKeys` already have a response landed by the workflow `workflowId`. A response is landed in the
 * transaction that loads its rows, so each of these is loaded too: a retried step that finds its requests here
 * need not (and must not pay to) call again.
 */
export async function landedRequestKeys(
  db: Database,
  workflowId: string,
  requestKeys: readonly string[],
): Promise<Set<string>> {
  if (requestKeys.length === 0) return new Set();
  const rows = await withReadTransaction(db, (tx) =>
    tx.all(
      `SELECT DISTINCT request_key FROM raw_responses WHERE workflow_id = ${tx.ph(1)} AND request_key IN (${requestKeys.map((_, i) => tx.ph(i + 2)).join(', ')})`,
      [workflowId, ...requestKeys],
    ),
  );
  return new Set(rows.map((r) => String(r['request_key'])));
}

/** The body of one landed row by its id (the load id of rows), references followed. */
export async function readRawBody(db: Database, id: number): Promise<string | undefined> {
  const rows = await withTransaction(db, (tx) =>
    tx.all(`SELECT ${BODY} AS body FROM ${WITH_BODY} WHERE r.id = ${tx.ph(1)}`, [id]),
  );
  const body = rows[0]?.['body'];
  return typeof body === 'string' ? body : undefined;
}
