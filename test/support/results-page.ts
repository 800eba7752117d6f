// One GET /api/results page as a load (db/store/load.ts LoadBatchOptions): its raw body, parsed as the client parses it,
// its results into `resultTable` and their content into the pipeline's inferred table. The tests that load results
// pages directly (the adapter suite, schema evolution, hostile content, Parquet types) build it here.
import { parseJson } from '../../lib/json.js';
import { resultsListResponseSchema } from '../../client/schemas.js';
import type { SchemaMode } from '../../db/store/evolve/registry.js';
import type { LoadBatchOptions } from '../../db/store/load.js';

export function resultsPage(o: {
  pipeline: string;
  raw: string;
  /** The inferred content table. */
  table: string;
  resultTable?: LoadBatchOptions['resultTable'];
  requestKey?: string;
  mergeKey?: string[] | undefined;
  mode?: SchemaMode;
  workflowId?: string;
}): LoadBatchOptions {
  const mode = o.mode ?? 'evolve';
  return {
    pipeline: o.pipeline,
    kind: 'results',
    endpoint: 'GET /api/results',
    ...(o.requestKey !== undefined ? { requestKey: o.requestKey } : {}),
    resultTable: o.resultTable ?? 'leads_results',
    raw: o.raw,
    data: resultsListResponseSchema.parse(parseJson(o.raw)),
    content: { table: o.table, mergeKey: o.mergeKey, mode },
    schemaMode: mode,
    ...(o.workflowId !== undefined ? { workflowId: o.workflowId } : {}),
  };
}
