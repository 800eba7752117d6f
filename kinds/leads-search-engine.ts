// `leads-search-engine`: leads from search-engine result pages (by keywords or one URL). One run; its results
// (one per lead) are loaded into leads_results.
import { z } from 'zod';
import { absoluteUrl, nonEmpty, positiveInt, whenObject } from '../pipelines/fields.js';
import { builtOnce } from '../lib/built-once.js';
import type { CreateAndWaitKind } from './types.js';

const request = builtOnce(() =>
  z
    .strictObject({
      name: nonEmpty.optional().describe('name of the task; defaults to the pipeline name'),
      search_type: z.enum(['url', 'keywords']),
      limit_pages: positiveInt.describe('limit on the number of pages to scrape'),
      keywords: z.string().optional().describe("required when search_type is 'keywords'"),
      url: absoluteUrl.optional().describe("required when search_type is 'url'"),
    })
    .superRefine((req, ctx) => {
      // Runs even when other fields already failed (see whenObject), so the input may be malformed here.
      const r = req as Partial<Record<string, unknown>>;
      if (r['search_type'] === 'url' && r['url'] === undefined) {
        ctx.addIssue({ code: 'custom', path: ['url'], message: "required when search_type is 'url'" });
      }
      if (r['search_type'] === 'keywords' && (typeof r['keywords'] !== 'string' || r['keywords'].trim() === '')) {
        ctx.addIssue({
          code: 'custom',
          path: ['keywords'],
          message: "required (non-empty) when search_type is 'keywords'",
        });
      }
    }, whenObject),
);

export const leadsSearchEngineKind: CreateAndWaitKind<'leads-search-engine'> = {
  kind: 'leads-search-engine',
  mode: 'create-and-wait',
  summary: 'leads from search-engine result pages, by keywords or one URL',
  get request() {
    return request();
  },
  defaultsRequestName: true,
  requestOptional: false,
  endpoints: [
    'POST /api/scrapers/leads-generator/search-engine/create-and-run',
    'GET /api/scraping-runs/{id}',
    'GET /api/results',
  ],
  tables: ['scrapers', 'run_records', 'scraping_runs', 'leads_results'],
  resultTable: 'leads_results',
  create: (client, req, o) => client.createLeadsSearchEngineScraper(req, o),
  // Ten results per search-engine page.
  expectedResultsPerRun: (req) => req.limit_pages * 10,
  expectedRuns: () => 1,
};
