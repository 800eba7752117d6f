// What a pipeline run shows in Temporal's visibility (Web UI, `temporal workflow list`, `status`): a memo on every
// run and custom search attributes, so runs can be filtered by pipeline, kind and destination:
//   ScrapeEtlPipeline = 'shop-prices' AND ScrapeEtlKind = 'marketplace'
// The embedded dev server registers the attributes when it starts (temporal/dev-server.ts); on a cluster an
// operator registers them once (README). A start never fails for their absence: only registered ones are set.
import { defineSearchAttributeKey, type SearchAttributePair } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { destinationKey } from '../db/model/url.js';
import type { PipelineSpec } from '../pipelines/spec.js';
import { SEARCH_ATTRIBUTE_NAMES, visibleInUi } from './contract.js';

export const SEARCH_ATTRIBUTES = {
  pipeline: defineSearchAttributeKey(SEARCH_ATTRIBUTE_NAMES.pipeline, 'KEYWORD'),
  kind: defineSearchAttributeKey(SEARCH_ATTRIBUTE_NAMES.kind, 'KEYWORD'),
  destination: defineSearchAttributeKey(SEARCH_ATTRIBUTE_NAMES.destination, 'KEYWORD'),
  status: defineSearchAttributeKey(SEARCH_ATTRIBUTE_NAMES.status, 'KEYWORD'),
} as const;

/**
 * The memo every run carries: what a person looking at it in the Web UI wants first. Written in clear (the UI has
 * no key to the encrypted payloads); the destination is redacted by destinationKey.
 */
export function pipelineMemo(spec: PipelineSpec, file?: string): Record<string, unknown> {
  const memo: Record<string, unknown> = {
    pipeline: spec.name,
    kind: spec.kind,
    destination: destinationKey(spec.destination.database),
    ...(file ? { file } : {}),
  };
  return Object.fromEntries(Object.entries(memo).map(([k, v]) => [k, visibleInUi(v)]));
}

const registered = new WeakMap<object, Promise<Set<string>>>();

/** Names of the custom search attributes the client's namespace has (asked once per connection). */
async function registeredAttributes(client: Client): Promise<Set<string>> {
  const key = client.connection;
  let names = registered.get(key);
  if (!names) {
    names = client.connection.operatorService
      .listSearchAttributes({ namespace: client.options.namespace })
      .then((r) => new Set(Object.keys(r.customAttributes ?? {})))
      // An operator service the caller may not use (a restricted cloud key): run without the attributes.
      .catch(() => new Set<string>());
    registered.set(key, names);
  }
  return names;
}

/** The search attributes of a run, as far as the namespace has them registered. */
export async function pipelineSearchAttributes(client: Client, spec: PipelineSpec): Promise<SearchAttributePair[]> {
  const have = await registeredAttributes(client);
  const pairs: SearchAttributePair[] = [
    { key: SEARCH_ATTRIBUTES.pipeline, value: spec.name },
    { key: SEARCH_ATTRIBUTES.kind, value: spec.kind },
    // The database's one spelling (a SQLite path made absolute here), so `status --database` finds its runs.
    { key: SEARCH_ATTRIBUTES.destination, value: destinationKey(spec.destination.database) },
    // Set to the outcome when the run ends (workflows/visibility.ts); present from the start so that the workflow
    // knows the attribute is registered.
    { key: SEARCH_ATTRIBUTES.status, value: 'running' },
  ];
  return pairs.filter((p) => have.has(p.key.name));
}
