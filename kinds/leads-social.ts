// `leads-social`: leads from social media posts matching keywords and a sentiment. One run; its results are
// loaded into leads_results.
import { z } from 'zod';
import { nonEmpty, positiveInt } from '../pipelines/fields.js';
import { builtOnce } from '../lib/built-once.js';
import type { CreateAndWaitKind } from './types.js';

const request = builtOnce(() =>
  z.strictObject({
    name: nonEmpty.optional().describe('name of the task; defaults to the pipeline name'),
    keywords: nonEmpty.describe('keywords to search'),
    sentiment_type: z.enum(['all', 'positive', 'neutral', 'negative']),
    expected_data: positiveInt.describe('number of expected data items'),
  }),
);

export const leadsSocialKind: CreateAndWaitKind<'leads-social'> = {
  kind: 'leads-social',
  mode: 'create-and-wait',
  summary: 'leads from social media posts by keywords and sentiment',
  get request() {
    return request();
  },
  defaultsRequestName: true,
  requestOptional: false,
  endpoints: [
    'POST /api/scrapers/leads-generator/social/create-and-run',
    'GET /api/scraping-runs/{id}',
    'GET /api/results',
  ],
  tables: ['scrapers', 'run_records', 'scraping_runs', 'leads_results'],
  resultTable: 'leads_results',
  create: (client, req, o) => client.createLeadsSocialScraper(req, o),
  expectedResultsPerRun: (req) => req.expected_data,
  expectedRuns: () => 1,
};
