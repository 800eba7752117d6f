// Pipeline specs for Temporal tests: the validated shape the workflow takes, with fast polling.
import type { PipelineSpec, PipelineSpecOf } from '../../pipelines/spec.js';
import { JOB_SCHEMA } from './job-schema.js';

export { JOB_SCHEMA };

export const FAST_POLLING = { initial_interval: '200ms', backoff_coefficient: 1.5, max_interval: '1s', deadline: '2m' };

const base = (name: string, database: string) => ({
  name,
  destination: { database },
  exports: [],
  polling: FAST_POLLING,
  concurrency: 4,
  price_divisor: 100000,
  schema: { mode: 'evolve' as const },
});

export function pdfSpec(name: string, database: string, keywords = 2, expected = 6): PipelineSpecOf<'pdf'> {
  return {
    ...base(name, database),
    kind: 'pdf',
    request: {
      name,
      keywords: Array.from({ length: keywords }, (_, i) => ({
        keyword: `annual report ${i}`,
        prompt: 'Is this an annual report?',
      })),
      expected_pdf: expected,
    },
  };
}

export function leadsSearchSpec(name: string, database: string, limitPages = 3): PipelineSpecOf<'leads-search-engine'> {
  return {
    ...base(name, database),
    kind: 'leads-search-engine',
    request: { name, search_type: 'keywords', keywords: 'solar installers', limit_pages: limitPages },
  };
}

export function leadsSocialSpec(name: string, database: string, expected = 25): PipelineSpecOf<'leads-social'> {
  return {
    ...base(name, database),
    kind: 'leads-social',
    request: { name, keywords: 'heat pumps', sentiment_type: 'all', expected_data: expected },
  };
}

export function jobBoardSpec(name: string, database: string, urls: string[]): PipelineSpecOf<'job-board'> {
  return {
    ...base(name, database),
    kind: 'job-board',
    request: { urls, min: 2, max: 6, timeout: 60, schema: JOB_SCHEMA },
  };
}

export function marketplaceSpec(name: string, database: string, urls: string[]): PipelineSpecOf<'marketplace'> {
  return { ...base(name, database), kind: 'marketplace', request: { urls } };
}

export function resultsSpec(name: string, database: string, perPage = 50): PipelineSpecOf<'results'> {
  return { ...base(name, database), kind: 'results', request: { per_page: perPage } };
}

export function productUrl(item: number, shop = 10115139): string {
  return `https://shopee.tw/api/v2/item/get?itemid=${item}&shopid=${shop}`;
}

export type { PipelineSpec };
