/**
 * The pipeline file schema (zod v4). It parses the YAML/JSON object of one pipeline file into exactly the
 * `PipelineSpec` of ./spec.ts (checked at compile time at the bottom of this file), fills defaults, and is the
 * single source of pipeline.schema.json (see ./json-schema.ts).
 *
 * Messages are written for the person editing the file: they say what is expected, and list allowed values.
 * Position information is added by ./loader.ts, which maps issue paths back to YAML nodes.
 */
import { closest, distance } from 'fastest-levenshtein';
import { z } from 'zod';
import { CronExpressionParser } from 'cron-parser';
import { DURATION_PATTERN, parseDurationMs } from './duration.js';
import { KINDS } from '../kinds/index.js';
import { builtOnce } from '../lib/built-once.js';
import { hasContentTables } from '../kinds/content.js';
import { contentTableName } from '../db/model/evolve/names.js';
import { isDatabaseUrl, urlFormsText } from '../destinations/url-forms.js';
import type { KindDefinition } from '../kinds/types.js';
import { nonEmpty, positiveInt, whenObject } from './fields.js';
import { defaultDatabaseUrl } from '../settings/process.js';
import { budgetSchema } from '../budget/schema.js';
import { defaultFileName } from '../export/file-name.js';
import { EXPORT_FORMATS, type ExportFormat } from '../export/formats/index.js';
import { targetProblem } from '../export/targets/index.js';
import { TABLE_FORMATS, tableFormatProblem } from '../export/targets/table-formats.js';
import {
  checkCheckAndWatchNames,
  checksSection,
  watchSection,
  withCheckNames,
  withWatchNames,
} from './checks-schema.js';
import {
  DEFAULT_NOTIFY_ON,
  NOTIFY_EVENTS,
  NOTIFY_FORMATS,
  PIPELINE_KINDS,
  type PipelineKind,
  type PipelineSpec,
} from './spec.js';

/** DATABASE_URL when set, else the SQLite file under ./data: the one rule of settings/. */
export { defaultDatabaseUrl };

const duration = (fallback: string) =>
  z
    .string()
    .regex(
      new RegExp(DURATION_PATTERN),
      "expected a duration: a whole number followed by ms, s, m, h or d (e.g. '500ms', '5s', '10m', '6h')",
    )
    .default(fallback);

// The `request` section of each kind is declared by the kind itself (kinds/<kind>.ts).

// ---------------------------------------------------------------------------------------------------------
// Shared sections

const destination = z.strictObject({
  database: z
    .string()
    .refine((s) => isDatabaseUrl(s), `expected ${urlFormsText()}`)
    .optional()
    .describe('default: $DATABASE_URL, else sqlite:./data/scrape-etl.sqlite'),
});

const FILE_NAME_PLACEHOLDERS = ['{pipeline}', '{table}', '{timestamp}'];

