// Re-derives a pipeline's inferred content tables from raw_responses, without calling the service: after a
// merge key changed, or a flattening fix. One transaction: the tables and their schema_history rows are dropped,
// every landed response that carried result records is replayed in landing order through the same loader, and
// only then is anything visible, so a failed rebuild leaves the old tables in place.
import { parseJson } from '../../lib/json.js';
import { resultsListResponseSchema, scrapingRunResponseSchema, type ResultRecord } from '../../client/schemas.js';
import type { Database } from '../../destinations/contract.js';
import { loadContent, type ContentTarget } from './evolve/content-load.js';
import { PATH_SEPARATOR } from '../model/evolve/names.js';
import { PermanentLoadError } from '../model/evolve/errors.js';
import { readRegistryState } from './evolve/registry.js';
import { flattenContent } from '../model/flatten/content.js';
import { quoteIdent, withTransaction } from './sql.js';
import { SQLITE_COMMENTS_TABLE } from '../model/schema/comments-table.js';

export interface RebuildResult {
  /** Raw responses replayed. */
  responses: number;
  results: number;
  /** Results left out again (nested too deep, merge key missing), as a load would have quarantined them. */
  rejected: number;
  rowsByTable: Record<string, number>;
}

/** Records a landed body held, as its load used them: a results page fetched for one run loaded only that run's. */
function recordsOf(kind: string, requestKey: string | null, body: string): ResultRecord[] {
  if (kind === 'scraping-run') return scrapingRunResponseSchema.parse(parseJson(body)).data.results;
  const records = resultsListResponseSchema.parse(parseJson(body)).data;
  const run = requestKey ? /:run:(\d+)$/.exec(requestKey)?.[1] : undefined;
  return run === undefined ? records : records.filter((r) => BigInt(r.scraping_run_id) === BigInt(run));
}

export async function rebuildContentTables(
  db: Database,
  pipeline: string,
  target: ContentTarget,
): Promise<RebuildResult> {
  return withTransaction(db, async (tx) => {
    const state = await readRegistryState(tx, {
      tables: [target.table],
      prefixes: [`${target.table}${PATH_SEPARATOR}`],
      roots: [target.table],
    });
    const reg = state.columns;
    // Only this pipeline's tables, and only if they hold only its rows: a table another pipeline created (two names
    // giving one table name), or one such pipelines shared before that was refused, is not dropped.
    const owner = state.owners.get(target.table);
    if (owner !== undefined && owner !== pipeline) {
      throw new PermanentLoadError(
        `table '${target.table}' was created by pipeline '${owner}', not '${pipeline}' (their names give one table name); rebuild refused, nothing changed`,
      );
    }
    for (const table of reg.keys()) {
      const other = await tx.all(`SELECT pipeline FROM ${quoteIdent(table)} WHERE pipeline <> ${tx.ph(1)} LIMIT 1`, [
        pipeline,
      ]);
      if (other.length > 0) {
        throw new PermanentLoadError(
          `table '${table}' also holds rows of pipeline '${String(other[0]!['pipeline'])}' (their names give one table name); rebuild would delete them, so it was refused and nothing changed. Rename one pipeline`,
        );
      }
    }
    for (const table of [...reg.keys()].sort().reverse()) {
      await tx.run(`DROP TABLE IF EXISTS ${quoteIdent(table)}`, []);
      await tx.run(`DELETE FROM schema_history WHERE table_name = ${tx.ph(1)}`, [table]);
      // Comments in the catalog go with the table; a catalog table of them (SQLite) forgets its rows here.
      if (!tx.adapter.capabilities.commentOn)
        await tx.run(`DELETE FROM ${quoteIdent(SQLITE_COMMENTS_TABLE)} WHERE table_name = ${tx.ph(1)}`, [table]);
    }
    const landed = await tx.all(
      `SELECT r.id, r.kind, r.request_key, CASE WHEN r.body_ref IS NULL THEN r.body ELSE b.body END AS body
         FROM raw_responses r LEFT JOIN raw_responses b ON b.id = r.body_ref
        WHERE r.pipeline = ${tx.ph(1)} AND r.kind IN ('results', 'scraping-run') ORDER BY r.id`,
      [pipeline],
    );
    const out: RebuildResult = { responses: 0, results: 0, rejected: 0, rowsByTable: {} };
    const loadedAt = new Date().toISOString();
    for (const r of landed) {
      const loadId = Number(r['id']);
      const records = recordsOf(
        String(r['kind']),
        r['request_key'] === null ? null : String(r['request_key']),
        String(r['body']),
      );
      // The raw row's id stays the load id: lineage points at the response the row came from.
      const flat = flattenContent(records, target);
      out.rejected += flat.rejected.length;
      const res = await loadContent(tx, target, flat.roots, {
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
