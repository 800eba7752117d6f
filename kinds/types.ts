// What a pipeline kind declares about itself. Each kind is one module (kinds/<kind>.ts) holding one of these;
// kinds/index.ts collects them in a record keyed by PipelineKind, so the compiler names every kind that lacks an
// entry. The workflow never imports this (it would drag zod and the client into the workflow bundle): it asks
// the `planPipelineRun` activity for the kind's run mode, which reads it from here.
import type { z } from 'zod';
import type { ApiResult, CallOptions, CreateAndRunResponse, ScraperClient } from '../client/index.js';
import type { FlattenInput } from '../db/model/flatten/index.js';
import type { DataTableName, ResultTableName } from '../db/model/tables.js';
import type { PipelineKind, RequestSpecByKind } from '../pipelines/spec.js';
import type { RunMode } from '../temporal/contract.js';

export type { RunMode };

/** The `request` section as the file's schema yields it: `name`, where the kind has one, defaults later. */
export type RequestFileOutput<K extends PipelineKind> = RequestSpecByKind[K] extends { name: string }
  ? Omit<RequestSpecByKind[K], 'name'> & { name?: string | undefined }
  : RequestSpecByKind[K];

interface KindBase<K extends PipelineKind> {
  kind: K;
  /** One line for docs and help texts. */
  summary: string;
  /** Schema of the pipeline file's `request` section; its output must fit the kind's RequestSpec. */
  request: z.ZodType<RequestFileOutput<K>>;
  /** `request.name` (the scraper's name at the service) defaults to the pipeline name. */
  defaultsRequestName: boolean;
  /** The file may leave `request` out (every field has a default). */
  requestOptional: boolean;
  /** `METHOD /path` of every service endpoint a run of this kind calls (docs, simulator tests). */
  endpoints: readonly string[];
  /** Every table a run of this kind writes (export defaults, validation of export table names, docs). */
  tables: readonly DataTableName[];
  /** The table result records go to (PDF and leads have their own; the results sync sees every scraper). */
  resultTable: ResultTableName;
}

/** Asynchronous kinds: one create-and-run call starts scraping runs, which are awaited and then loaded. */
export interface CreateAndWaitKind<K extends PipelineKind> extends KindBase<K> {
  mode: 'create-and-wait';
  create(
    client: ScraperClient,
    request: RequestSpecByKind[K],
    o: CallOptions,
  ): Promise<ApiResult<CreateAndRunResponse>>;
  /**
   * Results one run should carry when the request says so; a run detail with fewer makes the loader page
   * /api/results for the rest. undefined: always look there too.
   */
  expectedResultsPerRun(request: RequestSpecByKind[K]): number | undefined;
  /**
   * Scraping runs one create starts. When a create's answer is lost and the scraper is adopted by its name, its
   * runs are found in /api/results, and this says when all of them have been found.
   */
  expectedRuns(request: RequestSpecByKind[K]): number;
}

/** One fetched URL: the service's answer (raw body for landing) and what to flatten from it. */
export interface FetchedUrl {
  api: ApiResult<unknown>;
  load: FlattenInput;
}

/** Synchronous kinds: one call per URL of `request.urls`, fanned out inside activities. */
export interface UrlListKind<K extends PipelineKind> extends KindBase<K> {
  mode: 'url-list';
  fetch(client: ScraperClient, request: RequestSpecByKind[K], url: string, o: CallOptions): Promise<FetchedUrl>;
}

/** The incremental sync of /api/results down to the last complete sync's watermark. */
export interface ResultsSyncKind<K extends PipelineKind> extends KindBase<K> {
  mode: 'results-sync';
}

export type KindDefinition<K extends PipelineKind> = CreateAndWaitKind<K> | UrlListKind<K> | ResultsSyncKind<K>;