const exportSpec = z
  .strictObject({
    dir: nonEmpty.optional().describe('folder the files are written to (or to: for the lake layout)'),
    to: nonEmpty
      .superRefine((t, ctx) => {
        const problem = targetProblem(t);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
      })
      .optional()
      .describe(
        'the lake: s3://bucket/prefix or a folder, written as hive partitions <pipeline>/<table>/load_date=YYYY-MM-DD/ with a manifest per run and table (docs/lake.md)',
      ),
    partition_by: z
      .array(nonEmpty)
      .optional()
      .describe('with to: columns whose values make hive partitions below load_date (left out of the files)'),
    table_format: z
      .enum(TABLE_FORMATS)
      .optional()
      .describe(
        "with to: s3://… and format: parquet: each run's files committed as one snapshot of an Apache Iceberg table per pipeline table in the REST catalog SCRAPE_ETL_ICEBERG_CATALOG names (docs/lake.md)",
      ),
    snapshot: z
      .boolean()
      .optional()
      .describe(
        'with to: also write a compacted current snapshot of each changed table beside its changes (one row per key, its own manifest; docs/lake.md)',
      ),
    format: z.enum(EXPORT_FORMATS).default('csv').describe('file format: csv, parquet, jsonl (JSON Lines) or xlsx'),
    tables: z.array(nonEmpty).default([]).describe('tables to export; empty means every table of the kind'),
    mode: z.enum(['full', 'incremental']).default('full'),
    write_empty: z
      .boolean()
      .default(false)
      .describe(
        'incremental only: when no row of a table is new since the last export, write a file holding no rows (a CSV header) instead of none',
      ),
    delimiter: z.string().length(1, 'must be exactly one character').default(',').describe('CSV only'),
    bom: z.boolean().default(false).describe('CSV only'),
    null_text: z.string().default('').describe('CSV only'),
    file_name: z
      .string()
      .refine(
        (s) => (s.match(/\{[^}]*\}/g) ?? []).every((p) => FILE_NAME_PLACEHOLDERS.includes(p)),
        `only these placeholders are allowed: ${FILE_NAME_PLACEHOLDERS.join(', ')}`,
      )
      .refine((s) => !/[\\/]/.test(s), 'must be a file name, not a path (use dir for the folder)')
      .optional()
      .describe('default: {pipeline}_{table}_{timestamp}.<format extension>'),
    neutralize_formulas: z
      .boolean()
      .default(true)
      .describe('CSV and XLSX: prefix cells starting with = + - @ so spreadsheets do not run them'),
    on_failed_checks: z
      .enum(['run', 'skip'])
      .optional()
      .describe("when an error check of the run failed: 'run' writes this export anyway (default), 'skip' does not"),
  })
  .superRefine(
    (e, ctx) => {
      if ((e.dir === undefined) === (e.to === undefined)) {
        ctx.addIssue({
          code: 'custom',
          path: e.dir === undefined ? ['to'] : ['dir'],
          message:
            e.dir === undefined
              ? 'an export needs dir: (a folder of files) or to: (the lake: s3://bucket/prefix or a folder)'
              : 'give dir: or to:, not both (to: writes the lake layout, dir: plain files)',
        });
      }
      if (e.table_format !== undefined && e.to === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['table_format'],
          message: 'applies to lake exports (to: s3://bucket/prefix) only; remove it or write to: instead of dir:',
        });
      }
      if (e.snapshot !== undefined && e.to === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['snapshot'],
          message:
            'applies to lake exports (to: s3://bucket/prefix or a folder) only; remove it or write to: instead of dir:',
        });
      }
      if (e.partition_by !== undefined && e.to === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['partition_by'],
          message:
            'applies to lake exports (to: s3://bucket/prefix or a folder) only; remove it or write to: instead of dir:',
        });
      }
      if (e.to !== undefined) {
        if (e.file_name !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['file_name'],
            message: 'a lake export names its files part-<run>-<part> so a retry replaces them; remove file_name',
          });
        if (e.mode === 'incremental' || e.write_empty === true) {
          ctx.addIssue({
            code: 'custom',
            path: [e.mode === 'incremental' ? 'mode' : 'write_empty'],
            message:
              "a lake export always writes each run's new and changed rows (its own watermark per target); remove it",
          });
        }
        const tableFormat = tableFormatProblem(e);
        if (tableFormat !== undefined)
          ctx.addIssue({ code: 'custom', path: [tableFormat.key], message: tableFormat.message });
        if (e.partition_by !== undefined && new Set(e.partition_by).size !== e.partition_by.length)
          ctx.addIssue({ code: 'custom', path: ['partition_by'], message: 'names a column twice' });
        if (e.partition_by?.includes('load_date'))
          ctx.addIssue({
            code: 'custom',
            path: ['partition_by'],
            message: 'load_date is always the first partition; remove it',
          });
      }
      if (
        typeof e.file_name === 'string' &&
        !e.file_name.includes('{table}') &&
        (!Array.isArray(e.tables) || e.tables.length !== 1)
      ) {
        ctx.addIssue({
          code: 'custom',
          path: ['file_name'],
          message:
            'must contain {table} unless exactly one table is exported, or every table would write the same file',
        });
      }
      if (e.write_empty === true && e.mode !== 'incremental') {
        ctx.addIssue({
          code: 'custom',
          path: ['write_empty'],
          message: 'applies to mode incremental only (a full export always writes its files); remove it',
        });
      }
      // A CSV setting on another format would be ignored; saying so beats a Parquet file without the asked-for BOM.
      if (e.format !== 'csv') {
        const csvOnly: Array<[keyof typeof e, boolean]> = [
          ['delimiter', e.delimiter !== ','],
          ['bom', e.bom !== false],
          ['null_text', e.null_text !== ''],
        ];
        for (const [key, set] of csvOnly) {
          if (set)
            ctx.addIssue({
              code: 'custom',
              path: [key],
              message: `applies to format csv only (this export is ${e.format}); remove it`,
            });
        }
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
          ctx.addIssue({
            code: 'custom',
            path: ['initial_interval'],
            message: `must not be longer than max_interval (${p.max_interval})`,
          });
        }
      } catch {
        // malformed durations are already reported by their own fields
      }
    },
    { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
  );

