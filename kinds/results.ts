// `results`: an incremental sync of /api/results (every scraper of the account, newest first) down to the highest
// result id the last complete sync loaded; results go to scraper_results.
import { z } from 'zod';
import { positiveInt } from '../pipelines/fields.js';
import { builtOnce } from '../lib/built-once.js';
import type { ResultsSyncKind } from './types.js';

const request = builtOnce(() =>
  z.strictObject({
    per_page: positiveInt.max(1000).default(100).describe('results per page'),
    max_pages: positiveInt.optional().describe('stop after this many pages (default: until the last sync is reached)'),
  }),
);

export const resultsKind: ResultsSyncKind<'results'> = {
  kind: 'results',
  mode: 'results-sync',
  summary: 'incremental sync of every result of the account, newest first, down to the last sync',
  get request() {
    return request();
  },
  defaultsRequestName: false,
  requestOptional: true,
  endpoints: ['GET /api/results'],
  tables: ['scraper_results'],
  resultTable: 'scraper_results',
};
