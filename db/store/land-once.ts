// Responses landed once per run. A response whose request is fixed for the run (a URL of a URL-list run, a slice of
// a finished scraping run's results) is landed and loaded once per workflow, however many attempts of its activity
// fetch it: an attempt that Temporal timed out may still be running (a worker too busy to heartbeat in time) while
// its retry fetches the same URLs, and each landed its answer, so the run's raw_responses held a URL twice and
// its rows seen (summed from them) counted it twice. The load that finds the request landed by its run in its own
// transaction leaves it: the other attempt's transaction loaded it whole. Requests whose answer changes within a run
// (the results list's pages) are not marked so and land each time.
import { hexDigest } from '../model/hash.js';
import type { LoadBatchOptions, LoadBatchResult, PreparedBatch } from './load-rows.js';
import type { Tx } from './sql.js';

/** The run and request of a response landed once per run, or undefined when it lands each time. */
function landingOf(o: LoadBatchOptions): { workflowId: string; requestKey: string } | undefined {
  if (!o.landOnce || !o.workflowId || !o.requestKey) return undefined;
  return { workflowId: o.workflowId, requestKey: o.requestKey };
}

/**
 * Advisory lock keys (Postgres) for the landings of `loads`: two transactions loading the same request of a run
 * queue, so the second sees the first's landing. Taken with the product locks, in the one sorted round
 * (load-locks.ts), so the order every load keeps is kept.
 */
export function landingLockKeys(loads: readonly LoadBatchOptions[]): bigint[] {
  const keys: bigint[] = [];
  for (const o of loads) {
    const l = landingOf(o);
    if (!l) continue;
    const digest = hexDigest('sha1', `raw_responses\u0002${l.workflowId}\u0002${l.requestKey}`);
    keys.push(BigInt.asIntN(64, BigInt(`0x${digest.slice(0, 16)}`)));
  }
  return keys;
}

/**
 * Of `loads`, by index, those to leave: landed once per run and already landed by it (committed, or earlier in this
 * same transaction), or earlier in the list itself; each with the load id of the landing that holds it (-1 for an
 * earlier one in the list, whose id is drawn only when it is written). Inside the load's transaction, after its locks.
 */
export async function landedAlready(tx: Tx, loads: readonly LoadBatchOptions[]): Promise<Map<number, number>> {
  const byRun = new Map<string, Set<string>>();
  for (const o of loads) {
    const l = landingOf(o);
    if (l) (byRun.get(l.workflowId) ?? byRun.set(l.workflowId, new Set()).get(l.workflowId)!).add(l.requestKey);
  }
  const out = new Map<number, number>();
  if (byRun.size === 0) return out;
  const stored = new Map<string, number>();
  for (const [workflowId, keys] of byRun) {
    const list = [...keys];
    const rows = await tx.all(
      `SELECT request_key, MIN(id) AS id FROM raw_responses WHERE workflow_id = ${tx.ph(1)} AND request_key IN (${list.map((_, i) => tx.ph(i + 2)).join(', ')}) GROUP BY request_key`,
      [workflowId, ...list],
    );
    for (const r of rows) stored.set(`${workflowId}\u0002${String(r['request_key'])}`, Number(r['id']));
  }
  const inList = new Set<string>();
  loads.forEach((o, i) => {
    const l = landingOf(o);
    if (!l) return;
    const key = `${l.workflowId}\u0002${l.requestKey}`;
    const id = stored.get(key);
    if (id !== undefined) out.set(i, id);
    else if (inList.has(key)) out.set(i, -1);
    else inList.add(key);
  });
  return out;
}

/** What a response left by landedAlready comes to: the rows it flattened to, none written. */
export function alreadyLandedResult(prepared: PreparedBatch, loadId: number): LoadBatchResult {
  return {
    loadId,
    rowsByTable: { ...prepared.rowsByTable },
    changedByTable: {},
    deletedByTable: {},
    schemaChanges: [],
    alreadyLanded: true,
  };
}
