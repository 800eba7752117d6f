export * from './schemas.js';
export * from './errors.js';
export { JsonDepthError, MAX_JSON_DEPTH, parseJson, stringifyJson, type ParseJsonOptions } from '../lib/json.js';
export { formatJsonPath, validateWith } from './validate.js';
export {
  ScraperClient,
  checkBaseUrl,
  type ApiResult,
  type CallOptions,
  type FindScraperOptions,
  type Page,
  type PageQuery,
  type PagesOptions,
  type RetryInfo,
  type ScraperClientOptions,
} from './client.js';