export const OVERLAP_POLICIES = [
  'skip',
  'buffer_one',
  'buffer_all',
  'cancel_other',
  'terminate_other',
  'allow_all',
] as const;

function cronProblem(expr: string): string | undefined {
  const text = expr.trim();
  // Temporal's own interval form (`@every 30m`, `@every 5s`), which cron-parser does not know.
  if (/^@every\s+\d+(ms|s|m|h)$/.test(text)) return undefined;
  if (text.startsWith('@every')) return `expected '@every <n>s', '@every <n>m' or '@every <n>h', got '${text}'`;
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
  overlap: z
    .enum(OVERLAP_POLICIES)
    .default('skip')
    .describe('what happens when a run is due while the previous one still runs'),
  catchup_window: duration('1h').describe('how late a missed run may still start (e.g. after downtime)'),
  paused: z.boolean().default(false),
});

export { DEFAULT_NOTIFY_ON };

// The URL stays a template here (pipelines/loader.ts does not expand `${...}` under notify.webhooks[].url): the
// worker expands it from its own environment when it sends (activities/notify.ts), so a Slack webhook's secret
// path never enters the workflow's input or history.
const webhookUrl = z
  .string()
  .refine(
    (s) =>
      /\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}/.test(s) || (URL.canParse(s) && /^https?:$/.test(new URL(s).protocol)),
    "expected an http(s) URL or a reference to the worker's environment such as '${SLACK_WEBHOOK_URL}'",
  )
  .describe("webhook URL; '${VAR}' is expanded by the worker from its environment when it sends");

const notify = z.strictObject({
  webhooks: z
    .array(
      z.strictObject({
        url: webhookUrl,
        format: z
          .enum(NOTIFY_FORMATS)
          .default('json')
          .describe("json: scrape-etl's own body; slack: a Slack incoming-webhook message"),
        on: z
          .array(z.enum(NOTIFY_EVENTS))
          .min(1, 'needs at least one event')
          .default([...DEFAULT_NOTIFY_ON])
          .describe('events sent to this webhook'),
      }),
    )
    .default([]),
  duration_over: z
    .string()
    .regex(
      new RegExp(DURATION_PATTERN),
      "expected a duration: a whole number followed by ms, s, m, h or d (e.g. '30m', '2h')",
    )
    .optional()
    .describe('a run longer than this also sends duration_over'),
  deliver_within: z
    .string()
    .regex(new RegExp(DURATION_PATTERN), "expected a duration: a whole number followed by ms, s, m, h or d (e.g. '2m')")
    .refine(
      (d) => parseDurationMs(d) >= 5_000 && parseDurationMs(d) <= 30 * 60_000,
      'expected a duration from 5s to 30m',
    )
    .optional()
    .describe(
      "how long the run's alert deliveries may take in all, retries included (default 2m); the run then ends and reports what was not delivered",
    ),
});

const retention = z.strictObject({
  raw_responses: z
    .string()
    .regex(
      new RegExp(DURATION_PATTERN),
      "expected a duration: a whole number followed by ms, s, m, h or d (e.g. '30d')",
    )
    .optional()
    .describe('raw response bodies older than this are pruned (bodies that current rows were loaded from stay)'),
  exports: positiveInt
    .optional()
    .describe('export files kept per export entry and table (newest first); older ones are deleted'),
});

const pipelineName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]*$/, 'expected lowercase letters, digits, _ and -, starting with a letter or digit')
  .max(100, 'must be at most 100 characters')
  // Workflow ids are `<name>--<runKey>`; a '--' inside the name would make them ambiguous.
  .refine((s) => !s.includes('--'), "must not contain '--'");

const schemaContract = z
  .strictObject({
    mode: z
      .enum(['evolve', 'freeze', 'discard_columns'])
      .default('evolve')
      .describe(
        'evolve: new fields add columns and tables, a type change adds a variant column; freeze: anything new fails the load, nothing of it is written; discard_columns: new fields are dropped, the rest loads',
      ),
  })
  .describe('schema contract of the tables this pipeline writes');

