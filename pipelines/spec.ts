// The validated pipeline object that the CLI hands to the Temporal workflow. The zod schema in
// pipelines/schema.ts parses pipeline files into exactly this shape (a compile-time check there keeps the two
// in step); workflows and activities depend only on this file, so they never import zod or YAML code.

import type { ExportFormat } from '../export/formats/index.js';
export const PIPELINE_KINDS = ['pdf', 'leads-search-engine', 'leads-social', 'job-board', 'marketplace', 'results'] as const;
export type PipelineKind = (typeof PIPELINE_KINDS)[number];

export interface PdfRequestSpec {
  name: string;
  keywords: Array<{ keyword: string; prompt: string }>;
  unique?: boolean;
  expected_pdf?: number;
}

export interface LeadsSearchEngineRequestSpec {
  name: string;
  search_type: 'url' | 'keywords';
  limit_pages: number;
  keywords?: string;
  url?: string;
}

export interface LeadsSocialRequestSpec {
  name: string;
  keywords: string;
  sentiment_type: 'all' | 'positive' | 'neutral' | 'negative';
  expected_data: number;
}

/** One job-board call is made per URL, each with the same min/max/timeout/schema. */
export interface JobBoardRequestSpec {
  urls: string[];
  min: number;
  max: number;
  timeout: number;
  schema: Record<string, unknown>;
}

/** One marketplace sync call is made per product-API URL. */
export interface MarketplaceRequestSpec {
  urls: string[];
}

/** Incremental sync of /api/results: pages newest first until it reaches what the last sync loaded. */
export interface ResultsRequestSpec {
  per_page: number;
  max_pages?: number;
}

export type RequestSpecByKind = {
  pdf: PdfRequestSpec;
  'leads-search-engine': LeadsSearchEngineRequestSpec;
  'leads-social': LeadsSocialRequestSpec;
  'job-board': JobBoardRequestSpec;
  marketplace: MarketplaceRequestSpec;
  results: ResultsRequestSpec;
};

export interface ExportSpec {
  dir: string;
  /** File format (export/formats/); the CSV-only keys keep their defaults for the others. */
  format: ExportFormat;
  /** Table names; empty means every table the pipeline's kind writes. */
  tables: string[];
  mode: 'full' | 'incremental';
  delimiter: string;
  bom: boolean;
  null_text: string;
  /** Template with {pipeline}, {table} and {timestamp}; default {pipeline}_{table}_{timestamp}.<format extension>. */
  file_name: string;
  neutralize_formulas: boolean;
}

export interface PollingSpec {
  /** Durations in Temporal's string form: '500ms', '5s', '10m', '6h'. */
  initial_interval: string;
  backoff_coefficient: number;
  max_interval: string;
  deadline: string;
}

export type OverlapPolicy = 'skip' | 'buffer_one' | 'buffer_all' | 'cancel_other' | 'terminate_other' | 'allow_all';

export interface ScheduleSpec {
  cron: string;
  timezone: string;
  overlap: OverlapPolicy;
  catchup_window: string;
  paused: boolean;
}

/** How a load treats new tables, columns and types (db/evolve/registry.ts SchemaMode). */
export interface SchemaContractSpec {
  mode: 'evolve' | 'freeze' | 'discard_columns';
}

interface PipelineSpecBase<K extends PipelineKind> {
  name: string;
  kind: K;
  request: RequestSpecByKind[K];
  destination: { database: string };
  exports: ExportSpec[];
  polling: PollingSpec;
  concurrency: number;
  price_divisor: number;
  schedule?: ScheduleSpec;
  schema: SchemaContractSpec;
  /** Content paths identifying a row of the pipeline's inferred table (pdf, leads-*, results only). */
  merge_key?: string[];
}

export type PipelineSpec = { [K in PipelineKind]: PipelineSpecBase<K> }[PipelineKind];
export type PipelineSpecOf<K extends PipelineKind> = PipelineSpecBase<K>;

/** The URL list of a job-board or marketplace pipeline; [] for the other kinds. */
export function urlsOf(spec: PipelineSpec): string[] {
  const urls = (spec.request as { urls?: unknown }).urls;
  return Array.isArray(urls) ? (urls as string[]) : [];
}

/** The spec without its URL list: lists travel by reference (db/url-lists.ts) or a slice at a time. */
export function withoutUrls(spec: PipelineSpec): PipelineSpec {
  if (!('urls' in spec.request)) return spec;
  return { ...spec, request: { ...spec.request, urls: [] } } as PipelineSpec;
}
