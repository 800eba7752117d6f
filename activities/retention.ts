// Retention after each run: the applyPipelineRetention activity applies the pipeline's `retention` section
// (retention/apply-retention.ts, which `scrape-etl prune` runs on demand too).
import type { PipelineSpec } from '../pipelines/spec.js';
import { applyRetention } from '../retention/apply-retention.js';
import type { ActivityDeps } from './deps.js';

export type { RetentionOutput } from '../retention/apply-retention.js';

export function retentionActivities(deps: ActivityDeps) {
  return {
    async applyPipelineRetention(input: {
      spec: PipelineSpec;
    }): Promise<{ rawDeleted: number; rawKept: number; filesDeleted: number }> {
      const out = await applyRetention(await deps.destination(input.spec.destination.database), input.spec);
      // Only counts go back to history: file paths could be many.
      return {
        rawDeleted: out.rawResponses?.deleted ?? 0,
        rawKept: out.rawResponses?.kept ?? 0,
        filesDeleted: out.exports?.deleted.length ?? 0,
      };
    },
  };
}
