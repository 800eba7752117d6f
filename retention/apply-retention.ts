// A pipeline's `retention` section applied to its raw responses (db/retention.ts says what is always kept) and its
// export files (export/retention.ts): after each run by the applyPipelineRetention activity and on demand by
// `scrape-etl prune`. Both are idempotent, so a retried attempt just finds less to delete.
import type { Database } from '../db/connect.js';
import { pruneRawResponses, type RawRetentionResult } from '../db/retention.js';
import { DATA_TABLES } from '../db/tables.js';
import { pruneExportFiles, type ExportRetentionResult } from '../export/retention.js';
import { parseDurationMs } from '../pipelines/duration.js';
import type { PipelineSpec } from '../pipelines/spec.js';

export interface RetentionOutput {
  rawResponses: RawRetentionResult | null;
  exports: ExportRetentionResult | null;
}

export async function applyRetention(db: Database, spec: PipelineSpec, now: Date = new Date()): Promise<RetentionOutput> {
  const r = spec.retention;
  const rawResponses = r?.raw_responses
    ? await pruneRawResponses(db, { pipeline: spec.name, olderThan: new Date(now.getTime() - parseDurationMs(r.raw_responses)) })
    : null;
  const exports =
    r?.exports !== undefined && spec.exports.length > 0
      ? await pruneExportFiles({ pipeline: spec.name, exports: spec.exports, allTables: DATA_TABLES, keep: r.exports })
      : null;
  return { rawResponses, exports };
}
