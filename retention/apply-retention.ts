// A pipeline's `retention` section applied to its raw responses (db/store/retention.ts says what is always kept) and its
// export files (export/retention.ts) and lake manifests (export/targets/lake-retention.ts): after each run by the applyPipelineRetention activity and on demand by
// `scrape-etl prune`. Both are idempotent, so a retried attempt just finds less to delete.
import type { Database } from '../destinations/contract.js';
import { pruneRawResponses, type RawRetentionResult } from '../db/store/retention.js';
import { DATA_TABLES } from '../db/model/tables.js';
import { pruneExportFiles, type ExportRetentionResult } from '../export/retention.js';
import { parseDurationMs } from '../pipelines/duration.js';
import type { PipelineSpec } from '../pipelines/spec.js';

export interface RetentionOutput {
  rawResponses: RawRetentionResult | null;
  exports: ExportRetentionResult | null;
}

export async function applyRetention(
  db: Database,
  spec: PipelineSpec,
  now: Date = new Date(),
): Promise<RetentionOutput> {
  const r = spec.retention;
  const rawResponses = r?.raw_responses
    ? await pruneRawResponses(db, {
        pipeline: spec.name,
        olderThan: new Date(now.getTime() - parseDurationMs(r.raw_responses)),
      })
    : null;
  const folders = spec.exports.flatMap((e) => (e.dir !== undefined ? [{ ...e, dir: e.dir }] : []));
  const lakes = spec.exports.flatMap((e) => (e.to !== undefined ? [e.to] : []));
  let exports: ExportRetentionResult | null = null;
  if (r?.exports !== undefined && spec.exports.length > 0) {
    exports = await pruneExportFiles({
      pipeline: spec.name,
      exports: folders,
      allTables: DATA_TABLES,
      keep: r.exports,
    });
    // The lake keeps the newest runs by manifest: a run's files go with its manifest (export/targets/lake-retention.ts).
    if (lakes.length > 0) {
      const { pruneLake } = await import('../export/targets/lake-retention.js');
      for (const to of lakes) {
        const pruned = await pruneLake({ to, pipeline: spec.name, keep: r.exports });
        exports.deleted.push(...pruned.deleted);
        exports.kept += pruned.kept;
      }
    }
  }
  return { rawResponses, exports };
}
