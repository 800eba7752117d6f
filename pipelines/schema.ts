/**
 * The pipeline file schema (zod v4). It parses the YAML/JSON object of one pipeline file into exactly the
 * `PipelineSpec` of ./spec.ts (checked at compile time at the bottom of this file), fills defaults, and is the
 * single source of pipeline.schema.json (see ./json-schema.ts).
 *
 * Messages are written for the person editing the file: they say what is expected, and list allowed values.
 * Position information is added by ./loader.ts, which maps issue paths back to YAML nodes.
 */
import { z } from 'zod';
import { CronExpressionParser } from 'cron-parser';
import { DURATION_PATTERN, parseDurationMs } from './duration.js';
import type { PipelineSpec } from './spec.js';

export const DEFAULT_SQLITE_URL = 'sqlite:./data/scrape-etl.sqlite';

/** DATABASE_URL when set, else the SQLite file under ./data (same rule as db/connect.ts defaultDatabaseUrl). */
export function defaultDatabaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  const url = env['DATABASE_URL'];
  return url !== undefined && url !== '' ? url : DEFAULT_SQLITE_URL;
}

const nonEmpty = z.string().trim().min(1, 'must not be empty');
const positiveInt = z.int().positive();

const absoluteUrl = z
  .string()
  .refine((s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol), 'expected an absolute http(s) URL');

const duration = (fallback: string) =>
  z
    .string()
    .regex(new RegExp(DURATION_PATTERN), "expected a duration: a whole number followed by ms, s, m, h or d (e.g. '500ms', '5s', '10m', '6h')")
    .default(fallback);

// ---------------------------------------------------------------------------------------------------------
// Requests, one per kind, with the fields of the service spec (../shared/spec/scraping-service-api.md).

const pdfRequest = z.strictObject({
  name: nonEmpty.optional().describe('name of the scraping task; defaults to the pipeline name'),
  keywords: z
    .array(
      z.strictObject({
        keyword: nonEmpty.describe('search phrase for PDF files'),
        prompt: nonEmpty.describe('instruction that makes the classifier answer true or false per file'),
      }),
    )
    .min(1, 'needs at least one keyword'),
  unique: z.boolean().optional().describe('when true, previously scraped PDF files are not included'),
  expected_pdf: positiveInt.optional().describe('total expected PDF files'),
});

