// Re-derives a pipeline's inferred content tables from raw_responses, without calling the service: after a
// merge key changed, or a flattening fix. One transaction: the tables and their schema_history rows are dropped,
// every landed response that carried result records is replayed in landing order through the same loader, and
// only then is anything visible, so a failed rebuild leaves the old tables in place.
import { parseJson } from '../client/json.js';
import { resultsListResponseSchema, scrapingRunResponseSchema, type ResultRecord } from '../client/schemas.js';
import type { Database } from './connect.js';
import { loadContent, type ContentTarget } from './evolve/content-load.js';
import { PATH_SEPARATOR } from './evolve/names.js';
import { readRegistry } from './evolve/registry.js';
import { flattenContentRows } from './flatten/content.js';
import { quoteIdent, withTransaction } from './sql.js';

export interface RebuildResult {
  /** Raw responses replayed. */
  responses: number;
  results: number;
  rowsByTable: Record<string, number>;
}

/** Records a landed body held, as its load used them: a results page fetched for one run loaded only that run's. */
function recordsOf(kind: string, requestKey: string | null, body: string): ResultRecord[] {
  if (kind === 'scraping-run') return scrapingRunResponseSchema.parse(parseJson(body)).data.results;
  const records = resultsListResponseSchema.parse(parseJson(body)).data;
  const run = requestKey ? /:run:(\d+)$/.exec(requestKey)?.[1] : undefined;
  return run === undefined ? records : records.filter((r) => BigInt(r.scraping_run_id) === BigInt(run));
}

export async function rebuildContentTables(db: Database, pipeline: string, target: ContentTarget): Promise<RebuildResult> {
  return withTransaction(db, async (tx) => {
    const reg = await readRegistry(tx, { tables: [target.table], prefixes: [`${target.table}${PATH_SEPARATOR}`] });
    for (const table of [...reg.keys()].sort().reverse()) {
      await tx.run(`DROP TABLE IF EXISTS ${quoteIdent(table)}`, []);
      await tx.run(`DELETE FROM schema_history WHERE table_name = ${tx.ph(1)}`, [table]);
    }
    const landed = await tx.all(
      `SELECT r.id, r.kind, r.request_key, CASE WHEN r.body_ref IS NULL THEN r.body ELSE b.body END AS body
         FROM raw_responses r LEFT JOIN raw_responses b ON b.id = r.body_ref
        WHERE r.pipeline = ${tx.ph(1)} AND r.kind IN ('results', 'scraping-run') ORDER BY r.id`,
      [pipeline],
    );
    const out: RebuildResult = { responses: 0, results: 0, rowsByTable: {} };
    const loadedAt = new Date().toISOString();
    for (const r of landed) {
      const loadId = Number(r['id']);
      const records = recordsOf(String(r['kind']), r['request_key'] === null ? null : String(r['request_key']), String(r['body']));
      // The raw row's id stays the load id: lineage points at the response the row came from.
      const res = await loadContent(tx, target, flattenContentRows(records, target), {
        pipeline,
        loadId,
        loadedAt,
        describeBatch: `raw response ${loadId} (rebuild)`,
      });
      out.responses += 1;
      out.results += records.length;
      for (const [t, n] of Object.entries(res.changedByTable)) out.rowsByTable[t] = (out.rowsByTable[t] ?? 0) + n;
    }
    return out;
  });
}
