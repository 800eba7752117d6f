// Which pipelines flatten result content into inferred tables, and where: every kind whose runs carry result
// records (pdf, leads-*, the results sync), into `<pipeline>_items` (db/model/evolve/names.ts contentTableName).
import type { ContentTarget } from '../db/store/evolve/content-load.js';
import { contentTableName } from '../db/model/evolve/names.js';
import type { PipelineKind, PipelineSpec } from '../pipelines/spec.js';
import type { KindDefinition } from './types.js';

export function hasContentTables(def: KindDefinition<PipelineKind>): boolean {
  return def.mode !== 'url-list';
}

/** The content tables a pipeline's loads write, with its merge key and schema contract; undefined for URL lists. */
export function contentTargetOf(spec: PipelineSpec, def: KindDefinition<PipelineKind>): ContentTarget | undefined {
  if (!hasContentTables(def)) return undefined;
  return { table: contentTableName(spec.name), mergeKey: spec.merge_key, mode: spec.schema.mode };
}