const leadsSearchEngineRequest = z
  .strictObject({
    name: nonEmpty.optional().describe('name of the task; defaults to the pipeline name'),
    search_type: z.enum(['url', 'keywords']),
    limit_pages: positiveInt.describe('limit on the number of pages to scrape'),
    keywords: z.string().optional().describe("required when search_type is 'keywords'"),
    url: absoluteUrl.optional().describe("required when search_type is 'url'"),
  })
  .superRefine(
    (req, ctx) => {
      // Runs even when other fields already failed (see `when`), so the input may be malformed here.
      const r = req as Partial<Record<string, unknown>>;
      if (r['search_type'] === 'url' && r['url'] === undefined) {
        ctx.addIssue({ code: 'custom', path: ['url'], message: "required when search_type is 'url'" });
      }
      if (r['search_type'] === 'keywords' && (typeof r['keywords'] !== 'string' || r['keywords'].trim() === '')) {
        ctx.addIssue({ code: 'custom', path: ['keywords'], message: "required (non-empty) when search_type is 'keywords'" });
      }
    },
    { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
  );

const leadsSocialRequest = z.strictObject({
  name: nonEmpty.optional().describe('name of the task; defaults to the pipeline name'),
  keywords: nonEmpty.describe('keywords to search'),
  sentiment_type: z.enum(['all', 'positive', 'neutral', 'negative']),
  expected_data: positiveInt.describe('number of expected data items'),
});

const JOB_PROPERTY_TYPES = ['string', 'number', 'integer', 'boolean'] as const;

/** The data schema sent with every job-board call: a list of objects whose properties are scalar fields. */
const jobDataSchema = z
  .strictObject({
    type: z.literal('array'),
    description: z.string().optional(),
    items: z.strictObject({
      type: z.literal('object'),
      description: z.string().optional(),
      properties: z
        .record(
          z.string(),
          // Loose: other JSON Schema keywords on a property (format, enum, ...) are passed on to the service.
          z.looseObject({ type: z.enum(JOB_PROPERTY_TYPES), description: z.string().optional() }),
        )
        .refine((p) => Object.keys(p).length > 0, 'needs at least one property'),
      required: z.array(z.string()).optional(),
    }),
    required: z.array(z.string()).optional(),
  })
  .superRefine((schema, ctx) => {
    const props = Object.keys(schema.items.properties);
    for (const [i, name] of (schema.items.required ?? []).entries()) {
      if (!props.includes(name)) {
        ctx.addIssue({ code: 'custom', path: ['items', 'required', i], message: `'${name}' is not one of items.properties (${props.join(', ')})` });
      }
    }
  })
  // The workflow treats the schema as opaque JSON; only its shape is checked here.
  .transform((schema): Record<string, unknown> => schema);

const jobBoardRequest = z
  .strictObject({
    urls: z.array(absoluteUrl).min(1, 'needs at least one listing URL'),
    min: z.int().nonnegative(),
    max: positiveInt,
    timeout: positiveInt,
    schema: jobDataSchema,
  })
  .superRefine(
    (req, ctx) => {
      if (typeof req.min === 'number' && typeof req.max === 'number' && req.min > req.max) {
        ctx.addIssue({ code: 'custom', path: ['min'], message: `must not be greater than max (${req.max})` });
      }
    },
    { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
  );

const marketplaceUrl = absoluteUrl.refine((s) => {
  if (!URL.canParse(s)) return true; // reported by absoluteUrl
  const q = new URL(s).searchParams;
  return q.has('itemid') && q.has('shopid');
}, 'expected the product-detail API URL with itemid and shopid query parameters');

const marketplaceRequest = z.strictObject({
  urls: z.array(marketplaceUrl).min(1, 'needs at least one product URL'),
});

const resultsRequest = z.strictObject({
  per_page: positiveInt.max(1000).default(100).describe('results per page'),
  max_pages: positiveInt.optional().describe('stop after this many pages (default: until the last sync is reached)'),
});

// ---------------------------------------------------------------------------------------------------------
// Shared sections

const destination = z.strictObject({
  database: z
    .string()
    .refine((s) => /^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(s), "expected 'sqlite:<path>' or 'postgres://…'")
    .optional()
    .describe('default: $DATABASE_URL, else sqlite:./data/scrape-etl.sqlite'),
});

const FILE_NAME_PLACEHOLDERS = ['{pipeline}', '{table}', '{timestamp}'];

const exportSpec = z.strictObject({
  dir: nonEmpty.describe('folder the CSV files are written to'),
  tables: z.array(nonEmpty).default([]).describe('tables to export; empty means every table of the kind'),
  mode: z.enum(['full', 'incremental']).default('full'),
  delimiter: z.string().length(1, 'must be exactly one character').default(','),
  bom: z.boolean().default(false),
  null_text: z.string().default(''),
  file_name: z
    .string()
    .default('{pipeline}_{table}_{timestamp}.csv')
    .refine(
      (s) => (s.match(/\{[^}]*\}/g) ?? []).every((p) => FILE_NAME_PLACEHOLDERS.includes(p)),
      `only these placeholders are allowed: ${FILE_NAME_PLACEHOLDERS.join(', ')}`,
    )
    .refine((s) => !/[\\/]/.test(s), 'must be a file name, not a path (use dir for the folder)'),
  neutralize_formulas: z.boolean().default(true).describe('prefix cells starting with = + - @ so spreadsheets do not run them'),
}).superRefine(
  (e, ctx) => {
    if (typeof e.file_name === 'string' && !e.file_name.includes('{table}') && (!Array.isArray(e.tables) || e.tables.length !== 1)) {
      ctx.addIssue({ code: 'custom', path: ['file_name'], message: 'must contain {table} unless exactly one table is exported, or every table would write the same file' });
    }
  },
  { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
);

const polling = z
  .strictObject({
    initial_interval: duration('2s'),
    backoff_coefficient: z.number().min(1, 'must be at least 1').default(2),
    max_interval: duration('1m'),
    deadline: duration('6h'),
  })
  .superRefine(
    (p, ctx) => {
      try {
        if (parseDurationMs(p.initial_interval) > parseDurationMs(p.max_interval)) {
          ctx.addIssue({ code: 'custom', path: ['initial_interval'], message: `must not be longer than max_interval (${p.max_interval})` });
        }
      } catch {
        // malformed durations are already reported by their own fields
      }
    },
    { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
  );

export const OVERLAP_POLICIES = ['skip', 'buffer_one', 'buffer_all', 'cancel_other', 'terminate_other', 'allow_all'] as const;

function cronProblem(expr: string): string | undefined {
  const text = expr.trim();
  if (!text.startsWith('@') && text.split(/\s+/).length !== 5) {
    return `expected 5 fields (minute hour day-of-month month day-of-week), got ${text.split(/\s+/).length}`;
  }
  try {
    CronExpressionParser.parse(text, { strict: false });
    return undefined;
  } catch (err) {
    return `invalid cron expression: ${err instanceof Error ? err.message : String(err)}`;
  }
}

function isIanaTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const schedule = z.strictObject({
  cron: z.string().superRefine((s, ctx) => {
    const problem = cronProblem(s);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  timezone: z
    .string()
    .default('UTC')
    .refine(isIanaTimezone, "expected an IANA time zone name such as 'UTC', 'Europe/Paris' or 'America/New_York'"),
  overlap: z.enum(OVERLAP_POLICIES).default('skip').describe('what happens when a run is due while the previous one still runs'),
  catchup_window: duration('1h').describe('how late a missed run may still start (e.g. after downtime)'),
  paused: z.boolean().default(false),
});

const pipelineName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]*$/, 'expected lowercase letters, digits, _ and -, starting with a letter or digit')
  .max(100, 'must be at most 100 characters')
  // Workflow ids are `<name>--<runKey>`; a '--' inside the name would make them ambiguous.
  .refine((s) => !s.includes('--'), "must not contain '--'");

const common = {
  name: pipelineName,
  destination: destination.optional(),
  exports: z.array(exportSpec).default([]),
  polling: polling.prefault({}),
  concurrency: positiveInt.max(64).default(4).describe('how many URLs of a list are scraped at once'),
  price_divisor: positiveInt.default(100000).describe('integer price / divisor = price in major units'),
  schedule: schedule.optional(),
};

function withDefaults<T extends { name: string; destination?: { database?: string | undefined } | undefined; schedule?: unknown }>(s: T) {
  const { destination: dest, schedule: sched, ...rest } = s;
  return {
    ...rest,
    destination: { database: dest?.database ?? defaultDatabaseUrl() },
    ...(sched === undefined ? {} : { schedule: sched as Exclude<T['schedule'], undefined> }),
  };
}

function withRequestName<T extends { name: string; request: { name?: string | undefined } }>(s: T) {
  return { ...s, request: { ...s.request, name: s.request.name ?? s.name } };
}

const pdfPipeline = z
  .strictObject({ ...common, kind: z.literal('pdf'), request: pdfRequest })
  .transform((s) => withDefaults(withRequestName(s)));
const leadsSearchEnginePipeline = z
  .strictObject({ ...common, kind: z.literal('leads-search-engine'), request: leadsSearchEngineRequest })
  .transform((s) => withDefaults(withRequestName(s)));
const leadsSocialPipeline = z
  .strictObject({ ...common, kind: z.literal('leads-social'), request: leadsSocialRequest })
  .transform((s) => withDefaults(withRequestName(s)));
const jobBoardPipeline = z
  .strictObject({ ...common, kind: z.literal('job-board'), request: jobBoardRequest })
  .transform((s) => withDefaults(s));
const marketplacePipeline = z
  .strictObject({ ...common, kind: z.literal('marketplace'), request: marketplaceRequest })
  .transform((s) => withDefaults(s));
const resultsPipeline = z
  .strictObject({ ...common, kind: z.literal('results'), request: resultsRequest.prefault({}) })
  .transform((s) => withDefaults(s));

export const pipelineSchema = z.discriminatedUnion('kind', [
  pdfPipeline,
  leadsSearchEnginePipeline,
  leadsSocialPipeline,
  jobBoardPipeline,
  marketplacePipeline,
  resultsPipeline,
]);

/**
 * The keys every pipeline shares, with `kind` and `request` left open. The loader validates a file against it
 * when `kind` is missing or unknown, so the other mistakes of that file are still reported in the same run.
 */
export const pipelineBaseSchema = z.strictObject({ ...common, kind: z.unknown(), request: z.unknown() });

// Compile-time check that the schema produces exactly PipelineSpec, both ways.
type Parsed = z.output<typeof pipelineSchema>;
type Assert<T extends true> = T;
export type ParsedIsSpec = Assert<Parsed extends PipelineSpec ? true : false>;
export type SpecIsParsed = Assert<PipelineSpec extends Parsed ? true : false>;
