// The validated pipeline object that the CLI hands to the Temporal workflow. The zod schema in
// pipelines/schema.ts parses pipeline files into exactly this shape (a compile-time check there keeps the two
// in step); workflows and activities depend only on this file, so they never import zod or YAML code.

import type { ExportFormat } from '../export/formats/index.js';
import type { BudgetSpec, ProjectBudgetSpec } from '../budget/types.js';
export const PIPELINE_KINDS = [
  'pdf',
  'leads-search-engine',
  'leads-social',
  'job-board',
  'marketplace',
  'results',
] as const;
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
  /** A folder of plain files; an export has this or `to`. */
  dir?: string;
  /** The lake (export/targets/): s3://bucket/prefix or a folder, in hive partitions with manifests. */
  to?: string;
  /** With `to`: columns whose values make hive partitions below load_date. */
  partition_by?: string[];
  /** File format (export/formats/); the CSV-only keys keep their defaults for the others. */
  format: ExportFormat;
  /** Table names; empty means every table the pipeline's kind writes. */
  tables: string[];
  mode: 'full' | 'incremental';
  /** Incremental only: write a file with no rows when nothing is new (default false: no file, the table is reported unchanged). */
  write_empty: boolean;
  delimiter: string;
  bom: boolean;
  null_text: string;
  /** Template with {pipeline}, {table} and {timestamp}; default {pipeline}_{table}_{timestamp}.<format extension>. */
  file_name: string;
  neutralize_formulas: boolean;
  /** When an `error` check of the run failed: write this export anyway (`run`, default) or skip it. */
  on_failed_checks?: 'run' | 'skip';
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

/** How a load treats new tables, columns and types (db/store/evolve/registry.ts SchemaMode). */
export interface SchemaContractSpec {
  mode: 'evolve' | 'freeze' | 'discard_columns';
}

/**
 * Events a webhook can subscribe to. `schema_changed` is emitted by schema evolution (a table gained or changed
 * columns); `duration_over` when a run took longer than `notify.duration_over`; `export_failed` when the data loaded
 * but the exports could not be written (the status event then says `succeeded` or `partial`, the data's outcome);
 * `did_not_run` when a schedule's fire time passed with no run started (sent by `scrape-etl up`, monitor/missed-fires.ts);
 * `budget_warning` and `budget_exhausted` once per budget limit and period (budget/alerts.ts).
 */
export const NOTIFY_EVENTS = [
  'failed',
  'partial',
  'succeeded',
  'duration_over',
  'schema_changed',
  'export_failed',
  'check_failed',
  'did_not_run',
  'budget_warning',
  'budget_exhausted',
  'price_drop',
  'price_rise',
  'back_in_stock',
  'out_of_stock',
  'new_rows',
] as const;
export type NotifyEventName = (typeof NOTIFY_EVENTS)[number];
/**
 * Events a webhook gets when its `on` is not given: what needs a person's attention. One list for the pipeline
 * file's default (pipelines/schema.ts) and the worker-wide SCRAPE_ETL_NOTIFY_URL's (alerts/notify-config.ts).
 */
export const DEFAULT_NOTIFY_ON = [
  'failed',
  'partial',
  'duration_over',
  'schema_changed',
  'export_failed',
  'check_failed',
  'did_not_run',
  'budget_warning',
  'budget_exhausted',
] as const;
export const NOTIFY_FORMATS = ['json', 'slack'] as const;
export type NotifyFormat = (typeof NOTIFY_FORMATS)[number];

export interface NotifyWebhookSpec {
  /**
   * The webhook's address, usually a `${VAR}` template (e.g. `${SLACK_WEBHOOK_URL}`): the loader leaves it
   * unexpanded and the worker expands it from its own environment when it sends, so the secret part of the URL
   * never enters workflow inputs or history. A literal URL is allowed (and then visible in history).
   */
  url: string;
  format: NotifyFormat;
  on: NotifyEventName[];
}

export interface NotifySpec {
  webhooks: NotifyWebhookSpec[];
  /** A run that takes longer than this (a duration) also sends `duration_over`. */
  duration_over?: string;
  /**
   * How long the run's alert deliveries may take in all, retries included (a duration, default DEFAULT_DELIVER_WITHIN):
   * past it the run ends and reports the alerts not delivered, instead of waiting for a dead receiver.
   */
  deliver_within?: string;
}

/** Default bound of a run's alert deliveries (notify.deliver_within). */
export const DEFAULT_DELIVER_WITHIN = '2m';

