export * from './schemas.js';
export * from './errors.js';
export { parseJson, stringifyJson } from './json.js';
export { formatJsonPath, validateWith } from './validate.js';
export {
  ScraperClient,
  checkBaseUrl,
  type ApiResult,
  type CallOptions,
  type Page,
  type PageQuery,
  type PagesOptions,
  type RetryInfo,
  type ScraperClientOptions,
} from './client.js';
