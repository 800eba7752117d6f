// One entry point from (load kind, validated response) to rows per table.
import type {
  CreateAndRunResponse,
  JobBoardResponse,
  ListScraper,
  MarketplaceResponse,
  ResultsListResponse,
  ScrapingRunResponse,
} from '../../../client/schemas.js';
import type { ResultTableName } from '../tables.js';
import { flattenJobBoard } from './job-board.js';
import { flattenMarketplace } from './marketplace.js';
import { flattenResultRecords } from './results.js';
import { flattenCreateRun, flattenListedScraper, flattenScrapingRun } from './runs.js';
import type { RowsByTable } from './values.js';

export type { Row, RowsByTable, Scalar } from './values.js';
export { flattenMarketplace, DEFAULT_PRICE_DIVISOR, toMajor } from './marketplace.js';
export { flattenJobBoard, jobKey } from './job-board.js';
export { flattenResultRecords } from './results.js';
export { flattenContentRows, decodeContent } from './content.js';
export { flattenCreateRun, flattenListedScraper, flattenScrapingRun } from './runs.js';

import type { LoadKind } from './load-kinds.js';
export { LOAD_KINDS, type LoadKind } from './load-kinds.js';

export interface ResponseByKind {
  marketplace: MarketplaceResponse;
  'job-board': JobBoardResponse;
  'create-run': CreateAndRunResponse;
  'scraping-run': ScrapingRunResponse;
  results: ResultsListResponse;
  /** One element of `GET /api/scrapers`' data. */
  'listed-scraper': ListScraper;
}

export type FlattenInput = { [K in LoadKind]: { kind: K; data: ResponseByKind[K] } }[LoadKind];

export function flattenResponse(
  input: FlattenInput,
  /** resultTable: where result records go (the kind registry decides; default scraper_results). */
  opts: { priceDivisor?: number; resultTable?: ResultTableName } = {},
): RowsByTable {
  switch (input.kind) {
    case 'marketplace':
      return flattenMarketplace(input.data, opts.priceDivisor === undefined ? {} : { priceDivisor: opts.priceDivisor });
    case 'job-board':
      return flattenJobBoard(input.data);
    case 'create-run':
      return flattenCreateRun(input.data);
    case 'scraping-run':
      return flattenScrapingRun(input.data, opts.resultTable ?? 'scraper_results');
    case 'results':
      return flattenResultRecords(input.data.data, opts.resultTable ?? 'scraper_results');
    case 'listed-scraper':
      return flattenListedScraper(input.data);
  }
}