/** How long what a pipeline leaves behind is kept (applied after each run and by `scrape-etl prune`). */
export interface RetentionSpec {
  /** Raw response bodies older than this (a duration such as '30d') are pruned; see db/store/retention.ts for what stays. */
  raw_responses?: string;
  /** Export files kept per export entry and table: the newest N, older ones deleted. */
  exports?: number;
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
  notify?: NotifySpec;
  retention?: RetentionSpec;
  /** Spend limits of this pipeline (budget/, docs/budgets.md). */
  budget?: BudgetSpec;
  /** The project file's budget, added by the loader for a pipeline in a project that has one (not a file key). */
  project_budget?: ProjectBudgetSpec;
  /** Data checks evaluated after the load of every run (checks/). */
  checks?: CheckSpec[];
  /** Data events delivered through the webhooks (checks/watch*.ts). */
  watch?: WatchSpec[];
}

export type PipelineSpec = { [K in PipelineKind]: PipelineSpecBase<K> }[PipelineKind];
export type PipelineSpecOf<K extends PipelineKind> = PipelineSpecBase<K>;

/** The URL list of a job-board or marketplace pipeline; [] for the other kinds. */
export function urlsOf(spec: PipelineSpec): string[] {
  const urls = (spec.request as { urls?: unknown }).urls;
  return Array.isArray(urls) ? (urls as string[]) : [];
}

/** The spec without its URL list: lists travel by reference (db/store/url-lists.ts) or a slice at a time. */
export function withoutUrls(spec: PipelineSpec): PipelineSpec {
  if (!('urls' in spec.request)) return spec;
  return { ...spec, request: { ...spec.request, urls: [] } } as PipelineSpec;
}

// ---- checks and watches ----------------------------------------------------------------------------------

export type CheckSeverity = 'warn' | 'error';
export const CHECK_TYPES = [
  'row_count',
  'not_null',
  'null_rate',
  'unique',
  'accepted_values',
  'range',
  'sql',
  'freshness',
  'schema',
] as const;
export type CheckType = (typeof CHECK_TYPES)[number];

interface CheckBase {
  /** Unique within the pipeline; defaults to `<type>:<table>[.<column>]`. */
  name: string;
  severity: CheckSeverity;
}
/** Rows of a table: `scope: run` counts the rows this run delivered, `table` all of the pipeline's rows. */
export interface RowCountCheck extends CheckBase {
  type: 'row_count';
  table: string;
  scope: 'run' | 'table';
  min?: number;
  max?: number;
  /** '50%' */ max_drop?: string;
}
export interface NotNullCheck extends CheckBase {
  type: 'not_null';
  table: string;
  columns: string[];
}
export interface NullRateCheck extends CheckBase {
  type: 'null_rate';
  table: string;
  column: string;
  /** '5%' */ max: string;
}
export interface UniqueCheck extends CheckBase {
  type: 'unique';
  table: string;
  columns: string[];
}
export interface AcceptedValuesCheck extends CheckBase {
  type: 'accepted_values';
  table: string;
  column: string;
  values: Array<string | number | boolean>;
}
/** Every row must satisfy `expression` (checks/expression.ts), e.g. `price_major > 0`. */
export interface RangeCheck extends CheckBase {
  type: 'range';
  table: string;
  expression: string;
}
/** A read-only query that must return no rows. */
export interface SqlCheck extends CheckBase {
  type: 'sql';
  sql: string;
}
/** The newest row of a table (by `column`, default loaded_at), or without a table the last successful run, no older than `max_age`. */
export interface FreshnessCheck extends CheckBase {
  type: 'freshness';
  table?: string;
  column?: string;
  max_age: string;
}
/** Columns that must exist, with their logical type (int, double, text, bool, json, timestamp) or `any`. */
export interface SchemaCheck extends CheckBase {
  type: 'schema';
  table: string;
  columns: Record<string, string>;
}

export type CheckSpec =
  | RowCountCheck
  | NotNullCheck
  | NullRateCheck
  | UniqueCheck
  | AcceptedValuesCheck
  | RangeCheck
  | SqlCheck
  | FreshnessCheck
  | SchemaCheck;

export const WATCH_TYPES = ['price_drop', 'price_rise', 'back_in_stock', 'out_of_stock', 'new_rows'] as const;
export type WatchType = (typeof WATCH_TYPES)[number];

interface WatchBase {
  /** Unique within the pipeline; defaults to the type (plus the table for new_rows). */
  name: string;
  /** Only rows satisfying this expression (checks/expression.ts) trigger the event. */
  filter?: string;
  /** Rows listed in a Slack message (the JSON body carries up to `max_rows`). */
  top: number;
}
/** A price change of at least `by`: a percentage ('10%') or an amount in major units ('5'). */
export interface PriceWatch extends WatchBase {
  type: 'price_drop' | 'price_rise';
  by: string;
  level: 'product' | 'model';
}
export interface StockWatch extends WatchBase {
  type: 'back_in_stock' | 'out_of_stock';
  level: 'product' | 'model';
}
export interface NewRowsWatch extends WatchBase {
  type: 'new_rows';
  table: string;
}
export type WatchSpec = PriceWatch | StockWatch | NewRowsWatch;
