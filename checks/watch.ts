// Watches: the data events of a run (prices that dropped or rose, items back in or out of stock, new rows of a
// table). Each watch's event of a run is computed once, in one transaction that also moves watch_state, and
// stored in watch_events; a retried activity (a worker killed during delivery) reads the stored event instead of
// computing again, so it delivers exactly the rows the first attempt found. What each watch type finds is its own
// definition's (checks/watch-types/, through checks/registry.ts).
import type { Database } from '../destinations/contract.js';
import { quoteIdent, withTransaction, type Param, type Tx } from '../db/store/sql.js';
import type { WatchSpec } from '../pipelines/spec.js';
import type { WatchEnv } from './definition.js';
import { columnsOf, parseExpression, toSql } from './expression.js';
import { sampleKey, tableColumns } from './columns.js';
import { watchDefinitionOf } from './registry.js';

export { productLink } from './watch-types/links.js';

/** Rows stored per event (and carried by the JSON body); `rowCount` has them all. */
export const MAX_EVENT_ROWS = 200;

export interface WatchEvent {
  watch: string;
  event: WatchSpec['type'];
  rowCount: number;
  rows: Array<Record<string, unknown>>;
}

/** `filter` as SQL over `alias.column`, its values appended to `params` (numbered from params.length + 1). */
function filterSql(
  tx: Tx,
  filter: string | undefined,
  alias: string,
  cols: ReadonlyMap<string, string>,
  params: Param[],
): string {
  if (!filter) return '';
  const expr = parseExpression(filter);
  const missing = columnsOf(expr).filter((c) => !cols.has(c));
  if (missing.length > 0) throw new Error(`filter '${filter}': no column ${missing.join(', ')}`);
  return ` AND (${toSql(
    expr,
    (c) => `${alias}.${quoteIdent(c)}`,
    (v) => {
      params.push(v);
      return tx.ph(params.length);
    },
  )}) IS TRUE`;
}

async function readState(tx: Tx, pipeline: string, watch: string): Promise<Map<string, string>> {
  const rows = await tx.all(
    `SELECT item_key, state FROM watch_state WHERE pipeline = ${tx.ph(1)} AND watch = ${tx.ph(2)}`,
    [pipeline, watch],
  );
  return new Map(rows.map((r) => [String(r['item_key']), String(r['state'])]));
}

async function writeState(
  tx: Tx,
  pipeline: string,
  watch: string,
  changes: ReadonlyMap<string, string>,
  at: string,
): Promise<void> {
  const sql = `INSERT INTO watch_state (pipeline, watch, item_key, state, updated_at) VALUES (${[1, 2, 3, 4, 5].map((i) => tx.ph(i)).join(', ')})
    ON CONFLICT (pipeline, watch, item_key) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`;
  for (const [key, state] of changes) await tx.run(sql, [pipeline, watch, key, state, at]);
}

function watchEnv(tx: Tx, pipeline: string, workflowId: string, at: string): WatchEnv {
  return {
    tx,
    pipeline,
    workflowId,
    at,
    quote: quoteIdent,
    columns: (table) => tableColumns(tx, table),
    rowKey: (table, cols) => sampleKey(table, cols).filter((k) => cols.has(k)),
    filterSql: (filter, alias, cols, params) => filterSql(tx, filter, alias, cols, params),
    readState: (watch) => readState(tx, pipeline, watch),
    writeState: (watch, changes) => writeState(tx, pipeline, watch, changes, at),
  };
}

/**
 * The events of the run's watches: stored ones for watches already evaluated for this run, computed (and
 * stored, with the watch's state) for the others. Events with no rows are stored too, so a retry does not find
 * news the first evaluation had already absorbed into the state.
 */
export async function evaluateWatches(
  db: Database,
  o: { pipeline: string; workflowId: string; watches: readonly WatchSpec[]; now?: Date },
): Promise<WatchEvent[]> {
  const at = (o.now ?? new Date()).toISOString();
  const out: WatchEvent[] = [];
  for (const w of o.watches) {
    out.push(
      await withTransaction(db, async (tx) => {
        const [stored] = await tx.all(
          `SELECT event, row_count, rows FROM watch_events WHERE workflow_id = ${tx.ph(1)} AND watch = ${tx.ph(2)}`,
          [o.workflowId, w.name],
        );
        if (stored) {
          return {
            watch: w.name,
            event: String(stored['event']) as WatchSpec['type'],
            rowCount: Number(stored['row_count']),
            rows: JSON.parse(String(stored['rows'])) as Array<Record<string, unknown>>,
          };
        }
        const rows = await watchDefinitionOf(w).rows(w, watchEnv(tx, o.pipeline, o.workflowId, at));
        const kept = rows.slice(0, MAX_EVENT_ROWS);
        await tx.run(
          `INSERT INTO watch_events (workflow_id, watch, pipeline, event, row_count, rows, created_at) VALUES (${[1, 2, 3, 4, 5, 6, 7].map((i) => tx.ph(i)).join(', ')})`,
          [o.workflowId, w.name, o.pipeline, w.type, rows.length, JSON.stringify(kept), at],
        );
        return { watch: w.name, event: w.type, rowCount: rows.length, rows: kept };
      }),
    );
  }
  return out;
}