// A dot path into result content: `email`, `author.handle` (keys as the service sends them).
const CONTENT_PATH = /^[^.\s][^.]*(\.[^.\s][^.]*)*$/;
const mergeKey = z
  .array(
    z.string().regex(CONTENT_PATH, "expected a content path such as 'email' or 'author.handle' (keys joined by '.')"),
  )
  .min(1, 'list at least one content path, or leave merge_key out to key rows by result id')
  .refine((a) => new Set(a).size === a.length, 'lists a path twice')
  .describe(
    "content paths whose values identify one row of <pipeline>_items (e.g. [email]); later runs update that row. Default: the service's result id",
  );

const common = {
  name: pipelineName,
  destination: destination.optional(),
  exports: z.array(exportSpec).default([]),
  polling: polling.prefault({}),
  concurrency: positiveInt.max(64).default(4).describe('how many URLs of a list are scraped at once'),
  price_divisor: positiveInt.default(100000).describe('integer price / divisor = price in major units'),
  schedule: schedule.optional(),
  schema: schemaContract.prefault({}),
  merge_key: mergeKey.optional(),
  notify: notify.optional(),
  retention: retention.optional(),
  budget: budgetSchema.optional(),
  checks: checksSection.describe('data checks evaluated after the load of every run (docs/checks.md)'),
  watch: watchSection.describe(
    'data events (price_drop, back_in_stock, new_rows, ...) delivered through notify.webhooks (docs/checks.md)',
  ),
};

function withDefaults<
  T extends { name: string; destination?: { database?: string | undefined } | undefined; schedule?: unknown },
>(s: T) {
  const { destination: dest, schedule: sched, ...rest } = s;
  return {
    ...rest,
    destination: { database: dest?.database ?? defaultDatabaseUrl() },
    ...(sched === undefined ? {} : { schedule: sched as Exclude<T['schedule'], undefined> }),
  };
}

/**
 * The default file name's extension follows the format. Filled here, on the whole pipeline, rather than by a
 * transform on each export: a transform inside the list would drop the list's default from the JSON Schema.
 */
function withExportFileNames<T extends { exports: Array<{ format: ExportFormat; file_name?: string | undefined }> }>(
  s: T,
): Omit<T, 'exports'> & { exports: Array<Omit<T['exports'][number], 'file_name'> & { file_name: string }> } {
  type Export = T['exports'][number];
  return {
    ...s,
    exports: s.exports.map((e: Export) => ({ ...e, file_name: e.file_name ?? defaultFileName(e.format) })),
  };
}

/** Every check and watch gets its name (the default derived from its type, table and column). */
function withCheckAndWatchNames<
  T extends { checks?: Parameters<typeof withCheckNames>[0]; watch?: Parameters<typeof withWatchNames>[0] },
>(s: T) {
  const { checks, watch, ...rest } = s;
  const c = withCheckNames(checks);
  const w = withWatchNames(watch);
  return { ...rest, ...(c ? { checks: c } : {}), ...(w ? { watch: w } : {}) };
}

function withRequestName<T extends { name: string; request: { name?: string | undefined } }>(s: T) {
  return { ...s, request: { ...s.request, name: s.request.name ?? s.name } };
}

/** One member of the union: the shared keys, the kind's literal and its request section, then the defaults. */
function pipelineOf<K extends PipelineKind>(def: KindDefinition<K>) {
  const request = def.requestOptional ? def.request.prefault({} as never) : def.request;
  return z
    .strictObject({ ...common, kind: z.literal(def.kind), request })
    .superRefine((p, ctx) => {
      checkExportTables(def, p.name, p.exports, ctx);
      checkCheckAndWatchNames(p, def.tables, hasContentTables(def) ? contentTableName(p.name) : undefined, ctx);
      const table = p.exports.findIndex((e) => e.table_format !== undefined);
      if (p.retention?.exports !== undefined && table >= 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['retention', 'exports'],
          message: `exports[${table}] commits to an ${p.exports[table]!.table_format} table whose snapshots reference the lake's files, which retention would delete; expire snapshots in the catalog instead, or remove retention.exports`,
        });
      }
      if (p.merge_key !== undefined && def.mode === 'url-list') {
        ctx.addIssue({
          code: 'custom',
          path: ['merge_key'],
          message: `applies to pdf, leads-* and results pipelines, whose content lands in an inferred table; ${def.kind} rows have a fixed natural key (${def.kind === 'job-board' ? 'job_key' : 'shop_id, item_id'}): remove merge_key`,
        });
      }
    })
    .transform((s) =>
      withCheckAndWatchNames(
        withExportFileNames(
          withDefaults(
            def.defaultsRequestName ? withRequestName(s as typeof s & { request: { name?: string | undefined } }) : s,
          ),
        ),
      ),
    );
}

