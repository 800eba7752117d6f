// The service responses a saved file can hold (`scrape-etl load <kind> <files>`): for each, the endpoint that
// returns it and the schema that validates it. Keyed by LoadKind, the flatteners' own key (db/model/flatten), so the
// compiler names a response kind without an entry here.
import { z } from 'zod';
import {
  createAndRunResponseSchema,
  jobBoardResponseSchema,
  jobDataSchemaSchema,
  jobRecordSchemaFor,
  listScraperSchema,
  marketplaceResponseSchema,
  resultsListResponseSchema,
  scrapingRunResponseSchema,
} from '../client/schemas.js';
import { toIssues } from '../client/validate.js';
import type { LoadKind } from '../db/model/flatten/index.js';

export interface ResponseKind {
  /** `METHOD /path` recorded as the landed response's endpoint. */
  endpoint: string;
  /**
   * The response schema; `request` is the request saved beside the response, when the file has one. Returns an
   * error message when the request itself is unusable.
   */
  schemaFor(request: unknown): z.ZodType | { error: string };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const fixed = (endpoint: string, schema: z.ZodType): ResponseKind => ({ endpoint, schemaFor: () => schema });

export const RESPONSE_KINDS: { readonly [K in LoadKind]: ResponseKind } = {
  marketplace: fixed('POST /api/marketplace/sync', marketplaceResponseSchema),
  'job-board': {
    endpoint: 'POST /api/job-board-scrape',
    // With the request at hand, each record is checked against the data schema that was sent (types, required).
    schemaFor(request) {
      if (!isObject(request) || request['schema'] === undefined) return jobBoardResponseSchema;
      const parsed = jobDataSchemaSchema.safeParse(request['schema']);
      if (!parsed.success) {
        const [first] = toIssues(parsed.error, request['schema']);
        return { error: `request.schema${first?.path ? `.${first.path}` : ''}: ${first?.message ?? 'invalid'}` };
      }
      return jobBoardResponseSchema.extend({ result: z.array(jobRecordSchemaFor(parsed.data)) });
    },
  },
  'create-run': fixed('POST /api/scrapers/create-and-run', createAndRunResponseSchema),
  'scraping-run': fixed('GET /api/scraping-runs/{id}', scrapingRunResponseSchema),
  results: fixed('GET /api/results', resultsListResponseSchema),
  'listed-scraper': fixed('GET /api/scrapers', listScraperSchema),
};
