// The kind registry: every pipeline kind and what it declares (kinds/types.ts). The mapped type makes the
// compiler name a kind added to PIPELINE_KINDS (pipelines/spec.ts) without an entry here, and an entry whose
// declaration does not fit the kind's request type. Everything kind-specific is read from here: the pipeline
// file schema, the activities, the `load` command, exports and the docs.
import { PIPELINE_KINDS, type PipelineKind } from '../pipelines/spec.js';
import { jobBoardKind } from './job-board.js';
import { leadsSearchEngineKind } from './leads-search-engine.js';
import { leadsSocialKind } from './leads-social.js';
import { marketplaceKind } from './marketplace.js';
import { pdfKind } from './pdf.js';
import { resultsKind } from './results.js';
import type { KindDefinition } from './types.js';

export type { CreateAndWaitKind, FetchedUrl, KindDefinition, ResultsSyncKind, RunMode, UrlListKind } from './types.js';

export const KINDS: { readonly [K in PipelineKind]: KindDefinition<K> } = {
  pdf: pdfKind,
  'leads-search-engine': leadsSearchEngineKind,
  'leads-social': leadsSocialKind,
  'job-board': jobBoardKind,
  marketplace: marketplaceKind,
  results: resultsKind,
};

/** Thrown for a kind name the registry does not know (a workflow started by other code, an old client). */
export class UnknownKindError extends Error {
  override readonly name = 'UnknownPipelineKind';
  constructor(readonly kind: unknown) {
    super(`unknown pipeline kind '${String(kind)}': expected one of ${PIPELINE_KINDS.join(', ')}`);
  }
}

export function isPipelineKind(kind: unknown): kind is PipelineKind {
  return typeof kind === 'string' && Object.hasOwn(KINDS, kind);
}

/** The registry entry of a kind, or UnknownKindError. */
export function kindOf<K extends PipelineKind>(kind: K): KindDefinition<K>;
export function kindOf(kind: unknown): KindDefinition<PipelineKind>;
export function kindOf(kind: unknown): KindDefinition<PipelineKind> {
  if (!isPipelineKind(kind)) throw new UnknownKindError(kind);
  return KINDS[kind] as KindDefinition<PipelineKind>;
}
