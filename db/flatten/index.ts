// One entry point from (load kind, validated response) to rows per table.
import type {
  CreateAndRunResponse,
  JobBoardResponse,
  MarketplaceResponse,
  ResultsListResponse,
  ScrapingRunResponse,
} from '../../client/schemas.js';
import type { PipelineKind } from '../../pipelines/spec.js';
import type { ResultTableName } from '../tables.js';
import { flattenJobBoard } from './job-board.js';
import { flattenMarketplace } from './marketplace.js';
import { flattenResultRecords } from './results.js';
import { flattenCreateRun, flattenScrapingRun } from './runs.js';
import type { RowsByTable } from './values.js';

export type { Row, RowsByTable, Scalar } from './values.js';
export { flattenMarketplace, DEFAULT_PRICE_DIVISOR, toMajor } from './marketplace.js';
export { flattenJobBoard, jobKey } from './job-board.js';
export { flattenResultRecords, flattenContent } from './results.js';
export { flattenCreateRun, flattenScrapingRun } from './runs.js';

export type LoadKind = 'marketplace' | 'job-board' | 'create-run' | 'scraping-run' | 'results';
export const LOAD_KINDS: readonly LoadKind[] = ['marketplace', 'job-board', 'create-run', 'scraping-run', 'results'];

export interface ResponseByKind {
  marketplace: MarketplaceResponse;
  'job-board': JobBoardResponse;
  'create-run': CreateAndRunResponse;
  'scraping-run': ScrapingRunResponse;
  results: ResultsListResponse;
}

/**
 * Which result table a pipeline's results go to: the kind-specific table for PDF and leads pipelines, the
 * generic `scraper_results` for everything else (the `results` sync sees every scraper of the account).
 */
export function resultTableFor(pipelineKind: PipelineKind | undefined): ResultTableName {
  if (pipelineKind === 'pdf') return 'pdf_results';
  if (pipelineKind === 'leads-search-engine' || pipelineKind === 'leads-social') return 'leads_results';
  return 'scraper_results';
}

export type FlattenInput = { [K in LoadKind]: { kind: K; data: ResponseByKind[K] } }[LoadKind];

export function flattenResponse(
  input: FlattenInput,
  opts: { priceDivisor?: number; pipelineKind?: PipelineKind } = {},
): RowsByTable {
  switch (input.kind) {
    case 'marketplace':
      return flattenMarketplace(input.data, opts.priceDivisor === undefined ? {} : { priceDivisor: opts.priceDivisor });
    case 'job-board':
      return flattenJobBoard(input.data);
    case 'create-run':
      return flattenCreateRun(input.data);
    case 'scraping-run':
      return flattenScrapingRun(input.data, resultTableFor(opts.pipelineKind));
    case 'results':
      return flattenResultRecords(input.data.data, resultTableFor(opts.pipelineKind === 'results' ? undefined : opts.pipelineKind));
  }
}