/** Export table names must be tables the kind writes: a typo would otherwise export nothing, silently. */
function checkExportTables(
  def: KindDefinition<PipelineKind>,
  pipeline: string,
  exports: ReadonlyArray<{ tables: string[] }>,
  ctx: z.RefinementCtx,
): void {
  // Content kinds also write <pipeline>_items and its child tables, whose names are known only once data came.
  const content = hasContentTables(def) ? contentTableName(pipeline) : undefined;
  const known = content ? [...def.tables, content] : [...def.tables];
  for (const [i, e] of exports.entries()) {
    for (const [j, table] of e.tables.entries()) {
      if (known.includes(table) || (content !== undefined && table.startsWith(`${content}__`))) continue;
      const nearest = closest(table, known);
      const hint =
        distance(table, nearest) <= Math.max(2, Math.floor(nearest.length / 3)) ? `did you mean '${nearest}'? ` : '';
      ctx.addIssue({
        code: 'custom',
        path: ['exports', i, 'tables', j],
        message: `'${table}' is not a table of kind '${def.kind}'; ${hint}its tables: ${known.join(', ')}${content ? ` and ${content}__<array>` : ''}`,
      });
    }
  }
}

type PipelineMember = ReturnType<typeof pipelineOf<PipelineKind>>;

const members = new Map<PipelineKind, PipelineMember>();

/** The member of `kind`, built at its first use and kept: a command that checks one kind's files builds that one. */
function memberOf(kind: PipelineKind): PipelineMember {
  let member = members.get(kind);
  if (member === undefined) {
    member = pipelineOf(KINDS[kind] as KindDefinition<PipelineKind>);
    members.set(kind, member);
  }
  return member;
}

/**
 * Every kind of the registry, in PIPELINE_KINDS order. Each member's output is the kind's PipelineSpec: the kind
 * registry checks each request schema against its RequestSpec type (kinds/types.ts), the shared keys are the
 * same for all, and the assertion below checks the shared keys both ways.
 */
function unionOf(kinds: readonly PipelineKind[]) {
  return z.discriminatedUnion('kind', kinds.map(memberOf) as [PipelineMember, ...PipelineMember[]]);
}
type PipelineUnion = ReturnType<typeof unionOf>;
// Built from a list, the union's static output pairs any kind with any request; each pair is what its registry
// entry declares, so the output is exactly PipelineSpec.
export type PipelineSchema = z.ZodType<PipelineSpec, z.input<PipelineUnion>>;

let union: PipelineSchema | undefined;

/**
 * The schema of a pipeline of any kind: the union of every kind's member, built at the first call (the JSON Schema,
 * and a file whose kind is missing or unknown, for which the union words the message listing the kinds).
 */
export function pipelineSchema(): PipelineSchema {
  return (union ??= unionOf(PIPELINE_KINDS) as unknown as PipelineSchema);
}

/**
 * The schema that checks `data` as pipelineSchema() does, with only the member its `kind` picks built: the union
 * runs exactly that member for a mapping whose kind is known, so the outcome is the same
 * (test/fast/pipelines/pipelines-schema-per-kind.test.ts), and a command that checks one file builds one member.
 */
export function pipelineSchemaFor(data: unknown): PipelineSchema {
  const kind =
    data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as { kind?: unknown }).kind : undefined;
  return typeof kind === 'string' && (PIPELINE_KINDS as readonly string[]).includes(kind)
    ? (memberOf(kind as PipelineKind) as unknown as PipelineSchema)
    : pipelineSchema();
}

/**
 * The keys every pipeline shares, with `kind` and `request` left open. The loader validates a file against it
 * when `kind` is missing or unknown, so the other mistakes of that file are still reported in the same run. Built at
 * its first call: a file whose kind is known never needs it.
 */
export const pipelineBaseSchema = builtOnce(() =>
  z.strictObject({ ...common, kind: z.unknown(), request: z.unknown() }),
);

// Compile-time check that the schema produces PipelineSpec, the shared keys both ways.
type Parsed = z.output<PipelineUnion>;
type Assert<T extends true> = T;
type Shared<T> = Omit<T, 'kind' | 'request'>;
export type ParsedIsSpec = Assert<Shared<Parsed> extends Shared<PipelineSpec> ? true : false>;
export type SpecIsParsed = Assert<Shared<PipelineSpec> extends Shared<Parsed> ? true : false>;
